// Clip sampling and node constraints against hand-computed cases.
#include "hairswing/anim.h"

#include <glm/gtc/matrix_transform.hpp>

#include "hairswing/io.h"
#include "synthetic.h"
#include "test_util.h"

namespace hairswing {
namespace {

Track MakeTrack(AnimationChannel::Path path, AnimationChannel::Interp interp,
                std::vector<float> times, std::vector<float> values) {
  Track t;
  t.node = 0;
  t.path = path;
  t.interpolation = interp;
  t.times = std::move(times);
  t.values = std::move(values);
  return t;
}

TEST(ClipSampling, LinearStepAndCubicKeys) {
  using P = AnimationChannel::Path;
  using I = AnimationChannel::Interp;
  float v[4];
  Track lin = MakeTrack(P::kTranslation, I::kLinear, {0, 2}, {0, 0, 0, 2, 4, -6});
  SampleTrack(lin, 1.0, v);
  EXPECT_FLOAT_EQ(v[0], 1.0f);
  EXPECT_FLOAT_EQ(v[1], 2.0f);
  EXPECT_FLOAT_EQ(v[2], -3.0f);
  SampleTrack(lin, -5.0, v);  // before the first key: the first value
  EXPECT_FLOAT_EQ(v[0], 0.0f);
  SampleTrack(lin, 9.0, v);  // after the last key: the last value
  EXPECT_FLOAT_EQ(v[0], 2.0f);
  // A time just below the last key in double precision that rounds up to it in float (this once
  // read past the end of the keys).
  Track f3 = MakeTrack(P::kTranslation, I::kLinear, {0, 0.6666667f}, {0, 0, 0, 3, 0, 0});
  SampleTrack(f3, 20.0 / 30.0, v);
  EXPECT_NEAR(v[0], 3.0f, 1e-5f);
  Track step = MakeTrack(P::kTranslation, I::kStep, {0, 1}, {5, 0, 0, 7, 0, 0});
  SampleTrack(step, 0.99, v);
  EXPECT_FLOAT_EQ(v[0], 5.0f);
  // Cubic spline, keys at 0 and 2 (dt = 2), values 0 and 1, out-tangent of key 0 = 2, in-tangent
  // of key 1 = 0. At s = 0.5: h00 = 0.5, h10 = 0.125, h01 = 0.5, h11 = -0.125 ->
  // 0.5*0 + 0.125*2*2 + 0.5*1 + (-0.125)*2*0 = 1.0.
  Track cubic =
      MakeTrack(P::kTranslation, I::kCubicSpline, {0, 2},
                {0, 0, 0, /*v0*/ 0, 0, 0, /*b0*/ 2, 0, 0, /*a1*/ 0, 0, 0, /*v1*/ 1, 0, 0, 0, 0, 0});
  SampleTrack(cubic, 1.0, v);
  EXPECT_NEAR(v[0], 1.0f, 1e-6f);
  // Rotation: halfway between identity and 90 degrees about Y is 45 degrees, also when the second
  // key is stored as the negated quaternion (shortest path).
  const glm::quat q90 = glm::angleAxis(glm::radians(90.0f), glm::vec3(0, 1, 0));
  Track rot =
      MakeTrack(P::kRotation, I::kLinear, {0, 1}, {0, 0, 0, 1, -q90.x, -q90.y, -q90.z, -q90.w});
  SampleTrack(rot, 0.5, v);
  glm::quat q(v[3], v[0], v[1], v[2]);
  EXPECT_NEAR(glm::degrees(glm::angle(q)), 45.0f, 1e-3f);
  EXPECT_GT(q.y * q.w, 0.0f);  // about +Y
}

TEST(ClipSampler, LoopOnceAndRestart) {
  Avatar av = test::MakeHairAvatar({});
  Animation a;
  a.name = "sway";
  AnimationChannel ch;
  ch.node = 0;
  ch.path = AnimationChannel::Path::kTranslation;
  ch.times = {0, 1};
  ch.values = {0, 1, 0, 1, 1, 0};
  a.channels.push_back(ch);
  av.animations.push_back(a);
  auto rig = BuildRig(av);
  auto clip = Clip::FromAvatar(av, *rig, 0);
  ASSERT_TRUE(clip.ok());
  EXPECT_DOUBLE_EQ(clip->duration, 1.0);
  EXPECT_EQ(clip->AnimatedNodes(rig->node_count())[rig->node_to_rig()[0]], 1);
  std::vector<Transform> pose(rig->node_count());
  ClipSampler loop(*rig, *clip, {}, ClipSampler::Playback::kLoop);
  loop.Sample(1.25, pose);  // wraps to 0.25
  EXPECT_NEAR(pose[rig->node_to_rig()[0]].translation.x, 0.25f, 1e-6f);
  ClipSampler once(*rig, *clip, {}, ClipSampler::Playback::kOnce);
  once.Sample(1.25, pose);  // holds the last key
  EXPECT_NEAR(pose[rig->node_to_rig()[0]].translation.x, 1.0f, 1e-6f);
  once.Restart(1.0);  // replay the action from t = 1
  once.Sample(1.5, pose);
  EXPECT_NEAR(pose[rig->node_to_rig()[0]].translation.x, 0.5f, 1e-6f);
  EXPECT_FALSE(Clip::FromAvatar(av, *rig, 3).ok());
}

// A three-node scene: root, source (child of root) and destination (child of root).
struct ConstraintScene {
  Avatar av;
  ConstraintScene(NodeConstraint::Kind kind, float weight, const std::string& axis,
                  glm::vec3 source_offset) {
    Node root;
    root.name = "root";
    root.children = {1, 2};
    Node src;
    src.name = "src";
    src.parent = 0;
    src.translation = source_offset;
    Node dst;
    dst.name = "dst";
    dst.parent = 0;
    av.nodes = {root, src, dst};
    av.scene_roots = {0};
    NodeConstraint c;
    c.node = 2;
    c.source = 1;
    c.kind = kind;
    c.weight = weight;
    c.axis = axis;
    av.vrm.constraints.push_back(c);
  }
};

float AngleAbout(const glm::quat& q, const glm::vec3& axis) {
  // Signed rotation angle of q about `axis` (q assumed to be a rotation about that axis).
  return glm::degrees(2.0f * std::atan2(glm::dot(glm::vec3(q.x, q.y, q.z), axis), q.w));
}

TEST(NodeConstraints, RotationWithWeights) {
  for (float w : {0.0f, 0.5f, 1.0f}) {
    ConstraintScene s(NodeConstraint::Kind::kRotation, w, "", {1, 0, 0});
    auto rig = BuildRig(s.av);
    auto cs = BuildConstraints(s.av, *rig);
    ASSERT_TRUE(cs.ok());
    std::vector<Transform> pose(rig->rest_local().begin(), rig->rest_local().end());
    std::vector<glm::mat4> world(rig->node_count());
    pose[rig->node_to_rig()[1]].rotation = glm::angleAxis(glm::radians(90.0f), glm::vec3(0, 1, 0));
    ApplyConstraints(*rig, cs.value(), pose, world);
    EXPECT_NEAR(AngleAbout(pose[rig->node_to_rig()[2]].rotation, {0, 1, 0}), 90.0f * w, 1e-3f)
        << "weight " << w;
  }
}

TEST(NodeConstraints, RollKeepsOnlyTheTwistAboutTheAxis) {
  for (float w : {0.0f, 0.5f, 1.0f}) {
    ConstraintScene s(NodeConstraint::Kind::kRoll, w, "Y", {1, 0, 0});
    auto rig = BuildRig(s.av);
    auto cs = BuildConstraints(s.av, *rig);
    std::vector<Transform> pose(rig->rest_local().begin(), rig->rest_local().end());
    std::vector<glm::mat4> world(rig->node_count());
    // Source: 60 degrees of twist about Y, then 20 degrees of swing about Z. Only the twist
    // (60 degrees about Y) reaches the destination.
    pose[rig->node_to_rig()[1]].rotation = glm::angleAxis(glm::radians(20.0f), glm::vec3(0, 0, 1)) *
                                           glm::angleAxis(glm::radians(60.0f), glm::vec3(0, 1, 0));
    ApplyConstraints(*rig, cs.value(), pose, world);
    const glm::quat d = pose[rig->node_to_rig()[2]].rotation;
    EXPECT_NEAR(AngleAbout(d, {0, 1, 0}), 60.0f * w, 1e-3f) << "weight " << w;
    EXPECT_NEAR(d.x, 0.0f, 1e-5f);
    EXPECT_NEAR(d.z, 0.0f, 1e-5f);
  }
}

TEST(NodeConstraints, AimPointsTheAxisAtTheSource) {
  for (float w : {0.0f, 0.5f, 1.0f}) {
    // Destination at the origin aiming +X; the source straight above it: +X must turn to +Y,
    // a 90 degree rotation about +Z (45 degrees at weight 0.5).
    ConstraintScene s(NodeConstraint::Kind::kAim, w, "PositiveX", {0, 2, 0});
    auto rig = BuildRig(s.av);
    auto cs = BuildConstraints(s.av, *rig);
    std::vector<Transform> pose(rig->rest_local().begin(), rig->rest_local().end());
    std::vector<glm::mat4> world(rig->node_count());
    ApplyConstraints(*rig, cs.value(), pose, world);
    EXPECT_NEAR(AngleAbout(pose[rig->node_to_rig()[2]].rotation, {0, 0, 1}), 90.0f * w, 1e-3f)
        << "weight " << w;
  }
  // NegativeZ aims the -Z axis: source at +X -> -Z turns to +X, 90 degrees about -Y... i.e. -90
  // about +Y.
  ConstraintScene s(NodeConstraint::Kind::kAim, 1.0f, "NegativeZ", {3, 0, 0});
  auto rig = BuildRig(s.av);
  auto cs = BuildConstraints(s.av, *rig);
  std::vector<Transform> pose(rig->rest_local().begin(), rig->rest_local().end());
  std::vector<glm::mat4> world(rig->node_count());
  ApplyConstraints(*rig, cs.value(), pose, world);
  const glm::vec3 aimed = pose[rig->node_to_rig()[2]].rotation * glm::vec3(0, 0, -1);
  EXPECT_NEAR(aimed.x, 1.0f, 1e-5f);
}

TEST(NodeConstraints, CycleIsAnErrorNamingANode) {
  ConstraintScene s(NodeConstraint::Kind::kRotation, 1.0f, "", {1, 0, 0});
  NodeConstraint back;
  back.node = 1;
  back.source = 2;
  s.av.vrm.constraints.push_back(back);
  auto rig = BuildRig(s.av);
  auto cs = BuildConstraints(s.av, *rig);
  ASSERT_FALSE(cs.ok());
  EXPECT_NE(cs.status().message().find("cycle"), std::string::npos);
}

TEST(ClipSampling, UalClipsSampleToFiniteValues) {
  HS_LOAD_SHARED_OR_SKIP(loaded, "animations/ual1/AnimationLibrary_Godot_Standard.gltf");
  auto rig = BuildRig(loaded.avatar);
  ASSERT_TRUE(rig.ok());
  ASSERT_EQ(loaded.avatar.animations.size(), 46u);
  std::vector<Transform> pose(rig->node_count());
  for (int a = 0; a < 46; ++a) {
    auto clip = Clip::FromAvatar(loaded.avatar, *rig, a);
    ASSERT_TRUE(clip.ok());
    EXPECT_GT(clip->duration, 0.1);
    for (double t : {0.0, clip->duration * 0.37, clip->duration}) {
      pose.assign(rig->rest_local().begin(), rig->rest_local().end());
      clip->Apply(t, pose);
      for (const auto& x : pose)
        ASSERT_TRUE(std::isfinite(x.translation.x) && std::isfinite(x.rotation.w)) << clip->name;
    }
  }
}

}  // namespace
}  // namespace hairswing
