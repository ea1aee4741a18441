// Solver cost: one 60 fps frame (two fixed 1/120 s steps, head-turn motion) per iteration.
// Reports ns per joint-step (swinging joints x steps). Run: scripts/bench --benchmark_filter=Spring
#include <benchmark/benchmark.h>

#include <filesystem>
#include <memory>

#include "hairswing/anim.h"
#include "hairswing/crowd.h"
#include "hairswing/demo.h"
#include "hairswing/io.h"
#include "hairswing/measure.h"
#include "hairswing/motion.h"
#include "hairswing/spring.h"
#include "synthetic.h"  // tests/: the same hand-built rigs as the solver tests

namespace {

using namespace hairswing;

struct Fixture {
  Avatar avatar;
  Rig rig;
  std::unique_ptr<SpringWorld> world;
  std::unique_ptr<HeadTurnMotion> motion;
  std::unique_ptr<ClipDriver> driver;
  int swinging = 0;
};

std::unique_ptr<Fixture> Make(Avatar av, SolverMode mode, bool segment_checks) {
  auto f = std::make_unique<Fixture>();
  f->avatar = std::move(av);
  f->rig = std::move(BuildRig(f->avatar)).value();
  SpringConfig cfg;
  cfg.mode = mode;
  cfg.segment_checks.assign(f->rig.chains().size(), segment_checks ? 1 : 0);
  f->world = std::make_unique<SpringWorld>(std::move(SpringWorld::Create(f->rig, cfg)).value());
  f->motion = std::make_unique<HeadTurnMotion>(f->rig, HumanoidRigNode(f->avatar, f->rig, "head"),
                                               HumanoidRigNode(f->avatar, f->rig, "hips"),
                                               AvatarRight(f->avatar, f->rig));
  f->driver = std::make_unique<ClipDriver>(*f->world, *f->motion);
  f->driver->Reset();
  for (const auto& ch : f->rig.chains()) f->swinging += ch.joint_end - ch.joint_begin - 1;
  return f;
}

void Run(benchmark::State& state, Fixture& f) {
  long steps = 0;
  for (auto _ : state) {
    if (f.driver->time() > 3.9) f.driver->Reset();  // stay in the moving part of the head turn
    steps += f.driver->Advance(1.0 / 60.0).steps_run;
    benchmark::DoNotOptimize(f.world->tails().data());
  }
  state.counters["ns_per_joint_step"] =
      benchmark::Counter(static_cast<double>(steps) * f.swinging,
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["ns_per_joint_step"] = benchmark::Counter(
      static_cast<double>(steps) * f.swinging,
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert, benchmark::Counter::OneK::kIs1000);
  state.counters["joints"] = f.swinging;
}

void BM_Synthetic12x8(benchmark::State& state) {
  auto f = Make(test::MakeStressAvatar(12), static_cast<SolverMode>(state.range(0)),
                state.range(0) != 2);
  Run(state, *f);
  state.SetLabel(
      std::string(SolverModeName(static_cast<SolverMode>(state.range(0)))) +
      (state.range(0) != 2 ? ", 16 capsules, segment checks" : ", 16 capsules, end points (VRM)"));
}

// The layered demo in arc, without (0) and with (1) a 60 degree cone limit on every swinging
// joint: what limits cost per frame (limited chains share the SIMD lanes; the ratio of the two
// rows is the figure, both from one run).
void BM_LayeredLimits(benchmark::State& state) {
  Avatar av = MakeDemoAvatar(DemoVariant::kLayered);
  if (state.range(0))
    for (Spring& s : av.vrm.springs)
      for (SpringJoint& j : s.joints)
        j.limit = {JointLimit::Kind::kCone, 1.0471976f, 0.0f, {1, 0, 0, 0}};
  auto f = Make(std::move(av), SolverMode::kArc, false);
  Run(state, *f);
  state.counters["lane_chains"] = f->world->lane_chains();
  state.SetLabel(state.range(0) ? "arc, cone 60 on every joint" : "arc, no limits");
}
BENCHMARK(BM_LayeredLimits)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

void BM_Godette(benchmark::State& state) {
  std::string path = std::string(HS_SHARED_DATA) + "/avatars/godette.vrm";
  if (!std::filesystem::exists(path)) {
    state.SkipWithError("../shared/data/avatars/godette.vrm missing");
    return;
  }
  auto f = Make(std::move(LoadAvatar(path)).value().avatar, static_cast<SolverMode>(state.range(0)),
                false);
  Run(state, *f);
  state.SetLabel(SolverModeName(static_cast<SolverMode>(state.range(0))));
}

BENCHMARK(BM_Synthetic12x8)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Godette)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMicrosecond);

}  // namespace

