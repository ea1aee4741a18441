// The public API is hard to misuse: temporaries that would dangle do not compile, reading the
// value of an error goes through the assert handler, every Create() refuses what it cannot run,
// and the documented contracts (quaternion memory order, collider radius units) hold.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

#include "hairswing/anim.h"
#include "hairswing/demo.h"
#include "hairswing/names.h"
#include "hairswing/retarget.h"
#include "hairswing/spring.h"
#include "synthetic.h"

namespace hairswing {
namespace {

// ---- dangling references do not compile (checked by overload resolution, at compile time) ----
template <typename R>
concept CreatesWorldFrom = requires(R&& r) {
  SpringWorld::Create(std::forward<R>(r));
};
static_assert(CreatesWorldFrom<Rig&> && CreatesWorldFrom<const Rig&>);
static_assert(!CreatesWorldFrom<Rig> && !CreatesWorldFrom<const Rig>,
              "SpringWorld::Create(temporary rig) must not compile");
// *BuildRig(avatar) is an rvalue, so SpringWorld::Create(*BuildRig(avatar)) is refused too.
static_assert(std::is_same_v<decltype(*std::declval<Result<Rig>>()), Rig&&>);

template <typename R, typename C>
concept SamplesFrom = requires(R&& r, C&& c) {
  ClipSampler(std::forward<R>(r), std::forward<C>(c), std::vector<RigConstraint>{},
              ClipSampler::Playback::kLoop);
};
static_assert(SamplesFrom<const Rig&, const Clip&>);
static_assert(!SamplesFrom<Rig, const Clip&> && !SamplesFrom<const Rig&, Clip>,
              "ClipSampler over a temporary rig or clip must not compile");

template <typename R>
concept TurnsHeadOf = requires(R&& r) {
  HeadTurnMotion(std::forward<R>(r), 0, -1);
};
static_assert(TurnsHeadOf<const Rig&> && !TurnsHeadOf<Rig>);

// ---- errors are values; their value() is a programmer error -----------------------------------
Result<int> Failing() {
  return Status(StatusCode::kInvalidInput, "x.gltf: nodes[3].rotation: NaN");
}

TEST(ApiDeathTest, ValueOfAnErrorCallsTheAssertHandlerWithTheMessage) {
  // Default handler: prints the message, then aborts (no bad_variant_access, no exception).
  EXPECT_DEATH((void)Failing().value(),
               "Result::value\\(\\) called on an error: x.gltf: nodes\\[3\\].rotation: NaN");
  // A replaced handler sees the same message.
  EXPECT_DEATH(
      {
        SetAssertHandler(
            [](const char* expr, const char*, int) { std::fprintf(stderr, "custom<%s>\n", expr); });
        (void)*Failing();
      },
      "custom<Result::value\\(\\) called on an error: x.gltf");
}

TEST(Api, ResultHoldsValueOrStatus) {
  Result<int> ok = 7;
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(*ok, 7);
  EXPECT_TRUE(ok.status().ok());
  const Result<int> bad = Failing();
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidInput);
}

// ---- Create() failure paths ------------------------------------------------------------------
class CreateFails : public ::testing::Test {
 protected:
  void SetUp() override {
    avatar_ = test::MakeHairAvatar({test::ChainSpec{}, test::ChainSpec{}});
    auto r = BuildRig(avatar_);
    ASSERT_TRUE(r.ok()) << r.status().message();
    rig_ = std::move(r).value();
  }
  void ExpectRefused(const SpringConfig& c, const char* needle) {
    auto w = SpringWorld::Create(rig_, c);
    ASSERT_FALSE(w.ok()) << "accepted a config that should be refused (" << needle << ")";
    EXPECT_EQ(w.status().code(), StatusCode::kInvalidInput);
    EXPECT_NE(w.status().message().find(needle), std::string::npos) << w.status().message();
  }
  Avatar avatar_;
  Rig rig_;
};

TEST_F(CreateFails, SpringWorldRefusesConfigsThatDoNotFit) {
  ASSERT_TRUE(SpringWorld::Create(rig_).ok());
  SpringConfig c;
  c.segment_checks = {1};  // the rig has 2 chains
  ExpectRefused(c, "segment_checks has 1 entries, the rig has 2 chains");
  for (float bad : {0.0f, -1.0f, NAN, INFINITY}) {
    c = {};
    c.stiffness_scale = bad;
    ExpectRefused(c, "stiffness_scale");
  }
  for (float bad : {-0.1f, 1.5f, NAN}) {
    c = {};
    c.arc_liveliness = bad;
    ExpectRefused(c, "arc_liveliness");
  }
  c = {};
  c.max_steps_per_call = 0;
  ExpectRefused(c, "max_steps_per_call");
}

TEST_F(CreateFails, SpringWorldRefusesAChainThatIsNotParentFirst) {
  // Reverse the second chain's joints: each joint is then the parent of the one before it.
  Avatar av = avatar_;
  auto& joints = av.vrm.springs[1].joints;
  std::reverse(joints.begin(), joints.end());
  auto rig = BuildRig(av);
  ASSERT_TRUE(rig.ok()) << rig.status().message();
  auto w = SpringWorld::Create(*rig);
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.status().message().find("is not a descendant of the previous joint"),
            std::string::npos)
      << w.status().message();
}

