// Collision geometry for spring chains: closest points between segments and the signed distance
// of a point or a hair link to the five collider shapes. All positions are world metres.
#pragma once

#include <algorithm>
#include <glm/glm.hpp>

#include "hairswing/avatar.h"

namespace hairswing {

/// A collider resolved to world space for one step.
struct WorldCollider {
  ColliderShape shape = ColliderShape::kSphere;
  glm::vec3 head{0.0f};       ///< sphere centre / capsule start / plane point
  glm::vec3 tail{0.0f};       ///< capsule end (== head for spheres)
  glm::vec3 normal{0, 1, 0};  ///< plane normal, unit
  float radius = 0.0f;        ///< metres
};

/// A collider given in its node's frame (offset, tail and normal node-local; radius in node units)
/// resolved to world space by the node's world matrix. `scale_radius`: multiply the radius by the
/// node's world scale (length of the matrix's first column), as arc and parent do; vrm mode passes
/// false, like three-vrm (docs/solver.md).
/// A plane's node-local normal in world space (the inverse transpose of the node's rotation and
/// scale, so a non-uniform scale keeps the plane a plane), unit.
glm::vec3 PlaneNormalToWorld(const glm::vec3& normal, const glm::mat4& node_world);

/// Closest point on segment q0-q1 to p (q0 for a segment of length zero).
inline glm::vec3 ClosestOnSegment(const glm::vec3& q0, const glm::vec3& q1, const glm::vec3& p) {
  const glm::vec3 d = q1 - q0;
  const float len2 = glm::dot(d, d);
  if (len2 <= 1e-12f) return q0;
  const float t = std::clamp(glm::dot(p - q0, d) / len2, 0.0f, 1.0f);
  return q0 + t * d;
}

/// (Inline: every step resolves every collider.)
inline WorldCollider ColliderToWorld(ColliderShape shape, const glm::vec3& offset,
                                     const glm::vec3& tail, const glm::vec3& normal, float radius,
                                     const glm::mat4& m, bool scale_radius) {
  WorldCollider wc;
  wc.shape = shape;
  // m * (offset, 1) as glm computes it, (m0 x + m1 y) + (m2 z + m3 1), for x, y and z.
  const glm::vec3 c0(m[0]), c1(m[1]), c2(m[2]), c3(m[3]);
  wc.head = (c0 * offset.x + c1 * offset.y) + (c2 * offset.z + c3);
  const bool capsule = shape == ColliderShape::kCapsule || shape == ColliderShape::kInsideCapsule;
  wc.tail = capsule ? wc.head + glm::mat3(m) * (tail - offset) : wc.head;
  wc.normal = shape == ColliderShape::kPlane ? PlaneNormalToWorld(normal, m) : glm::vec3(0, 1, 0);
  wc.radius = radius * (scale_radius ? glm::length(c0) : 1.0f);
  return wc;
}

/// Closest points between segments p0-p1 and q0-q1: parameters u, v in [0,1]. Robust when the
/// segments are parallel (picks the smallest u among equally close pairs) or degenerate
/// (zero length -> that parameter is 0).
void ClosestSegmentParams(const glm::vec3& p0, const glm::vec3& p1, const glm::vec3& q0,
                          const glm::vec3& q1, float* u, float* v);

/// Contact of a sphere of radius `r` at `p` with a collider: returns the signed separation
/// C = distance - radii (negative = overlap; for inside shapes, how far inside the allowed
/// region the sphere is, negative when it pokes out) and writes the unit push direction `n`
/// that resolves it. `n` is only meaningful when the result is negative.
float PointContact(const WorldCollider& c, const glm::vec3& p, float r, glm::vec3* n);

/// PointContact for the hot loop: returns +1 early (no contact, `n` untouched) when the sphere is
/// clearly clear of an outside sphere or capsule; otherwise exactly PointContact. Inline so the
/// common no-contact case costs a few multiplies.
inline float PointContactFast(const WorldCollider& c, const glm::vec3& p, float r, glm::vec3* n) {
  if (c.shape == ColliderShape::kSphere || c.shape == ColliderShape::kCapsule) {
    const glm::vec3 d = c.tail - c.head;
    const float len2 = glm::dot(d, d);
    float t = len2 > 1e-12f ? glm::dot(p - c.head, d) / len2 : 0.0f;
    t = t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t);
    const glm::vec3 q = c.head + t * d;
    const float reach = r + c.radius;
    const glm::vec3 e = p - q;
    if (glm::dot(e, e) >= reach * reach) return 1.0f;
  }
  return PointContact(c, p, r, n);
}

/// The separation PointContact returns, without the push direction, for yes/no questions (broad
/// phase, rejects): the same value, or +1 when an outside sphere or capsule is clearly clear.
inline float PointSeparation(const WorldCollider& c, const glm::vec3& p, float r) {
  if (c.shape == ColliderShape::kPlane) return glm::dot(p - c.head, c.normal) - r;
  const glm::vec3 d = c.tail - c.head;
  const float len2 = glm::dot(d, d);
  float t = len2 > 1e-12f ? glm::dot(p - c.head, d) / len2 : 0.0f;
  t = t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t);
  const glm::vec3 e = p - (c.head + t * d);
  if (c.shape == ColliderShape::kSphere || c.shape == ColliderShape::kCapsule) {
    const float reach = r + c.radius;
    if (glm::dot(e, e) >= reach * reach) return 1.0f;
    return glm::length(e) - r - c.radius;
  }
  return c.radius - r - glm::length(e);  // inside shapes
}

/// Contact of a hair link (segment a-b, radius r) with a collider, testing the whole link:
/// the closest point on the link to the collider's axis (or plane). Writes the link parameter
/// `u` in [0,1] of the deepest point and the push direction. Plane and inside shapes use the
/// link point that violates most (endpoints for planes and inside spheres).
float SegmentContact(const WorldCollider& c, const glm::vec3& a, const glm::vec3& b, float r,
                     float* u, glm::vec3* n);

}  // namespace hairswing
