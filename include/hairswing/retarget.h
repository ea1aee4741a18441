// Humanoid maps and world-space retargeting.
//
// Every skeleton is seen through a humanoid map (VRM 1.0 bone name -> node). VRM avatars bring
// their own; plain glTF/BVH skeletons are matched against built-in maps kept as data
// (data/humanoid_maps/*.json: UAL Rigify, Quaternius modular, UE-style, CMU BVH).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "hairswing/anim.h"
#include "hairswing/avatar.h"
#include "hairswing/rig.h"
#include "hairswing/status.h"

namespace hairswing {

struct HumanoidMap {
  std::string family;                         ///< "vrm", "ual-rigify", ... or "custom"
  std::map<std::string, int> bones;           ///< VRM 1.0 bone name -> Avatar node
  double confidence = 0.0;                    ///< share of the map's bones found by name, [0,1]
  std::vector<std::string> missing_required;  ///< required VRM bones with no node
};

/// The built-in skeleton families and their JSON text.
std::vector<std::pair<std::string, std::string>> BuiltinHumanoidMaps();

/// The avatar's own VRM humanoid when it has one; otherwise the best built-in family by node
/// names (exact match, then case-insensitive), with its confidence. Never guesses a bone whose
/// name is not in the map: missing required bones are listed.
HumanoidMap MatchHumanoid(const Avatar& avatar);

/// Applies a map given as JSON ({"family":..., "bones": {"hips": "NodeName", ...}}).
Result<HumanoidMap> ApplyHumanoidMapJson(const Avatar& avatar, const std::string& json);

struct RetargetOptions {
  bool remove_horizontal_root_motion = true;  ///< keep the character in place (x/z of the hips)
  double sample_rate = 30.0;                  ///< keys per second of the retargeted clip
};

/// Transfers clips from a source skeleton to a target avatar in world space: each mapped bone's
/// world rotation change from its own rest pose is applied to the target bone's rest world
/// rotation (after aligning the two skeletons' facing); hips translation is scaled by the leg
/// length ratio. Both rest poses are captured at creation, before anything plays. Only humanoid
/// body joints are written, never a spring (hair) joint.
class Retargeter {
 public:
  static Result<Retargeter> Create(const Avatar& source, const HumanoidMap& source_map,
                                   const Avatar& target, const HumanoidMap& target_map,
                                   RetargetOptions options = {});
  /// `clip` must be on the source rig (Clip::FromAvatar(source, source_rig(), i)).
  Clip Retarget(const Clip& clip) const;
  /// The same, retargeted once per clip name and kept (thread-safe): replaying or switching
  /// between clips does not redo the work.
  const Clip& Cached(const Clip& clip) const;
  const Rig& source_rig() const { return source_rig_; }
  const Rig& target_rig() const { return target_rig_; }
  /// Rig nodes of the target that the retargeted clips write.
  const std::vector<int>& written_nodes() const { return target_nodes_; }

 private:
  Rig source_rig_, target_rig_;
  RetargetOptions options_;
  std::vector<int> source_nodes_, target_nodes_;  // parallel: mapped bones, target rig order
  std::vector<glm::quat> source_rest_world_, target_rest_world_;
  glm::quat align_{1, 0, 0, 0};  // source world frame -> target world frame
  int source_hips_ = -1, target_hips_ = -1;
  float hips_scale_ = 1.0f;
  std::vector<uint8_t> target_spring_;
  struct Cache;
  std::shared_ptr<Cache> cache_;
};

}  // namespace hairswing
