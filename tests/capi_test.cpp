// The C API misused the way a C caller can: modes and frame rates out of range (negative enum
// values included), NULL pointers, time steps from 0 to 1e30 and
// infinity. Built into its own program so the sanitizer build runs it too (undefined behaviour
// such as an out-of-range enum value fails there).
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "hairswing/demo.h"
#include "hairswing/hairswing.h"
#include "hairswing/io.h"
#include "hairswing/motion.h"
#include "hairswing/rig.h"
#include "hairswing/spring.h"

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

// hs_config carries its own size: a config that skipped hs_config_default, or one laid out by
// another version of hairswing.h, is refused naming struct_size, not read from the wrong place.
TEST(CApi, AConfigOfAnotherSizeIsRefused) {
  Loaded l;
  ASSERT_NE(l.av, nullptr);
  hs_config c;
  hs_config_default(&c);
  EXPECT_EQ(c.struct_size, sizeof(hs_config));
  hs_world* w = nullptr;
  ASSERT_EQ(hs_world_create(l.av, &c, &w), HS_OK) << hs_last_error();
  hs_world_destroy(w);
  for (const auto& [size, status] : {std::pair<uint32_t, hs_status>{0, HS_INVALID_ARGUMENT},
                                     {36, HS_INVALID_ARGUMENT},  // the layout before struct_size
                                     {sizeof(hs_config) + 4, HS_UNSUPPORTED}}) {
    hs_config odd = c;
    odd.struct_size = size;
    w = reinterpret_cast<hs_world*>(&odd);  // must be set to NULL, not left or used
    EXPECT_EQ(hs_world_create(l.av, &odd, &w), status) << size;
    EXPECT_EQ(w, nullptr);
    EXPECT_NE(std::strstr(hs_last_error(), "struct_size"), nullptr) << hs_last_error();
  }
  // hs_config_init writes no more than the size it is given: a caller built against a smaller
  // (older) or larger (newer) hs_config keeps the bytes past its own, and gets its size refused.
  struct Padded {
    hs_config c;
    unsigned char canary[16];
  };
  for (size_t size : {sizeof(hs_config) - 4, sizeof(hs_config), sizeof(hs_config) + 8}) {
    Padded p;
    std::memset(&p, 0xab, sizeof p);
    hs_config_init(&p.c, size);
    EXPECT_EQ(p.c.struct_size, size);
    const auto* bytes = reinterpret_cast<const unsigned char*>(&p);
    for (size_t b = 4; b < sizeof p; ++b)
      if (b >= size)
        EXPECT_EQ(bytes[b], 0xab) << "byte " << b << " of a " << size << " byte config";
    if (size == sizeof(hs_config)) {
      EXPECT_EQ(std::memcmp(&p.c, &c, sizeof c), 0) << "hs_config_init differs from the default";
      continue;
    }
    w = reinterpret_cast<hs_world*>(&p);
    EXPECT_EQ(hs_world_create(l.av, &p.c, &w),
              size < sizeof(hs_config) ? HS_INVALID_ARGUMENT : HS_UNSUPPORTED);
    EXPECT_EQ(w, nullptr);
  }
  {  // A size that cannot hold struct_size: nothing written.
    Padded p;
    std::memset(&p, 0xab, sizeof p);
    hs_config_init(&p.c, 3);
    const auto* bytes = reinterpret_cast<const unsigned char*>(&p);
    EXPECT_TRUE(std::all_of(bytes, bytes + sizeof p, [](unsigned char x) { return x == 0xab; }));
  }
  // Without hs_config_default: a zeroed config is refused, not taken as mode 0 with zero stiffness.
  hs_config zeroed;
  std::memset(&zeroed, 0, sizeof zeroed);
  EXPECT_EQ(hs_world_create(l.av, &zeroed, &w), HS_INVALID_ARGUMENT);
  EXPECT_NE(std::strstr(hs_last_error(), "hs_config_default"), nullptr) << hs_last_error();
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

// arc's named settings: the library's values (hs_config_arc_setting), refused names and values,
// and arc_follow reaching the solver: a world swung sideways for 2 s ends as the native world
// with the same setting driven by the same matrices, and elsewhere than with `lively`.
TEST(CApi, ArcSettingsAreTheLibrarysAndReachTheSolver) {
  Loaded l;
  hs_config c;
  hs_config_default(&c);
  EXPECT_EQ(c.arc_follow, 0.0f);
  for (const char* name : {"article", "lively", "follow"}) {
    SCOPED_TRACE(name);
    hairswing::SpringConfig native;
    ASSERT_TRUE(hairswing::ApplyArcSetting(name, &native));
    ASSERT_EQ(hs_config_arc_setting(&c, name), HS_OK) << hs_last_error();
    EXPECT_EQ(c.arc_liveliness, native.arc_liveliness);
    EXPECT_EQ(c.arc_stiffness, native.arc_stiffness);
    EXPECT_EQ(c.arc_follow, native.arc_follow);
  }
  EXPECT_EQ(c.arc_follow, 0.7f);
  const hs_config before = c;
  EXPECT_EQ(hs_config_arc_setting(&c, "bouncy"), HS_INVALID_ARGUMENT);
  EXPECT_NE(std::strstr(hs_last_error(), "bouncy"), nullptr) << hs_last_error();
  EXPECT_TRUE(c.arc_liveliness == before.arc_liveliness &&
              c.arc_stiffness == before.arc_stiffness && c.arc_follow == before.arc_follow)
      << "a refused name changes nothing";
  EXPECT_EQ(hs_config_arc_setting(&c, nullptr), HS_INVALID_ARGUMENT);
  EXPECT_EQ(hs_config_arc_setting(nullptr, "follow"), HS_INVALID_ARGUMENT);
  for (float bad : {-0.1f, 1.5f, NAN}) {
    hs_config b = before;
    b.arc_follow = bad;
    hs_world* w = nullptr;
    EXPECT_EQ(hs_world_create(l.av, &b, &w), HS_INVALID_ARGUMENT) << bad;
    EXPECT_NE(std::strstr(hs_last_error(), "arc_follow"), nullptr) << hs_last_error();
    EXPECT_EQ(w, nullptr);
  }

  // The same bytes loaded natively, for the native world.
  const std::vector<uint8_t> bytes = DemoBytes();
  const hairswing::Rig rig = *hairswing::BuildRig(
      hairswing::LoadAvatarFromMemory(bytes.data(), bytes.size(), "demo.vrm", "")->avatar);
  auto swing = [&](const char* name, uint64_t* native_hash) {
    hs_config cfg;
    hs_config_default(&cfg);
    EXPECT_EQ(hs_config_arc_setting(&cfg, name), HS_OK);
    hs_world* w = nullptr;
    EXPECT_EQ(hs_world_create(l.av, &cfg, &w), HS_OK) << hs_last_error();
    hairswing::SpringConfig ncfg;
    hairswing::ApplyArcSetting(name, &ncfg);
    hairswing::SpringWorld nw = *hairswing::SpringWorld::Create(rig, ncfg);
    hairswing::DrivenFrameDriver nd(nw);
    const size_t n = hs_avatar_node_count(l.av), nd_count = hs_world_driver_count(w);
    std::vector<float> rest(10 * n), world(16 * n), drivers(16 * nd_count),
        rot(4 * hs_world_joint_count(w));
    EXPECT_EQ(hs_avatar_rest_pose(l.av, rest.data(), n), HS_OK);
    EXPECT_EQ(hs_avatar_world_from_pose(l.av, rest.data(), world.data(), n), HS_OK);
    std::vector<glm::mat4> mats(nd_count);
    std::vector<glm::quat> nrot(rig.joint_node().size());
    for (int f = 0; f <= 120; ++f) {
      const float dx = 0.15f * std::sin(0.08f * static_cast<float>(f));  // metres, sideways
      for (size_t i = 0; i < nd_count; ++i) {
        std::memcpy(&drivers[16 * i], &world[16 * static_cast<size_t>(hs_world_driver_nodes(w)[i])],
                    16 * sizeof(float));
        drivers[16 * i + 12] += dx;
        std::memcpy(&mats[i], &drivers[16 * i], 16 * sizeof(float));
      }
      if (f == 0) {
        EXPECT_EQ(hs_world_reset(w, drivers.data()), HS_OK);
        nd.Reset(mats);
      } else {
        EXPECT_EQ(hs_world_advance(w, drivers.data(), 1.0 / 60.0, rot.data(), nullptr), HS_OK);
        nd.Advance(mats, 1.0 / 60.0, nrot);
      }
    }
    const uint64_t h = hs_world_state_hash(w);
    *native_hash = nw.StateHash();
    hs_world_destroy(w);
    return h;
  };
  uint64_t native_follow = 0, native_lively = 0;
  const uint64_t follow = swing("follow", &native_follow), lively = swing("lively", &native_lively);
  EXPECT_EQ(follow, native_follow);
  EXPECT_EQ(lively, native_lively);
  EXPECT_NE(follow, lively) << "arc_follow must reach the solver";
}

// Joint settings through the C API: read what the file says, write back all or nothing, and a
// change reaches the solved rotations.
// Collider groups, the groups each joint collides with, and joint limits: what the file holds,
// checked against the Avatar document the bytes were made from.
TEST(CApi, ColliderGroupsAndJointLimitsAreTheFiles) {
  hairswing::Avatar demo = hairswing::MakeDemoAvatar(hairswing::DemoVariant::kPonytail);
  ASSERT_GE(demo.vrm.collider_groups.size(), 1u);
  // A cone on the first spring's root joint and a spherical limit on its second.
  demo.vrm.springs[0].joints[0].limit = {
      hairswing::JointLimit::Kind::kCone, 0.5f, 0.0f, {1, 0, 0, 0}};
  const glm::quat turn = glm::angleAxis(0.3f, glm::vec3(0, 0, 1));
  demo.vrm.springs[0].joints[1].limit = {hairswing::JointLimit::Kind::kSpherical, 0.4f, 0.2f, turn};
  auto bytes = hairswing::EncodeGlb(demo, true, hairswing::VrmOutput::kKeepInput, nullptr);
  ASSERT_TRUE(bytes.ok());
  hs_avatar* av = nullptr;
  ASSERT_EQ(hs_avatar_load_memory(bytes->data(), bytes->size(), "limits.vrm", &av), HS_OK)
      << hs_last_error();
  ASSERT_EQ(hs_avatar_collider_group_count(av), demo.vrm.collider_groups.size());
  for (size_t g = 0; g < demo.vrm.collider_groups.size(); ++g) {
    EXPECT_STREQ(hs_avatar_collider_group_name(av, g), demo.vrm.collider_groups[g].name.c_str());
    size_t n = 0;
    ASSERT_EQ(hs_avatar_collider_group(av, g, nullptr, 0, &n), HS_OK);  // how many first
    std::vector<int32_t> got(n);
    ASSERT_EQ(hs_avatar_collider_group(av, g, got.data(), n, &n), HS_OK);
    EXPECT_EQ(std::vector<int32_t>(demo.vrm.collider_groups[g].colliders.begin(),
                                   demo.vrm.collider_groups[g].colliders.end()),
              got);
  }
  EXPECT_EQ(hs_avatar_collider_group_name(av, 999), nullptr);
  size_t n = 0;
  EXPECT_EQ(hs_avatar_collider_group(av, 999, nullptr, 0, &n), HS_INVALID_ARGUMENT);
  hs_world* w = nullptr;
  ASSERT_EQ(hs_world_create(av, nullptr, &w), HS_OK);
  // Joint 0 is the first spring's root: its groups, and its cone; joint 1 the spherical limit.
  ASSERT_EQ(hs_world_joint_collider_groups(w, 0, nullptr, 0, &n), HS_OK);
  std::vector<int32_t> groups(n);
  ASSERT_EQ(hs_world_joint_collider_groups(w, 0, groups.data(), n, &n), HS_OK);
  EXPECT_EQ(std::vector<int32_t>(demo.vrm.springs[0].collider_groups.begin(),
                                 demo.vrm.springs[0].collider_groups.end()),
            groups);
  hs_joint_limit lim{};
  ASSERT_EQ(hs_world_joint_limit(w, 0, &lim), HS_OK);
  EXPECT_EQ(lim.kind, 1);
  EXPECT_NEAR(lim.angle, 0.5f, 1e-6);
  ASSERT_EQ(hs_world_joint_limit(w, 1, &lim), HS_OK);
  EXPECT_EQ(lim.kind, 3);
  EXPECT_NEAR(lim.angle, 0.4f, 1e-6);
  EXPECT_NEAR(lim.yaw, 0.2f, 1e-6);
  EXPECT_NEAR(std::fabs(lim.rotation[2] * turn.z + lim.rotation[3] * turn.w), 1.0f, 1e-5);
  ASSERT_EQ(hs_world_joint_limit(w, 2, &lim), HS_OK);
  EXPECT_EQ(lim.kind, 0);
  const size_t nj = hs_world_joint_count(w);
  EXPECT_EQ(hs_world_joint_limit(w, nj, &lim), HS_INVALID_ARGUMENT);
  EXPECT_EQ(hs_world_joint_limit(w, 0, nullptr), HS_INVALID_ARGUMENT);
  EXPECT_EQ(hs_world_joint_collider_groups(w, nj, nullptr, 0, &n), HS_INVALID_ARGUMENT);
  hs_world_destroy(w);
  hs_avatar_destroy(av);
}

TEST(CApi, JointSettingsReadWriteAllOrNothing) {
  Loaded l;
  hs_world* w = nullptr;
  ASSERT_EQ(hs_world_create(l.av, nullptr, &w), HS_OK);
  const size_t nd = hs_world_driver_count(w), nj = hs_world_joint_count(w);
  std::vector<hs_joint_settings> s(nj);
  ASSERT_EQ(hs_world_joint_settings(w, 0, nj, s.data()), HS_OK);
  // The file's values (the demo's ponytail: stiffness 1, drag 0.4; a bang: stiffness 2.5).
  const hairswing::Avatar demo = hairswing::MakeDemoAvatar(hairswing::DemoVariant::kPonytail);
  EXPECT_EQ(s[0].stiffness, demo.vrm.springs[0].joints[0].stiffness);
  EXPECT_EQ(s[0].drag_force, demo.vrm.springs[0].joints[0].drag_force);
  EXPECT_EQ(s[0].hit_radius, demo.vrm.springs[0].joints[0].hit_radius);
  EXPECT_EQ(hs_world_joint_settings(w, nj, 1, s.data()), HS_INVALID_ARGUMENT);
  EXPECT_EQ(hs_world_joint_settings(w, 0, nj, nullptr), HS_INVALID_ARGUMENT);
  // A bad value after good ones: refused, naming the joint and field; nothing changed.
  std::vector<hs_joint_settings> edit = s;
  edit[0].stiffness = 7.0f;
  edit[2].drag_force = 3.0f;
  ASSERT_EQ(hs_world_set_joint_settings(w, 0, nj, edit.data()), HS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(hs_last_error()).find("joint 2: dragForce"), std::string::npos)
      << hs_last_error();
  std::vector<hs_joint_settings> now(nj);
  ASSERT_EQ(hs_world_joint_settings(w, 0, nj, now.data()), HS_OK);
  EXPECT_EQ(now[0].stiffness, s[0].stiffness) << "a refused call changed joint 0";
  // The same motion with and without a change: the rotations differ once it is applied.
  std::vector<float> rest(10 * hs_avatar_node_count(l.av)), world(16 * hs_avatar_node_count(l.av));
  ASSERT_EQ(hs_avatar_rest_pose(l.av, rest.data(), hs_avatar_node_count(l.av)), HS_OK);
  ASSERT_EQ(hs_avatar_world_from_pose(l.av, rest.data(), world.data(), hs_avatar_node_count(l.av)),
            HS_OK);
  std::vector<float> drivers(16 * nd), rot_a(4 * nj), rot_b(4 * nj);
  auto fill = [&](float sway) {
    for (size_t i = 0; i < nd; ++i) {
      std::memcpy(&drivers[16 * i], &world[16 * hs_world_driver_nodes(w)[i]], 16 * sizeof(float));
      drivers[16 * i + 12] += sway;  // the whole body slides sideways
    }
  };
  hs_world* w2 = nullptr;
  ASSERT_EQ(hs_world_create(l.av, nullptr, &w2), HS_OK);
  fill(0.0f);
  ASSERT_EQ(hs_world_reset(w, drivers.data()), HS_OK);
  ASSERT_EQ(hs_world_reset(w2, drivers.data()), HS_OK);
  edit = s;
  for (auto& e : edit) e.stiffness *= 0.25f;
  ASSERT_EQ(hs_world_set_joint_settings(w2, 0, nj, edit.data()), HS_OK);
  for (int f = 1; f <= 30; ++f) {
    fill(0.01f * f);
    ASSERT_EQ(hs_world_advance(w, drivers.data(), 1.0 / 60.0, rot_a.data(), nullptr), HS_OK);
    ASSERT_EQ(hs_world_advance(w2, drivers.data(), 1.0 / 60.0, rot_b.data(), nullptr), HS_OK);
  }
  EXPECT_NE(rot_a, rot_b);
  hs_world_destroy(w2);
  hs_world_destroy(w);
}

}  // namespace
