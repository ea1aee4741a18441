// RigBuilder and skinning against hand-computed answers.
#include "hairswing/rig.h"

#include <glm/gtc/matrix_transform.hpp>

#include "hairswing/io.h"
#include "test_util.h"

namespace hairswing {
namespace {

// Reference world matrix by plain recursion over the Avatar (not the Rig's flat order).
glm::mat4 RefWorld(const Avatar& av, int n) {
  const Node& nd = av.nodes[n];
  glm::mat4 m = glm::translate(glm::mat4(1), nd.translation) * glm::mat4_cast(nd.rotation) *
                glm::scale(glm::mat4(1), nd.scale);
  return nd.parent < 0 ? m : RefWorld(av, nd.parent) * m;
}

TEST(Rig, ParentsBeforeChildrenAndRestWorldMatchesRecursion) {
  HS_LOAD_SHARED_OR_SKIP(loaded, "avatars/godette.vrm");
  const Avatar& av = loaded.avatar;
  auto rig = BuildRig(av);
  ASSERT_TRUE(rig.ok()) << rig.status().message();
  EXPECT_EQ(rig->node_count(), av.nodes.size() + 8);  // + one synthetic tail per chain
  for (size_t i = 0; i < rig->node_count(); ++i) EXPECT_LT(rig->parent()[i], static_cast<int>(i));
  for (size_t n = 0; n < av.nodes.size(); ++n) {
    glm::mat4 ref = RefWorld(av, static_cast<int>(n));
    const glm::mat4& got = rig->rest_world()[rig->node_to_rig()[n]];
    for (int c = 0; c < 4; ++c)
      for (int r = 0; r < 4; ++r) EXPECT_NEAR(got[c][r], ref[c][r], 1e-5f) << "node " << n;
  }
}

TEST(Rig, GodetteChainsAndVirtualTails) {
  HS_LOAD_SHARED_OR_SKIP(loaded, "avatars/godette.vrm");
  const Avatar& av = loaded.avatar;
  auto rig = BuildRig(av);
  ASSERT_TRUE(rig.ok());
  ASSERT_EQ(rig->chains().size(), 8u);
  for (const RigChain& ch : rig->chains()) {
    ASSERT_EQ(ch.joint_end - ch.joint_begin, 3);
    int end_node = rig->joint_node()[ch.joint_begin + 1];
    int tail_node = rig->joint_node()[ch.joint_begin + 2];
    EXPECT_EQ(rig->source_node()[tail_node], -1);  // synthetic
    EXPECT_EQ(rig->parent()[tail_node], end_node);
    // Tail = End + 7 cm (times End's world scale) along End's own local offset direction.
    const Node& end = av.nodes[rig->source_node()[end_node]];
    glm::vec3 dir_world = glm::mat3(rig->rest_world()[end_node]) * glm::normalize(end.translation);
    glm::vec3 expect = glm::vec3(rig->rest_world()[end_node][3]) + 0.07f * dir_world;
    EXPECT_LT(glm::length(glm::vec3(rig->rest_world()[tail_node][3]) - expect), 1e-6f);
    EXPECT_EQ(ch.attach, rig->parent()[rig->joint_node()[ch.joint_begin]]);
    EXPECT_FLOAT_EQ(rig->joint_hit_radius()[ch.joint_begin], 0.02f);
  }
  // Front hair (group 0) collides with the head group's two spheres; hair balls with none.
  size_t with_two = 0, with_none = 0;
  for (const RigChain& ch : rig->chains()) {
    int n = ch.collider_end - ch.collider_begin;
    with_two += n == 2;
    with_none += n == 0;
  }
  EXPECT_EQ(with_two, 5u);  // 4 front hair + ribbon (chest group, also 2 spheres)
  EXPECT_EQ(with_none, 3u);
}

TEST(Rig, SkinnedRestPoseReproducesBindPositions) {
  HS_LOAD_SHARED_OR_SKIP(loaded, "avatars/godette.vrm");
  const Avatar& av = loaded.avatar;
  auto rig = BuildRig(av);
  ASSERT_TRUE(rig.ok());
  std::vector<glm::mat4> palette(128);
  for (const MeshInstance& inst : rig->meshes()) {
    for (const Primitive& p : av.meshes[inst.mesh].primitives) {
      std::vector<glm::vec3> out(p.positions.size());
      ASSERT_TRUE(PosePrimitive(*rig, inst, p, rig->rest_world(), palette, out).ok());
      float worst = 0;
      for (size_t v = 0; v < out.size(); ++v)
        worst = std::max(worst, glm::length(out[v] - p.positions[v]));
      EXPECT_LT(worst, 1e-4f) << av.meshes[inst.mesh].name;
    }
  }
}

TEST(Skinning, HandComputedBlend) {
  // Joint 0 at rest (identity); joint 1 moved up 1 m and turned 90 degrees about +Z.
  glm::mat4 j1 = glm::translate(glm::mat4(1), glm::vec3(0, 1, 0)) *
                 glm::rotate(glm::mat4(1), glm::radians(90.0f), glm::vec3(0, 0, 1));
  std::vector<glm::mat4> palette = {glm::mat4(1), j1};
  std::vector<glm::vec3> pos = {{1, 0, 0}, {1, 0, 0}, {1, 0, 0}, {2, 0, 0}};
  std::vector<glm::u16vec4> joints = {{0, 0, 0, 0}, {1, 0, 0, 0}, {0, 1, 0, 0}, {1, 0, 0, 0}};
  std::vector<glm::vec4> weights = {{1, 0, 0, 0}, {1, 0, 0, 0}, {0.5f, 0.5f, 0, 0}, {2, 0, 0, 0}};
  std::vector<glm::vec3> out(4);
  SkinningJob job{palette, pos, joints, weights, out};
  ASSERT_TRUE(job.Validate().ok());
  job.Run();
  // (1,0,0) rotated 90 deg about Z is (0,1,0), then +1 in y -> (0,2,0).
  EXPECT_LT(glm::length(out[0] - glm::vec3(1, 0, 0)), 1e-6f);
  EXPECT_LT(glm::length(out[1] - glm::vec3(0, 2, 0)), 1e-6f);
  EXPECT_LT(glm::length(out[2] - glm::vec3(0.5f, 1.0f, 0)), 1e-6f);
  // Weights that do not sum to one are normalised: 2 * M p / 2.
  EXPECT_LT(glm::length(out[3] - glm::vec3(0, 3, 0)), 1e-6f);
}

TEST(Skinning, ValidateRejectsBadInput) {
  std::vector<glm::mat4> palette = {glm::mat4(1)};
  std::vector<glm::vec3> pos = {{0, 0, 0}};
  std::vector<glm::u16vec4> joints = {{3, 0, 0, 0}};
  std::vector<glm::vec4> weights = {{1, 0, 0, 0}};
  std::vector<glm::vec3> out(1), short_out;
  EXPECT_FALSE((SkinningJob{palette, pos, joints, weights, out}.Validate().ok()));
  joints[0] = {0, 0, 0, 0};
  EXPECT_TRUE((SkinningJob{palette, pos, joints, weights, out}.Validate().ok()));
  EXPECT_FALSE((SkinningJob{palette, pos, joints, weights, short_out}.Validate().ok()));
}

TEST(Rig, ThreeVrmFixtureChainAndColliders) {
  HS_LOAD_SHARED_OR_SKIP(loaded, "fixtures/three-vrm/sphere-collider.gltf");
  auto rig = BuildRig(loaded.avatar);
  ASSERT_TRUE(rig.ok());
  ASSERT_EQ(rig->chains().size(), 1u);
  EXPECT_EQ(rig->chains()[0].joint_end - rig->chains()[0].joint_begin, 5);
  EXPECT_EQ(rig->chains()[0].attach, -1);  // Spring A is a scene root
  ASSERT_EQ(rig->collider_node().size(), 1u);
  EXPECT_EQ(rig->source_node()[rig->collider_node()[0]], 5);
  EXPECT_EQ(std::vector<int>(rig->chain_colliders().begin(), rig->chain_colliders().end()),
            std::vector<int>{0});
  // Node scale 0.25 on the root: the rest world of Spring B is scaled accordingly.
  int b = rig->joint_node()[1];
  EXPECT_NEAR(glm::length(glm::vec3(rig->rest_world()[b][0])), 0.25f, 1e-6f);
}

}  // namespace
}  // namespace hairswing
