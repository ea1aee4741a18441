// The hairswing half of the side-by-side benchmark against three-vrm (scripts/bench --peer runs
// tests/parity/peer_bench.mjs, which starts this program and three-vrm in one run).
//
//   hairswing_peer_bench prepare DIR
//       writes the synthetic files of the peer table into DIR: stress-12x8.vrm and
//       stress-100x8.vrm (12 and 100 chains of 8 joints, 16 capsules) and the two demo avatars.
//   hairswing_peer_bench motion AVATAR FRAMES OUT.json
//       writes the 60 fps head-turn as the node harness reads it (head rotation and hips
//       translation per frame, node-local), so both sides see the same motion.
//   hairswing_peer_bench serve AVATAR MODE [--segment-checks on|off|file] [--input pose|driven]
//                              [--stepping fixed|frame] [--lanes 0|4|8]
//       then reads lines "run N" on stdin: runs the next N frames of the 12 s head-turn (looping)
//       and prints one line of JSON with each frame's time in nanoseconds. Only the solver's
//       per-frame call is timed: the head-turn sample (the caller's animation) is not.
//       With --input driven also "replay N": the same next N frames, their driver transforms
//       computed beforehand (once, for one loop of the head-turn), then N calls in a row; prints
//       the mean time per frame and the state hash (the same as after "run N"). Nearly all of
//       the process's time is then the solver's: what a sampling profiler is pointed at
//       (bench/profile.sh).
//
// The timed call: --input pose  = FrameDriver::Advance (whole local pose in, whole pose out);
//                 --input driven = DrivenFrameDriver::Advance (world transforms of the driver
//                 nodes in, spring joint rotations out: what an engine calls).
// --stepping frame (vrm mode only): instead of the drivers' fixed 1/120 s steps, one step of the
// frame's 1/60 s, as three-vrm steps (SpringWorld::StepDrivenVariable, StepVariable): the same
// number of steps as three-vrm's update, for a like-for-like line in the table.
// --lanes: chains per SIMD lane group (SpringConfig::lane_width; 0, the default: the widest the
// processor runs), for comparing the widths in one run; the ready line says which one runs.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hairswing/anim.h"
#include "hairswing/demo.h"
#include "hairswing/io.h"
#include "hairswing/measure.h"
#include "hairswing/motion.h"
#include "hairswing/spring.h"
#include "synthetic.h"  // tests/: the stress rigs of the solver tests

