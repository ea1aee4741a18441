// A clip file (glTF/GLB/VRMA/BVH holding animations) loaded for retargeting: shared by retarget,
// validate-clips and bake.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "hairswing/anim.h"
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
/// clip; on failure prints "error: <why>" and returns false.
bool LoadClipFile(const std::string& path, ClipFile* out);

/// The retargeter from the clip file's skeleton onto `avatar` (read from `avatar_path`); on
/// failure prints "error: CLIPS onto AVATAR: <why>" and returns nothing.
std::optional<Retargeter> RetargeterOrReport(const ClipFile& clips, const Avatar& avatar,
                                             const std::string& avatar_path,
                                             const RetargetOptions& options = {});

}  // namespace hairswing::cli
