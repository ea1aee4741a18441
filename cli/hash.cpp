// hairswing hash AVATAR [--solver arc|parent|vrm] [--arc-setting S] [--fps N] [--replay FILE]: the
// determinism fingerprint.
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "hairswing/anim.h"
#include "hairswing/files.h"
#include "hairswing/motion.h"

namespace hairswing::cli {
namespace {

// Replays recorded driver matrices (what an engine or the npm package fed the solver) through the
// engine-facing frame driver: {"drivers": N, "reset": [16 N floats], "frames": [{"dt": s, "m":
// [16 N floats]}, ...]}, matrices column-major in hairswing's axes. The file is read with the
// avatar readers' rules (a regular file, at most 1 GiB, nested at most 128 deep); a frame that the
// solver would refuse (a number that is not finite as a float, a negative or non-finite dt) is an
// error naming the frame, not a step skipped.
constexpr size_t kMaxReplayBytes = size_t(1) << 30;

Result<uint64_t> ReplayHash(const Avatar& avatar, const SpringConfig& cfg,
                            const std::string& path) {
  auto text = ReadRegularFile(path, kMaxReplayBytes);
  if (!text.ok()) return text.status();
  if (const std::string deep = JsonNestingError(*text); !deep.empty())
    return Status(StatusCode::kInvalidInput, path + ": " + deep);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(*text);
  } catch (const nlohmann::json::exception& e) {  // names the byte (e.g. a number overflow)
    return Status(StatusCode::kInvalidInput, path + ": not JSON: " + e.what());
  }
  text->clear();
  text->shrink_to_fit();
  if (!j.is_object()) return Status(StatusCode::kInvalidInput, path + ": not a JSON object");
  auto rig = BuildRig(avatar);
  if (!rig.ok()) return rig.status();
  auto world = SpringWorld::Create(*rig, cfg);
  if (!world.ok()) return world.status();
  const size_t n = world->driver_nodes().size();
  if (!j.contains("drivers") || j["drivers"] != n)
    return Status(StatusCode::kInvalidInput, path + ": drivers: the recording has " +
                                                 j.value("drivers", nlohmann::json()).dump() +
                                                 " driver matrices, this avatar's springs read " +
                                                 std::to_string(n));
  std::vector<glm::mat4> m(n);
  auto read = [&](const nlohmann::json& a, const std::string& where) -> Status {
    if (!a.is_array() || a.size() != 16 * n)
      return Status(StatusCode::kInvalidInput,
                    path + ": " + where + ": expected " + std::to_string(16 * n) + " numbers");
    for (size_t i = 0; i < 16 * n; ++i) {
      const float v = a[i].is_number() ? a[i].get<float>() : NAN;
      if (!std::isfinite(v))
        return Status(StatusCode::kInvalidInput, path + ": " + where + "[" + std::to_string(i) +
                                                     "]: not a finite number (as a float)");
      m[i / 16][static_cast<int>(i % 16 / 4)][static_cast<int>(i % 4)] = v;
    }
    return Status();
  };
  if (Status st = read(j.value("reset", nlohmann::json()), "reset"); !st.ok()) return st;
  DrivenFrameDriver driver(*world);
  driver.Reset(m);
  std::vector<glm::quat> rotations(rig->joint_node().size());
  const auto found = j.find("frames");
  if (found == j.end() || !found->is_array())
    return Status(StatusCode::kInvalidInput, path + ": frames: not an array");
  const nlohmann::json& frames = *found;
  for (size_t f = 0; f < frames.size(); ++f) {
    const std::string where = "frames[" + std::to_string(f) + "]";
    // (value() and not [] on these: a missing key on a const json is undefined behaviour)
    const nlohmann::json& fr = frames[f];
    if (!fr.is_object())
      return Status(StatusCode::kInvalidInput, path + ": " + where + ": not an object");
    if (Status st = read(fr.value("m", nlohmann::json()), where + ".m"); !st.ok()) return st;
    const nlohmann::json dt = fr.value("dt", nlohmann::json());
    if (!dt.is_number() || !std::isfinite(dt.get<double>()) || dt.get<double>() < 0.0)
      return Status(StatusCode::kInvalidInput,
                    path + ": " + where + ".dt: not a finite number of seconds >= 0");
    const StepReport r = driver.Advance(m, dt.get<double>(), rotations);
    if (r.flags & kStepRefusedNonFinite)
      return Status(StatusCode::kInvalidInput,
                    path + ": " + where + ": the solver refused it (a matrix it cannot use)");
  }
  return world->StateHash();
}

}  // namespace

void AddHash(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "hash",
      "Print the solver's state hash (16 hex digits, FNV-1a of every spring tail position and "
      "velocity) after the 12 s standard head-turn, driven clip-wise in caller frames of 1/FPS s. "
      "Fixed 1/120 s steps make it the same at every frame rate; the same code gives the same "
      "hash on every machine and build, so two builds (or the WebAssembly one) can be compared "
      "with it.");
  struct Opts {
    std::string in, solver = "arc", arc_setting = "article";
    int fps = 60;
    std::string replay;
  };
  auto opts = std::make_shared<Opts>();
  cmd->add_option("AVATAR", opts->in, "avatar (.vrm/.glb/.gltf) with a humanoid head and springs")
      ->required();
  cmd->add_option("--solver", opts->solver, "arc (default), parent or vrm")
      ->check(CLI::IsMember({"arc", "parent", "vrm"}));
  cmd->add_option("--arc-setting", opts->arc_setting,
                  "arc's named setting: article (default), lively or follow (docs/solver.md)")
      ->check(CLI::IsMember(ArcSettingNames()));
  cmd->add_option("--fps", opts->fps, "caller frames per second (the hash does not depend on it)")
      ->check(CLI::Range(10, 1000));
  cmd->add_option("--replay", opts->replay,
                  "instead of the head-turn, replay driver matrices recorded from an engine or "
                  "the npm package (JSON: drivers, reset, frames of dt + matrices; see "
                  "web/hairswing-three/README.md) and print the hash they lead to")
      ->check(CLI::ExistingFile);
  cmd->callback([opts, &exit_code] {
    auto loaded = LoadOrReport(opts->in);
    if (!loaded) {
      exit_code = kExitBadInput;
      return;
    }
    SpringConfig cfg;
    ParseSolverMode(opts->solver, &cfg.mode);
    ApplyArcSetting(opts->arc_setting, &cfg);
    auto h = opts->replay.empty() ? HeadTurnHash(loaded->avatar, cfg, opts->fps)
                                  : ReplayHash(loaded->avatar, cfg, opts->replay);
    if (!h.ok()) {
      std::fprintf(stderr, "error: %s: %s\n", OneLine(opts->in).c_str(),
                   h.status().message().c_str());
      exit_code = kExitBadInput;
      return;
    }
    std::printf("%016llx\n", static_cast<unsigned long long>(*h));
  });
}

}  // namespace hairswing::cli