namespace {

using namespace hairswing;
using Json = nlohmann::json;

constexpr double kDt = 1.0 / 60.0;

int Fail(const std::string& msg) {
  std::fprintf(stderr, "hairswing_peer_bench: %s\n", msg.c_str());
  return 2;
}

// three-vrm refuses a VRM 1.0 humanoid without arms and legs: give the stress rigs simple limbs
// (no springs or colliders on them, so the solver's work is unchanged).
Avatar WithLimbs(Avatar av) {
  const int hips = av.vrm.humanoid.at("hips"), chest = av.vrm.humanoid.at("chest");
  for (const char* side : {"left", "right"}) {
    const float x = side[0] == 'l' ? 1.0f : -1.0f;
    const std::string s = side;
    int p = test::AddNode(av, s + "UpperLeg", hips, {0.1f * x, -0.05f, 0});
    av.vrm.humanoid[s + "UpperLeg"] = p;
    av.vrm.humanoid[s + "LowerLeg"] = p = test::AddNode(av, s + "LowerLeg", p, {0, -0.45f, 0});
    av.vrm.humanoid[s + "Foot"] = test::AddNode(av, s + "Foot", p, {0, -0.45f, 0});
    av.vrm.humanoid[s + "UpperArm"] = p =
        test::AddNode(av, s + "UpperArm", chest, {0.2f * x, 0.15f, 0});
    av.vrm.humanoid[s + "LowerArm"] = p = test::AddNode(av, s + "LowerArm", p, {0.28f * x, 0, 0});
    av.vrm.humanoid[s + "Hand"] = test::AddNode(av, s + "Hand", p, {0.25f * x, 0, 0});
  }
  return av;
}

int Prepare(const std::string& dir) {
  struct Item {
    const char* name;
    Avatar avatar;
  };
  Item items[] = {{"stress-12x8.vrm", WithLimbs(test::MakeStressAvatar(12))},
                  {"stress-100x8.vrm", WithLimbs(test::MakeStressAvatar(100))},
                  {"demo-ponytail.vrm", MakeDemoAvatar(DemoVariant::kPonytail)},
                  {"demo-layered.vrm", MakeDemoAvatar(DemoVariant::kLayered)}};
  for (Item& it : items) {
    const std::string path = dir + "/" + it.name;
    SaveOptions opt;
    opt.force = true;
    Status st = SaveAvatar(it.avatar, path, opt);
    if (!st.ok()) return Fail(st.message());
    std::printf("%s\n", path.c_str());
  }
  return 0;
}

// An avatar with its rig and the head/hips rig nodes the head-turn moves.
struct Loaded {
  Avatar avatar;
  Rig rig;
  int head = -1, hips = -1;
  glm::vec3 right{-1, 0, 0};  // AvatarRight
};

Result<Loaded> Load(const std::string& path) {
  auto la = LoadAvatar(path);
  if (!la.ok()) return la.status();
  Loaded l{std::move(la->avatar), {}};
  auto rig = BuildRig(l.avatar);
  if (!rig.ok()) return rig.status();
  l.rig = std::move(*rig);
  l.head = HumanoidRigNode(l.avatar, l.rig, "head");
  l.hips = HumanoidRigNode(l.avatar, l.rig, "hips");
  l.right = AvatarRight(l.avatar, l.rig);
  if (l.head < 0) return Status(StatusCode::kInvalidInput, path + ": no humanoid head to turn");
  return l;
}

int WriteMotion(const std::string& path, int frames, const std::string& out) {
  auto l = Load(path);
  if (!l.ok()) return Fail(l.status().message());
  const int head = l->head, hips = l->hips;
  HeadTurnMotion ht(l->rig, head, hips, l->right);
  std::vector<Transform> pose(l->rig.rest_local().begin(), l->rig.rest_local().end());
  Json jframes = Json::array();
  for (int f = 1; f <= frames; ++f) {
    ht.Sample(f * kDt, pose);
    const glm::quat q = pose[head].rotation;
    const glm::vec3 t = hips >= 0 ? pose[hips].translation : glm::vec3(0);
    jframes.push_back({{"head", {q.x, q.y, q.z, q.w}}, {"hips", {t.x, t.y, t.z}}});
  }
  Json motion = {{"dt", kDt},
                 {"vrm0", l->avatar.vrm.version == VrmVersion::kV0},
                 {"head", l->rig.source_node()[head]},
                 {"hips", hips >= 0 ? l->rig.source_node()[hips] : -1},
                 {"frames", jframes}};
  std::ofstream(out) << motion.dump();
  return 0;
}

int Serve(int argc, char** argv) {
  const std::string path = argv[2];
  SpringConfig cfg;
  if (!ParseSolverMode(argv[3], &cfg.mode)) return Fail(std::string("unknown mode ") + argv[3]);
  std::string checks = "file", input = "pose", stepping = "fixed";
  for (int i = 4; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--segment-checks"))
      checks = argv[i + 1];
    else if (!std::strcmp(argv[i], "--input"))
      input = argv[i + 1];
    else if (!std::strcmp(argv[i], "--stepping"))
      stepping = argv[i + 1];
    else if (!std::strcmp(argv[i], "--lanes"))
      cfg.lane_width = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--chain-lanes"))
      cfg.chain_lanes = std::strcmp(argv[i + 1], "off") != 0;
    else
      return Fail(std::string("unknown option ") + argv[i]);
  }
  if (stepping != "fixed" && stepping != "frame") return Fail("--stepping: fixed or frame");
  const bool per_frame = stepping == "frame";
  if (per_frame && cfg.mode != SolverMode::kVrm)
    return Fail("--stepping frame: vrm mode only (arc and parent run fixed steps)");
  auto l = Load(path);
  if (!l.ok()) return Fail(l.status().message());
  if (checks != "file") cfg.segment_checks.assign(l->rig.chains().size(), checks == "on" ? 1 : 0);
  auto world = SpringWorld::Create(l->rig, cfg);
  if (!world.ok()) return Fail(world.status().message());
  HeadTurnMotion ht(l->rig, l->head, l->hips, l->right);
  std::vector<Transform> pose(l->rig.rest_local().begin(), l->rig.rest_local().end());
  const bool driven = input == "driven";
  FrameDriver pose_driver(*world);
  DrivenFrameDriver driven_driver(*world);
  std::vector<glm::mat4> full_world(l->rig.node_count());
  std::vector<glm::mat4> drivers(world->driver_nodes().size());
  std::vector<glm::quat> rotations(world->rig().joint_node().size());
  auto fill_drivers = [&] {
    ComputeWorld(l->rig, pose, full_world);  // the engine's own world transforms (not timed)
    for (size_t i = 0; i < drivers.size(); ++i) drivers[i] = full_world[world->driver_nodes()[i]];
  };
  if (driven) {
    fill_drivers();
    driven_driver.Reset(drivers);
  } else {
    pose_driver.Reset(pose);
  }
  int joints = 0;
  for (const RigChain& ch : l->rig.chains()) joints += ch.joint_end - ch.joint_begin - 1;
  std::printf(
      "{\"ready\": true, \"joints\": %d, \"chains\": %zu, \"nodes\": %zu, \"lane_width\": %d}\n",
      joints, l->rig.chains().size(), l->rig.node_count(), world->lane_width());
  std::fflush(stdout);
  const int loop = static_cast<int>(HeadTurnMotion::kDuration / kDt);
  long frame = 0;
  std::string line;
  std::vector<long long> ns;
  std::vector<glm::mat4> loop_drivers;  // "replay": the drivers of every frame of one loop
  while (std::getline(std::cin, line)) {
    int n = 0;
    if (driven && std::sscanf(line.c_str(), "replay %d", &n) == 1 && n > 0) {
      if (loop_drivers.empty()) {  // the caller's animation, computed before the timed loop
        for (int f = 1; f <= loop; ++f) {
          ht.Sample(static_cast<double>(f) * kDt, pose);
          fill_drivers();
          loop_drivers.insert(loop_drivers.end(), drivers.begin(), drivers.end());
        }
      }
      const size_t nd = drivers.size();
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < n; ++i) {
        const size_t at = static_cast<size_t>(frame++ % loop) * nd;
        driven_driver.Advance({loop_drivers.data() + at, nd}, kDt, rotations);
      }
      const double total =
          std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
      std::printf("{\"ns_per_frame\": %.1f, \"hash\": \"%016llx\"}\n", total / n,
                  static_cast<unsigned long long>(world->StateHash()));
      std::fflush(stdout);
      continue;
    }
    if (std::sscanf(line.c_str(), "run %d", &n) != 1 || n <= 0)
      return Fail(driven ? "expected 'run N' or 'replay N'" : "expected 'run N'");
    ns.clear();
    for (int i = 0; i < n; ++i) {
      ++frame;
      ht.Sample(static_cast<double>(1 + (frame - 1) % loop) * kDt, pose);
      long long t;
      if (driven) {
        fill_drivers();
        const auto t0 = std::chrono::steady_clock::now();
        if (per_frame)
          world->StepDrivenVariable(drivers, rotations, static_cast<float>(kDt));
        else
          driven_driver.Advance(drivers, kDt, rotations);
        t = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() -
                                                                 t0)
                .count();
      } else {
        const auto t0 = std::chrono::steady_clock::now();
        if (per_frame)
          world->StepVariable(pose, static_cast<float>(kDt));
        else
          pose_driver.Advance(pose, kDt);
        t = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() -
                                                                 t0)
                .count();
      }
      ns.push_back(t);
    }
    std::string out = "{\"ns\": [";
    for (size_t i = 0; i < ns.size(); ++i) out += (i ? "," : "") + std::to_string(ns[i]);
    char hash[32];
    std::snprintf(hash, sizeof hash, "%016llx",
                  static_cast<unsigned long long>(world->StateHash()));
    out += "], \"hash\": \"" + std::string(hash) + "\"}\n";
    std::fputs(out.c_str(), stdout);
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 3 && !std::strcmp(argv[1], "prepare")) return Prepare(argv[2]);
  if (argc == 5 && !std::strcmp(argv[1], "motion"))
    return WriteMotion(argv[2], std::atoi(argv[3]), argv[4]);
  if (argc >= 4 && !std::strcmp(argv[1], "serve")) return Serve(argc, argv);
  std::fprintf(stderr,
               "usage: hairswing_peer_bench prepare DIR | motion AVATAR FRAMES OUT.json |\n"
               "       serve AVATAR arc|parent|vrm [--segment-checks on|off|file] [--lanes 0|4|8] "
               "[--input pose|driven]\n");
  return 2;
}
