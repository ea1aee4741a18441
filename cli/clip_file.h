// A clip file (glTF/GLB/VRMA/BVH holding animations) loaded for retargeting: shared by retarget,
// validate-clips and bake.
#pragma once

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

}  // namespace hairswing::cli
