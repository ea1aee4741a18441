// Joint angle limits (limits.h, docs/tune.md). The shapes follow the VRMC_springBone_limit
// 1.0-draft definitions, including its choices for the directions where the nearest allowed one
// is not unique (a cone's direction straight back, a hinge's straight along its axis). The
// trigonometry is the deterministic one of det_math.h, so the results are the same on every
// platform.
#include "spring/limits.h"

#include <algorithm>
#include <cmath>

#include "core/det_math.h"
#include "core/math.h"

namespace hairswing::internal {

namespace {
constexpr float kPi = 3.14159265358979f;
constexpr float kSingular = 1e-12f;  // squared length under which a projection has no direction
}  // namespace

glm::quat TurnFromY(const glm::vec3& to) {
  const float w = to.y + 1.0f;  // 1 + cos of the angle; the axis is Y x to = (to.z, 0, -to.x)
  if (w < 1e-8f) return glm::quat(0.0f, 1.0f, 0.0f, 0.0f);
  return glm::normalize(glm::quat(w, to.z, 0.0f, -to.x));
}

PreparedLimit PrepareLimit(const JointLimit& limit, const glm::vec3& bone_axis_unit) {
  PreparedLimit p;
  p.kind = limit.kind;
  const float a = std::clamp(limit.angle, 0.0f, kPi);
  p.cos_a = static_cast<float>(det::Cos(a));
  p.sin_a = std::sqrt(std::max(0.0f, 1.0f - p.cos_a * p.cos_a));
  p.pitch = std::clamp(limit.angle, 0.0f, kPi);
  p.yaw = std::clamp(limit.yaw, 0.0f, 0.5f * kPi);
  p.local = TurnFromY(bone_axis_unit) * limit.rotation;
  return p;
}

bool ClampToLimit(const PreparedLimit& l, glm::vec3& d) {
  switch (l.kind) {
    case JointLimit::Kind::kNone:
      return false;
    case JointLimit::Kind::kCone: {
      if (d.y >= l.cos_a) return false;
      // Keep the direction's azimuth about +Y, set its polar angle to the cone's.
      const float side2 = d.x * d.x + d.z * d.z;
      if (side2 <= kSingular) {
        d = glm::vec3(0.0f, l.cos_a, l.sin_a);  // straight back: the +Z side
      } else {
        const float s = l.sin_a / std::sqrt(side2);
        d = glm::vec3(d.x * s, l.cos_a, d.z * s);
      }
      return true;
    }
    case JointLimit::Kind::kHinge: {
      // Only rotation about X: drop the X part, then bound the angle from +Y in the YZ plane.
      const float in_plane2 = d.y * d.y + d.z * d.z;
      glm::vec3 p;
      if (in_plane2 <= kSingular) {
        p = glm::vec3(0.0f, 1.0f, 0.0f);  // along the axis: the rest direction
      } else {
        const float inv = 1.0f / std::sqrt(in_plane2);
        p = glm::vec3(0.0f, d.y * inv, d.z * inv);
        if (p.y < l.cos_a) p = glm::vec3(0.0f, l.cos_a, p.z < 0.0f ? -l.sin_a : l.sin_a);
      }
      if (p == d) return false;
      d = p;
      return true;
    }
    case JointLimit::Kind::kSpherical: {
      // Pitch: the angle about X from +Y towards +Z; yaw: the tilt towards X. Each is clamped.
      const float pitch = d.y <= -1.0f + 1e-6f ? kPi
                          : std::fabs(d.x) >= 1.0f - 1e-6f
                              ? 0.0f
                              : static_cast<float>(det::Atan2(d.z, d.y));
      const float sx = std::clamp(d.x, -1.0f, 1.0f);
      const float yaw =
          static_cast<float>(det::Atan2(sx, std::sqrt(std::max(0.0f, 1.0f - sx * sx))));
      const float cp = std::clamp(pitch, -l.pitch, l.pitch);
      const float cy = std::clamp(yaw, -l.yaw, l.yaw);
      if (cp == pitch && cy == yaw) return false;
      const float cos_y = static_cast<float>(det::Cos(cy));
      d = glm::vec3(static_cast<float>(det::Sin(cy)), cos_y * static_cast<float>(det::Cos(cp)),
                    cos_y * static_cast<float>(det::Sin(cp)));
      return true;
    }
  }
  return false;
}

bool ConeClearly(const PreparedLimit& l, const glm::vec3& axis_in_parent,
                 const glm::mat4& parent_world, const glm::vec3& e) {
  if (l.kind != JointLimit::Kind::kCone || !IsSimilarity(parent_world)) return false;
  const glm::vec3 axis = glm::mat3(parent_world) * axis_in_parent;
  return glm::dot(axis, e) >= (l.cos_a + 1e-4f) * glm::length(axis) * glm::length(e);
}

bool ApplyLimit(const PreparedLimit& l, const glm::quat& frame, const glm::vec3& o, float len,
                glm::vec3& end) {
  const glm::vec3 e = end - o;
  const float el = glm::length(e);
  if (!(el > 0.0f)) return false;
  glm::vec3 d = glm::conjugate(frame) * (e / el);
  if (!ClampToLimit(l, d)) return false;
  end = o + (frame * d) * len;
  return true;
}

}  // namespace hairswing::internal
