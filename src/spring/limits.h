// Joint angle limits (VRMC_springBone_limit 1.0-draft; docs/tune.md), shared by the three
// solver modes. A limit acts on the direction of a joint's segment, expressed in the limit's
// frame: the joint's rest rotation under its parent's current world rotation, times the turn
// that takes +Y onto the bone's rest axis, times the limit's own `rotation`.
#pragma once

#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>

#include "hairswing/spring.h"  // PreparedLimit

namespace hairswing::internal {

/// The shortest turn from +Y to the unit vector `to`; a half turn about X when `to` is -Y.
glm::quat TurnFromY(const glm::vec3& to);

PreparedLimit PrepareLimit(const JointLimit& limit, const glm::vec3& bone_axis_unit);

/// Moves the unit direction `d` (limit frame) onto the nearest allowed direction; returns false
/// (and leaves `d` alone) when it was allowed already.
bool ClampToLimit(const PreparedLimit& l, glm::vec3& d);

/// The same in world space: `end` is the segment's end at distance `len` from the joint `o`;
/// `frame` maps the limit frame to world (rotation only). Returns whether `end` moved.
bool ApplyLimit(const PreparedLimit& l, const glm::quat& frame, const glm::vec3& o, float len,
                glm::vec3& end);

}  // namespace hairswing::internal