TEST_F(CreateFails, ClipFromAvatarRefusesAnIndexOutOfRange) {
  for (int bad : {-1, 0, 5}) {  // the synthetic avatar has no animations
    auto c = Clip::FromAvatar(avatar_, rig_, bad);
    ASSERT_FALSE(c.ok()) << bad;
    EXPECT_EQ(c.status().code(), StatusCode::kInvalidInput);
  }
}

TEST_F(CreateFails, RetargeterRefusesATargetWithoutTheRequiredBones) {
  const Avatar source = MakeDemoAvatar(DemoVariant::kPonytail);
  // The synthetic avatar names only hips, spine and head: no legs or arms to put a clip on.
  auto r = Retargeter::Create(source, MatchHumanoid(source), avatar_, MatchHumanoid(avatar_));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("target"), std::string::npos) << r.status().message();
}

// ---- contracts --------------------------------------------------------------------------------
TEST(Api, QuaternionsAreStoredXyzwAsGltf) {
  const glm::quat q(0.5f, 0.1f, 0.2f, 0.3f);  // constructor: w, x, y, z
  float f[4];
  std::memcpy(f, &q, sizeof f);
  EXPECT_EQ(f[0], 0.1f);
  EXPECT_EQ(f[1], 0.2f);
  EXPECT_EQ(f[2], 0.3f);
  EXPECT_EQ(f[3], 0.5f);
  Transform t;
  t.rotation = q;
  float g[10];
  static_assert(sizeof(Transform) == sizeof g);
  std::memcpy(g, &t, sizeof g);
  EXPECT_EQ(g[3], 0.1f);  // translation x,y,z, then rotation x,y,z,w, then scale
  EXPECT_EQ(g[6], 0.5f);
}

// A collider node scaled 2x: arc and parent grow the radius with it, vrm (like three-vrm) does
// not. A chain hangs 3 cm from a sphere of authored radius 2 cm (4 cm in arc's world units).
float RestingTipDistance(SolverMode mode) {
  test::ChainSpec cs;
  cs.joints = 2;
  cs.root_offset = {0.0f, 0.0f, -0.1f};
  cs.segment = {0.0f, -0.1f, 0.0f};
  cs.hit_radius = 0.0f;
  cs.gravity = 0.0f;
  Avatar av = test::MakeHairAvatar({cs});
  Node ball;
  ball.name = "Ball";
  ball.parent = 2;                           // the head
  ball.translation = {0.03f, -0.1f, -0.1f};  // 3 cm beside where the tip rests
  ball.scale = glm::vec3(2.0f);
  av.nodes.push_back(ball);
  const int ball_node = static_cast<int>(av.nodes.size()) - 1;
  av.nodes[2].children.push_back(ball_node);
  test::AddCollider(av, ball_node, ColliderShape::kSphere, glm::vec3(0), 0.02f);
  auto rig = BuildRig(av);
  EXPECT_TRUE(rig.ok()) << rig.status().message();
  if (!rig.ok()) return NAN;
  SpringConfig config;
  config.mode = mode;
  auto w = SpringWorld::Create(*rig, config);
  EXPECT_TRUE(w.ok()) << w.status().message();
  if (!w.ok()) return NAN;
  std::vector<Transform> pose(rig->rest_local().begin(), rig->rest_local().end());
  w->Reset(pose);
  for (int s = 0; s < 240; ++s) {
    pose.assign(rig->rest_local().begin(), rig->rest_local().end());
    w->Step(pose);
  }
  const glm::vec3 centre = glm::vec3(w->world()[rig->node_to_rig()[ball_node]][3]);
  return glm::length(w->tails()[0] - centre);
}

TEST(Api, ColliderRadiusScalesWithTheNodeInArcAndParentNotInVrm) {
  EXPECT_NEAR(RestingTipDistance(SolverMode::kArc), 0.04f, 1e-3f);  // pushed out to 2 x 2 cm
  EXPECT_NEAR(RestingTipDistance(SolverMode::kParent), 0.04f, 1e-3f);
  EXPECT_NEAR(RestingTipDistance(SolverMode::kVrm), 0.03f, 1e-4f);  // 2 cm < 3 cm: untouched
}

}  // namespace
}  // namespace hairswing