namespace {

// The full 12 s measurement of the layered demo avatar: three modes, 120 Hz simulation, 30 Hz
// mesh sampling (stretch over 37k edges, shirt occlusion by ray casting, penetration).
void BM_MeasureLayered(benchmark::State& state) {
  hairswing::Avatar av = hairswing::MakeDemoAvatar(hairswing::DemoVariant::kLayered);
  hairswing::MeasureOptions opt;
  opt.fps = {120};
  for (size_t m = 0; m < av.meshes.size(); ++m)
    if (av.meshes[m].name == "Shirt") opt.shirt_mesh = static_cast<int>(m);
  for (auto _ : state) {
    auto rep = hairswing::Measure(av, opt);
    benchmark::DoNotOptimize(rep);
  }
}
BENCHMARK(BM_MeasureLayered)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace

namespace {

// Many characters: N layered demo avatars (arc, the default) stepped as a SpringCrowd over TBB
// with T threads, one 60 fps frame (two 1/120 s steps each) per iteration. Each character plays
// the head-turn at its own phase; writing its driver transforms is part of the timed frame, as
// an engine would. Counters: us per character-frame; compare T=1 and T=2 for scaling.
void BM_Crowd(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const int threads = static_cast<int>(state.range(1));
  static const hairswing::Avatar av = hairswing::MakeDemoAvatar(hairswing::DemoVariant::kLayered);
  static const hairswing::Rig rig = std::move(hairswing::BuildRig(av)).value();
  hairswing::SpringCrowd crowd;
  for (int i = 0; i < n; ++i) (void)crowd.Add(rig).value();
  crowd.SetThreads(threads);
  // The head-turn's driver transforms, one set per 60 fps frame of its 12 s.
  const std::vector<int> nodes(crowd.world(0).driver_nodes().begin(),
                               crowd.world(0).driver_nodes().end());
  hairswing::HeadTurnMotion motion(rig, hairswing::HumanoidRigNode(av, rig, "head"),
                                   hairswing::HumanoidRigNode(av, rig, "hips"),
                                   hairswing::AvatarRight(av, rig));
  constexpr int kFrames = 720;
  std::vector<glm::mat4> frames(kFrames * nodes.size());
  std::vector<hairswing::Transform> pose(rig.rest_local().begin(), rig.rest_local().end());
  std::vector<glm::mat4> world(rig.node_count());
  for (int f = 0; f < kFrames; ++f) {
    motion.Sample(f / 60.0, pose);
    for (int j : rig.joint_node()) pose[j].rotation = rig.rest_local()[j].rotation;
    hairswing::ComputeWorld(rig, pose, world);
    for (size_t d = 0; d < nodes.size(); ++d) frames[f * nodes.size() + d] = world[nodes[d]];
  }
  long frame = 0;
  for (auto _ : state) {
    ++frame;
    for (int i = 0; i < n; ++i) {
      const glm::mat4* src = &frames[((frame + 37 * i) % kFrames) * nodes.size()];
      std::copy(src, src + nodes.size(), crowd.drivers(i).begin());
    }
    benchmark::DoNotOptimize(crowd.Advance(1.0 / 60.0));
  }
  state.counters["s_per_character_frame"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * n,
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.SetLabel(std::to_string(n) + " layered characters, " + std::to_string(threads) +
                 " thread(s)");
}
BENCHMARK(BM_Crowd)
    ->ArgsProduct({{1, 100, 1000}, {1, 2}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
