// Solver robustness: allocation-free steps, NaN input, teleports, degenerate segments, dt edge
// cases, animation ownership, mode switching and the frame-driven path.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <new>
#include <span>
#include <utility>
#include <vector>

#include "hairswing/anim.h"
#include "hairswing/crowd.h"
#include "hairswing/demo.h"
#include "hairswing/motion.h"
#include "hairswing/spring.h"
#include "synthetic.h"
#include "test_util.h"

// Counting allocator for this test binary: every (non-aligned) operator new bumps the counter.
// All non-aligned forms are replaced together, so sanitizers see matching new/delete pairs.
static std::atomic<long> g_allocations{0};
static void* CountedAlloc(std::size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(n ? n : 1);
}
void* operator new(std::size_t n) {
  if (void* p = CountedAlloc(n)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) {
  if (void* p = CountedAlloc(n)) return p;
  throw std::bad_alloc();
}
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return CountedAlloc(n); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return CountedAlloc(n); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }

namespace hairswing {
namespace {

Avatar TwoChainsWithColliders() {
  Avatar av = test::MakeHairAvatar(
      {test::ChainSpec{}, test::ChainSpec{4, {0.08f, 0, 0}, {0.01f, -0.05f, 0}}});
  test::AddCollider(av, 2, ColliderShape::kSphere, {0, 0.05f, 0}, 0.09f);
  test::AddCollider(av, 1, ColliderShape::kCapsule, {-0.15f, 0.1f, 0}, 0.08f, {0.15f, 0.1f, 0});
  test::AddCollider(av, 0, ColliderShape::kPlane, {0, -0.5f, 0}, 0.0f);
  av.vrm.colliders.back().normal = {0, 1, 0};
  return av;
}

TEST(SolverRobustness, StepNeverAllocates) {
  Avatar av = TwoChainsWithColliders();
  auto rig = BuildRig(av);
  // Every mode, and vrm mode also with three-vrm's stale child lengths (vrm_three_compat).
  const std::pair<SolverMode, bool> runs[] = {{SolverMode::kArc, false},
                                              {SolverMode::kParent, false},
                                              {SolverMode::kVrm, false},
                                              {SolverMode::kVrm, true}};
  for (const auto& [mode, three_compat] : runs) {
    SpringConfig cfg;
    cfg.mode = mode;
    cfg.vrm_three_compat = three_compat;
    cfg.segment_checks = {1, 0};
    auto world = SpringWorld::Create(*rig, cfg);
    HeadTurnMotion motion(*rig, HumanoidRigNode(av, *rig, "head"),
                          HumanoidRigNode(av, *rig, "hips"));
    ClipDriver driver(*world, motion);
    driver.Reset();
    std::vector<Transform> pose(rig->rest_local().begin(), rig->rest_local().end());
    // The engine-facing steps, on a second world under the same motion's driver transforms.
    auto driven = SpringWorld::Create(*rig, cfg);
    std::vector<glm::mat4> all(rig->node_count()), drivers(driven->driver_nodes().size());
    auto drivers_at = [&](double t) {
      motion.Sample(t, pose);
      ComputeWorld(*rig, pose, all);
      for (size_t d = 0; d < drivers.size(); ++d) drivers[d] = all[driven->driver_nodes()[d]];
    };
    std::vector<glm::quat> rotations(rig->joint_node().size());
    drivers_at(0.0);
    driven->ResetDriven(drivers);
    DrivenFrameDriver frames(*driven);
    frames.Reset(drivers);
    long before = g_allocations.load();
    for (int f = 0; f < 120; ++f) driver.Advance(1.0 / 60.0);  // clip-driven, 2 steps per call
    for (int s = 0; s < 60; ++s) world->Step(pose);            // direct steps
    if (mode == SolverMode::kVrm) world->StepVariable(pose, 1.0f / 60.0f);
    for (int f = 1; f <= 60; ++f) {  // driven: a frame of two steps, then single steps
      drivers_at(f / 60.0);
      frames.Advance(drivers, 1.0 / 60.0, rotations);
      driven->StepDriven(drivers, rotations);
      if (mode == SolverMode::kVrm) driven->StepDrivenVariable(drivers, rotations, 1.0f / 60.0f);
    }
    long after = g_allocations.load();
    EXPECT_EQ(after - before, 0) << SolverModeName(mode)
                                 << (cfg.vrm_three_compat ? " (three-vrm compat)" : "")
                                 << ": the step allocated";
  }
  // Declared noexcept (spring.h: a caller's try block then calls them directly), which is only
  // true while they allocate nothing: checked above.
  static_assert(noexcept(std::declval<SpringWorld&>().Step(std::span<Transform>())));
  static_assert(noexcept(std::declval<SpringWorld&>().StepVariable(std::span<Transform>(), 0.f)));
  static_assert(noexcept(std::declval<SpringWorld&>().StepDriven({}, std::span<glm::quat>())));
  static_assert(
      noexcept(std::declval<SpringWorld&>().StepDrivenVariable({}, std::span<glm::quat>(), 0.f)));
  static_assert(noexcept(std::declval<DrivenFrameDriver&>().Advance({}, 0.0, {})));
  // The counter works: a vector allocation is seen.
  long before = g_allocations.load();
  std::vector<int>* v = new std::vector<int>(10);
  delete v;
  EXPECT_GE(g_allocations.load() - before, 1);
}

// The engine-facing frame driver and the crowd (one thread, and over TBB) allocate nothing per
// frame once built and warmed up.
TEST(SolverRobustness, DrivenStepAndCrowdNeverAllocate) {
  Avatar av = TwoChainsWithColliders();
  auto rig = BuildRig(av);
  ASSERT_TRUE(rig.ok());
  SpringCrowd crowd;
  for (int i = 0; i < 8; ++i) {
    SpringConfig cfg;
    cfg.mode = static_cast<SolverMode>(i % 3);
    ASSERT_TRUE(crowd.Add(*rig, cfg).ok());
  }
  HeadTurnMotion motion(*rig, HumanoidRigNode(av, *rig, "head"), HumanoidRigNode(av, *rig, "hips"));
  std::vector<Transform> pose(rig->rest_local().begin(), rig->rest_local().end());
  std::vector<glm::mat4> world(rig->node_count());
  for (int threads : {1, 2, 0}) {  // 0 = TBB's default pool
    crowd.SetThreads(threads);
    long allocated = 0;
    for (int f = 1; f <= 120; ++f) {
      motion.Sample(f / 60.0, pose);
      ComputeWorld(*rig, pose, world);
      for (int c = 0; c < crowd.size(); ++c)
        for (size_t d = 0; d < crowd.drivers(c).size(); ++d)
          crowd.drivers(c)[d] = world[crowd.world(c).driver_nodes()[d]];
      const long before = g_allocations.load();
      const StepReport r = crowd.Advance(1.0 / 60.0);
      // Frame 1 is a warm-up: TBB starts its worker threads lazily (their first run may allocate
      // thread-local structures); every frame after it must allocate nothing.
      if (f > 1) allocated += g_allocations.load() - before;
      ASSERT_EQ(r.steps_run, 2 * crowd.size());
    }
    EXPECT_EQ(allocated, 0) << threads << " thread(s): a crowd frame allocated";
  }
}

// A chain hanging in the symmetry plane (the ponytail demo at x = 0) settles with its off-plane
// components decaying towards zero; they used to pass through the subnormal floats, where every
// operation is ~100x slower (the still part of the head-turn ran 3x slower per frame). The solver
// flushes them (spring_internal.h, FlushTiny): no subnormal may appear in the state, the output
// rotations or the world matrices, in any mode.
TEST(SolverRobustness, SettlingLeavesNoSubnormalFloats) {
  const Avatar av = MakeDemoAvatar(DemoVariant::kPonytail);
  auto rig = BuildRig(av);
  ASSERT_TRUE(rig.ok());
  auto sub = [](float x) { return std::fpclassify(x) == FP_SUBNORMAL ? 1 : 0; };
  for (SolverMode mode : {SolverMode::kArc, SolverMode::kParent, SolverMode::kVrm}) {
    SpringConfig cfg;
    cfg.mode = mode;
    auto world = SpringWorld::Create(*rig, cfg);
    ASSERT_TRUE(world.ok());
    HeadTurnMotion motion(*rig, HumanoidRigNode(av, *rig, "head"),
                          HumanoidRigNode(av, *rig, "hips"));
    ClipDriver driver(*world, motion);
    driver.Reset();
    int found = 0;
    for (int f = 1; f <= 720; ++f) {  // the 12 s head-turn: 4 s of motion, 8 s of settling
      driver.Advance(1.0 / 60.0);
      for (const glm::vec3& v : world->velocities()) found += sub(v.x) + sub(v.y) + sub(v.z);
      for (const glm::vec3& v : world->tails()) found += sub(v.x) + sub(v.y) + sub(v.z);
      for (int n : rig->joint_node()) {
        const glm::quat& q = driver.pose()[n].rotation;
        found += sub(q.x) + sub(q.y) + sub(q.z) + sub(q.w);
      }
      for (const glm::mat4& m : world->world())
        for (int c = 0; c < 4; ++c)
          for (int r = 0; r < 4; ++r) found += sub(m[c][r]);
    }
    EXPECT_EQ(found, 0) << SolverModeName(mode) << ": subnormal floats while settling";
  }
}

TEST(SolverRobustness, NonFinitePoseIsRefusedAndStateKept) {
  Avatar av = TwoChainsWithColliders();
  auto rig = BuildRig(av);
  auto world = SpringWorld::Create(*rig);
  std::vector<Transform> pose(rig->rest_local().begin(), rig->rest_local().end());
  pose[2].rotation = glm::angleAxis(0.3f, glm::vec3(0, 1, 0));
  for (int i = 0; i < 10; ++i) world->Step(pose);
  const uint64_t hash = world->StateHash();
  std::vector<Transform> bad = pose;
  bad[1].translation.y = std::nanf("");
  StepReport rep = world->Step(bad);
  EXPECT_TRUE(rep.flags & kStepRefusedNonFinite);
  EXPECT_EQ(world->StateHash(), hash);
  bad = pose;
  bad[0].rotation.w = INFINITY;
  EXPECT_TRUE(world->Step(bad).flags & kStepRefusedNonFinite);
  EXPECT_EQ(world->StateHash(), hash);
  EXPECT_EQ(world->Step(pose).flags & kStepRefusedNonFinite, 0u);
}

TEST(SolverRobustness, TeleportResetsTheChainToItsRestArc) {
  Avatar av = test::MakeHairAvatar({test::ChainSpec{}});
  auto rig = BuildRig(av);
  SpringConfig cfg;
  cfg.teleport_distance = 0.5f;
  auto world = SpringWorld::Create(*rig, cfg);
  std::vector<Transform> pose(rig->rest_local().begin(), rig->rest_local().end());
  pose[0].translation.x = 0.3f;  // 0.3 m jump: below the threshold, the hair swings
  EXPECT_EQ(world->Step(pose).teleports, 0);
  pose[0].translation.x = 5.3f;  // 5 m jump: reset
  StepReport rep = world->Step(pose);
  EXPECT_EQ(rep.teleports, 1);
  EXPECT_TRUE(rep.flags & kStepTeleportReset);
  // After the reset every tail sits on the rest arc moved by (5.3, 0, 0), at rest.
  for (int j = 0; j + 1 < rig->chains()[0].joint_end; ++j) {
    glm::vec3 expect =
        glm::vec3(rig->rest_world()[rig->joint_node()[j + 1]][3]) + glm::vec3(5.3f, 0, 0);
    EXPECT_LT(glm::length(world->tails()[j] - expect), 1e-5f);
    EXPECT_EQ(world->velocities()[j], glm::vec3(0));
  }
  // A large turn of the attachment in one step also counts.
  pose[2].rotation = glm::angleAxis(glm::radians(170.0f), glm::vec3(0, 1, 0));
  EXPECT_EQ(world->Step(pose).teleports, 1);
}

TEST(SolverRobustness, ChainsOnOneNodeShareItsTeleportCheckAndNoOtherChainDoes) {
  // Two chains hang from the head, one from the spine. The step checks a teleport once
  // per attachment node and hands the verdict to the other chains on it: a 170 degree head turn
  // resets exactly the two head chains, a turn of the spine (which carries the head) all three.
  Avatar av = test::MakeHairAvatar({test::ChainSpec{}, test::ChainSpec{}, test::ChainSpec{}});
  const int head = av.vrm.humanoid.at("head"), spine = av.vrm.humanoid.at("spine");
  const int moved = av.vrm.springs[1].joints[0].node;
  std::erase(av.nodes[head].children, moved);
  av.nodes[moved].parent = spine;
  av.nodes[spine].children.push_back(moved);
  auto rig = BuildRig(av);
  ASSERT_TRUE(rig.ok()) << rig.status().message();
  auto world = SpringWorld::Create(*rig);
  ASSERT_TRUE(world.ok());
  std::vector<Transform> pose(rig->rest_local().begin(), rig->rest_local().end());
  const int head_rig = HumanoidRigNode(av, *rig, "head");
  const int spine_rig = HumanoidRigNode(av, *rig, "spine");
  int on_head = 0, on_spine = 0;
  for (const RigChain& ch : rig->chains()) {
    on_head += ch.attach == head_rig;
    on_spine += ch.attach == spine_rig;
  }
  ASSERT_EQ(on_head, 2);
  ASSERT_EQ(on_spine, 1);
  pose[head_rig].rotation = glm::angleAxis(glm::radians(20.0f), glm::vec3(0, 1, 0));
  EXPECT_EQ(world->Step(pose).teleports, 0);  // a small turn: the hair swings
  pose[head_rig].rotation = glm::angleAxis(glm::radians(170.0f), glm::vec3(0, 1, 0));
  EXPECT_EQ(world->Step(pose).teleports, 2);
  pose[spine_rig].rotation = glm::angleAxis(glm::radians(170.0f), glm::vec3(0, 1, 0));
  EXPECT_EQ(world->Step(pose).teleports, 3);
}

TEST(SolverRobustness, ZeroLengthSegmentsZeroRadiiAndDtEdges) {
  test::ChainSpec cs;
  cs.hit_radius = 0.0f;
  Avatar av = test::MakeHairAvatar({cs});
  av.nodes[av.vrm.springs[0].joints[3].node].translation = glm::vec3(0);  // a zero-length segment
  test::AddCollider(av, 2, ColliderShape::kSphere, {0, 0, 0}, 0.0f);      // zero-radius collider
  auto rig = BuildRig(av);
  auto world = SpringWorld::Create(*rig);
  ASSERT_TRUE(world.ok());
  HeadTurnMotion motion(*rig, HumanoidRigNode(av, *rig, "head"), HumanoidRigNode(av, *rig, "hips"));
  ClipDriver driver(*world, motion);
  driver.Reset();
  StepReport all;
  for (int f = 0; f < 240; ++f) all.Merge(driver.Advance(1.0 / 60.0));
  EXPECT_TRUE(all.flags & kStepZeroLength);
  for (const auto& t : world->tails())
    EXPECT_TRUE(std::isfinite(t.x) && std::isfinite(t.y) && std::isfinite(t.z));
  for (const auto& p : driver.pose())
    EXPECT_TRUE(std::isfinite(p.rotation.x) && std::isfinite(p.rotation.w));
  // dt = 0 and negative: nothing happens, reported.
  const uint64_t hash = world->StateHash();
  EXPECT_TRUE(driver.Advance(0.0).flags & kStepZeroDt);
  EXPECT_TRUE(driver.Advance(-1.0).flags & kStepZeroDt);
  EXPECT_EQ(world->StateHash(), hash);
  // Huge dt: capped at max_steps_per_call, the rest reported as dropped, clock kept.
  const double t0 = driver.time();
  StepReport big = driver.Advance(1000.0);
  EXPECT_EQ(big.steps_run, world->config().max_steps_per_call);
  EXPECT_EQ(big.steps_dropped, 120000 - world->config().max_steps_per_call);
  EXPECT_TRUE(big.flags & kStepStepsDropped);
  EXPECT_NEAR(driver.time() - t0, 1000.0, 1e-6);
}

// Any dt has a documented result, and a bad one never stops later steps: NaN and infinity are
// refused (kStepRefusedNonFinite, nothing runs), zero and negative do nothing (kStepZeroDt), a
// subnormal one runs no step, a huge one (1e7 s, 1e30 s, a wall-clock time passed as a delta)
// runs max_steps_per_call steps and reports the rest dropped. Before, about 1.8e7 s overflowed
// the frame drivers' step count: no step ran again, and the call still looked fine.
TEST(SolverRobustness, EveryTimeStepHasAResultAndNoneFreezesTheSolver) {
  Avatar av = test::MakeHairAvatar({test::ChainSpec{}});
  auto rig = BuildRig(av);
  ASSERT_TRUE(rig.ok());
  const int head = HumanoidRigNode(av, *rig, "head");
  HeadTurnMotion motion(*rig, head, HumanoidRigNode(av, *rig, "hips"));
  struct Case {
    double dt;
    uint32_t flag;  // expected among the flags
    bool runs;      // steps run
  };
  const Case cases[] = {{std::nan(""), kStepRefusedNonFinite, false},
                        {INFINITY, kStepRefusedNonFinite, false},
                        {-INFINITY, kStepRefusedNonFinite, false},
                        {0.0, kStepZeroDt, false},
                        {-1.0, kStepZeroDt, false},
                        {4.9e-324, 0, false},
                        {1e7, kStepStepsDropped, true},
                        {1.8e7, kStepStepsDropped, true},
                        {1.7e9, kStepStepsDropped, true},
                        {1e30, kStepStepsDropped, true}};
  for (SolverMode mode : {SolverMode::kArc, SolverMode::kVrm}) {
    SpringConfig cfg;
    cfg.mode = mode;
    auto world = SpringWorld::Create(*rig, cfg);
    ASSERT_TRUE(world.ok());
    ClipDriver clip(*world, motion);
    clip.Reset();
    // The frame drivers, on a world of their own.
    auto world2 = SpringWorld::Create(*rig, cfg);
    ASSERT_TRUE(world2.ok());
    std::vector<Transform> pose(rig->rest_local().begin(), rig->rest_local().end());
    FrameDriver frames(*world2);
    frames.Reset(pose);
    auto world3 = SpringWorld::Create(*rig, cfg);
    ASSERT_TRUE(world3.ok());
    std::vector<glm::mat4> all(rig->node_count());
    std::vector<glm::mat4> drivers(world3->driver_nodes().size());
    std::vector<glm::quat> rotations(rig->joint_node().size());
    auto drivers_at = [&](double t) {
      motion.Sample(t, pose);
      ComputeWorld(*rig, pose, all);
      for (size_t i = 0; i < drivers.size(); ++i) drivers[i] = all[world3->driver_nodes()[i]];
    };
    drivers_at(0.0);
    DrivenFrameDriver driven(*world3);
    driven.Reset(drivers);
    double t = 0.5;
    for (const Case& c : cases) {
      SCOPED_TRACE(std::string(SolverModeName(mode)) + " dt " + std::to_string(c.dt));
      const StepReport a = clip.Advance(c.dt);
      motion.Sample(t, pose);
      const StepReport b = frames.Advance(pose, c.dt);
      drivers_at(t);
      const StepReport d = driven.Advance(drivers, c.dt, rotations);
      for (const StepReport& r : {a, b, d}) {
        if (c.flag) EXPECT_TRUE(r.flags & c.flag) << r.flags;
        EXPECT_EQ(r.steps_run > 0, c.runs);
        if (c.runs) EXPECT_EQ(r.steps_run, cfg.max_steps_per_call);
        EXPECT_GE(r.steps_dropped, 0);
      }
      // The next ordinary frame runs its steps: nothing froze.
      t += 1.0 / 60.0;
      EXPECT_EQ(clip.Advance(1.0 / 60.0).steps_run, 2);
      motion.Sample(t, pose);
      EXPECT_GE(frames.Advance(pose, 1.0 / 60.0).steps_run, 1);
      drivers_at(t);
      EXPECT_GE(driven.Advance(drivers, 1.0 / 60.0, rotations).steps_run, 1);
      for (const SpringWorld* w : {&world.value(), &world2.value(), &world3.value()})
        for (const glm::vec3& p : w->tails())
          ASSERT_TRUE(std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z));
    }
  }
}

TEST(SolverRobustness, AnimationOwnershipLeavesAnimatedJointsAlone) {
  Avatar av = test::MakeHairAvatar({test::ChainSpec{}});
  auto rig = BuildRig(av);
  for (SolverMode mode : {SolverMode::kArc, SolverMode::kVrm}) {
    SpringConfig cfg;
    cfg.mode = mode;
    auto world = SpringWorld::Create(*rig, cfg);
    const int owned_joint = rig->joint_node()[1];
    std::vector<uint8_t> owned(rig->node_count(), 0);
    owned[owned_joint] = 1;
    world->SetOwnedNodes(owned);
    HeadTurnMotion motion(*rig, HumanoidRigNode(av, *rig, "head"),
                          HumanoidRigNode(av, *rig, "hips"));
    std::vector<Transform> pose(rig->node_count());
    const glm::quat authored = glm::angleAxis(0.7f, glm::vec3(1, 0, 0));
    int moved_free_joint = 0;
    for (int s = 1; s <= 240; ++s) {
      motion.Sample(s * SpringWorld::kStep, pose);
      pose[owned_joint].rotation = authored;  // the clip's track on a hair joint
      world->Step(pose);
      EXPECT_EQ(pose[owned_joint].rotation, authored) << "the solver overwrote an animated joint";
      if (pose[rig->joint_node()[2]].rotation != rig->rest_local()[rig->joint_node()[2]].rotation)
        ++moved_free_joint;
    }
    EXPECT_GT(moved_free_joint, 100) << "joints below still swing";
  }
}

TEST(SolverRobustness, SwitchingModesKeepsTheStrandInPlace) {
  Avatar av = test::MakeHairAvatar({test::ChainSpec{}});
  auto rig = BuildRig(av);
  auto world = SpringWorld::Create(*rig);
  HeadTurnMotion motion(*rig, HumanoidRigNode(av, *rig, "head"), HumanoidRigNode(av, *rig, "hips"));
  ClipDriver driver(*world, motion);
  driver.Reset();
  for (int f = 0; f < 60; ++f) driver.Advance(1.0 / 60.0);
  std::vector<glm::vec3> before(world->tails().begin(), world->tails().end());
  world->SetMode(SolverMode::kVrm);
  world->SetMode(SolverMode::kParent);
  for (size_t j = 0; j < before.size(); ++j)
    EXPECT_LT(glm::length(world->tails()[j] - before[j]), 1e-5f);
  StepReport rep = driver.Advance(1.0 / 60.0);
  EXPECT_EQ(rep.steps_run, 2);
  for (size_t j = 0; j + 1 < before.size(); ++j)
    EXPECT_LT(glm::length(world->tails()[j] - before[j]), 0.05f);
}

TEST(FrameDriver, InterpolatesBetweenFramesAndFollowsTheClip) {
  // Driving with whole frames of the head-turn at 30 fps must stay close to the clip-driven
  // result (the interpolated attachment differs only between frames).
  Avatar av = test::MakeHairAvatar({test::ChainSpec{}});
  auto rig = BuildRig(av);
  auto clip_world = SpringWorld::Create(*rig);
  auto frame_world = SpringWorld::Create(*rig);
  HeadTurnMotion motion(*rig, HumanoidRigNode(av, *rig, "head"), HumanoidRigNode(av, *rig, "hips"));
  ClipDriver clip(*clip_world, motion);
  clip.Reset();
  FrameDriver frames(*frame_world);
  std::vector<Transform> pose(rig->node_count());
  motion.Sample(0.0, pose);
  frames.Reset(pose);
  float worst = 0;
  for (int f = 1; f <= 12 * 30; ++f) {
    clip.Advance(1.0 / 30.0);
    motion.Sample(f / 30.0, pose);
    StepReport rep = frames.Advance(pose, 1.0 / 30.0);
    EXPECT_EQ(rep.steps_run, 4);
    for (size_t j = 0; j < clip_world->tails().size(); ++j)
      worst = std::max(worst, glm::length(clip_world->tails()[j] - frame_world->tails()[j]));
  }
  EXPECT_LT(worst, 0.01f) << "frame-driven drifted " << worst * 1000 << " mm from clip-driven";
  EXPECT_GT(worst, 0.0f);  // they are different methods: not bitwise equal
  // Interpolate: halfway between two transforms.
  Transform a{{0, 0, 0}, glm::quat(1, 0, 0, 0), {1, 1, 1}};
  Transform b{{2, 0, 0}, glm::angleAxis(glm::radians(90.0f), glm::vec3(0, 1, 0)), {3, 3, 3}};
  Transform m = Interpolate(a, b, 0.5f);
  EXPECT_NEAR(m.translation.x, 1.0f, 1e-6f);
  EXPECT_NEAR(m.scale.y, 2.0f, 1e-6f);
  EXPECT_NEAR(glm::degrees(glm::angle(m.rotation)), 45.0f, 1e-3f);
}

TEST(HeadTurn, MatchesTheSpecDefinition) {
  double yaw, pitch, sway;
  HeadTurnMotion::Angles(0.5, &yaw, &pitch, &sway);
  // w(0.5) = sin^2(pi/8) = 0.1464466; yaw = 50 deg * w * sin(pi/2) = 7.3223 deg.
  EXPECT_NEAR(glm::degrees(yaw), 7.32233, 1e-4);
  EXPECT_NEAR(glm::degrees(pitch), 15.0 * 0.1464466 * std::sin(2 * M_PI * 0.5 / 1.3), 1e-4);
  EXPECT_NEAR(sway, 0.03 * 0.1464466, 1e-7);
  HeadTurnMotion::Angles(6.0, &yaw, &pitch, &sway);
  EXPECT_EQ(yaw, 0.0);
  EXPECT_EQ(sway, 0.0);
  // Positive yaw turns the face (+Z) towards the avatar's left (+X); positive pitch lifts it.
  Avatar av = test::MakeHairAvatar({});
  auto rig = BuildRig(av);
  HeadTurnMotion motion(*rig, 2, 0);
  std::vector<Transform> pose(rig->node_count());
  std::vector<glm::mat4> world(rig->node_count());
  motion.Sample(0.5, pose);  // yaw > 0, pitch > 0, sway > 0
  ComputeWorld(*rig, pose, world);
  glm::vec3 face = glm::mat3(world[2]) * glm::vec3(0, 0, 1);
  EXPECT_GT(face.x, 0.1f);
  EXPECT_GT(face.y, 0.01f);
  EXPECT_LT(world[0][3].x, 0.0f);  // hips moved to the avatar's right (-X)
  EXPECT_NEAR(world[0][3].x, -0.03 * 0.1464466, 1e-6);
}

}  // namespace
}  // namespace hairswing

