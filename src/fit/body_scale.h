// Avatar scale shared by the chain and collider fitters.
#pragma once

#include <algorithm>

#include "hairswing/retarget.h"
#include "hairswing/rig.h"

namespace hairswing::internal {

// The humanoid's height in the rest pose, in units of a 1.7 m person (= 1): the vertical span of
// the mapped humanoid joints, which for a person runs head to foot over about 1.5 m.
inline float HumanoidUnit(const HumanoidMap& hm, const Rig& rig) {
  float lo = 1e30f, hi = -1e30f;
  for (const auto& [bone, node] : hm.bones) {
    const float y = rig.rest_world()[rig.node_to_rig()[node]][3].y;
    lo = std::min(lo, y);
    hi = std::max(hi, y);
  }
  return std::max(hi - lo, 1e-6f) / 1.5f;
}

}  // namespace hairswing::internal
