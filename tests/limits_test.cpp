// Joint angle limits (VRMC_springBone_limit): the shapes on directions, a strand pushed past its
// limit in every solver mode (it stays on the limit, without jitter or a bounce), and the round
// trip through a file. Expected values are geometry worked out here by hand.
#include "spring/limits.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "core/math.h"
#include "hairswing/io.h"
#include "hairswing/spring.h"
#include "synthetic.h"

namespace hairswing {
namespace {

constexpr float kDeg = 3.14159265f / 180.0f;

float AngleBetween(const glm::vec3& a, const glm::vec3& b) {
  return std::acos(std::clamp(glm::dot(glm::normalize(a), glm::normalize(b)), -1.0f, 1.0f));
}

internal::PreparedLimit Prepared(JointLimit::Kind kind, float angle, float yaw = 0.0f) {
  JointLimit l;
  l.kind = kind;
  l.angle = angle;
  l.yaw = yaw;
  return internal::PrepareLimit(l, glm::vec3(0, 1, 0));  // limit frame = joint frame
}

// vrm mode skips the limit of a cone the end is clearly inside of (ConeClearly), with the cone's
// axis from the parent's matrix instead of its exact rotation: wherever it says so, ApplyLimit
// with the exact frame must leave the end alone. Random frames (rotation, uniform scale from
// 0.01 to 100, translation), bones, cone angles and ends within 3 degrees of the cone's edge.
TEST(LimitShapes, AConeClearlyInsideIsOneApplyLimitLeavesAlone) {
  uint32_t seed = 12345;
  auto rnd = [&]() {  // [0, 1)
    seed = seed * 1664525u + 1013904223u;
    return static_cast<float>(seed >> 8) / 16777216.0f;
  };
  auto unit = [&]() {
    const float z = 2.0f * rnd() - 1.0f, a = 6.2831853f * rnd(), r = std::sqrt(1.0f - z * z);
    return glm::vec3(r * std::cos(a), z, r * std::sin(a));
  };
  int clear = 0, near_edge = 0;
  for (int i = 0; i < 50000; ++i) {
    const glm::quat parent_rot = glm::normalize(glm::quat(rnd() - 0.5f, unit()));
    const float scale = std::pow(10.0f, 4.0f * rnd() - 2.0f);
    glm::mat4 parent = glm::mat4_cast(parent_rot) * scale;
    parent[3] = glm::vec4(unit() * 3.0f, 1.0f);
    const glm::quat rest = glm::normalize(glm::quat(rnd() - 0.5f, unit()));
    JointLimit lim;
    lim.kind = JointLimit::Kind::kCone;
    lim.angle = (5.0f + 120.0f * rnd()) * kDeg;
    const internal::PreparedLimit cone = internal::PrepareLimit(lim, unit());
    const glm::vec3 axis_in_parent = (rest * cone.local) * glm::vec3(0, 1, 0);
    // The frame the solver builds, and an end at (cone angle +- 3 degrees) from its axis.
    const glm::quat frame = internal::RotationOf(parent) * rest * cone.local;
    const float off = lim.angle + (6.0f * rnd() - 3.0f) * kDeg;
    const float az = 6.2831853f * rnd();
    const glm::vec3 d(std::sin(off) * std::cos(az), std::cos(off), std::sin(off) * std::sin(az));
    const glm::vec3 o(parent[3]);
    const float len = 0.01f + rnd();
    const glm::vec3 end = o + (frame * d) * len;
    if (!internal::ConeClearly(cone, axis_in_parent, parent, end - o)) continue;
    ++clear;
    near_edge += off > lim.angle - 0.5f * kDeg ? 1 : 0;
    glm::vec3 moved = end;
    ASSERT_FALSE(internal::ApplyLimit(cone, frame, o, len, moved)) << "trial " << i;
    ASSERT_EQ(moved, end) << "trial " << i;
  }
  EXPECT_GT(clear, 10000);     // the shortcut is taken for most ends inside
  EXPECT_GT(near_edge, 1000);  // including ends within half a degree of the edge
}

TEST(LimitShapes, ConeKeepsTheAzimuthAndSetsThePolarAngle) {
  const auto cone = Prepared(JointLimit::Kind::kCone, 30 * kDeg);
  glm::vec3 inside = glm::normalize(glm::vec3(0.2f, 1.0f, 0.1f));  // 12.6 deg from +Y
  const glm::vec3 before = inside;
  EXPECT_FALSE(internal::ClampToLimit(cone, inside));
  EXPECT_EQ(inside, before);
  // 60 deg from +Y towards (x, z) = (3, 4)/5: lands at 30 deg, same azimuth.
  glm::vec3 d(std::sin(60 * kDeg) * 0.6f, std::cos(60 * kDeg), std::sin(60 * kDeg) * 0.8f);
  EXPECT_TRUE(internal::ClampToLimit(cone, d));
  EXPECT_NEAR(d.y, std::cos(30 * kDeg), 1e-6f);
  EXPECT_NEAR(d.x, 0.5f * 0.6f, 1e-6f);
  EXPECT_NEAR(d.z, 0.5f * 0.8f, 1e-6f);
  // Straight back (-Y) has no azimuth: the draft picks the +Z side.
  glm::vec3 back(0, -1, 0);
  EXPECT_TRUE(internal::ClampToLimit(cone, back));
  EXPECT_NEAR(back.z, 0.5f, 1e-6f);
  EXPECT_NEAR(back.x, 0.0f, 1e-6f);
}

TEST(LimitShapes, HingeDropsTheAxisPartAndBoundsTheAngle) {
  const auto hinge = Prepared(JointLimit::Kind::kHinge, 45 * kDeg);
  glm::vec3 d = glm::normalize(glm::vec3(0.5f, 0.8f, 0.3f));  // in-plane angle atan(0.3/0.8)
  EXPECT_TRUE(internal::ClampToLimit(hinge, d));
  EXPECT_EQ(d.x, 0.0f);
  EXPECT_NEAR(std::atan2(d.z, d.y), std::atan2(0.3f, 0.8f), 1e-6f);
  glm::vec3 far = glm::normalize(glm::vec3(0.0f, -0.2f, -1.0f));  // 101 deg, on the -Z side
  EXPECT_TRUE(internal::ClampToLimit(hinge, far));
  EXPECT_NEAR(far.y, std::cos(45 * kDeg), 1e-6f);
  EXPECT_NEAR(far.z, -std::sin(45 * kDeg), 1e-6f);
  glm::vec3 along_axis(1, 0, 0);  // no in-plane direction: the rest direction
  EXPECT_TRUE(internal::ClampToLimit(hinge, along_axis));
  EXPECT_EQ(along_axis, glm::vec3(0, 1, 0));
}

TEST(LimitShapes, SphericalClampsPitchAndYawApart) {
  const auto sph = Prepared(JointLimit::Kind::kSpherical, 40 * kDeg, 10 * kDeg);
  // pitch 20 deg (about X, towards +Z), yaw 30 deg (towards +X): only the yaw is clamped.
  const float p = 20 * kDeg, y = 30 * kDeg;
  glm::vec3 d(std::sin(y), std::cos(y) * std::cos(p), std::cos(y) * std::sin(p));
  EXPECT_TRUE(internal::ClampToLimit(sph, d));
  EXPECT_NEAR(std::asin(d.x), 10 * kDeg, 1e-5f);
  EXPECT_NEAR(std::atan2(d.z, d.y), 20 * kDeg, 1e-5f);
  glm::vec3 ok(std::sin(5 * kDeg), std::cos(5 * kDeg) * std::cos(-30 * kDeg),
               std::cos(5 * kDeg) * std::sin(-30 * kDeg));
  EXPECT_FALSE(internal::ClampToLimit(sph, ok));
}

TEST(LimitShapes, DefaultFrameTurnsPlusYOntoTheBone) {
  for (const glm::vec3 axis : {glm::vec3(0, -1, 0), glm::normalize(glm::vec3(0.3f, -0.9f, -0.3f)),
                               glm::vec3(1, 0, 0), glm::vec3(0, 1, 0)}) {
    const glm::quat q = internal::TurnFromY(axis);
    const glm::vec3 y = q * glm::vec3(0, 1, 0);
    EXPECT_NEAR(glm::length(y - axis), 0.0f, 1e-6f) << axis.x << " " << axis.y << " " << axis.z;
  }
}

// One chain of three 8 cm segments straight down from the head, gravity pulling sideways.
Avatar SidewaysPulledStrand(glm::vec3 gravity_dir, JointLimit limit) {
  test::ChainSpec cs;
  cs.joints = 4;
  cs.root_offset = {0.0f, 0.0f, 0.0f};
  cs.segment = {0.0f, -0.08f, 0.0f};
  cs.gravity = 3.0f;
  cs.stiffness = 0.5f;
  Avatar av = test::MakeHairAvatar({cs});
  for (size_t k = 0; k + 1 < av.vrm.springs[0].joints.size(); ++k) {
    SpringJoint& j = av.vrm.springs[0].joints[k];
    j.gravity_dir = glm::normalize(gravity_dir);
    j.limit = limit;
  }
  return av;
}

struct StrandRun {
  float worst_deg = 0.0f;     // largest angle of a segment from its rest axis under its parent
  float last_move_mm = 0.0f;  // largest step-to-step tail move over the last half second
  float final_deg = 0.0f;     // the angle at the end
  float worst_off_plane = 0;  // largest |x| of a tail relative to its joint (hinge check)
};

// Steps the strand for two seconds from rest (the pull appears at once, so it swings into the
// limit with momentum) and measures each segment's angle from its rest axis in its parent frame.
StrandRun Simulate(const Avatar& av, SolverMode mode) {
  StrandRun r;
  auto rig = BuildRig(av);
  EXPECT_TRUE(rig.ok());
  SpringConfig cfg;
  cfg.mode = mode;
  auto world = SpringWorld::Create(*rig, cfg);
  EXPECT_TRUE(world.ok());
  std::vector<Transform> pose(rig->rest_local().begin(), rig->rest_local().end());
  world->Reset(pose);
  const RigChain& ch = rig->chains()[0];
  std::vector<glm::vec3> last(world->tails().begin(), world->tails().end());
  for (int step = 0; step < 240; ++step) {
    pose.assign(rig->rest_local().begin(), rig->rest_local().end());
    world->Step(pose);
    for (int j = ch.joint_begin; j + 1 < ch.joint_end; ++j) {
      const int node = rig->joint_node()[j];
      const glm::vec3 axis = rig->rest_local()[rig->joint_node()[j + 1]].translation;
      const float a =
          AngleBetween(rig->rest_local()[node].rotation * axis, pose[node].rotation * axis);
      r.worst_deg = std::max(r.worst_deg, a / kDeg);
      if (step == 239 && j == ch.joint_begin) r.final_deg = a / kDeg;
      const glm::vec3 o(world->world()[node][3]);
      r.worst_off_plane = std::max(r.worst_off_plane, std::fabs(world->tails()[j].x - o.x));
      if (step >= 180)
        r.last_move_mm =
            std::max(r.last_move_mm, 1000.0f * glm::length(world->tails()[j] - last[j]));
      last[j] = world->tails()[j];
    }
  }
  return r;
}

class LimitModes : public ::testing::TestWithParam<SolverMode> {};

TEST_P(LimitModes, AStrandPushedPastItsConeStaysOnTheCone) {
  JointLimit cone;
  cone.kind = JointLimit::Kind::kCone;
  cone.angle = 20 * kDeg;
  const StrandRun free = Simulate(SidewaysPulledStrand({1, 0, 0}, JointLimit{}), GetParam());
  const StrandRun held = Simulate(SidewaysPulledStrand({1, 0, 0}, cone), GetParam());
  ASSERT_GT(free.worst_deg, 30.0f) << "the pull must be strong enough to need the limit";
  EXPECT_LE(held.worst_deg, 20.0f + 0.05f);
  EXPECT_GT(held.final_deg, 19.5f) << "the pull holds the root segment on the cone";
  // On the cone and still: no jitter, no energy from the clamp.
  EXPECT_LT(held.last_move_mm, 0.01f);
}

TEST_P(LimitModes, AHingeKeepsItsPlane) {
  // Bone axis -Y: the default hinge frame is a half turn about X, so it swings in world YZ.
  JointLimit hinge;
  hinge.kind = JointLimit::Kind::kHinge;
  hinge.angle = 60 * kDeg;
  const glm::vec3 pull(1, 0, 1);
  const StrandRun free = Simulate(SidewaysPulledStrand(pull, JointLimit{}), GetParam());
  const StrandRun held = Simulate(SidewaysPulledStrand(pull, hinge), GetParam());
  ASSERT_GT(free.worst_off_plane, 0.02f);
  EXPECT_LT(held.worst_off_plane, 1e-5f);
  EXPECT_GT(held.final_deg, 10.0f) << "the hinge still lets it swing in its plane";
  EXPECT_LE(held.worst_deg, 60.0f + 0.05f);
}

TEST_P(LimitModes, NoLimitMeansTheSameBitsAsBefore) {
  // A limit of kind none (or a cone of 180 degrees, which allows every direction) changes
  // nothing: same state hash as the chain without any.
  JointLimit open;
  open.kind = JointLimit::Kind::kCone;
  open.angle = 3.14159265f;
  auto hash = [&](const JointLimit& l) {
    const Avatar av = SidewaysPulledStrand({1, 0, 0.3f}, l);
    auto rig = BuildRig(av);
    SpringConfig cfg;
    cfg.mode = GetParam();
    cfg.flat_path = false;  // a limited chain always takes the general path: compare like for like
    auto world = SpringWorld::Create(*rig, cfg);
    std::vector<Transform> pose(rig->rest_local().begin(), rig->rest_local().end());
    world->Reset(pose);
    for (int i = 0; i < 120; ++i) {
      pose.assign(rig->rest_local().begin(), rig->rest_local().end());
      world->Step(pose);
    }
    return world->StateHash();
  };
  EXPECT_EQ(hash(JointLimit{}), hash(open));
}

INSTANTIATE_TEST_SUITE_P(Modes, LimitModes,
                         ::testing::Values(SolverMode::kArc, SolverMode::kParent, SolverMode::kVrm),
                         [](const auto& info) { return std::string(SolverModeName(info.param)); });

TEST(LimitFile, EveryFieldSurvivesTheRoundTrip) {
  Avatar av = SidewaysPulledStrand({1, 0, 0}, JointLimit{});
  auto& joints = av.vrm.springs[0].joints;
  joints[0].limit = {JointLimit::Kind::kCone, 0.35f, 0.0f,
                     glm::normalize(glm::quat(0.9f, 0.1f, 0.2f, 0.3f))};
  joints[1].limit = {JointLimit::Kind::kHinge, 1.2f, 0.0f, glm::quat(1, 0, 0, 0)};
  joints[2].limit = {JointLimit::Kind::kSpherical, 0.6f, 0.25f,
                     glm::normalize(glm::quat(0.5f, 0.5f, -0.5f, 0.5f))};
  auto bytes = EncodeGlb(av, false, VrmOutput::kVrm1);
  ASSERT_TRUE(bytes.ok()) << bytes.status().message();
  const std::string text(bytes->begin(), bytes->end());
  EXPECT_NE(text.find("\"VRMC_springBone_limit\""), std::string::npos);
  auto back = LoadAvatarFromMemory(bytes->data(), bytes->size(), "limits.glb", "");
  ASSERT_TRUE(back.ok()) << back.status().message();
  const auto& jb = back->avatar.vrm.springs.at(0).joints;
  ASSERT_EQ(jb.size(), joints.size());
  for (size_t k = 0; k < joints.size(); ++k) {
    EXPECT_EQ(jb[k].limit.kind, joints[k].limit.kind) << k;
    EXPECT_EQ(jb[k].limit.angle, joints[k].limit.angle) << k;
    EXPECT_EQ(jb[k].limit.yaw, joints[k].limit.yaw) << k;
    EXPECT_NEAR(glm::dot(jb[k].limit.rotation, joints[k].limit.rotation), 1.0f, 1e-6f) << k;
  }
  EXPECT_EQ(jb.back().limit.kind, JointLimit::Kind::kNone);
}

// The strand's file with `limit_json` put into joint `k`'s extensions (JSON chunk rewritten, the
// GLB's lengths with it), read back.
Result<LoadedAvatar> StrandWithLimitJson(size_t k, const std::string& limit_json) {
  Avatar av = SidewaysPulledStrand({1, 0, 0}, JointLimit{});
  auto bytes = EncodeGlb(av, false, VrmOutput::kVrm1);
  if (!bytes.ok()) return bytes.status();
  std::string glb(bytes->begin(), bytes->end());
  uint32_t json_len;
  std::memcpy(&json_len, glb.data() + 12, 4);
  std::string json = glb.substr(20, json_len);
  // The joint's "node" key inside the springs list (keys are written sorted, so the joint's
  // other keys may come before it; the inserted key goes just in front of it).
  const std::string joint = "\"node\":" + std::to_string(av.vrm.springs[0].joints.at(k).node);
  size_t at = json.find("\"springs\":");
  while (at != std::string::npos) {
    at = json.find(joint, at + 1);
    if (at == std::string::npos || json[at + joint.size()] == ',' || json[at + joint.size()] == '}')
      break;
  }
  if (at == std::string::npos) return Status(StatusCode::kInvalidInput, "joint not found in JSON");
  json.insert(at, "\"extensions\":{\"VRMC_springBone_limit\":" + limit_json + "},");
  while (json.size() % 4) json.push_back(' ');
  const uint32_t new_len = static_cast<uint32_t>(json.size());
  std::string out = glb.substr(0, 12);
  out.append(reinterpret_cast<const char*>(&new_len), 4);
  out.append(glb, 16, 4);  // chunk type "JSON"
  out += json;
  out.append(glb, 20 + json_len, std::string::npos);  // the BIN chunk as it was
  const uint32_t total = static_cast<uint32_t>(out.size());
  std::memcpy(out.data() + 8, &total, 4);
  return LoadAvatarFromMemory(reinterpret_cast<const uint8_t*>(out.data()), out.size(), "limit.glb",
                              "");
}

bool Warned(const LoadedAvatar& loaded, const std::string& what) {
  for (const auto& w : loaded.warnings)
    if (w.find(what) != std::string::npos) return true;
  return false;
}

TEST(LimitFile, ALimitOnTheLastJointIsIgnoredWithAWarning) {
  const size_t last =
      SidewaysPulledStrand({1, 0, 0}, JointLimit{}).vrm.springs[0].joints.size() - 1;
  auto back =
      StrandWithLimitJson(last, R"({"specVersion":"1.0-draft","limit":{"cone":{"angle":0.1}}})");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->avatar.vrm.springs[0].joints.back().limit.kind, JointLimit::Kind::kNone);
  EXPECT_TRUE(Warned(*back, "last joint"));
}

TEST(LimitFile, AWellFormedLimitIsReadFromTheFile) {
  // The control for the malformed cases below: the same injection with a good limit is read.
  auto back =
      StrandWithLimitJson(0, R"({"specVersion":"1.0-draft","limit":{"hinge":{"angle":0.5}}})");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->avatar.vrm.springs[0].joints[0].limit.kind, JointLimit::Kind::kHinge);
  EXPECT_FLOAT_EQ(back->avatar.vrm.springs[0].joints[0].limit.angle, 0.5f);
}

