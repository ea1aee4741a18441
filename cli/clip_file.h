// A clip file (glTF/GLB/VRMA/BVH holding animations) loaded for retargeting, and the per-clip work
// shared by retarget, validate-clips, bake and batch.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "hairswing/anim.h"
#include "hairswing/bake.h"
#include "hairswing/retarget.h"

namespace hairswing::cli {

struct ClipFile {
  std::string path;
  Avatar avatar;
  HumanoidMap map;
  Rig rig;
  std::vector<Clip> clips;
};

/// Loads the file, matches its skeleton to a humanoid map and converts every animation to a
/// clip; fails (message naming the file) on an unreadable file or one without animations.
Status ReadClipFile(const std::string& path, ClipFile* out);

/// The name of the clip `wanted` names in `file`: exact, or ignoring case when that picks one
/// (FindName); the error lists the closest names.
Result<std::string> ClipNamed(const ClipFile& file, const std::string& wanted);
/// The same; on failure prints "error: <why>" and returns false.
bool LoadClipFile(const std::string& path, ClipFile* out);

/// The retargeter from the clip file's skeleton onto `avatar` (read from `avatar_path`); on
/// failure prints "error: CLIPS onto AVATAR: <why>" and returns nothing.
std::optional<Retargeter> RetargeterOrReport(const ClipFile& clips, const Avatar& avatar,
                                             const std::string& avatar_path,
                                             const RetargetOptions& options = {});

/// One clip checked on one avatar (validate-clips): required joints present on both skeletons,
/// no NaN/inf in any sampled value, no track on a spring joint, the feet's height range.
struct ClipCheck {
  std::string avatar, clip;
  std::vector<std::string> missing;  ///< required humanoid bones missing ("source:" on the clip's)
  int invalid = 0;                   ///< non-finite sampled values
  int hair_tracks = 0;               ///< tracks on spring joints
  float foot_min = 0, foot_max = 0;  ///< metres, world y of both feet over the clip
  bool ok = false;
  std::string error;  ///< a snapshot that could not be written
};

/// Retargets `clip` (of `clips`) onto the avatar read from `avatar_path` with `rt` (or plays it as
/// it is when the clip file is the avatar's own file) and checks it; with `snapshot_dir`, writes
/// front and side PNG snapshots of a few well-known clips there.
ClipCheck CheckClip(const std::string& avatar_path, const Avatar& avatar, const HumanoidMap& map,
                    const Rig& avatar_rig, const ClipFile& clips, const Clip& clip,
                    const Retargeter* rt, const std::string& snapshot_dir, bool force);

/// validate-clips' JSON record of one check.
nlohmann::ordered_json ClipCheckJson(const ClipCheck& check);

/// Clips named *loop* or *cycle* (any case) bake as cyclic unless told otherwise.
bool LooksCyclic(const std::string& clip_name);

/// Puts a baked clip into `avatar` (replacing its own clip of that name) and, unless
/// `keep_springs`, marks the springs as baked (moved aside in the output, docs/bake.md).
void PutBakedClip(Avatar& avatar, const Clip& baked, const Rig& rig, bool keep_springs);

/// bake's JSON record of one baked clip (figures that do not apply are null); `with_seconds`
/// adds the time it took (batch leaves it out of its output files so that they repeat bitwise).
nlohmann::ordered_json BakeReportJson(const BakeReport& report, const std::string& solver,
                                      bool with_seconds);

}  // namespace hairswing::cli
