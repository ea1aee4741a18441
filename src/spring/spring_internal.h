// Helpers shared by the solver files.
#pragma once

#include <span>

#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>

#include "hairswing/rig.h"

namespace hairswing::internal {

bool PoseIsFinite(std::span<const Transform> pose);

/// The rotation of a world matrix with its scale removed (columns normalised).
inline glm::quat RotationOf(const glm::mat4& m) {
  glm::mat3 r(glm::normalize(glm::vec3(m[0])), glm::normalize(glm::vec3(m[1])),
              glm::normalize(glm::vec3(m[2])));
  return glm::normalize(glm::quat_cast(r));
}

/// Shortest rotation taking unit vector `from` to unit vector `to` (as three.js'
/// Quaternion.setFromUnitVectors, including its choice of axis for opposite vectors).
inline glm::quat FromUnitVectors(const glm::vec3& from, const glm::vec3& to) {
  float r = glm::dot(from, to) + 1.0f;
  glm::quat q;
  if (r < 1e-7f) {
    r = 0.0f;
    if (std::fabs(from.x) > std::fabs(from.z)) q = glm::quat(r, -from.y, from.x, 0.0f);
    else q = glm::quat(r, 0.0f, -from.z, from.y);
  } else {
    const glm::vec3 c = glm::cross(from, to);
    q = glm::quat(r, c.x, c.y, c.z);
  }
  return glm::normalize(q);
}

}  // namespace hairswing::internal
