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
#include "test_util.h"

namespace hairswing {
namespace {

std::string Hex(uint64_t h) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

void ExpectHashes(const Avatar& av, const char* arc, const char* parent, const char* vrm) {
  const char* expected[] = {arc, parent, vrm};
  for (int m = 0; m < 3; ++m)
    for (int fps : {30, 60, 120}) {
      auto h = HeadTurnHash(av, static_cast<SolverMode>(m), fps);
      ASSERT_TRUE(h.ok()) << h.status().message();
      EXPECT_EQ(Hex(*h), expected[m])
          << SolverModeName(static_cast<SolverMode>(m)) << " at " << fps << " fps";
    }
}

TEST(Determinism, PinnedHashesPonytailDemo) {
  ExpectHashes(MakeDemoAvatar(DemoVariant::kPonytail), "16c9902448684fd7", "0a7454eefe26078e",
               "f5cbb20a5f697624");
}

TEST(Determinism, PinnedHashesLayeredDemo) {
  ExpectHashes(MakeDemoAvatar(DemoVariant::kLayered), "2fd6f3cdf02032b2", "0b315860693ef779",
               "b7682f628bc87928");
}

TEST(Determinism, PinnedHashesGodette) {
  const std::string path = test::Shared("avatars/godette.vrm");
  if (path.empty()) GTEST_SKIP() << "../shared/data/avatars/godette.vrm not present";
  auto loaded = LoadAvatar(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  ExpectHashes(loaded->avatar, "7a913a8aa7d87461", "f0d3d12a6ae8c102", "ee0eb43c3e555d51");
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