// A malformed limit costs the limit (one warning naming the field), never the file.
class MalformedLimit : public ::testing::TestWithParam<std::pair<const char*, const char*>> {};

TEST_P(MalformedLimit, IsDroppedWithAWarningAndTheFileLoads) {
  const auto [json, field] = GetParam();
  auto back = StrandWithLimitJson(0, json);
  ASSERT_TRUE(back.ok()) << json << ": " << back.status().message();
  EXPECT_EQ(back->avatar.vrm.springs[0].joints[0].limit.kind, JointLimit::Kind::kNone) << json;
  EXPECT_TRUE(Warned(*back, field)) << json << " should warn about " << field;
  EXPECT_EQ(back->avatar.vrm.springs[0].joints.size(),
            SidewaysPulledStrand({1, 0, 0}, JointLimit{}).vrm.springs[0].joints.size());
}

INSTANTIATE_TEST_SUITE_P(
    Cases, MalformedLimit,
    ::testing::Values(
        std::make_pair(R"({"specVersion":"1.0-draft","limit":{"cone":{}}})", "cone.angle"),
        std::make_pair(R"({"specVersion":"1.0-draft","limit":{"hinge":{"rotation":[0,0,0,1]}}})",
                       "hinge.angle"),
        std::make_pair(R"({"specVersion":"1.0-draft","limit":{"spherical":{"pitch":0.5}}})",
                       "spherical.yaw"),
        std::make_pair(R"({"specVersion":"1.0-draft","limit":{"cone":"wide"}})", "limit.cone"),
        std::make_pair(R"({"specVersion":"1.0-draft","limit":{"cone":{"angle":"big"}}})",
                       "cone.angle"),
        std::make_pair(
            R"({"specVersion":"1.0-draft","limit":{"cone":{"angle":0.3,"rotation":[1]}}})",
            "cone.rotation"),
        std::make_pair(R"({"specVersion":"1.0-draft","limit":[]})", "limit"),
        std::make_pair(R"({"specVersion":"1.0-draft"})", "no \"limit\""),
        std::make_pair(R"("cone")", "expected an object")));

}  // namespace
}  // namespace hairswing
