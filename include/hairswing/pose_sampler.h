// The interface between body animation and the hair solver: anything that produces the body pose
// at a time. Implemented by anim (clips, the head-turn test motion), consumed by the spring
// drivers (motion.h); neither module depends on the other.
#pragma once

#include <span>

#include "hairswing/rig.h"

namespace hairswing {

/// Anything that can produce the body pose (rig local transforms) at time t seconds: an
/// animation clip, node constraints on top of it, the procedural head-turn test motion.
class PoseSampler {
 public:
  virtual ~PoseSampler() = default;
  /// Writes rig.node_count() local transforms for time `t`. Must not allocate.
  virtual void Sample(double t, std::span<Transform> pose) = 0;
};

}  // namespace hairswing
