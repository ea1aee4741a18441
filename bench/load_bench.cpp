// Load and write times on real files. Run: build/bench/hairswing_load_bench
// (files come from ../shared/data; a missing file is reported as an error row, not a crash).
#include <benchmark/benchmark.h>

#include <filesystem>

#include "hairswing/io.h"
#include "hairswing/rig.h"

namespace {

std::string Shared(const std::string& rel) { return std::string(HS_SHARED_DATA) + "/" + rel; }

void BM_Load(benchmark::State& state, const std::string& rel) {
  std::string path = Shared(rel);
  if (!std::filesystem::exists(path)) {
    state.SkipWithError(("missing " + path).c_str());
    return;
  }
  for (auto _ : state) {
    auto r = hairswing::LoadAvatar(path);
    if (!r.ok()) state.SkipWithError(r.status().message().c_str());
    benchmark::DoNotOptimize(r);
  }
  state.SetBytesProcessed(state.iterations() *
                          static_cast<int64_t>(std::filesystem::file_size(path)));
}

void BM_LoadBuildRig(benchmark::State& state, const std::string& rel) {
  std::string path = Shared(rel);
  if (!std::filesystem::exists(path)) {
    state.SkipWithError(("missing " + path).c_str());
    return;
  }
  auto r = hairswing::LoadAvatar(path);
  for (auto _ : state) {
    auto rig = hairswing::BuildRig(r->avatar);
    benchmark::DoNotOptimize(rig);
  }
}

void BM_EncodeVrm(benchmark::State& state, const std::string& rel) {
  std::string path = Shared(rel);
  if (!std::filesystem::exists(path)) {
    state.SkipWithError(("missing " + path).c_str());
    return;
  }
  auto r = hairswing::LoadAvatar(path);
  for (auto _ : state) {
    auto bytes = hairswing::EncodeGlb(r->avatar, true);
    benchmark::DoNotOptimize(bytes);
  }
}

BENCHMARK_CAPTURE(BM_Load, godette_vrm, std::string("avatars/godette.vrm"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Load, ual1_gltf,
                  std::string("animations/ual1/AnimationLibrary_Godot_Standard.gltf"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Load, ubc_female_gltf,
                  std::string("avatars/ubc/Superhero_Female_FullBody.gltf"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_LoadBuildRig, godette_vrm, std::string("avatars/godette.vrm"))
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_EncodeVrm, godette_vrm, std::string("avatars/godette.vrm"))
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
