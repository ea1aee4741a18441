// Tuning springs per chain: set or scale the VRMC_springBone parameters of the chains a user
// names, and add angle limits (VRMC_springBone_limit). The values land in the avatar's springs,
// so every runtime that reads the file gets them. Everything changed can be undone exactly.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "hairswing/avatar.h"
#include "hairswing/status.h"

namespace hairswing {

/// The joints of a spring that swing (have a segment of their own): all but the last, which is
/// only the tip, unless a VRM 0.x virtual tail follows it.
size_t SwingingJoints(const Spring& spring);

/// Which springs: each pattern is a spring name or a glob (`*`, `?`, `[...]`), matched ignoring
/// case. A pattern that matches nothing is an error naming the closest spring names. Returns
/// indices into avatar.vrm.springs, in file order, each once.
Result<std::vector<int>> SelectSprings(const Avatar& avatar,
                                       const std::vector<std::string>& patterns);

/// What to change. Unset fields are left alone. With `multiply`, stiffness, drag force, gravity
/// power and hit radius are multiplied by the given factors instead of replaced (drag force is
/// kept within [0, 1]).
struct TuneSettings {
  std::optional<float> stiffness;      ///< VRM units
  std::optional<float> drag_force;     ///< [0, 1]
  std::optional<float> gravity_power;  ///< VRM units
  std::optional<glm::vec3> gravity_dir;
  std::optional<float> hit_radius;  ///< metres (node units)
  bool multiply = false;
  /// An angle limit for the chain's joints (kind none removes limits); on every swinging joint,
  /// or only on the root joint with `limit_root_only`.
  std::optional<JointLimit> limit;
  bool limit_root_only = false;
  /// Instead of `limit`: cone limits sized per chain (FlipBudgetCone) so the chain's
  /// root-to-tip chord turns at most this many degrees from its rest direction.
  std::optional<float> max_flip_deg;
};

/// The cone half-angle (radians) for each of a chain's n swinging joints so that its chord turns
/// at most `max_flip_deg` from rest: with n equal segments each bent by a from the one above the
/// chord turns by about a (n + 1) / 2; 15 % less for uneven segments and curved rest shapes
/// (measured on fitted haircuts, docs/fit.md). The fitter uses it too.
float FlipBudgetCone(int swinging_joints, float max_flip_deg);

struct TuneResult {
  std::vector<std::string> changes;  ///< one line per spring changed
};

/// Applies `settings` to the springs `springs` (indices from SelectSprings). The first tune
/// records every spring's joints as they were in the root extension "HAIRSWING_tune_undo";
/// later tunes keep that record, so UndoTune always returns to the file before any tune.
Result<TuneResult> TuneSprings(Avatar& avatar, const std::vector<int>& springs,
                               const TuneSettings& settings);

/// Restores every spring joint's parameters and limits from the undo record, bit for bit; fails
/// when the avatar holds no record or its springs no longer match it.
Status UndoTune(Avatar& avatar);

/// A named set of settings for a kind of hair (data/presets/*.json, compiled in; docs/tune.md
/// has each one's measured figures).
struct TunePreset {
  std::string name;         ///< "ponytail", "short-bangs", ...
  std::string description;  ///< one sentence: what hair it is for and how it moves
  TuneSettings settings;
};

/// The built-in presets, sorted by name.
const std::vector<TunePreset>& BuiltinPresets();

/// The preset called `name` (ignoring case); otherwise an error listing the closest names.
Result<TunePreset> FindPreset(const std::string& name);

/// Parses a limit as the command line writes it: "none", "cone:DEG", "hinge:DEG[:AXIS]"
/// (AXIS: x (default), z, or degrees to turn the hinge about the bone) or
/// "spherical:PITCH,YAW" (degrees).
Result<JointLimit> ParseLimit(const std::string& text);

/// A limit in the form ParseLimit reads ("cone:30", "none", ...), for tables.
std::string FormatLimit(const JointLimit& limit);

}  // namespace hairswing
