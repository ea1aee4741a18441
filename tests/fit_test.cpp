// The hair-chain fitter on the demo ponytail (weights erased by the fitter), Quaternius and UBC
// hair, with the SPEC M4/M5 robustness cases that apply to chain fitting.
#include <cmath>

#include <glm/gtc/matrix_transform.hpp>

#include "hairswing/demo.h"
#include "hairswing/fit.h"
#include "hairswing/io.h"
#include "hairswing/motion.h"
#include "hairswing/spring.h"
#include "test_util.h"

namespace hairswing {
namespace {

// Rest-pose positions of one primitive in world space.
std::vector<glm::vec3> RestWorld(const Avatar& av, int mesh, int prim) {
  auto rig = BuildRig(av);
  EXPECT_TRUE(rig.ok());
  std::vector<glm::mat4> pal(1024);
  const Primitive& p = av.meshes[mesh].primitives[prim];
  std::vector<glm::vec3> out(p.positions.size());
  for (const MeshInstance& inst : rig->meshes)
    if (inst.mesh == mesh) EXPECT_TRUE(PosePrimitive(*rig, inst, p, rig->rest_world, pal, out).ok());
  return out;
}

int MeshIndex(const Avatar& av, const std::string& name) {
  for (size_t m = 0; m < av.meshes.size(); ++m)
    if (av.meshes[m].name == name) return static_cast<int>(m);
  return -1;
}

TEST(Fit, DemoPonytailGetsOneSwingingChainThatSettlesAndPinsTheRoot) {
  Avatar av = MakeDemoAvatar(DemoVariant::kPonytail);
  const int m = MeshIndex(av, "Ponytail");
  const size_t springs_before = av.vrm.springs.size();
  const auto rest_before = RestWorld(av, m, 0);
  auto sel = SelectHair(av, "Ponytail");
  ASSERT_TRUE(sel.ok());
  auto fit = FitHairChains(av, sel.value(), {});
  ASSERT_TRUE(fit.ok()) << fit.status().message();
  EXPECT_EQ(fit->chains, 1);
  ASSERT_EQ(av.vrm.springs.size(), springs_before + 1);
  EXPECT_EQ(av.vrm.springs.back().joints.size(), 6u);
  // The rest pose is unchanged by the new skin (within 1e-5 m).
  const auto rest_after = RestWorld(av, m, 0);
  for (size_t v = 0; v < rest_before.size(); ++v) ASSERT_LT(glm::length(rest_after[v] - rest_before[v]), 1e-5f) << v;

  // Head-turn with arc: the tip moves more than 1 cm, settles, and pinned vertices follow the head.
  auto rig = BuildRig(av);
  auto world = SpringWorld::Create(*rig);
  HeadTurnMotion motion(*rig, HumanoidRigNode(av, *rig, "head"), HumanoidRigNode(av, *rig, "hips"));
  ClipDriver driver(*world, motion);
  driver.Reset();
  const RigChain& ch = rig->chains.back();
  const glm::vec3 tip0 = world->tails()[ch.joint_end - 2];
  const int head = HumanoidRigNode(av, *rig, "head");
  const Primitive& p = av.meshes[m].primitives[0];
  const Skin& skin = av.skins[av.nodes[rig->source_node[rig->meshes[0].node]].skin];
  (void)skin;
  std::vector<glm::mat4> w(rig->node_count()), pal(1024);
  std::vector<glm::vec3> posed(p.positions.size());
  MeshInstance inst;
  for (const MeshInstance& mi : rig->meshes)
    if (mi.mesh == m) inst = mi;
  const RigSkin& rs = rig->skins[inst.skin];
  float tip_move = 0, settle = 0, pin_dev = 0;
  glm::vec3 prev_tip = tip0;
  for (int f = 1; f <= 12 * 30; ++f) {
    driver.Advance(1.0 / 30.0);
    const glm::vec3 tip = world->tails()[ch.joint_end - 2];
    tip_move = std::max(tip_move, glm::length(tip - tip0));
    if (f > 10 * 30) settle = std::max(settle, glm::length(tip - prev_tip));
    prev_tip = tip;
    if (f % 15 == 0) {
      ComputeWorld(*rig, driver.pose(), w);
      ASSERT_TRUE(PosePrimitive(*rig, inst, p, w, pal, posed).ok());
      const glm::mat4 head_delta = w[head] * glm::inverse(rig->rest_world[head]);
      for (size_t v = 0; v < p.positions.size(); ++v)
        if (p.weights[v].x == 1.0f && rs.joints[p.joints[v].x] == head)
          pin_dev = std::max(pin_dev, glm::length(posed[v] - glm::vec3(head_delta * glm::vec4(rest_before[v], 1))));
    }
  }
  std::printf("ponytail fit: tip moved %.1f mm, settle %.2e mm, pinned band deviation %.2e mm\n", tip_move * 1000,
              settle * 1000, pin_dev * 1000);
  EXPECT_GT(tip_move, 0.01f);
  EXPECT_LT(settle * 1000, 0.001f);
  EXPECT_LT(pin_dev * 1000, 0.1f);
}

TEST(Fit, UndoRestoresTheOriginalExactly) {
  Avatar av = MakeDemoAvatar(DemoVariant::kPonytail);
  const auto before = EncodeGlb(av, true).value();
  auto fit = FitHairChains(av, SelectHair(av, "Ponytail").value(), {});
  ASSERT_TRUE(fit.ok());
  // Through a file round trip, as `hairswing fit --undo` does.
  auto bytes = EncodeGlb(av, true).value();
  auto loaded = LoadAvatarFromMemory(bytes.data(), bytes.size(), "fitted.vrm", ".");
  ASSERT_TRUE(loaded.ok());
  Avatar back = loaded->avatar;
  ASSERT_TRUE(UndoFit(back).ok());
  EXPECT_EQ(EncodeGlb(back, true).value(), before);
  EXPECT_FALSE(UndoFit(back).ok());  // nothing left to undo
}

TEST(Fit, RenamedBonesAndScaleGiveTheSameResult) {
  auto joints_of = [](const Avatar& av) {
    auto rig = BuildRig(av);
    std::vector<glm::vec3> out;
    for (int j = rig->chains.back().joint_begin; j < rig->chains.back().joint_end; ++j) out.push_back(glm::vec3(rig->rest_world[rig->joint_node[j]][3]));
    return out;
  };
  Avatar base = MakeDemoAvatar(DemoVariant::kPonytail);
  ASSERT_TRUE(FitHairChains(base, SelectHair(base, "Ponytail").value(), {}).ok());
  const auto ref = joints_of(base);
  // Renamed: every node gets a meaningless name; the VRM humanoid still says which is the head.
  Avatar renamed = MakeDemoAvatar(DemoVariant::kPonytail);
  for (size_t n = 0; n < renamed.nodes.size(); ++n) renamed.nodes[n].name = "n" + std::to_string(n * 7919 % 1000);
  ASSERT_TRUE(FitHairChains(renamed, SelectHair(renamed, "Ponytail").value(), {}).ok());
  const auto r = joints_of(renamed);
  ASSERT_EQ(r.size(), ref.size());
  for (size_t i = 0; i < r.size(); ++i) EXPECT_LT(glm::length(r[i] - ref[i]), 1e-6f);
  // Scaled by 0.01 and by 100 at the root: the same joints, scaled.
  for (float s : {0.01f, 100.0f}) {
    SCOPED_TRACE(s);
    Avatar scaled = MakeDemoAvatar(DemoVariant::kPonytail);
    for (int root : scaled.scene_roots) scaled.nodes[root].scale *= s;
    for (int root : scaled.scene_roots) scaled.nodes[root].translation *= s;
    ASSERT_TRUE(FitHairChains(scaled, SelectHair(scaled, "Ponytail").value(), {}).ok());
    const auto j = joints_of(scaled);
    ASSERT_EQ(j.size(), ref.size());
    for (size_t i = 0; i < j.size(); ++i) EXPECT_LT(glm::length(j[i] / s - ref[i]), 1e-4f) << i;
  }
}

TEST(Fit, ClearErrors) {
  // Missing head role: a plain skeleton with no humanoid and no known names.
  Avatar no_head = MakeDemoAvatar(DemoVariant::kPonytail);
  no_head.vrm.humanoid.clear();
  for (auto& n : no_head.nodes) n.name = "x" + n.name;
  auto e1 = FitHairChains(no_head, SelectHair(no_head, "Ponytail").value(), {});
  ASSERT_FALSE(e1.ok());
  EXPECT_NE(e1.status().message().find("\"head\""), std::string::npos) << e1.status().message();
  // Hair that does not touch the head: the ponytail moved 1 m away in bind space.
  Avatar far = MakeDemoAvatar(DemoVariant::kPonytail);
  for (auto& p : far.meshes[MeshIndex(far, "Ponytail")].primitives[0].positions) p += glm::vec3(1, 0, 0);
  auto e2 = FitHairChains(far, SelectHair(far, "Ponytail").value(), {});
  ASSERT_FALSE(e2.ok());
  EXPECT_NE(e2.status().message().find("does not touch"), std::string::npos) << e2.status().message();
  // A one-triangle hair.
  Avatar tiny = MakeDemoAvatar(DemoVariant::kPonytail);
  Primitive& p = tiny.meshes[MeshIndex(tiny, "Ponytail")].primitives[0];
  p.indices.resize(3);
  auto e3 = FitHairChains(tiny, SelectHair(tiny, "Ponytail").value(), {});
  ASSERT_FALSE(e3.ok());
  EXPECT_NE(e3.status().message().find("1 triangle"), std::string::npos) << e3.status().message();
  // Selectors.
  EXPECT_FALSE(SelectHair(tiny, "NoSuchMesh").ok());
  EXPECT_FALSE(SelectHair(tiny, "Ponytail/3").ok());
  EXPECT_FALSE(SelectHair(tiny, "material:Nope").ok());
  EXPECT_TRUE(SelectHair(tiny, "Ponytail/0").ok());
  EXPECT_TRUE(SelectHair(tiny, "material:Hair").ok());
}

TEST(Fit, RealHairOnQuaterniusAndUbc) {
  HS_LOAD_SHARED_OR_SKIP(casual, "avatars/quaternius-casual.glb");
  auto sel = SelectHair(casual.avatar, "material:Hair_Blond");
  ASSERT_TRUE(sel.ok());
  const auto [m, p] = sel->primitives[0];
  const auto before = RestWorld(casual.avatar, m, p);
  auto fit = FitHairChains(casual.avatar, sel.value(), {});
  ASSERT_TRUE(fit.ok()) << fit.status().message();
  EXPECT_GE(fit->chains, 1);
  // Centimetre geometry under a scaled, rotated root: the new joints' bind matrices must keep the
  // rest pose exactly where it was.
  const auto after = RestWorld(casual.avatar, m, p);
  for (size_t v = 0; v < before.size(); ++v) ASSERT_LT(glm::length(after[v] - before[v]), 1e-4f) << v;

  HS_LOAD_SHARED_OR_SKIP(body, "avatars/ubc/Superhero_Female_FullBody.gltf");
  HS_LOAD_SHARED_OR_SKIP(hair, "avatars/ubc/Hair_Long.gltf");
  std::vector<std::string> warnings;
  auto worn = WearHair(body.avatar, hair.avatar, &warnings);
  ASSERT_TRUE(worn.ok()) << worn.status().message();
  auto f2 = FitHairChains(body.avatar, SelectHair(body.avatar, "Hair_Long").value(), {});
  ASSERT_TRUE(f2.ok()) << f2.status().message();
  EXPECT_GE(f2->chains, 1);
  auto bytes = EncodeGlb(body.avatar, true);
  ASSERT_TRUE(bytes.ok()) << bytes.status().message();
}

}  // namespace
}  // namespace hairswing
