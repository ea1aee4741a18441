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

/// A shortcut past ApplyLimit for a cone: true when `l` is a cone and the direction `e` lies
/// inside it by a margin of 1e-4 in the cosine, the cone's axis taken from the parent's world
/// matrix (`axis_in_parent`: (rest rotation * l.local) * +Y) instead of from its orthonormalised
/// rotation. Only for a parent matrix that is rotation x uniform scale, where both give the same
/// direction up to rounding far below the margin; then ApplyLimit with the exact frame would
/// leave the end alone (limits_test checks it).
bool ConeClearly(const PreparedLimit& l, const glm::vec3& axis_in_parent,
                 const glm::mat4& parent_world, const glm::vec3& e);

}  // namespace hairswing::internal
