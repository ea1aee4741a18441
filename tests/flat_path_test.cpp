// The flat path (src/spring/arc_solver.cpp): plain chains carry only joint positions through the
// joint loop and get their rotations once per caller frame. It must be the same physics as the
// general path (world matrices along every node path; SpringConfig::flat_path = false), which
// computes the same formulas through 4x4 matrices and so differs only by rounding, and writing
// the rotations once per frame must give bitwise what writing them after every step gives.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <glm/gtc/matrix_transform.hpp>
#include <map>
#include <string>

#include "hairswing/anim.h"
#include "hairswing/demo.h"
#include "hairswing/motion.h"
#include "hairswing/spring.h"
#include "synthetic.h"

namespace hairswing {
namespace {

struct HeadTurnRun {
  std::vector<glm::vec3> tails;
  std::vector<glm::quat> rotations;  // spring joints' local rotations, flat joint order
  std::vector<glm::vec3> joints;     // spring joints' world positions (SpringWorld::world())
  int flat_chains = 0;
  int contacts = 0;
};

// The head-turn, clip-driven at `fps`, for `seconds`; every `every` frames `check` sees the run.
template <class Check>
HeadTurnRun RunHeadTurn(const Avatar& av, SolverMode mode, bool flat, int fps, double seconds,
                        int every, Check check, bool follow = false) {
  HeadTurnRun out;
  auto rig = BuildRig(av);
  EXPECT_TRUE(rig.ok()) << rig.status().message();
  SpringConfig cfg;
  if (follow) EXPECT_TRUE(ApplyArcSetting("follow", &cfg));
  cfg.mode = mode;
  cfg.flat_path = flat;
  auto world = SpringWorld::Create(*rig, cfg);
  EXPECT_TRUE(world.ok()) << world.status().message();
  HeadTurnMotion motion(*rig, HumanoidRigNode(av, *rig, "head"), HumanoidRigNode(av, *rig, "hips"));
  ClipDriver driver(*world, motion);
  driver.Reset();
  const long frames = std::lround(seconds * fps);
  for (long f = 1; f <= frames; ++f) {
    const StepReport rep = driver.Advance(1.0 / fps);
    out.contacts += rep.contacts;
    out.flat_chains = std::max(out.flat_chains, world->flat_chains());
    if (f % every) continue;
    out.tails.assign(world->tails().begin(), world->tails().end());
    out.rotations.clear();
    out.joints.clear();
    for (int node : rig->joint_node()) {
      out.rotations.push_back(driver.pose()[node].rotation);
      out.joints.emplace_back(world->world()[node][3]);
    }
    check(f / every, out);
  }
  return out;
}

// A head with a chain of 6 joints and a second chain of 4 hanging from the first one's third
// joint (a branch: the flat path must hand the solved joint to the later chain within the step),
// and a sphere on the head the chains swing into.
Avatar MakeBranchAvatar() {
  Avatar av = test::MakeHairAvatar({test::ChainSpec{}});
  const int from = av.vrm.springs[0].joints[2].node;
  Spring branch;
  branch.name = "branch";
  int parent = from;
  for (int j = 0; j < 4; ++j) {
    const int n =
        test::AddNode(av, "Branch_" + std::to_string(j), parent,
                      j == 0 ? glm::vec3(0.03f, -0.02f, 0.0f) : glm::vec3(0.02f, -0.05f, 0));
    SpringJoint sj;
    sj.node = n;
    sj.drag_force = 0.4f;
    sj.hit_radius = 0.02f;
    branch.joints.push_back(sj);
    parent = n;
  }
  av.vrm.springs.push_back(branch);
  test::AddCollider(av, av.vrm.humanoid.at("head"), ColliderShape::kSphere, {0.0f, -0.1f, -0.12f},
                    0.07f);
  return av;
}

float Angle(const glm::quat& a, const glm::quat& b) {
  return 2.0f * std::acos(std::min(1.0f, std::fabs(glm::dot(a, b))));
}

TEST(FlatPath, IsTheGeneralPathUpToRounding) {
  const Avatar ponytail = MakeDemoAvatar(DemoVariant::kPonytail);
  const Avatar layered = MakeDemoAvatar(DemoVariant::kLayered);
  const Avatar stress = test::MakeStressAvatar(12);
  const Avatar branch = MakeBranchAvatar();
  const std::pair<const char*, const Avatar*> avatars[] = {
      {"ponytail", &ponytail}, {"layered", &layered}, {"stress", &stress}, {"branch", &branch}};
  for (const auto& [name, av] : avatars)
    for (int variant = 0; variant < 4; ++variant) {  // arc, parent, arc's `follow`, vrm
      const SolverMode mode = variant == 1   ? SolverMode::kParent
                              : variant == 3 ? SolverMode::kVrm
                                             : SolverMode::kArc;
      const bool follow = variant == 2;
      SCOPED_TRACE(std::string(name) + " " + SolverModeName(mode) + (follow ? " follow" : ""));
      const size_t chains = BuildRig(*av)->chains().size();
      // 6 s of the head-turn at 60 fps, compared every half second.
      std::vector<HeadTurnRun> general;
      const HeadTurnRun g = RunHeadTurn(
          *av, mode, false, 60, 6.0, 30, [&](int, const HeadTurnRun& r) { general.push_back(r); },
          follow);
      EXPECT_EQ(g.flat_chains, 0);
      // Per compared instant: the largest end gap (m), joint gap (m) and rotation difference
      // (rad) over all joints.
      std::vector<double> gap, joint, angle;
      const HeadTurnRun f = RunHeadTurn(
          *av, mode, true, 60, 6.0, 30,
          [&](int i, const HeadTurnRun& r) {
            const HeadTurnRun& ref = general[i - 1];
            double gj = 0.0, jj = 0.0, aj = 0.0;
            for (size_t j = 0; j < r.tails.size(); ++j) {
              gj = std::max(gj, static_cast<double>(glm::length(r.tails[j] - ref.tails[j])));
              jj = std::max(jj, static_cast<double>(glm::length(r.joints[j] - ref.joints[j])));
              aj = std::max(aj, static_cast<double>(Angle(r.rotations[j], ref.rotations[j])));
            }
            gap.push_back(gj);
            joint.push_back(jj);
            angle.push_back(aj);
          },
          follow);
      EXPECT_EQ(f.flat_chains, static_cast<int>(chains)) << "every chain here is plain";
      ASSERT_EQ(gap.size(), 12u);
      // Rounding only: micrometres, where a wrong frame, a stale branch root or a missed contact
      // moves ends by centimetres for good. A link that just touches a collider in one run and
      // just misses it in the other makes a passing difference (measured: up to 1.1 mm on the
      // contact-heavy stress rig at 2-2.5 s, 30 um at 3 s, back under 3 um by 3.5 s): at most 3
      // of the 12 instants may show one, and it must have died out by the end.
      const auto above = [](const std::vector<double>& v, double limit) {
        return std::count_if(v.begin(), v.end(), [&](double x) { return x > limit; });
      };
      EXPECT_LE(above(gap, 20e-6), 3) << "instants with ends more than 20 um apart";
      EXPECT_LT(*std::max_element(gap.begin(), gap.end()), 3e-3) << "metres";
      EXPECT_LT(*std::max_element(joint.begin(), joint.end()), 3e-3) << "metres";
      EXPECT_LT(*std::max_element(angle.begin(), angle.end()), 0.05) << "radians";
      EXPECT_LT(gap.back(), 20e-6) << "metres, at the end";
      EXPECT_LT(joint.back(), 20e-6) << "metres, at the end";
      EXPECT_LT(angle.back(), 1e-3) << "radians, at the end";
      ::testing::Test::RecordProperty(
          std::string(name) + "_" + SolverModeName(mode) + (follow ? "_follow" : "") + "_max_um",
          static_cast<int>(*std::max_element(gap.begin(), gap.end()) * 1e6));
      EXPECT_EQ(f.contacts > 0, g.contacts > 0);
      if (av == &stress || av == &branch) EXPECT_GT(f.contacts, 0) << "the contact path ran";
    }
}

TEST(FlatPath, RotationsOncePerFrameAreBitwiseRotationsEveryStep) {
  // At 120 fps every frame runs one step, so the rotations are written after every step; at
  // 30 fps four steps run per frame and the rotations are written once. At common times the
  // poses and joint positions must be the same bits.
  const Avatar layered = MakeDemoAvatar(DemoVariant::kLayered);
  const Avatar branch = MakeBranchAvatar();
  for (const Avatar* av : {&layered, &branch})
    for (SolverMode mode : {SolverMode::kArc, SolverMode::kParent}) {
      SCOPED_TRACE(std::string(av == &layered ? "layered " : "branch ") + SolverModeName(mode));
      std::vector<HeadTurnRun> every_step;
      RunHeadTurn(*av, mode, true, 120, 4.0, 4,
                  [&](int, const HeadTurnRun& r) { every_step.push_back(r); });
      int compared = 0;
      float moved = 0.0f;  // largest turn of a joint from its rest rotation seen
      const Rig rig = *BuildRig(*av);
      const HeadTurnRun once =
          RunHeadTurn(*av, mode, true, 30, 4.0, 1, [&](int i, const HeadTurnRun& r) {
            const HeadTurnRun& ref = every_step[i - 1];
            ASSERT_EQ(r.tails, ref.tails) << "frame " << i;
            for (size_t j = 0; j < r.rotations.size(); ++j) {
              ASSERT_TRUE(r.rotations[j] == ref.rotations[j]) << "frame " << i << " joint " << j;
              ASSERT_TRUE(r.joints[j] == ref.joints[j]) << "frame " << i << " joint " << j;
              moved = std::max(
                  moved, Angle(r.rotations[j], rig.rest_local()[rig.joint_node()[j]].rotation));
            }
            ++compared;
          });
      EXPECT_EQ(compared, 120);
      EXPECT_GT(once.flat_chains, 0);
      EXPECT_GT(moved, 0.05f) << "the rotations compared are not rest poses";
    }
}

TEST(FlatPath, ChainsThatBreakItsAssumptionsTakeTheGeneralPath) {
  // The flat path assumes the joints below a chain's root sit where the rest pose puts them and
  // that no clip owns them; a chain that breaks either goes through the general path, the others
  // stay flat.
  const Avatar av = MakeDemoAvatar(DemoVariant::kLayered);
  const Rig rig = *BuildRig(av);
  const int chains = static_cast<int>(rig.chains().size());
  ASSERT_GE(chains, 3);
  SpringWorld world = *SpringWorld::Create(rig);
  std::vector<Transform> pose(rig.rest_local().begin(), rig.rest_local().end());
  world.Step(pose);
  EXPECT_EQ(world.flat_chains(), chains);
  // A clip moves the second joint of chain 0 (a translation key on a hair bone).
  const int moved = rig.joint_node()[rig.chains()[0].joint_begin + 1];
  pose[moved].translation *= 1.5f;
  world.Step(pose);
  EXPECT_EQ(world.flat_chains(), chains - 1);
  // The general path honours it: the chain's first segment is now 1.5 times as long.
  const glm::vec3 root(world.world()[rig.joint_node()[rig.chains()[0].joint_begin]][3]);
  const glm::vec3 second(world.world()[moved][3]);
  const glm::vec3 rest_root(rig.rest_world()[rig.joint_node()[rig.chains()[0].joint_begin]][3]);
  const glm::vec3 rest_second(rig.rest_world()[moved][3]);
  EXPECT_NEAR(glm::length(second - root), 1.5f * glm::length(rest_second - rest_root), 1e-5f);
  pose[moved] = rig.rest_local()[moved];
  // A clip owns the first joint of chain 1.
  std::vector<uint8_t> owned(rig.node_count(), 0);
  owned[rig.joint_node()[rig.chains()[1].joint_begin]] = 1;
  world.SetOwnedNodes(owned);
  world.Step(pose);
  EXPECT_EQ(world.flat_chains(), chains - 1);
  // flat_path = false: none.
  SpringConfig cfg;
  cfg.flat_path = false;
  SpringWorld general = *SpringWorld::Create(rig, cfg);
  general.Step(pose);
  EXPECT_EQ(general.flat_chains(), 0);
}

TEST(FlatPath, DrivenChainsOnAStretchedNodeTakeTheGeneralPath) {
  // Through the engine-facing input a chain's root keeps its rest local transform (a similarity),
  // so its world matrix is a similarity exactly when its parent's is: the verdict is made once
  // per parent node and step. A head stretched along one axis sends the chains on it through the
  // general path, in arc and vrm mode; a uniformly scaled one does not. vrm mode with three-vrm's
  // stale bone length always takes the general path.
  const Avatar av = MakeDemoAvatar(DemoVariant::kLayered);
  const Rig rig = *BuildRig(av);
  const int head = HumanoidRigNode(av, rig, "head");
  int on_head = 0;
  for (const RigChain& ch : rig.chains())
    on_head += rig.parent()[rig.joint_node()[ch.joint_begin]] == head ? 1 : 0;
  const int chains = static_cast<int>(rig.chains().size());
  ASSERT_GT(on_head, 0);
  for (int variant = 0; variant < 3; ++variant) {  // arc, vrm, vrm with three-vrm's length
    SCOPED_TRACE(variant);
    SpringConfig cfg;
    cfg.mode = variant == 0 ? SolverMode::kArc : SolverMode::kVrm;
    cfg.vrm_three_compat = variant == 2;
    SpringWorld world = *SpringWorld::Create(rig, cfg);
    std::vector<glm::mat4> drivers(world.driver_nodes().size());
    int head_slot = -1;
    for (size_t i = 0; i < drivers.size(); ++i) {
      drivers[i] = rig.rest_world()[world.driver_nodes()[i]];
      if (world.driver_nodes()[i] == head) head_slot = static_cast<int>(i);
    }
    ASSERT_GE(head_slot, 0);
    std::vector<glm::quat> rotations(rig.joint_node().size());
    world.ResetDriven(drivers);
    world.StepDriven(drivers, rotations);
    EXPECT_EQ(world.flat_chains(), variant == 2 ? 0 : chains);
    const glm::mat4 rest_head = drivers[head_slot];
    drivers[head_slot] = rest_head * glm::scale(glm::mat4(1.0f), glm::vec3(1.1f, 1.0f, 1.0f));
    world.StepDriven(drivers, rotations);
    EXPECT_EQ(world.flat_chains(), variant == 2 ? 0 : chains - on_head);
    drivers[head_slot] = rest_head * glm::scale(glm::mat4(1.0f), glm::vec3(1.1f));
    world.StepDriven(drivers, rotations);
    EXPECT_EQ(world.flat_chains(), variant == 2 ? 0 : chains);
  }
}

// Chains do not interact, so each must end bitwise where it ends alone, also when the contact
// filter shares one copy of a collider list between chains (chains 0, 1 and 3 below) and one of
// them overwrites it with its own broad phase's subset (chains 0 and 3: 5 links, 20 colliders)
// while another chain with a different list (chain 2) sits in between.
Avatar MakeSharedCollidersAvatar(const std::vector<int>& which) {
  const test::ChainSpec specs[] = {{6, {-0.06f, 0.05f, -0.1f}},
                                   {3, {-0.02f, 0.05f, -0.1f}},
                                   {6, {0.02f, 0.05f, -0.1f}},
                                   {6, {0.06f, 0.05f, -0.1f}}};
  std::vector<test::ChainSpec> chosen;
  for (int c : which) chosen.push_back(specs[c]);
  Avatar av = test::MakeHairAvatar(chosen);
  const int head = av.vrm.humanoid.at("head");
  ColliderGroup all{"all", {}}, few{"few", {}};
  for (int i = 0; i < 20; ++i) {
    Collider col;
    col.node = head;
    col.shape = ColliderShape::kSphere;
    col.offset = {-0.1f + 0.01f * i, 0.02f - 0.012f * i, -0.16f};
    col.radius = 0.03f;
    av.vrm.colliders.push_back(col);
    all.colliders.push_back(i);
    if (i % 4 == 0) few.colliders.push_back(i);
  }
  av.vrm.collider_groups = {all, few};
  for (size_t k = 0; k < which.size(); ++k)
    av.vrm.springs[k].collider_groups = {which[k] == 2 ? 1 : 0};
  return av;
}

TEST(FlatPath, ChainsSharingAColliderListEndAsTheyEndAlone) {
  for (SolverMode mode : {SolverMode::kArc, SolverMode::kParent, SolverMode::kVrm}) {
    SCOPED_TRACE(SolverModeName(mode));
    // Tails by joint node name after 4 s of the head-turn.
    auto run = [&](const Avatar& av, int* contacts) {
      std::map<std::string, glm::vec3> out;
      const Rig rig = *BuildRig(av);
      SpringConfig cfg;
      cfg.mode = mode;
      SpringWorld world = *SpringWorld::Create(rig, cfg);
      HeadTurnMotion motion(rig, HumanoidRigNode(av, rig, "head"),
                            HumanoidRigNode(av, rig, "hips"));
      ClipDriver driver(world, motion);
      driver.Reset();
      for (int f = 0; f < 240; ++f) *contacts += driver.Advance(1.0 / 60.0).contacts;
      for (size_t j = 0; j < rig.joint_node().size(); ++j)
        out[av.nodes[rig.source_node()[rig.joint_node()[j]]].name] = world.tails()[j];
      return out;
    };
    int contacts = 0, solo_contacts = 0;
    const auto together = run(MakeSharedCollidersAvatar({0, 1, 2, 3}), &contacts);
    EXPECT_GT(contacts, 100) << "the hair must touch the colliders for this to test anything";
    for (int c = 0; c < 4; ++c) {
      // Alone, chain c is the avatar's chain 0: its nodes are named Hair0_*.
      const auto alone = run(MakeSharedCollidersAvatar({c}), &solo_contacts);
      for (const auto& [name, tail] : alone) {
        const std::string in_all = "Hair" + std::to_string(c) + name.substr(name.find('_'));
        ASSERT_TRUE(together.count(in_all)) << in_all;
        EXPECT_EQ(together.at(in_all), tail) << in_all;
      }
    }
    EXPECT_EQ(contacts, solo_contacts);
  }
}

// Chains in SIMD lanes (SpringConfig::chain_lanes): chains of equal length on the head, sharing
// its colliders, are solved side by side. Chain lengths 6 4 6 6 4 6 6 4 make lane groups of
// chains {0, 2, 3, 5} and {1, 4, 7}, not next to each other in the rig, and chain 6 alone; each
// chain has its own stiffness, drag, gravity and hit radius (so the lanes must carry per-lane
// coefficients); chain 5 has a zero-length link (the lanes hand that depth to the scalar code);
// two spheres and a capsule make contacts, draping and the per-lane contact code happen (no
// plane: every link could touch one, so no link would end in the lanes); the small sphere on
// the body is one a link can leave the reach of within one step after touching it (the jerked
// motion below).
// With `limits`, angle limits of every kind in and out of the lane groups: cones on every joint
// of chain 0, a hinge on every joint of chain 2, a spherical limit on chain 3's second joint, a
// turned cone on chain 5's third joint (above its zero-length link), a cone on chain 4's root and
// on chain 6 (alone).
// With `mixed`, chains on one attachment with different colliders and a chain on another
// attachment share groups (Create merges groups that are not full): collider group A holds the
// head sphere, B the body's capsule and sphere. Chains 0, 1, 3, 4 and 5 collide with A then B,
// chain 2 with A only, chain 6 with B then A, chain 7 with B only and hangs from a node of its
// own under the head. Groups: {0, 3, 5, 1} (one list), {2, 6, 7} (the union B, A: each lane
// masked to its chain's colliders, chain 7's lane in its own attachment's frame) and chain 4
// alone (its A, B cannot merge into B, A).
// With `floor`, a plane on the body, level, 12 cm above the spine: the 6-joint chains' last links
// lie on it (their straight chains then held at their last link alone, which arc's guard on the
// chord looks at), the 4-joint ones end above it. Every lane near a plane is left to the scalar
// contact code.
Avatar MakeLanesAvatar(bool limits = false, bool mixed = false, bool floor = false) {
  std::vector<test::ChainSpec> specs;
  const int joints[] = {6, 4, 6, 6, 4, 6, 6, 4};
  for (int c = 0; c < 8; ++c) {
    test::ChainSpec cs;
    cs.joints = joints[c];
    cs.root_offset = {-0.08f + 0.022f * c, 0.05f, -0.1f + 0.004f * (c % 3)};
    cs.segment = {0.004f * (c % 4) - 0.006f, -0.055f, -0.02f - 0.003f * (c % 2)};
    cs.stiffness = 0.6f + 0.15f * c;
    cs.drag = 0.25f + 0.05f * (c % 5);
    cs.gravity = 0.1f * (c % 3);
    cs.hit_radius = 0.012f + 0.002f * c;
    specs.push_back(cs);
  }
  Avatar av = test::MakeHairAvatar(specs);
  av.nodes[av.vrm.springs[5].joints[3].node].translation = glm::vec3(0.0f);  // zero-length link
  // Chains 2 and 7 go up before they hang: curved, so arc's guard on the chord can act on them.
  av.nodes[av.vrm.springs[2].joints[1].node].translation = {0.01f, 0.05f, -0.04f};
  av.nodes[av.vrm.springs[7].joints[1].node].translation = {-0.01f, 0.045f, -0.035f};
  const int head = av.vrm.humanoid.at("head"), spine = av.vrm.humanoid.at("spine");
  test::AddCollider(av, head, ColliderShape::kSphere, {0.0f, -0.08f, -0.13f}, 0.07f);
  test::AddCollider(av, spine, ColliderShape::kCapsule, {-0.1f, 0.15f, -0.12f}, 0.06f,
                    {0.1f, 0.15f, -0.12f});
  test::AddCollider(av, spine, ColliderShape::kSphere, {0.0f, 0.12f, -0.17f}, 0.04f);
  if (floor) test::AddCollider(av, spine, ColliderShape::kPlane, {0.0f, 0.12f, 0.0f}, 0.0f);
  if (mixed) {
    av.vrm.collider_groups = {{"A", {0}}, {"B", {1, 2}}};
    const std::vector<int> lists[8] = {{0, 1}, {0, 1}, {0}, {0, 1}, {0, 1}, {0, 1}, {1, 0}, {1}};
    for (int c = 0; c < 8; ++c) av.vrm.springs[c].collider_groups = lists[c];
    // Chain 7's root under a node of its own, turned against the head (so its frame differs),
    // where it was.
    const glm::vec3 at{0.01f, 0.02f, -0.03f};
    const int base = test::AddNode(av, "HairBase", head, at);
    av.nodes[base].rotation = glm::angleAxis(glm::radians(25.0f), glm::vec3(1, 0, 0));
    const int root = av.vrm.springs[7].joints[0].node;
    auto& siblings = av.nodes[head].children;
    siblings.erase(std::find(siblings.begin(), siblings.end(), root));
    av.nodes[root].parent = base;
    av.nodes[base].children.push_back(root);
    av.nodes[root].translation =
        glm::inverse(av.nodes[base].rotation) * (av.nodes[root].translation - at);
    // Chain 7 without gravity, as chain 6 beside it in their lane group: two lanes whose frame
    // is their attachment's, each its own.
    for (SpringJoint& j : av.vrm.springs[7].joints) j.gravity_power = 0.0f;
    // Chain 3 a quarter larger than the others of its group (each lane its chain's scale).
    av.nodes[av.vrm.springs[3].joints[0].node].scale = glm::vec3(1.25f);
  }
  if (limits) {
    auto deg = [](float d) { return glm::radians(d); };
    const glm::quat none(1, 0, 0, 0);
    for (SpringJoint& j : av.vrm.springs[0].joints)
      j.limit = {JointLimit::Kind::kCone, deg(25), 0, none};
    for (SpringJoint& j : av.vrm.springs[2].joints)
      j.limit = {JointLimit::Kind::kHinge, deg(30), 0, none};
    av.vrm.springs[3].joints[1].limit = {JointLimit::Kind::kSpherical, deg(40), deg(15), none};
    av.vrm.springs[5].joints[2].limit = {JointLimit::Kind::kCone, deg(35), 0,
                                         glm::angleAxis(deg(20), glm::vec3(1, 0, 0))};
    av.vrm.springs[4].joints[0].limit = {JointLimit::Kind::kCone, deg(15), 0, none};
    for (SpringJoint& j : av.vrm.springs[6].joints)
      j.limit = {JointLimit::Kind::kCone, deg(20), 0, none};
    // A narrow cone turned about a slanted axis on chain 1 (its quaternion's four components
    // differ, so a component read from the wrong place turns the cone the lanes test against).
    for (SpringJoint& j : av.vrm.springs[1].joints)
      j.limit = {JointLimit::Kind::kCone, deg(12), 0,
                 glm::angleAxis(deg(35), glm::normalize(glm::vec3(1, 2, 3)))};
  }
  // Every joint turned in its rest pose, its child moved so the chains keep their shape: the
  // lanes read the joints' rest rotations and axes from their own copy (PackLanes), which with
  // identity rotations would not show a component taken from the wrong place.
  for (int c = 0; c < 8; ++c) {
    const auto& joints = av.vrm.springs[c].joints;
    for (size_t i = 0; i < joints.size(); ++i) {
      Node& node = av.nodes[joints[i].node];
      const glm::quat q = glm::angleAxis(glm::radians(9.0f + 7.0f * i + 3.0f * c),
                                         glm::normalize(glm::vec3(1 + c % 3, 2, 3 - i % 2)));
      node.rotation = q;
      for (int child : node.children)
        av.nodes[child].translation = glm::inverse(q) * av.nodes[child].translation;
    }
  }
  return av;
}

TEST(FlatPath, ChainsInLanesEndBitwiseAsSolvedOneByOne) {
  // Without and with angle limits (limited chains share the lanes too), then with limits and the
  // chains' colliders, attachments and scales mixed; last without limits, with a floor.
  std::vector<uint64_t> free_end;     // the last hash of each run without limits
  std::vector<uint64_t> limited_end;  // ... with limits, one collider list
  for (int pass = 0; pass < 4; ++pass) {
    const int limits = pass == 1 || pass == 2 ? 1 : 0;
    const bool mixed = pass == 2, floor = pass == 3;
    const Avatar av = MakeLanesAvatar(limits == 1, mixed, floor);
    const Rig rig = *BuildRig(av);
    // Whether this build and processor run eight lanes (AVX2 on x86-64; else four).
    SpringConfig ask_eight;
    ask_eight.lane_width = 8;
    const bool eight_lanes = SpringWorld::Create(rig, ask_eight)->lane_width() == 8;
    size_t run_index = 0;
    std::map<int, uint64_t> arc_end;  // the original arc's last hash per checks and motion
    std::map<int, uint64_t> vrm_end;  // vrm's, fixed steps
    ASSERT_EQ(rig.chains().size(), 8u);
    const int head = HumanoidRigNode(av, rig, "head");
    struct Run {
      std::vector<uint64_t> hashes;      // per frame
      std::vector<glm::quat> rotations;  // at the end, flat joint order
      std::vector<glm::mat4> world;      // the joints' world matrices at the end (world())
      int lane_chains = 0, contacts = 0, teleports = 0;
      uint32_t flags = 0;
    };
    // arc, parent, arc's `follow`, vrm; vrm stepped as three-vrm steps (one step of the caller's
    // dt, which changes from frame to frame here).
    for (int variant = 0; variant < 5; ++variant) {
      const SolverMode mode = variant == 1   ? SolverMode::kParent
                              : variant >= 3 ? SolverMode::kVrm
                                             : SolverMode::kArc;
      const bool variable = variant == 4;
      const float dts[4] = {1.0f / 60, 1.0f / 30, 1.0f / 144, 1.0f / 45};
      // All links whole-link checked, none, and chain 1 different (its group then goes one by
      // one).
      for (int checks = 0; checks < 3; ++checks) {
        // 0: the head-turn, clip-driven at 60 fps. 1: the head jerked against the body by up to
        // 12 cm per 1/120 s step (ends leave a collider's reach within a step, after touching it)
        // and thrown 1 m away twice (teleport resets inside a lane group).
        for (int motion_kind = 0; motion_kind < 2; ++motion_kind) {
          SCOPED_TRACE(std::string(SolverModeName(mode)) + (variant == 2 ? " follow" : "") +
                       (variable ? " variable steps" : "") + " checks " + std::to_string(checks) +
                       " motion " + std::to_string(motion_kind) + " limits " +
                       std::to_string(limits) + (mixed ? " mixed" : "") + (floor ? " floor" : ""));
          // width: chains per lane group (SpringConfig::lane_width); 0 = one by one.
          auto run = [&](int width) {
            Run out;
            SpringConfig cfg;
            if (variant == 2) EXPECT_TRUE(ApplyArcSetting("follow", &cfg));
            cfg.mode = mode;
            cfg.chain_lanes = width > 0;
            cfg.lane_width = width;
            cfg.segment_checks.assign(8, checks == 0 ? 1 : 0);
            if (checks == 2) cfg.segment_checks[1] = 1;
            SpringWorld world = *SpringWorld::Create(rig, cfg);
            auto note = [&](const StepReport& rep) {
              out.contacts += rep.contacts;
              out.teleports += rep.teleports;
              out.flags |= rep.flags;
              out.lane_chains = std::max(out.lane_chains, world.lane_chains());
              out.hashes.push_back(world.StateHash());
            };
            if (motion_kind == 0 && variable) {
              HeadTurnMotion motion(rig, head, HumanoidRigNode(av, rig, "hips"));
              std::vector<Transform> pose(rig.rest_local().begin(), rig.rest_local().end());
              motion.Sample(0.0, pose);
              world.Reset(pose);
              double t = 0.0;
              for (int f = 0; f < 360; ++f) {
                t += dts[f % 4];
                motion.Sample(t, pose);
                note(world.StepVariable(pose, dts[f % 4]));
              }
              for (int node : rig.joint_node()) out.rotations.push_back(pose[node].rotation);
            } else if (motion_kind == 0) {
              HeadTurnMotion motion(rig, head, HumanoidRigNode(av, rig, "hips"));
              ClipDriver driver(world, motion);
              driver.Reset();
              for (int f = 0; f < 360; ++f) note(driver.Advance(1.0 / 60.0));
              for (int node : rig.joint_node())
                out.rotations.push_back(driver.pose()[node].rotation);
            } else {
              std::vector<Transform> pose(rig.rest_local().begin(), rig.rest_local().end());
              world.Reset(pose);
              for (int step = 1; step <= 600; ++step) {
                pose[head].translation =
                    rig.rest_local()[head].translation +
                    glm::vec3(0.3f * std::sin(0.9f * step), 0.1f * std::sin(0.4f * step),
                              0.15f * std::cos(0.7f * step) + (step % 200 == 100 ? 1.0f : 0.0f));
                pose[head].rotation =
                    glm::angleAxis(0.5f * std::sin(0.3f * step), glm::vec3(0, 1, 0));
                note(variable ? world.StepVariable(pose, dts[step % 4]) : world.Step(pose));
              }
              for (int node : rig.joint_node()) out.rotations.push_back(pose[node].rotation);
            }
            for (int node : rig.joint_node()) out.world.push_back(world.world()[node]);
            return out;
          };
          const Run alone = run(0);
          EXPECT_EQ(alone.lane_chains, 0);
          // Four lanes, then eight where this processor runs them (the same bits).
          for (int width : {4, 8}) {
            if (width == 8 && !eight_lanes) continue;
            SCOPED_TRACE("lane width " + std::to_string(width));
            const Run lanes = run(width);
#if HAIRSWING_SIMD && defined(__SSE2__)
            // Four lanes: two groups of 4, longest first: the four first 6-joint chains, and the
            // fifth with the three 4-joint ones (its lane runs alone below their ends); with chain
            // 1's checks different the second goes one by one (not in vrm mode: point contacts
            // only). Mixed: {0, 3, 5, 1} and {2, 6, 7}, chain 4 alone; with chain 1's checks
            // different the first goes one by one.
            // Eight lanes: one group of all 8; mixed, {0, 3, 5, 2, 1, 4, 7} (chain 6's B, A cannot
            // merge into A, B) and chain 6 alone. With chain 1's checks different the group of
            // chain 1 goes one by one.
            const bool split = checks == 2 && mode != SolverMode::kVrm;
            if (width == 4)
              EXPECT_EQ(lanes.lane_chains, mixed ? (split ? 3 : 7) : (split ? 4 : 8));
            else
              EXPECT_EQ(lanes.lane_chains, split ? 0 : (mixed ? 7 : 8));
#endif
            EXPECT_GT(lanes.contacts, 50) << "the hair must touch the colliders";
            EXPECT_TRUE(lanes.flags & kStepZeroLength);
            if (motion_kind == 1) EXPECT_GE(lanes.teleports, 2 * 8);
            // arc's lag guard holds segments in the jerked motion (in the lanes as one by one).
            if (motion_kind == 1 && mode == SolverMode::kArc)
              EXPECT_TRUE(lanes.flags & kStepLagGuard);
            if (mode != SolverMode::kArc) EXPECT_FALSE(lanes.flags & kStepLagGuard);
            EXPECT_EQ(lanes.contacts, alone.contacts);
            EXPECT_EQ(lanes.teleports, alone.teleports);
            EXPECT_EQ(lanes.flags, alone.flags);
            ASSERT_EQ(lanes.hashes.size(), alone.hashes.size());
            for (size_t f = 0; f < lanes.hashes.size(); ++f)
              ASSERT_EQ(lanes.hashes[f], alone.hashes[f]) << "first different at frame " << f + 1;
            for (size_t j = 0; j < lanes.rotations.size(); ++j) {
              EXPECT_EQ(lanes.rotations[j], alone.rotations[j]) << "joint " << j;
              EXPECT_EQ(lanes.world[j], alone.world[j]) << "joint " << j;
            }
            // `follow` acts: the same run with the original arc ends elsewhere; so do vrm's
            // variable steps against its fixed ones.
            const int key = checks * 2 + motion_kind;
            if (variant == 3) vrm_end[key] = lanes.hashes.back();
            if (variant == 4) EXPECT_NE(lanes.hashes.back(), vrm_end.at(key));
            if (variant == 0) arc_end[key] = lanes.hashes.back();
            if (variant == 2) EXPECT_NE(lanes.hashes.back(), arc_end.at(key));
          }
          // The limits act: the same run without them ends elsewhere; so do the mixed colliders.
          if (pass == 0) {
            free_end.push_back(alone.hashes.back());
          } else if (pass == 1) {
            EXPECT_NE(alone.hashes.back(), free_end[run_index]);
            limited_end.push_back(alone.hashes.back());
          } else if (pass == 2) {
            EXPECT_NE(alone.hashes.back(), limited_end[run_index]);
          } else {  // the floor acts
            EXPECT_NE(alone.hashes.back(), free_end[run_index]);
          }
          ++run_index;
        }
      }
    }
  }
}

// Degenerate contacts in the lanes: the scalar code has a fallback for each, which the lanes build
// only when a lane needs it. Every position here is a sum of powers of two and the pose stays at
// rest, so the degenerate values are exact, in the scalar code and in the lanes alike. Six chains
// of 4 joints, every one degenerate, then half of them (a lane group mixes both kinds of lanes):
// groups of 4 + 2 in four lanes, one of 6 in eight. ExpectLanesAsOneByOneAtRest steps the rest pose
// 120 times one chain after another and in lanes of each width and compares them at every step.
void ExpectLanesAsOneByOneAtRest(const Avatar& av, int segment_checks, int min_contacts) {
  const Rig rig = *BuildRig(av);
  ASSERT_EQ(rig.chains().size(), 6u);
  for (SolverMode mode : {SolverMode::kArc, SolverMode::kParent}) {
    SCOPED_TRACE(SolverModeName(mode));
    // The state hash at every step; the contacts and the step flags summed over all steps.
    auto run = [&](int width, int* contacts, uint32_t* flags, int* lane_chains) {
      SpringConfig cfg;
      cfg.mode = mode;
      cfg.chain_lanes = width > 0;
      cfg.lane_width = width;
      cfg.segment_checks.assign(6, segment_checks);
      SpringWorld world = *SpringWorld::Create(rig, cfg);
      std::vector<Transform> pose(rig.rest_local().begin(), rig.rest_local().end());
      world.Reset(pose);
      std::vector<uint64_t> hashes;
      for (int step = 0; step < 120; ++step) {
        const StepReport rep = world.Step(pose);
        *contacts += rep.contacts;
        *flags |= rep.flags;
        *lane_chains = std::max(*lane_chains, world.lane_chains());
        hashes.push_back(world.StateHash());
      }
      return hashes;
    };
    int alone_contacts = 0, none = 0;
    uint32_t alone_flags = 0;
    const std::vector<uint64_t> alone = run(0, &alone_contacts, &alone_flags, &none);
    EXPECT_GE(alone_contacts, min_contacts);
    EXPECT_FALSE(alone_flags & kStepRepaired) << "a fallback, not a repair of a non-finite value";
    for (int width : {4, 8}) {
      SCOPED_TRACE("lane width " + std::to_string(width));
      int contacts = 0, lane_chains = 0;
      uint32_t flags = 0;
      const std::vector<uint64_t> lanes = run(width, &contacts, &flags, &lane_chains);
#if HAIRSWING_SIMD && defined(__SSE2__)
      EXPECT_EQ(lane_chains, 6);
#endif
      EXPECT_EQ(contacts, alone_contacts);
      EXPECT_EQ(flags, alone_flags);
      ASSERT_EQ(lanes.size(), alone.size());
      for (size_t s = 0; s < lanes.size(); ++s)
        ASSERT_EQ(lanes[s], alone[s]) << "first different at step " << s + 1;
    }
  }
}

// A root on a capsule's axis (a collider round the hair's root, as some rigs have): with
// whole-link checks the first link's closest point is on the axis (distance 0) at every step, and
// the push direction comes from the capsule's head (SegmentContact's SafeNormalize).
TEST(FlatPath, LanesPushALinkOffTheCapsuleAxisItStartsOn) {
  for (bool mixed : {false, true}) {
    SCOPED_TRACE(mixed ? "half on the axis" : "all on the axis");
    std::vector<test::ChainSpec> specs;
    for (int c = 0; c < 6; ++c) {
      test::ChainSpec cs;
      cs.joints = 4;
      // Mixed: chains 0, 2 and 4 on their capsule's axis; 1, 3 and 5 beside it, inside it.
      const float side = mixed && c % 2 ? 0.015625f : 0.0f;
      cs.root_offset = {0.0f, 0.0625f, -0.125f - 0.0625f * c + side};
      cs.segment = {0.015625f * (c % 3 - 1), -0.0625f, 0.0f};
      cs.hit_radius = 0.0078125f;
      specs.push_back(cs);
    }
    Avatar av = test::MakeHairAvatar(specs);
    const int head = av.vrm.humanoid.at("head");
    for (int c = 0; c < 6; ++c) {
      const float z = -0.125f - 0.0625f * c;
      test::AddCollider(av, head, ColliderShape::kCapsule, {-0.25f, 0.0625f, z}, 0.03125f,
                        {0.25f, 0.0625f, z});
    }
    ExpectLanesAsOneByOneAtRest(av, 1, 6 * 120);  // every root is in its capsule at every step
  }
}

// Six hanging chains of 4 joints, 1/16 m links, whose first end is at y = 0 (head space), and
// spheres of radius `radius` centred `centre_y` from it: all six chains on one spot in one sphere
// (every lane of a group meets the same sphere at once) or, `apart`, side by side, each in a
// sphere of its own, those of chains 1, 3 and 5 1/64 m to the side.
Avatar MakeSphereAtRestAvatar(bool apart, float centre_y, float radius) {
  std::vector<test::ChainSpec> specs;
  auto x_of = [&](int c) { return apart ? -0.625f + 0.25f * c : 0.0f; };
  for (int c = 0; c < 6; ++c) {
    test::ChainSpec cs;
    cs.joints = 4;
    cs.root_offset = {x_of(c), 0.0625f, -0.125f};
    cs.segment = {0.0f, -0.0625f, 0.0f};
    cs.hit_radius = 0.0078125f;
    specs.push_back(cs);
  }
  Avatar av = test::MakeHairAvatar(specs);
  const int head = av.vrm.humanoid.at("head");
  for (int c = 0; c < (apart ? 6 : 1); ++c) {
    const float side = c % 2 ? 0.015625f : 0.0f;
    test::AddCollider(av, head, ColliderShape::kSphere, {x_of(c) + side, centre_y, -0.125f},
                      radius);
  }
  return av;
}

// An end pushed onto its own joint: the first end lies 1/16 m above the centre of a sphere that
// reaches exactly 1/16 m past it with the hit radius (1/16 + 1/16 - 1/128), so the end-point test
// pushes it straight up by its link's length, onto the root; ProjectOnLink then has no direction
// and takes the rest direction. The spheres 1/64 m to the side push their ends elsewhere.
TEST(FlatPath, LanesPutAnEndPushedOntoItsJointAlongItsRestDirection) {
  for (bool apart : {false, true}) {
    SCOPED_TRACE(apart ? "side by side" : "on one spot");
    const Avatar av = MakeSphereAtRestAvatar(apart, -0.0625f, 0.1171875f);
    ExpectLanesAsOneByOneAtRest(av, 0, 6 * 120);  // every first end is in a sphere at every step
  }
}

// An end at a sphere's very centre: the end-point test has no direction to push it and takes +Y
// (PointContact's SafeNormalize), as the lanes must. Radius 3/32: pushed +Y by the radius and hit
// radius, the end passes its root (1/16 above it), so the link turns up, where a push the other
// way would leave it hanging.
TEST(FlatPath, LanesPushAnEndAtASphereCentreUp) {
  for (bool apart : {false, true}) {
    SCOPED_TRACE(apart ? "side by side" : "on one spot");
    const Avatar av = MakeSphereAtRestAvatar(apart, 0.0f, 0.09375f);
    ExpectLanesAsOneByOneAtRest(av, 0, 6);  // every first end is in its sphere at the first step
  }
}

// arc with gravity turns each chain's arc as a whole (ArcFrame), in the lanes for all chains of
// a group at once. Six chains of 4 joints, 1/16 m links, on the head: chains 0, 2 and 4 stand
// straight up with gravity far stronger than their stiffness, so the chord and the way gravity
// would hang it point exactly opposite (the rare case the lanes hand back to ArcFrame); chains 1
// and 3 hang, slanted, with gravity pulling down and to the side (the lanes' own turn, about an
// axis with three non-zero components); chain 5 hangs without gravity (the attachment's frame). At
// rest every value is exact, so both ways must agree to the bit at every step.
TEST(FlatPath, LanesTurnTheArcWithGravityAsOneByOne) {
  std::vector<test::ChainSpec> specs;
  for (int c = 0; c < 6; ++c) {
    test::ChainSpec cs;
    cs.joints = 4;
    cs.root_offset = {-0.3125f + 0.125f * c, 0.0625f, -0.125f};
    const bool up = c % 2 == 0 && c < 5;
    cs.segment = up ? glm::vec3(0.0f, 0.0625f, 0.0f)
                    : glm::vec3(0.015625f * static_cast<float>(c - 2), -0.0625f, -0.015625f);
    cs.stiffness = up ? 0.125f : 1.0f;
    cs.gravity = up ? 8.0f : c < 5 ? 0.5f : 0.0f;
    specs.push_back(cs);
  }
  Avatar av = test::MakeHairAvatar(specs);
  for (int c : {1, 3})
    for (SpringJoint& j : av.vrm.springs[c].joints)
      j.gravity_dir = glm::normalize(glm::vec3(0.5f, -1.0f, 0.25f * c));
  ExpectLanesAsOneByOneAtRest(av, 0, 0);
}

}  // namespace
}  // namespace hairswing
