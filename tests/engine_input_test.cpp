// The engine-facing input (SpringWorld::StepDriven, DrivenFrameDriver): fed the world transforms
// of the driver nodes, it must compute bitwise what the whole-pose Step computes on the pose those
// transforms came from, in every mode, through contacts, teleports and owned joints.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <glm/gtc/matrix_transform.hpp>
#include <string>
#include <tuple>
#include <utility>

#include "core/math.h"
#include "hairswing/anim.h"
#include "hairswing/crowd.h"
#include "hairswing/demo.h"
#include "hairswing/motion.h"
#include "hairswing/spring.h"
#include "synthetic.h"

namespace hairswing {
namespace {

// Driver transforms as an engine computes them: its own world matrices of the animated pose with
// the spring joints at their rest rotation (the solver's starting point for every step).
std::vector<glm::mat4> DriverWorld(const SpringWorld& w, std::vector<Transform> pose) {
  const Rig& rig = w.rig();
  for (int node : rig.joint_node()) pose[node].rotation = rig.rest_local()[node].rotation;
  std::vector<glm::mat4> world(rig.node_count());
  ComputeWorld(rig, pose, world);
  std::vector<glm::mat4> out;
  for (int n : w.driver_nodes()) out.push_back(world[n]);
  return out;
}

// Two worlds of the rig in one mode, to step side by side.
std::pair<SpringWorld, SpringWorld> TwoWorlds(const Rig& rig, SolverMode mode) {
  SpringConfig cfg;
  cfg.mode = mode;
  auto a = SpringWorld::Create(rig, cfg);
  auto b = SpringWorld::Create(rig, cfg);
  EXPECT_TRUE(a.ok() && b.ok());
  return {std::move(*a), std::move(*b)};
}

// variable_dt > 0 (vrm mode): StepVariable against StepDrivenVariable, one step of that many
// seconds each, three-vrm's way.
void ExpectSameAsWholePose(const Avatar& av, SpringConfig cfg, int steps, bool own_first,
                           float variable_dt = 0.0f) {
  auto rig = BuildRig(av);
  ASSERT_TRUE(rig.ok()) << rig.status().message();
  auto a = SpringWorld::Create(*rig, cfg);
  auto b = SpringWorld::Create(*rig, cfg);
  ASSERT_TRUE(a.ok() && b.ok());
  // The driver list is what the step reads: smaller than the skeleton, parents first.
  EXPECT_LT(b->driver_nodes().size(), rig->node_count());
  EXPECT_TRUE(std::is_sorted(b->driver_nodes().begin(), b->driver_nodes().end()));
  std::vector<uint8_t> owned;
  if (own_first) {  // the clip owns the first joint of chain 0
    owned.assign(rig->node_count(), 0);
    owned[rig->joint_node()[rig->chains()[0].joint_begin]] = 1;
    a->SetOwnedNodes(owned);
    b->SetOwnedNodes(owned);
  }
  HeadTurnMotion motion(*rig, HumanoidRigNode(av, *rig, "head"), HumanoidRigNode(av, *rig, "hips"));
  std::vector<Transform> pose(rig->rest_local().begin(), rig->rest_local().end());
  motion.Sample(0.0, pose);
  a->Reset(pose);
  b->ResetDriven(DriverWorld(*b, pose));
  ASSERT_EQ(a->StateHash(), b->StateHash());
  std::vector<glm::quat> rot(rig->joint_node().size());
  const int owned_joint = rig->chains()[0].joint_begin;
  int contacts = 0;
  for (int s = 1; s <= steps; ++s) {
    motion.Sample(s * (variable_dt > 0 ? variable_dt : SpringWorld::kStep), pose);
    // A clip-owned joint: the clip's rotation goes in through `rot` and must come out unchanged.
    const glm::quat clip_rot = glm::angleAxis(0.3f * std::sin(0.05f * s), glm::vec3(1, 0, 0));
    if (own_first) {
      pose[rig->joint_node()[owned_joint]].rotation = clip_rot;
      rot[owned_joint] = clip_rot;
    }
    const std::vector<glm::mat4> drivers = DriverWorld(*b, pose);
    const StepReport ra = variable_dt > 0 ? a->StepVariable(pose, variable_dt) : a->Step(pose);
    const StepReport rb = variable_dt > 0 ? b->StepDrivenVariable(drivers, rot, variable_dt)
                                          : b->StepDriven(drivers, rot);
    contacts += ra.contacts;
    ASSERT_EQ(ra.flags, rb.flags) << "step " << s;
    ASSERT_EQ(ra.contacts, rb.contacts) << "step " << s;
    ASSERT_EQ(a->StateHash(), b->StateHash()) << "step " << s;
    for (size_t j = 0; j < rot.size(); ++j) {
      const glm::quat& qa = pose[rig->joint_node()[j]].rotation;
      ASSERT_TRUE(qa == rot[j]) << "step " << s << " joint " << j;
    }
    if (own_first) ASSERT_TRUE(rot[owned_joint] == clip_rot);
    // The joints' world matrices: the driven step leaves them to be built when world() is read
    // (SpringWorld::FinishWorld); they must be those the whole-pose step wrote.
    if (s % 7 == 0)
      for (int node : rig->joint_node())
        ASSERT_TRUE(a->world()[node] == b->world()[node]) << "step " << s << " node " << node;
  }
  // The head-turn must have done something for the comparison to mean anything.
  EXPECT_NE(a->StateHash(), 0u);
  ::testing::Test::RecordProperty("contacts", contacts);
  if (cfg.mode != SolverMode::kVrm)
    EXPECT_GT(contacts, 0) << "no contact: the comparison misses the contact path";
}

TEST(EngineInput, DrivenStepIsBitwiseTheWholePoseStep) {
  const Avatar layered = MakeDemoAvatar(DemoVariant::kLayered);
  const Avatar stress = test::MakeStressAvatar(12);
  for (const Avatar* av : {&layered, &stress}) {
    for (SolverMode mode : {SolverMode::kArc, SolverMode::kParent, SolverMode::kVrm}) {
      SCOPED_TRACE(std::string(SolverModeName(mode)) + (av == &layered ? " layered" : " stress"));
      SpringConfig cfg;
      cfg.mode = mode;
      ExpectSameAsWholePose(*av, cfg, 480, false);
      ExpectSameAsWholePose(*av, cfg, 240, true);
      if (mode == SolverMode::kVrm) {
        ExpectSameAsWholePose(*av, cfg, 240, false, 1.0f / 60.0f);
        cfg.vrm_three_compat = true;
        ExpectSameAsWholePose(*av, cfg, 240, false);
        ExpectSameAsWholePose(*av, cfg, 240, false, 1.0f / 45.0f);
      }
    }
  }
}

// The driven input begins a lane group's chains in one loop when none needs more than the flat
// path (SpringWorld::BeginPlainGroup); a teleport, or a head whose matrix is no similarity, sends
// the group back to the chain-by-chain begin. Both must give what the whole-pose step gives: the
// head-turn with a 5 m jump of the hips (every chain teleports), a 170 degree head turn (the
// head's chains teleport) and an uneven head scale (no chain goes flat) in between, while walking
// (each step is compared with the last, not with the first).
TEST(EngineInput, LaneGroupsBeginAsTheWholePoseStepThroughTeleportsAndUnevenScale) {
  const Avatar av = MakeDemoAvatar(DemoVariant::kLayered);
  auto rig = BuildRig(av);
  ASSERT_TRUE(rig.ok()) << rig.status().message();
  const int head = HumanoidRigNode(av, *rig, "head"), hips = HumanoidRigNode(av, *rig, "hips");
  for (SolverMode mode : {SolverMode::kArc, SolverMode::kParent, SolverMode::kVrm}) {
    SCOPED_TRACE(SolverModeName(mode));
    auto [a_world, b_world] = TwoWorlds(*rig, mode);
    SpringWorld *a = &a_world, *b = &b_world;
    HeadTurnMotion motion(*rig, head, hips);
    std::vector<Transform> pose(rig->rest_local().begin(), rig->rest_local().end());
    motion.Sample(0.0, pose);
    a->Reset(pose);
    b->ResetDriven(DriverWorld(*b, pose));
    std::vector<glm::quat> rot(rig->joint_node().size());
    int teleports = 0, in_lanes = 0, general = 0;
    for (int s = 1; s <= 240; ++s) {
      motion.Sample(s * SpringWorld::kStep, pose);
      pose[hips].translation.z += 0.01f * s;          // walking at 1.2 m/s: no teleport
      if (s >= 60) pose[hips].translation.x += 5.0f;  // from step 60 on: jumped 5 m
      if (s >= 120)                                   // from step 120 on: the head turned back
        pose[head].rotation =
            glm::angleAxis(glm::radians(170.0f), glm::vec3(0, 1, 0)) * pose[head].rotation;
      if (s >= 180 && s < 190) pose[head].scale = glm::vec3(1.0f, 1.3f, 1.0f);  // uneven
      const StepReport ra = a->Step(pose);
      const StepReport rb = b->StepDriven(DriverWorld(*b, pose), rot);
      ASSERT_EQ(ra.flags, rb.flags) << "step " << s;
      ASSERT_EQ(ra.teleports, rb.teleports) << "step " << s;
      ASSERT_EQ(a->StateHash(), b->StateHash()) << "step " << s;
      for (size_t j = 0; j < rot.size(); ++j)
        ASSERT_TRUE(pose[rig->joint_node()[j]].rotation == rot[j])
            << "step " << s << " joint " << j;
      teleports += rb.teleports;
      in_lanes += b->lane_chains();
      general += static_cast<int>(rig->chains().size()) - b->flat_chains();
    }
    // What the comparison is for: chains teleported (all at the jump, those hanging from the
    // head or below it at the turn), lane groups solved, chains on the general path (the uneven
    // scale).
    int under_head = 0;
    for (const RigChain& ch : rig->chains()) {
      int n = ch.attach;
      while (n >= 0 && n != head) n = rig->parent()[n];
      under_head += n == head;
    }
    EXPECT_GT(under_head, 0);
    EXPECT_EQ(teleports, static_cast<int>(rig->chains().size()) + under_head);
#if HAIRSWING_SIMD && defined(__SSE2__)
    EXPECT_GT(in_lanes, 0);  // (a build without SIMD has no lane groups; the rest holds there too)
#else
    EXPECT_EQ(in_lanes, 0);
#endif
    EXPECT_GT(general, 0);
  }
}

// The frame driver writes the joints' rotations once per frame, and a step skips putting them
// back to rest when the last one left them so. The general path reads them: a chain that turns to
// it right after a write-back (its attachment scaled unevenly, which the flat path does not take)
// must start from rest all the same. The reference puts them back at every step: a world told
// that the clip owns nodes (none of them a spring joint) takes that path.
TEST(EngineInput, RotationsWrittenOncePerFrameStartTheGeneralPathFromRest) {
  const Avatar av = MakeDemoAvatar(DemoVariant::kLayered);
  auto rig = BuildRig(av);
  ASSERT_TRUE(rig.ok());
  const int head = HumanoidRigNode(av, *rig, "head");
  for (SolverMode mode : {SolverMode::kArc, SolverMode::kParent, SolverMode::kVrm}) {
    SCOPED_TRACE(SolverModeName(mode));
    auto [skip_world, reset_world] = TwoWorlds(*rig, mode);
    SpringWorld *skip = &skip_world, *reset = &reset_world;
    reset->SetOwnedNodes(std::vector<uint8_t>(rig->node_count(), 0));
    const auto& drivers = skip->driver_nodes();
    const auto at = std::find(drivers.begin(), drivers.end(), head);
    ASSERT_NE(at, drivers.end()) << "the hair hangs from the head: a driver";
    HeadTurnMotion motion(*rig, head, HumanoidRigNode(av, *rig, "hips"));
    std::vector<Transform> pose(rig->rest_local().begin(), rig->rest_local().end());
    motion.Sample(0.0, pose);
    DrivenFrameDriver fs(*skip), fr(*reset);
    fs.Reset(DriverWorld(*skip, pose));
    fr.Reset(DriverWorld(*reset, pose));
    std::vector<glm::quat> rot_skip(rig->joint_node().size()), rot_reset(rot_skip.size());
    int general_frames = 0;
    for (int f = 1; f <= 240; ++f) {  // 60 fps: two steps per frame
      motion.Sample(f / 60.0, pose);
      std::vector<glm::mat4> world = DriverWorld(*skip, pose);
      // Frames 11-20, 31-40, ...: the head stretched along its height.
      const bool uneven = (f - 1) / 10 % 2 == 1;
      if (uneven) world[at - drivers.begin()] *= glm::scale(glm::mat4(1.0f), {1.0f, 1.15f, 1.0f});
      const StepReport rs = fs.Advance(world, 1.0 / 60.0, rot_skip);
      const StepReport rr = fr.Advance(world, 1.0 / 60.0, rot_reset);
      ASSERT_EQ(rs.steps_run, 2);
      ASSERT_EQ(rs.flags, rr.flags) << "frame " << f;
      ASSERT_EQ(skip->StateHash(), reset->StateHash()) << "frame " << f;
      for (size_t j = 0; j < rot_skip.size(); ++j)
        ASSERT_TRUE(rot_skip[j] == rot_reset[j]) << "frame " << f << " joint " << j;
      if (uneven && skip->flat_chains() < static_cast<int>(rig->chains().size())) ++general_frames;
    }
    EXPECT_GT(general_frames, 100) << "the uneven head must send chains to the general path";
  }
}

TEST(EngineInput, NonFiniteDriverTransformIsRefusedUnchanged) {
  const Avatar av = MakeDemoAvatar(DemoVariant::kPonytail);
  auto rig = BuildRig(av);
  ASSERT_TRUE(rig.ok());
  auto w = SpringWorld::Create(*rig);
  ASSERT_TRUE(w.ok());
  std::vector<Transform> pose(rig->rest_local().begin(), rig->rest_local().end());
  std::vector<glm::mat4> drivers = DriverWorld(*w, pose);
  w->ResetDriven(drivers);
  const uint64_t before = w->StateHash();
  std::vector<glm::quat> rot(rig->joint_node().size(), glm::quat(1, 0, 0, 0));
  // NaN, +inf and -inf, in a translation, a rotation column and a projective row.
  const std::tuple<float, int, int> bad[] = {
      {std::nanf(""), 3, 1}, {INFINITY, 0, 2}, {-INFINITY, 1, 3}, {INFINITY, 2, 0}};
  for (const auto& [value, col, row] : bad) {
    std::vector<glm::mat4> broken = drivers;
    broken.back()[col][row] = value;
    const StepReport r = w->StepDriven(broken, rot);
    EXPECT_TRUE(r.flags & kStepRefusedNonFinite) << value << " at " << col << "," << row;
    EXPECT_EQ(r.steps_run, 0);
    EXPECT_EQ(w->StateHash(), before);
  }
  // The same matrices, finite: the step runs.
  EXPECT_EQ(w->StepDriven(drivers, rot).steps_run, 1);
}

// The frame driver over driver transforms runs the same number of steps as the whole-pose one and
// reaches the same state while the body is still (both interpolate exactly between equal frames).
TEST(EngineInput, DrivenFrameDriverFollowsFramesLikeTheWholePoseDriver) {
  const Avatar av = MakeDemoAvatar(DemoVariant::kLayered);
  auto rig = BuildRig(av);
  ASSERT_TRUE(rig.ok());
  auto a = SpringWorld::Create(*rig);
  auto b = SpringWorld::Create(*rig);
  ASSERT_TRUE(a.ok() && b.ok());
  FrameDriver fa(*a);
  DrivenFrameDriver fb(*b);
  HeadTurnMotion motion(*rig, HumanoidRigNode(av, *rig, "head"), HumanoidRigNode(av, *rig, "hips"));
  std::vector<Transform> pose(rig->rest_local().begin(), rig->rest_local().end());
  motion.Sample(0.0, pose);
  fa.Reset(pose);
  fb.Reset(DriverWorld(*b, pose));
  std::vector<glm::quat> rot(rig->joint_node().size());
  double max_gap = 0.0;
  for (int f = 1; f <= 12 * 45; ++f) {  // 45 fps: 2 or 3 steps per frame
    const double t = f / 45.0;
    motion.Sample(t, pose);
    const StepReport ra = fa.Advance(pose, 1.0 / 45.0);
    const StepReport rb = fb.Advance(DriverWorld(*b, pose), 1.0 / 45.0, rot);
    ASSERT_EQ(ra.steps_run, rb.steps_run) << "frame " << f;
    for (size_t j = 0; j < a->tails().size(); ++j)
      max_gap = std::max(max_gap, static_cast<double>(glm::length(a->tails()[j] - b->tails()[j])));
  }
  // Interpolating locals and interpolating world transforms differ slightly while the head
  // turns; both are smooth, so the tails stay within a millimetre.
  EXPECT_LT(max_gap, 1e-3);
  RecordProperty("max_tail_gap_m", std::to_string(max_gap));
}

// The frame driver blends each driver transform between two frames (translation and scale
// lerped, rotation slerped: Interpolate) and steps at the blends. Checked against its definition:
// a second world stepped one step at a time at blends this test makes itself, with every
// transform split and blended anew. The drivers move in the ways the driver treats apart: all
// sway (only their translations change: it keeps their blended rotation and scale columns from
// frame to frame); the head turns, stops and turns again (its columns change, then stay, then
// change); a few frames scale every driver, a few rotate every driver, a few hold still. At 30,
// 40, 60 and 120 fps (4, 3, 2 and 1 steps per frame), in every mode: bitwise the same joint
// rotations and ends after every frame.
TEST(EngineInput, DrivenFrameDriverStepsAtTheBlendedDriverTransforms) {
  const Avatar av = MakeDemoAvatar(DemoVariant::kLayered);
  auto rig = BuildRig(av);
  ASSERT_TRUE(rig.ok());
  const int head = HumanoidRigNode(av, *rig, "head");
  // A transform as translation, per-axis scale and rotation, to blend (the driver's own split).
  auto split = [](const glm::mat4& m) {
    Transform t;
    t.translation = glm::vec3(m[3]);
    t.scale = glm::vec3(glm::length(glm::vec3(m[0])), glm::length(glm::vec3(m[1])),
                        glm::length(glm::vec3(m[2])));
    t.rotation = internal::RotationOf(m);
    return t;
  };
  for (int m = 0; m < 3; ++m) {
    auto [a, b] = TwoWorlds(*rig, static_cast<SolverMode>(m));
    const std::vector<Transform> rest(rig->rest_local().begin(), rig->rest_local().end());
    const std::vector<glm::mat4> base = DriverWorld(a, rest);
    const auto& nodes = a.driver_nodes();
    auto drivers_at = [&](int frame) {
      const int f = frame >= 140 && frame < 150 ? 140 : frame;  // frames 140-149: nothing moves
      const float turn = f < 30 ? 0.02f * f : f < 60 ? 0.6f : 0.6f - 0.03f * (f - 60);
      const float sway = 0.06f * std::sin(0.21f * f);
      const float grow = f >= 100 && f < 110 ? 1.0f + 0.02f * (f - 100) : 1.0f;
      const float lean = f >= 120 && f < 130 ? 0.05f * (f - 120) : f >= 130 ? 0.5f : 0.0f;
      const glm::mat4 body = glm::translate(glm::mat4(1.0f), glm::vec3(sway, 0.0f, 0.004f * f)) *
                             glm::rotate(glm::mat4(1.0f), lean, glm::vec3(1, 0, 0)) *
                             glm::scale(glm::mat4(1.0f), glm::vec3(grow));
      std::vector<glm::mat4> out(base.size());
      for (size_t i = 0; i < base.size(); ++i) {
        glm::mat4 local = base[i];
        if (nodes[i] == head) {  // the head turns about its own origin
          const glm::vec3 o(local[3]);
          local = glm::translate(glm::mat4(1.0f), o) *
                  glm::rotate(glm::mat4(1.0f), turn, glm::vec3(0, 1, 0)) *
                  glm::translate(glm::mat4(1.0f), -o) * local;
        }
        out[i] = body * local;
      }
      return out;
    };
    for (int fps : {30, 40, 60, 120}) {
      const int n = 120 / fps;
      DrivenFrameDriver driver(a);
      std::vector<glm::mat4> before = drivers_at(0);
      driver.Reset(before);
      b.ResetDriven(before);
      std::vector<glm::quat> ra(rig->joint_node().size()), rb(ra.size());
      std::vector<glm::mat4> blend(before.size());
      for (int f = 1; f <= 160; ++f) {
        const std::vector<glm::mat4> now = drivers_at(f);
        ASSERT_EQ(driver.Advance(now, 1.0 / fps, ra).steps_run, n) << "frame " << f;
        for (int k = 1; k <= n; ++k) {
          const float t = static_cast<float>(static_cast<double>(k) / n);
          for (size_t i = 0; i < now.size(); ++i)
            blend[i] = k == n || before[i] == now[i]
                           ? now[i]
                           : ToMatrix(Interpolate(split(before[i]), split(now[i]), t));
          b.StepDriven(blend, rb);
        }
        before = now;
        const std::string where = std::string(SolverModeName(static_cast<SolverMode>(m))) + " " +
                                  std::to_string(fps) + " fps, frame " + std::to_string(f);
        ASSERT_EQ(std::memcmp(ra.data(), rb.data(), ra.size() * sizeof(glm::quat)), 0) << where;
        for (size_t j = 0; j < a.tails().size(); ++j)  // x, y, z (not the padding)
          ASSERT_EQ(std::memcmp(&a.tails()[j], &b.tails()[j], 3 * sizeof(float)), 0)
              << where << ", joint " << j;
      }
    }
  }
}

// A crowd of characters on two rigs, in all three modes, each with its own phase of the head-turn:
// stepped together over TBB, every character ends bitwise where it ends stepped alone.
TEST(Crowd, EveryCharacterIsBitwiseItsOwnSoloRun) {
  const Avatar layered = MakeDemoAvatar(DemoVariant::kLayered);
  const Avatar ponytail = MakeDemoAvatar(DemoVariant::kPonytail);
  auto rig_a = BuildRig(layered);
  auto rig_b = BuildRig(ponytail);
  ASSERT_TRUE(rig_a.ok() && rig_b.ok());
  const int n = 12;
  struct Solo {
    const Avatar* av;
    const Rig* rig;
    std::unique_ptr<SpringWorld> world;
    std::unique_ptr<DrivenFrameDriver> driver;
    std::unique_ptr<HeadTurnMotion> motion;
    std::vector<glm::quat> rot;
    double phase;
  };
  SpringCrowd crowd;
  std::vector<Solo> solo(n);
  for (int i = 0; i < n; ++i) {
    Solo& s = solo[i];
    s.av = i % 2 ? &ponytail : &layered;
    s.rig = i % 2 ? &*rig_b : &*rig_a;
    SpringConfig cfg;
    cfg.mode = static_cast<SolverMode>(i % 3);
    ASSERT_EQ(*crowd.Add(*s.rig, cfg), i);
    s.world = std::make_unique<SpringWorld>(*SpringWorld::Create(*s.rig, cfg));
    s.driver = std::make_unique<DrivenFrameDriver>(*s.world);
    s.motion = std::make_unique<HeadTurnMotion>(*s.rig, HumanoidRigNode(*s.av, *s.rig, "head"),
                                                HumanoidRigNode(*s.av, *s.rig, "hips"));
    s.rot.assign(s.rig->joint_node().size(), glm::quat(1, 0, 0, 0));
    s.phase = 0.1 * i;
  }
  auto drivers_at = [&](Solo& s, double t) {
    std::vector<Transform> pose(s.rig->rest_local().begin(), s.rig->rest_local().end());
    s.motion->Sample(t + s.phase, pose);
    return DriverWorld(*s.world, pose);
  };
  for (int i = 0; i < n; ++i) {
    const auto d = drivers_at(solo[i], 0.0);
    std::copy(d.begin(), d.end(), crowd.drivers(i).begin());
    solo[i].driver->Reset(d);
  }
  crowd.Reset();
  crowd.SetThreads(2);
  for (int f = 1; f <= 240; ++f) {
    for (int i = 0; i < n; ++i) {
      const auto d = drivers_at(solo[i], f / 60.0);
      std::copy(d.begin(), d.end(), crowd.drivers(i).begin());
      solo[i].driver->Advance(d, 1.0 / 60.0, solo[i].rot);
    }
    crowd.Advance(1.0 / 60.0);
  }
  for (int i = 0; i < n; ++i) {
    SCOPED_TRACE("character " + std::to_string(i));
    EXPECT_EQ(crowd.world(i).StateHash(), solo[i].world->StateHash());
    for (size_t j = 0; j < solo[i].rot.size(); ++j)
      EXPECT_TRUE(crowd.rotations(i)[j] == solo[i].rot[j]) << "joint " << j;
  }
  // Different phases really give different states (the comparison is not trivially equal).
  EXPECT_NE(crowd.world(0).StateHash(), crowd.world(6).StateHash());
}

}  // namespace
}  // namespace hairswing
