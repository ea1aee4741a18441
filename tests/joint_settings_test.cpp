// SpringWorld::SetJointSettings: a joint's VRM parameters changed while the world runs (three-vrm's
// joint.settings idiom). Set before the first step they give bit for bit the world built from a
// file with those values, in every mode; set mid-run they change that chain only; setting what is
// there changes nothing; bad values are refused and change nothing.
#include <gtest/gtest.h>

#include <cmath>

#include "hairswing/anim.h"
#include "hairswing/demo.h"
#include "hairswing/motion.h"
#include "hairswing/rig.h"
#include "hairswing/spring.h"

namespace hairswing {
namespace {

// The head-turn on `rig` for `seconds`, calling `between(world, step)` before each caller frame.
template <typename F>
std::vector<glm::vec3> HeadTurn(const Rig& rig, const Avatar& av, SolverMode mode, double seconds,
                                F between) {
  SpringConfig cfg;
  cfg.mode = mode;
  auto world = SpringWorld::Create(rig, cfg);
  EXPECT_TRUE(world.ok()) << world.status().message();
  HeadTurnMotion motion(rig, HumanoidRigNode(av, rig, "head"), HumanoidRigNode(av, rig, "hips"));
  ClipDriver driver(*world, motion);
  driver.Reset();
  const int frames = static_cast<int>(seconds * 60);
  for (int f = 0; f < frames; ++f) {
    between(*world, f);
    driver.Advance(1.0 / 60.0);
  }
  return {world->tails().begin(), world->tails().end()};
}

class JointSettingsModes : public ::testing::TestWithParam<SolverMode> {};

TEST_P(JointSettingsModes, SetBeforeTheFirstStepEqualsTheFileWithThoseValues) {
  const Avatar base = MakeDemoAvatar(DemoVariant::kLayered);
  Avatar edited = base;
  // Chain 3 stiffer, less drag, some gravity sideways, a wider radius; chain 7 softer.
  for (SpringJoint& j : edited.vrm.springs[3].joints) {
    j.stiffness *= 2.5f;
    j.drag_force = 0.2f;
    j.gravity_power = 0.3f;
    j.gravity_dir = glm::normalize(glm::vec3(1, -1, 0));
    j.hit_radius *= 1.5f;
  }
  for (SpringJoint& j : edited.vrm.springs[7].joints) j.stiffness *= 0.5f;
  auto rig_base = BuildRig(base);
  auto rig_edit = BuildRig(edited);
  ASSERT_TRUE(rig_base.ok() && rig_edit.ok());
  const auto from_file = HeadTurn(*rig_edit, edited, GetParam(), 2.0, [](SpringWorld&, int) {});
  const auto set_live = HeadTurn(*rig_base, base, GetParam(), 2.0, [&](SpringWorld& w, int f) {
    if (f != 0) return;
    for (size_t j = 0; j < rig_edit->joint_node().size(); ++j) {
      const SpringWorld::JointSettings s{rig_edit->joint_stiffness()[j], rig_edit->joint_drag()[j],
                                         rig_edit->joint_gravity_power()[j],
                                         rig_edit->joint_gravity_dir()[j],
                                         rig_edit->joint_hit_radius()[j]};
      ASSERT_TRUE(w.SetJointSettings(static_cast<int>(j), s).ok());
    }
  });
  const auto untouched = HeadTurn(*rig_base, base, GetParam(), 2.0, [](SpringWorld&, int) {});
  ASSERT_EQ(from_file.size(), set_live.size());
  for (size_t j = 0; j < from_file.size(); ++j) {
    EXPECT_EQ(from_file[j], set_live[j]) << "joint " << j;  // bit for bit
  }
  EXPECT_NE(from_file, untouched);  // the edit changes the motion at all
}

TEST_P(JointSettingsModes, MidRunChangeMovesThatChainOnlyAndSameValuesChangeNothing) {
  const Avatar av = MakeDemoAvatar(DemoVariant::kLayered);
  auto rig = BuildRig(av);
  ASSERT_TRUE(rig.ok());
  const RigChain& ch = rig->chains()[2];
  const auto untouched = HeadTurn(*rig, av, GetParam(), 3.0, [](SpringWorld&, int) {});
  // Reading every joint's settings and writing them back: the same bits.
  const auto rewritten = HeadTurn(*rig, av, GetParam(), 3.0, [](SpringWorld& w, int f) {
    if (f != 30) return;
    for (int j = 0; j < static_cast<int>(w.rig().joint_node().size()); ++j)
      ASSERT_TRUE(w.SetJointSettings(j, w.joint_settings(j)).ok());
  });
  EXPECT_EQ(untouched, rewritten);
  // One second in, chain 2 becomes four times stiffer.
  const auto stiffer = HeadTurn(*rig, av, GetParam(), 3.0, [&](SpringWorld& w, int f) {
    if (f != 60) return;
    for (int j = ch.joint_begin; j < ch.joint_end; ++j) {
      SpringWorld::JointSettings s = w.joint_settings(j);
      s.stiffness *= 4.0f;
      ASSERT_TRUE(w.SetJointSettings(j, s).ok());
      EXPECT_EQ(w.joint_settings(j).stiffness, s.stiffness);
    }
  });
  double moved = 0;
  for (size_t j = 0; j < untouched.size(); ++j) {
    const bool own = static_cast<int>(j) >= ch.joint_begin && static_cast<int>(j) < ch.joint_end;
    if (own)
      moved = std::max(moved, static_cast<double>(glm::distance(untouched[j], stiffer[j])));
    else
      EXPECT_EQ(untouched[j], stiffer[j]) << "joint " << j << " of another chain moved";
  }
  EXPECT_GT(moved, 1e-4) << "four times the stiffness did not change the chain";
}

INSTANTIATE_TEST_SUITE_P(Modes, JointSettingsModes,
                         ::testing::Values(SolverMode::kArc, SolverMode::kParent, SolverMode::kVrm),
                         [](const auto& info) { return std::string(SolverModeName(info.param)); });

TEST(JointSettings, BadValuesAreRefusedAndChangeNothing) {
  const Avatar av = MakeDemoAvatar(DemoVariant::kPonytail);
  auto rig = BuildRig(av);
  ASSERT_TRUE(rig.ok());
  auto world = SpringWorld::Create(*rig);
  ASSERT_TRUE(world.ok());
  const SpringWorld::JointSettings good = world->joint_settings(0);
  const auto coef_before =
      std::vector<SegmentCoefficients>(world->coefficients().begin(), world->coefficients().end());
  auto bad = [&](auto edit, const char* what) {
    SpringWorld::JointSettings s = good;
    edit(s);
    const Status st = world->SetJointSettings(0, s);
    EXPECT_FALSE(st.ok()) << what;
    EXPECT_NE(st.message().find(what), std::string::npos) << st.message();
  };
  bad([](auto& s) { s.stiffness = -1; }, "stiffness");
  bad([](auto& s) { s.stiffness = std::nanf(""); }, "stiffness");
  bad([](auto& s) { s.drag_force = 1.5f; }, "dragForce");
  bad([](auto& s) { s.gravity_power = INFINITY; }, "gravityPower");
  bad([](auto& s) { s.hit_radius = -0.1f; }, "hitRadius");
  bad([](auto& s) { s.gravity_dir = glm::vec3(0); }, "gravityDir");
  EXPECT_FALSE(world->SetJointSettings(-1, good).ok());
  EXPECT_FALSE(world->SetJointSettings(static_cast<int>(rig->joint_node().size()), good).ok());
  const SpringWorld::JointSettings after = world->joint_settings(0);
  EXPECT_EQ(after.stiffness, good.stiffness);
  EXPECT_EQ(after.drag_force, good.drag_force);
  EXPECT_EQ(after.hit_radius, good.hit_radius);
  EXPECT_EQ(after.gravity_dir, good.gravity_dir);
  ASSERT_EQ(world->coefficients().size(), coef_before.size());
  for (size_t j = 0; j < coef_before.size(); ++j) {
    EXPECT_EQ(world->coefficients()[j].k, coef_before[j].k);
    EXPECT_EQ(world->coefficients()[j].c, coef_before[j].c);
  }
  // A direction that is not unit length is normalised.
  SpringWorld::JointSettings s = good;
  s.gravity_dir = glm::vec3(0, 0, -3);
  ASSERT_TRUE(world->SetJointSettings(0, s).ok());
  EXPECT_NEAR(glm::length(world->joint_settings(0).gravity_dir), 1.0f, 1e-6f);
}

}  // namespace
}  // namespace hairswing