namespace hairswing {
namespace {

// vrm mode follows the spec's true bone length; the three-vrm compat switch reproduces its stale
// child length, which lets moving chains stretch. Both facts are checked here.
TEST(VrmMode, SpecLengthIsExactAndCompatQuirkStretches) {
  Avatar av = test::MakeHairAvatar({test::ChainSpec{}});
  auto rig = BuildRig(av);
  for (bool compat : {false, true}) {
    SpringConfig cfg;
    cfg.mode = SolverMode::kVrm;
    cfg.vrm_three_compat = compat;
    auto world = SpringWorld::Create(*rig, cfg);
    HeadTurnMotion motion(*rig, HumanoidRigNode(av, *rig, "head"),
                          HumanoidRigNode(av, *rig, "hips"));
    std::vector<Transform> pose(rig->node_count());
    float worst = 0;
    for (int f = 1; f <= 240; ++f) {
      motion.Sample(f / 60.0, pose);
      world->StepVariable(pose, 1.0f / 60.0f);
      for (int j = 1; j + 1 < rig->chains()[0].joint_end; ++j) {
        const float rest = glm::length(glm::vec3(rig->rest_world()[rig->joint_node()[j + 1]][3]) -
                                       glm::vec3(rig->rest_world()[rig->joint_node()[j]][3]));
        worst = std::max(worst,
                         std::fabs(glm::length(world->tails()[j] - world->tails()[j - 1]) - rest));
      }
    }
    if (compat)
      EXPECT_GT(worst, 1e-4f) << "the quirk should show on a moving chain";
    else
      EXPECT_LT(worst, 1e-5f) << "spec mode must keep bone lengths";
  }
}

}  // namespace
}  // namespace hairswing