namespace hairswing {
namespace {

TEST(Api, TailsAndVelocitiesPerJointAreTheSpansValues) {
  // The solver keeps each joint's point in 16 bytes (PaddedVec3): the spans' elements and
  // tail(j) / velocity(j) are the same x, y and z, joint by joint, after the lanes moved them.
  const Avatar av = MakeDemoAvatar(DemoVariant::kLayered);
  auto rig = BuildRig(av);
  ASSERT_TRUE(rig.ok()) << rig.status().message();
  auto w = SpringWorld::Create(*rig, SpringConfig{});
  ASSERT_TRUE(w.ok()) << w.status().message();
  const int head = HumanoidRigNode(av, *rig, "head");
  ASSERT_GE(head, 0);
  std::vector<Transform> pose(rig->rest_local().begin(), rig->rest_local().end());
  w->Reset(pose);
  for (int s = 0; s < 30; ++s) {
    pose.assign(rig->rest_local().begin(), rig->rest_local().end());
    pose[head].rotation =
        glm::angleAxis(0.03f * static_cast<float>(s), glm::vec3(0, 1, 0)) * pose[head].rotation;
    w->Step(pose);
  }
#if HAIRSWING_SIMD && defined(__SSE2__)
  EXPECT_GT(w->lane_chains(), 0);  // the lanes stored these points (builds with SIMD)
#endif
  const int nj = static_cast<int>(rig->joint_node().size());
  ASSERT_EQ(w->tails().size(), static_cast<size_t>(nj));
  ASSERT_EQ(w->velocities().size(), static_cast<size_t>(nj));
  float fastest = 0.0f;
  for (int j = 0; j < nj; ++j) {
    const glm::vec3 t = w->tails()[j], v = w->velocities()[j];
    EXPECT_EQ(w->tail(j), t) << j;
    EXPECT_EQ(w->velocity(j), v) << j;
    EXPECT_EQ(&w->tail(j).x, &w->tails()[j].x) << j;
    fastest = std::max(fastest, glm::length(w->velocity(j)));
  }
  EXPECT_GT(fastest, 0.01f);  // the head turned: the hair moves
}

TEST(Api, StatusMessagesAreOnePrintableLine) {
  // A node name from a file with a line break, a terminal escape and a C1 control (CSI).
  const Status st(StatusCode::kInvalidInput,
                  "a.vrm: node \"x\ny\x1b[31mred\xc2\x9b"
                  "2J\" (caf\xc3\xa9)");
  EXPECT_EQ(st.message().find('\n'), std::string::npos);
  EXPECT_EQ(st.message().find('\x1b'), std::string::npos);
  EXPECT_EQ(st.message().find("\xc2\x9b"), std::string::npos);
  EXPECT_EQ(st.message(), "a.vrm: node \"x y\\x1b[31mred\\x9b2J\" (caf\xc3\xa9)");  // UTF-8 kept
}

}  // namespace
}  // namespace hairswing

// Names a user types: exact first, then ignoring case when that picks one name; otherwise an
// error that names the closest ones (or the names that differ only in case).
namespace hairswing {
namespace {
TEST(FindName, ExactThenCaseInsensitiveThenClosest) {
  const std::vector<std::string> names{"Hair_Blond", "Hair_Brown", "Skin", "skin", "Jog_Fwd_Loop"};
  EXPECT_EQ(*FindName("Hair_Blond", names, "material"), 0u);
  EXPECT_EQ(*FindName("hair_blond", names, "material"), 0u);
  EXPECT_EQ(*FindName("JOG_FWD_LOOP", names, "clip"), 4u);
  EXPECT_EQ(*FindName("skin", names, "material"), 3u) << "an exact match wins over case folding";
  auto ambiguous = FindName("SKIN", names, "material");
  ASSERT_FALSE(ambiguous.ok());
  EXPECT_NE(ambiguous.status().message().find("\"Skin\", \"skin\" ignoring case"),
            std::string::npos)
      << ambiguous.status().message();
  auto typo = FindName("Hair_Blnd", names, "material");
  ASSERT_FALSE(typo.ok());
  EXPECT_EQ(typo.status().message().rfind("no material named \"Hair_Blnd\"; did you mean "
                                          "\"Hair_Blond\"",
                                          0),
            0u)
      << typo.status().message();
  EXPECT_FALSE(FindName("x", {}, "clip").ok());
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3u);
  EXPECT_EQ(EditDistance("", "abc"), 3u);
}
}  // namespace
}  // namespace hairswing
