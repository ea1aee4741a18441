// Adversarial solver soak: the benchmark stress rig (12 chains x 8 joints, 16 capsules) with a
// chain of zero-length bones and a sphere collider that sweeps through the hair, driven by a
// body that teleports up to 100 m, spins at up to 500 rad/s, and is given frame times from 0 to
// 1 s, in every solver mode, frame-driven (FrameDriver) and, in vrm mode, also three-vrm style
// (StepVariable). After every call: every joint finite, no segment longer than its rest length
// by more than 2 %, joint speeds bounded (frame-driven: --max-speed; StepVariable reports
// displacement over a frame time that may be 1e-6 s, so its "speed" is shown, not judged); at
// the end, 10 s of stillness must bring every joint down to contact chatter (0.5 m/s, or more
// when the rig chatters that much untouched).
// Prints one line per mode and exits 1 on a violation.
//   hairswing_soak --steps 1000000 --seed 1     (scripts/soak; ctest runs a short version)
#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "hairswing/motion.h"
#include "hairswing/rig.h"
#include "hairswing/spring.h"
#include "synthetic.h"

namespace {

using namespace hairswing;

struct Figures {
  long long steps = 0, calls = 0, teleports = 0, non_finite = 0;
  double max_speed = 0;        // m/s, largest joint speed seen
  double max_stretch_pct = 0;  // largest segment length over its rest length, percent
  double settled_speed = 0;    // m/s, largest joint speed after 10 s of stillness at the end
};

// One mode: `steps` solver steps of random abuse; returns what was seen.
Figures Soak(const Rig& rig, const Avatar& av, SolverMode mode, bool variable, long long steps,
             unsigned seed, int wand_rig) {
  SpringConfig cfg;
  cfg.mode = mode;
  auto world = SpringWorld::Create(rig, cfg);
  if (!world.ok()) {
    std::fprintf(stderr, "soak: %s\n", world.status().message().c_str());
    std::exit(2);
  }
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f), u01(0.0f, 1.0f);
  std::vector<Transform> pose(rig.rest_local().begin(), rig.rest_local().end());
  const int hips = rig.node_to_rig()[av.vrm.humanoid.at("hips")];
  FrameDriver driver(world.value());
  driver.Reset(pose);
  world->Reset(pose);
  // Rest segment lengths (joint to its tail), per flat joint index; 0 for chain tips.
  auto joint_pos = [&](size_t j) { return glm::vec3(world->world()[rig.joint_node()[j]][3]); };
  std::vector<float> rest_len(world->tails().size(), 0.0f);
  for (const RigChain& ch : rig.chains())
    for (int j = ch.joint_begin; j + 1 < ch.joint_end; ++j)
      rest_len[j] = glm::length(world->tails()[j] - joint_pos(j));
  Figures f;
  glm::vec3 spin_axis(0, 1, 0);
  float spin_rate = 0.0f;  // rad/s
  while (f.steps < steps) {
    // The frame: mostly ordinary, sometimes hostile.
    const float r = u01(rng);
    float dt = r < 0.1f ? 0.0f : r < 0.2f ? u01(rng) : r < 0.3f ? 1e-6f : u01(rng) / 30.0f;
    if (u01(rng) < 0.01f) {  // teleport up to 100 m
      pose[hips].translation += glm::vec3(u(rng), u(rng), u(rng)) * 100.0f;
      ++f.teleports;
    }
    if (u01(rng) < 0.05f) {  // a new spin, up to 500 rad/s about a random axis
      spin_axis = glm::normalize(glm::vec3(u(rng), u(rng), u(rng)) + glm::vec3(0, 1e-3f, 0));
      spin_rate = 500.0f * u(rng);
    }
    pose[hips].rotation =
        glm::normalize(glm::angleAxis(spin_rate * dt, spin_axis) * pose[hips].rotation);
    // The wand (a sphere collider on its own root) sweeps through the hair around the head.
    pose[wand_rig].translation =
        pose[hips].translation + glm::vec3(u(rng), 0.6f + 0.3f * u(rng), u(rng)) * 0.3f;
    const StepReport rep = variable ? world->StepVariable(pose, dt) : driver.Advance(pose, dt);
    f.steps += variable ? 1 : rep.steps_run + rep.steps_dropped;
    ++f.calls;
    for (size_t j = 0; j < world->tails().size(); ++j) {
      const glm::vec3 t = world->tails()[j], v = world->velocities()[j];
      if (!std::isfinite(t.x + t.y + t.z + v.x + v.y + v.z)) {
        ++f.non_finite;
        continue;
      }
      f.max_speed = std::max(f.max_speed, static_cast<double>(glm::length(v)));
      if (rest_len[j] > 1e-6f) {
        const float len = glm::length(t - joint_pos(j));
        f.max_stretch_pct = std::max(f.max_stretch_pct, 100.0 * (len / rest_len[j] - 1.0));
      }
    }
  }
  // Bounded energy: after the abuse, 10 s of still 60 fps frames must bring every joint to rest.
  // (Upright, as at rest: turned upside down, chains pressed against capsules can chatter at a
  // few cm/s, which is contact, not energy the soak put in.)
  pose[hips].rotation = rig.rest_local()[hips].rotation;
  pose[wand_rig].translation = pose[hips].translation + glm::vec3(0, -5.0f, 0);
  for (int k = 0; k < 600; ++k) {
    if (variable)
      (void)world->StepVariable(pose, 1.0f / 60.0f);
    else
      (void)driver.Advance(pose, 1.0 / 60.0);
  }
  for (size_t j = 0; j < world->velocities().size(); ++j) {
    const double sp = glm::length(world->velocity(static_cast<int>(j)));
    f.settled_speed = std::max(f.settled_speed, sp);
  }
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Adversarial solver soak: random 100 m teleports, 500 rad/s spins, frame times "
      "from 0 to 1 s, zero-length bones and a collider sweeping through the chains, in "
      "every solver mode. Exit 1 when a joint becomes NaN/inf, a segment stretches past "
      "2 % of its rest length, a joint moves faster than --max-speed, or the chains are "
      "not back to contact chatter (0.5 m/s) 10 s after the abuse stops."};
  long long steps = 100000;
  unsigned seed = 1;
  double max_speed = 2000.0;
  app.add_option("--steps", steps, "solver steps per mode (1,000,000 for the full soak)")
      ->check(CLI::Range(1LL, 1'000'000'000LL));
  app.add_option("--seed", seed, "random seed");
  app.add_option("--max-speed", max_speed,
                 "m/s; a joint faster than this counts as energy blowing up (a 0.5 m chain on "
                 "a 500 rad/s spin moves at 250 m/s)");
  CLI11_PARSE(app, argc, argv);

  Avatar av = test::MakeStressAvatar(12);
  // Zero-length bones: chain 0's joints 3..5 sit on top of each other.
  for (int j = 4; j <= 6; ++j)
    av.nodes[av.vrm.springs[0].joints[j].node].translation = glm::vec3(0);
  // A wand: a root node carrying a 12 cm sphere collider that every chain collides with.
  const int wand = test::AddNode(av, "wand", -1, {0, 1.5f, 0});
  av.scene_roots.push_back(wand);
  test::AddCollider(av, wand, ColliderShape::kSphere, glm::vec3(0), 0.12f);
  auto rig = BuildRig(av);
  if (!rig.ok()) {
    std::fprintf(stderr, "soak: %s\n", rig.status().message().c_str());
    return 2;
  }
  const int wand_rig = rig->node_to_rig()[wand];
  struct Run {
    const char* name;
    SolverMode mode;
    bool variable;
  };
  const Run runs[] = {{"arc (FrameDriver)", SolverMode::kArc, false},
                      {"parent (FrameDriver)", SolverMode::kParent, false},
                      {"vrm (FrameDriver)", SolverMode::kVrm, false},
                      {"vrm (StepVariable)", SolverMode::kVrm, true}};
  bool ok = true;
  std::printf("%-22s %10s %9s %9s %10s %14s %12s %13s %13s\n", "mode", "steps", "calls",
              "teleports", "non-finite", "max speed", "max stretch", "after 10 s", "untouched");
  for (const Run& r : runs) {
    const Figures f = Soak(rig.value(), av, r.mode, r.variable, steps, seed, wand_rig);
    // Energy must not build up: 10 s after the abuse stops, every joint must be down to contact
    // chatter. The stress rig's chains lie against its capsules, and such contact chatters at a
    // few cm/s even on a rig nothing was done to (arc/parent "untouched": one call, then 10 s
    // still); after a million hostile steps a chain may be left pressed into a capsule another
    // way and chatter up to a few tenths of a m/s (vrm mode, seen: 0.27). A build-up shows as m/s
    // and more. Stretch: the solvers keep segment lengths; 2 % is allowed for the 1 s frames.
    const Figures calm = Soak(rig.value(), av, r.mode, r.variable, 1, seed, wand_rig);
    const double settle_limit = std::max(0.5, 1.5 * calm.settled_speed + 0.01);
    const bool good = f.non_finite == 0 && (r.variable || f.max_speed <= max_speed) &&
                      f.max_stretch_pct <= 2.0 && f.settled_speed <= settle_limit;
    ok &= good;
    std::printf("%-22s %10lld %9lld %9lld %10lld %10.1f m/s %10.3f %% %9.4f m/s %9.4f m/s  %s\n",
                r.name, f.steps, f.calls, f.teleports, f.non_finite, f.max_speed, f.max_stretch_pct,
                f.settled_speed, calm.settled_speed, good ? "ok" : "FAIL");
  }
  return ok ? 0 : 1;
}
