// Pinned state hashes (`hairswing hash`): the bits the solver produces for the 12 s head-turn on
// the demo avatars (and godette when ../shared is present), per mode, at 30, 60 and 120 fps.
//
// These values are not checked against anything outside the code: they are a tripwire. The
// physics is checked elsewhere (parity with three-vrm, tentacle, settling, contact tests); this
// test fails when any change, a compiler flag, a refactor or a "faster" path, changes a single
// bit of the result, so such a change is noticed and explained. A change that is meant to alter
// results updates these values in the same commit and says why. The WebAssembly build prints the
// same values (ctest wasm.hash_matches_native, tests/wasm_hash_check.sh). Frame-rate independence
// is checked here too: one value per mode for all three frame rates.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "hairswing/anim.h"
#include "hairswing/demo.h"
#include "hairswing/io.h"
#include "hairswing/motion.h"
#include "hairswing/spring.h"
#include "test_util.h"

namespace hairswing {
namespace {

std::string Hex(uint64_t h) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

// `arc` is pinned for arc's "lively" setting (liveliness 1, the author's stiffness: the default
// before the article's setting became it, so these values are unchanged since then and show that
// the change kept that setting's bits); `arc_default` for the default (the article's setting).
void ExpectHashes(const Avatar& av, const char* arc, const char* parent, const char* vrm,
                  const char* arc_default) {
  const char* expected[] = {arc, parent, vrm};
  for (int fps : {30, 60, 120}) {
    auto h = HeadTurnHash(av, SolverMode::kArc, fps);
    ASSERT_TRUE(h.ok()) << h.status().message();
    EXPECT_EQ(Hex(*h), arc_default) << "arc (default) at " << fps << " fps";
  }
  for (int m = 0; m < 3; ++m)
    for (int fps : {30, 60, 120}) {
      SpringConfig cfg;
      cfg.mode = static_cast<SolverMode>(m);
      ApplyArcSetting("lively", &cfg);
      auto h = HeadTurnHash(av, cfg, fps);
      ASSERT_TRUE(h.ok()) << h.status().message();
      EXPECT_EQ(Hex(*h), expected[m])
          << SolverModeName(static_cast<SolverMode>(m)) << " at " << fps << " fps";
    }
}

TEST(Determinism, PinnedHashesPonytailDemo) {
  ExpectHashes(MakeDemoAvatar(DemoVariant::kPonytail), "0cac71b5db3ba716", "efdfe9c210e63940",
               "c2f7850ef0a7ea45", "732071944a7e8913");
}

TEST(Determinism, PinnedHashesLayeredDemo) {
  ExpectHashes(MakeDemoAvatar(DemoVariant::kLayered), "d7199f905a437e41", "56de7e53ecc3f079",
               "2bcab04ccc5f6aa2", "ab1dd789987ff174");
}

TEST(Determinism, PinnedHashesGodette) {
  const std::string path = test::Shared("avatars/godette.vrm");
  if (path.empty()) GTEST_SKIP() << "../shared/data/avatars/godette.vrm not present";
  auto loaded = LoadAvatar(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  ExpectHashes(loaded->avatar, "3691514be413ade0", "3a6af6245f9bc179", "8af8c74851515883",
               "3f4e867b5301edaa");
}

// The general path (SpringConfig::flat_path = false) is the reference the flat path is tested
// against (tests/flat_path_test.cpp); its bits are pinned too, so a change to either is seen.
// vrm mode's general path is also the one three-vrm's stale bone length (vrm_three_compat) takes;
// its values are those vrm mode had everywhere before it got a flat path.
TEST(Determinism, PinnedHashesGeneralPath) {
  struct Case {
    DemoVariant variant;
    const char* arc;
    const char* parent;
    const char* vrm;
  };
  for (const Case& c :
       {Case{DemoVariant::kPonytail, "4ea23c5205c01d9f", "86611f919bda0289", "beeb014dcc3a3682"},
        Case{DemoVariant::kLayered, "6b4739aee2335425", "953c8ee2409e8cdc", "bfabd0715f89b9a6"}}) {
    const Avatar av = MakeDemoAvatar(c.variant);
    for (SolverMode mode : {SolverMode::kArc, SolverMode::kParent, SolverMode::kVrm}) {
      SpringConfig cfg;
      cfg.mode = mode;
      ApplyArcSetting("lively", &cfg);  // pinned for the lively setting (see ExpectHashes)
      cfg.flat_path = false;
      auto h = HeadTurnHash(av, cfg, 60);
      ASSERT_TRUE(h.ok()) << h.status().message();
      EXPECT_EQ(Hex(*h), mode == SolverMode::kArc      ? c.arc
                         : mode == SolverMode::kParent ? c.parent
                                                       : c.vrm)
          << SolverModeName(mode)
          << (c.variant == DemoVariant::kLayered ? " layered" : " ponytail");
    }
  }
}

// Frame-driven, through the engine-facing input: the caller's 60 fps frames of the head-turn as
// driver world transforms (DrivenFrameDriver interpolates them for the steps between), the
// rotations it hands back hashed with the state.
uint64_t DrivenHeadTurnHash(const Avatar& av, SolverMode mode, int fps = 60, bool lively = true) {
  const Rig rig = *BuildRig(av);
  SpringConfig cfg;
  cfg.mode = mode;
  if (lively) ApplyArcSetting("lively", &cfg);  // pinned for the lively setting (ExpectHashes)
  SpringWorld world = *SpringWorld::Create(rig, cfg);
  HeadTurnMotion motion(rig, HumanoidRigNode(av, rig, "head"), HumanoidRigNode(av, rig, "hips"));
  DrivenFrameDriver driver(world);
  std::vector<Transform> pose(rig.rest_local().begin(), rig.rest_local().end());
  std::vector<glm::mat4> all(rig.node_count()), drivers(world.driver_nodes().size());
  std::vector<glm::quat> rotations(rig.joint_node().size());
  auto sample = [&](double t) {
    motion.Sample(t, pose);
    ComputeWorld(rig, pose, all);
    for (size_t i = 0; i < drivers.size(); ++i) drivers[i] = all[world.driver_nodes()[i]];
  };
  sample(0.0);
  driver.Reset(drivers);
  for (int f = 1; f <= 12 * fps; ++f) {
    sample(static_cast<double>(f) / fps);
    driver.Advance(drivers, 1.0 / fps, rotations);
  }
  uint64_t h = world.StateHash();
  for (const glm::quat& q : rotations) {
    const auto* p = reinterpret_cast<const uint8_t*>(&q);
    for (size_t i = 0; i < sizeof q; ++i) h = (h ^ p[i]) * 1099511628211ull;
  }
  return h;
}

TEST(Determinism, PinnedHashesFrameDriven) {
  struct Case {
    DemoVariant variant;
    const char* expected[3];  // arc, parent, vrm
  };
  for (const Case& c :
       {Case{DemoVariant::kPonytail, {"77335d5bc1fdbd3f", "e64246637a88c14b", "c5f4e754f30f28bb"}},
        Case{DemoVariant::kLayered,
             {"dd42476132a43dbc", "1efadf6e515f4f8d", "38d6e3c8668f6b40"}}}) {
    const Avatar av = MakeDemoAvatar(c.variant);
    for (int m = 0; m < 3; ++m)
      EXPECT_EQ(Hex(DrivenHeadTurnHash(av, static_cast<SolverMode>(m))), c.expected[m])
          << SolverModeName(static_cast<SolverMode>(m))
          << (c.variant == DemoVariant::kLayered ? " layered" : " ponytail");
  }
  // Several steps per frame (30 fps: 4, three of them between two frames; 45 fps: 2 or 3): the
  // driver splits each moving transform once per frame and reuses it for the frame's steps and
  // the next frame. Pinned with the driver as it was before it kept the splits (fe59915), which
  // split both transforms at every step.
  const Avatar layered = MakeDemoAvatar(DemoVariant::kLayered);
  EXPECT_EQ(Hex(DrivenHeadTurnHash(layered, SolverMode::kArc, 30)), "3e39cfb6877329f2");
  EXPECT_EQ(Hex(DrivenHeadTurnHash(layered, SolverMode::kArc, 45)), "492a356ef592ebfa");
  EXPECT_EQ(Hex(DrivenHeadTurnHash(layered, SolverMode::kVrm, 45)), "26daae04ee43b42c");
  // The default arc (the article's setting) through the same input.
  EXPECT_EQ(Hex(DrivenHeadTurnHash(layered, SolverMode::kArc, 60, false)), "ad6cb84c2ff7c72e");
}

TEST(Determinism, HashRefusesAvatarsItCannotTurn) {
  Avatar av = MakeDemoAvatar(DemoVariant::kPonytail);
  EXPECT_FALSE(HeadTurnHash(av, SolverMode::kArc, 5).ok());  // would drop steps
  av.vrm.humanoid.erase("head");
  auto h = HeadTurnHash(av, SolverMode::kArc, 60);
  ASSERT_FALSE(h.ok());
  EXPECT_NE(h.status().message().find("head"), std::string::npos);
}

}  // namespace
}  // namespace hairswing
