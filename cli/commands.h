// Each subcommand registers itself on the CLI11 app and returns a callback result holder.
#pragma once

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "hairswing/files.h"
#include "hairswing/io.h"
#include "hairswing/names.h"
#include "hairswing/retarget.h"

namespace hairswing::cli {

// Exit codes shared by every subcommand.
constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;   ///< the work ran but a check failed
constexpr int kExitBadInput = 2;  ///< unreadable or invalid input, bad arguments

// A number in [lo, hi], refusing NaN and inf (CLI::Range lets NaN through: every comparison with
// NaN is false). "--seconds nan" used to run 0 steps and report success.
inline CLI::Validator FiniteRange(double lo, double hi) {
  return CLI::Validator(
      [lo, hi](std::string& s) -> std::string {
        double v = 0;
        try {
          size_t used = 0;
          v = std::stod(s, &used);
          if (used != s.size()) return "not a number: " + s;
        } catch (...) {
          return "not a number: " + s;
        }
        if (!std::isfinite(v) || v < lo || v > hi)
          return "Value " + s + " not in range [" + CLI::detail::to_string(lo) + " - " +
                 CLI::detail::to_string(hi) + "]";
        return {};
      },
      "FLOAT in [" + CLI::detail::to_string(lo) + " - " + CLI::detail::to_string(hi) + "]");
}

// Checks every output a command will write (empty = not asked for) before it does any work, so a
// refused second output does not leave the first behind; on failure prints "error: <why>".
inline bool OutputsWritable(std::initializer_list<std::string> paths, bool force) {
  for (const std::string& path : paths)
    if (Status st = path.empty() ? Status::Ok() : CheckOutputPath(path, force); !st.ok()) {
      std::fprintf(stderr, "error: %s\n", st.message().c_str());
      return false;
    }
  return true;
}

// Loads an avatar for a subcommand; on failure prints "error: <why>" to stderr and returns nothing.
inline std::optional<LoadedAvatar> LoadOrReport(const std::string& path) {
  auto loaded = LoadAvatar(path);
  if (!loaded.ok()) {
    std::fprintf(stderr, "error: %s\n", loaded.status().message().c_str());
    return std::nullopt;
  }
  return std::move(loaded.value());
}

// A float for a JSON report as the decimal it was written from (9 significant digits read back
// exactly, so 0.06f prints 0.06 rather than 0.060000061988830566), and exactly 0 below 1e-7: an
// offset of 1.6e-10 m is an exporter's rounding noise.
inline double Decimal(float v) {
  if (std::fabs(v) < 1e-7f) return 0.0;
  char text[32];
  std::snprintf(text, sizeof text, "%.7g", static_cast<double>(v));
  if (std::strtof(text, nullptr) != v)
    std::snprintf(text, sizeof text, "%.9g", static_cast<double>(v));
  return std::strtod(text, nullptr);
}

// LoadOrReport in a command's callback: on failure the exit code becomes kExitBadInput.
inline std::optional<Avatar> LoadAvatarOrExit(const std::string& path, int& exit_code) {
  auto loaded = LoadOrReport(path);
  if (!loaded) {
    exit_code = kExitBadInput;
    return std::nullopt;
  }
  return std::move(loaded->avatar);
}

// --vrm-version for every command that writes an avatar: "" (default) keeps the input's VRM
// version, "0" writes VRM 0.x (only for VRM 0.x input), "1" VRM 1.0.
inline void AddVrmVersion(CLI::App* cmd, std::string& version) {
  cmd->add_option("--vrm-version", version,
                  "write VRM 0.x (0; only for VRM 0.x input: its VRM extension is kept, springs "
                  "written as secondaryAnimation) or VRM 1.0 (1: expressions, lookAt, MToon and "
                  "meta converted); default: the input's version")
      ->check(CLI::IsMember({"0", "1"}));
}

// Whether an avatar is written as .vrm (it has a VRM humanoid, or came as VRM 0.x) or as .glb.
inline bool WritesAsVrm(const Avatar& av) {
  return !av.vrm.humanoid.empty() || av.vrm.version == VrmVersion::kV0;
}

// Saves with the chosen VRM version; prints what the output could not carry as warnings (or, with
// `collect`, appends them there for the caller to report).
inline Status SaveWithVersion(const Avatar& avatar, const std::string& path, bool force,
                              const std::string& version,
                              std::vector<std::string>* collect = nullptr) {
  std::vector<std::string> warnings;
  SaveOptions options;
  options.force = force;
  options.vrm = version == "0"   ? VrmOutput::kVrm0
                : version == "1" ? VrmOutput::kVrm1
                                 : VrmOutput::kKeepInput;
  options.warnings = &warnings;
  // A .vrm needs a VRM humanoid. A plain glTF character (a Quaternius, UAL, Mixamo or Ready
  // Player Me skeleton...) gets the one its bone names give, as `fit` does, when they name every
  // required bone; otherwise the error says which are missing and that a .glb needs none.
  const Avatar* out = &avatar;
  Avatar named;
  if (avatar.vrm.humanoid.empty() && avatar.vrm.version != VrmVersion::kV0 &&
      ToLower(std::filesystem::path(path).extension().string()) == ".vrm") {  // as SaveAvatar
    const HumanoidMap hm = MatchHumanoid(avatar);
    if (hm.bones.empty() || !hm.missing_required.empty()) {
      std::string missing;
      for (size_t i = 0; i < hm.missing_required.size() && i < 6; ++i)
        missing += (i ? ", " : "") + hm.missing_required[i];
      if (hm.missing_required.size() > 6) missing += ", ...";
      return Status(StatusCode::kUnsupported,
                    path +
                        ": cannot write .vrm: the avatar has no VRM humanoid, and its bone "
                        "names match no known skeleton (none names " +
                        missing + "); write .glb, which needs no humanoid");
    }
    named = avatar;
    named.vrm.humanoid = hm.bones;
    if (named.vrm.version == VrmVersion::kNone) named.vrm.version = VrmVersion::kV1;
    warnings.push_back("the input has no VRM humanoid: its " + std::to_string(hm.bones.size()) +
                       " bones are taken from the bone names (\"" + hm.family +
                       "\" skeleton; `hairswing inspect` lists them)");
    out = &named;
  }
  Status st = SaveAvatar(*out, path, options);
  if (collect)
    collect->insert(collect->end(), warnings.begin(), warnings.end());
  else
    for (const std::string& w : warnings)
      std::fprintf(stderr, "warning: %s: %s\n", path.c_str(), w.c_str());
  return st;
}

void AddInspect(CLI::App& app, int& exit_code);
void AddConvert(CLI::App& app, int& exit_code);
void AddMakeDemoAvatar(CLI::App& app, int& exit_code);
void AddRender(CLI::App& app, int& exit_code);
void AddMeasure(CLI::App& app, int& exit_code);
void AddDemo(CLI::App& app, int& exit_code);
void AddValidateClips(CLI::App& app, int& exit_code);
void AddRetarget(CLI::App& app, int& exit_code);
void AddFit(CLI::App& app, int& exit_code);
void AddCheck(CLI::App& app, int& exit_code);
void AddHash(CLI::App& app, int& exit_code);
void AddBake(CLI::App& app, int& exit_code);
void AddBatch(CLI::App& app, int& exit_code);
void AddView(CLI::App& app, int& exit_code);
void AddTune(CLI::App& app, int& exit_code);
void AddWear(CLI::App& app, int& exit_code);

/// Warnings for springs that move no mesh, or joints no vertex follows while joints below them
/// do (inspect and check print them).
std::vector<std::string> SpringsWithoutMesh(const Avatar& avatar);

}  // namespace hairswing::cli
