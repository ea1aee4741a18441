// The C API misused the way a C caller can: modes and frame rates out of range (negative enum
// values included), NULL pointers, time steps from 0 to 1e30 and
// infinity. Built into its own program so the sanitizer build runs it too (undefined behaviour
// such as an out-of-range enum value fails there).
#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <cstring>
#include <vector>

#include "hairswing/demo.h"
#include "hairswing/hairswing.h"
#include "hairswing/io.h"

namespace {

std::vector<uint8_t> DemoBytes() {
  auto bytes = hairswing::EncodeGlb(hairswing::MakeDemoAvatar(hairswing::DemoVariant::kPonytail),
                                    true, hairswing::VrmOutput::kKeepInput, nullptr);
  EXPECT_TRUE(bytes.ok());
  return bytes.ok() ? *bytes : std::vector<uint8_t>{};
}

struct Loaded {
  hs_avatar* av = nullptr;
  Loaded() {
    const std::vector<uint8_t> b = DemoBytes();
    EXPECT_EQ(hs_avatar_load_memory(b.data(), b.size(), "demo.vrm", &av), HS_OK) << hs_last_error();
  }
  ~Loaded() { hs_avatar_destroy(av); }
};

TEST(CApi, ModesOutsideTheEnumAreRefusedAsBadArguments) {
  Loaded l;
  ASSERT_NE(l.av, nullptr);
  uint64_t h = 0;
  for (int32_t m : {-1, INT32_MIN, 3, 7, INT32_MAX}) {
    const auto mode = static_cast<hs_mode>(m);
    EXPECT_EQ(hs_head_turn_hash(l.av, mode, 60, &h), HS_INVALID_ARGUMENT) << m;
    EXPECT_NE(std::strstr(hs_last_error(), "mode"), nullptr) << hs_last_error();
    hs_config c;
    hs_config_default(&c);
    c.mode = mode;
    hs_world* w = reinterpret_cast<hs_world*>(&c);  // must be overwritten or left alone, not used
    EXPECT_EQ(hs_world_create(l.av, &c, &w), HS_INVALID_ARGUMENT) << m;
  }
  hs_world* w = nullptr;
  ASSERT_EQ(hs_world_create(l.av, nullptr, &w), HS_OK);
  EXPECT_EQ(hs_world_set_mode(w, static_cast<hs_mode>(-1)), HS_INVALID_ARGUMENT);
  EXPECT_EQ(hs_world_set_mode(w, HS_MODE_VRM), HS_OK);
  hs_world_destroy(w);
}

TEST(CApi, AFrameRateOutOfRangeIsABadArgumentNotBadInput) {
  Loaded l;
  uint64_t h = 0;
  for (int32_t fps : {INT32_MIN, -60, 0, 9, 1001, INT32_MAX}) {
    EXPECT_EQ(hs_head_turn_hash(l.av, HS_MODE_ARC, fps, &h), HS_INVALID_ARGUMENT) << fps;
    EXPECT_NE(std::strstr(hs_last_error(), "fps"), nullptr) << hs_last_error();
  }
  EXPECT_EQ(hs_head_turn_hash(l.av, HS_MODE_ARC, 10, &h), HS_OK);
}

// Every time step has a documented result; none stops later steps.
TEST(CApi, HugeZeroAndNonFiniteTimeStepsNeverFreezeTheWorld) {
  Loaded l;
  hs_world* w = nullptr;
  ASSERT_EQ(hs_world_create(l.av, nullptr, &w), HS_OK);
  const size_t nd = hs_world_driver_count(w), nj = hs_world_joint_count(w);
  std::vector<float> rest(10 * hs_avatar_node_count(l.av)), world(16 * hs_avatar_node_count(l.av));
  ASSERT_EQ(hs_avatar_rest_pose(l.av, rest.data(), hs_avatar_node_count(l.av)), HS_OK);
  ASSERT_EQ(hs_avatar_world_from_pose(l.av, rest.data(), world.data(), hs_avatar_node_count(l.av)),
            HS_OK);
  std::vector<float> drivers(16 * nd), rot(4 * nj);
  for (size_t i = 0; i < nd; ++i)
    std::memcpy(&drivers[16 * i], &world[16 * hs_world_driver_nodes(w)[i]], 16 * sizeof(float));
  ASSERT_EQ(hs_world_reset(w, drivers.data()), HS_OK);
  hs_step_report r{};
  for (double dt : {1e7, 1e30, 1.8e7, 5e-324, 0.0}) {
    ASSERT_EQ(hs_world_advance(w, drivers.data(), dt, rot.data(), &r), HS_OK) << dt;
    if (dt >= 1.0) EXPECT_NE(r.flags & HS_STEP_STEPS_DROPPED, 0u) << dt;
    // The next ordinary frame runs its two steps.
    ASSERT_EQ(hs_world_advance(w, drivers.data(), 1.0 / 60.0, rot.data(), &r), HS_OK);
    EXPECT_EQ(r.steps_run, 2) << "after dt " << dt;
  }
  for (double dt : {double(INFINITY), -double(INFINITY), double(NAN), -1.0, -5e-324}) {
    EXPECT_EQ(hs_world_advance(w, drivers.data(), dt, rot.data(), &r), HS_INVALID_ARGUMENT) << dt;
    ASSERT_EQ(hs_world_advance(w, drivers.data(), 1.0 / 60.0, rot.data(), &r), HS_OK);
    EXPECT_EQ(r.steps_run, 2) << "after dt " << dt;
  }
  for (float v : rot) EXPECT_TRUE(std::isfinite(v));
  hs_world_destroy(w);
}

}  // namespace
