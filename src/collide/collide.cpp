// Segment/segment closest points and collider distance functions (docs/solver.md, "Contact").
#include "hairswing/collide.h"

#include <algorithm>
#include <cmath>

namespace hairswing {

glm::vec3 PlaneNormalToWorld(const glm::vec3& normal, const glm::mat4& m) {
  return glm::normalize(glm::transpose(glm::inverse(glm::mat3(m))) * normal);
}

void ClosestSegmentParams(const glm::vec3& p0, const glm::vec3& p1, const glm::vec3& q0,
                          const glm::vec3& q1, float* u_out, float* v_out) {
  // Minimise |p0 + u d1 - (q0 + v d2)|^2 over the unit square (Ericson, Real-Time Collision
  // Detection, 5.1.9), with explicit handling of zero-length segments and parallel lines.
  const glm::vec3 d1 = p1 - p0, d2 = q1 - q0, r = p0 - q0;
  const float a = glm::dot(d1, d1), e = glm::dot(d2, d2), f = glm::dot(d2, r);
  constexpr float kEps = 1e-12f;
  float u = 0.0f, v = 0.0f;
  if (a <= kEps && e <= kEps) {
    u = v = 0.0f;
  } else if (a <= kEps) {
    v = std::clamp(f / e, 0.0f, 1.0f);
  } else {
    const float c = glm::dot(d1, r);
    if (e <= kEps) {
      u = std::clamp(-c / a, 0.0f, 1.0f);
    } else {
      const float b = glm::dot(d1, d2);
      const float denom = a * e - b * b;  // >= 0; ~0 when parallel
      u = denom > kEps * a * e ? std::clamp((b * f - c * e) / denom, 0.0f, 1.0f) : 0.0f;
      v = (b * u + f) / e;
      if (v < 0.0f) {
        v = 0.0f;
        u = std::clamp(-c / a, 0.0f, 1.0f);
      } else if (v > 1.0f) {
        v = 1.0f;
        u = std::clamp((b - c) / a, 0.0f, 1.0f);
      }
    }
  }
  *u_out = u;
  *v_out = v;
}

namespace {

// Unit direction of v, or `fallback` when v is (near) zero.
glm::vec3 SafeNormalize(const glm::vec3& v, const glm::vec3& fallback) {
  const float l = glm::length(v);
  return l > 1e-9f ? v / l : fallback;
}

}  // namespace

float PointContact(const WorldCollider& c, const glm::vec3& p, float r, glm::vec3* n) {
  switch (c.shape) {
    case ColliderShape::kPlane: {
      *n = c.normal;
      return glm::dot(p - c.head, c.normal) - r;
    }
    case ColliderShape::kSphere:
    case ColliderShape::kCapsule: {
      const glm::vec3 q = ClosestOnSegment(c.head, c.tail, p);
      const glm::vec3 d = p - q;
      const float len = glm::length(d);
      *n = SafeNormalize(d, glm::vec3(0, 1, 0));
      return len - r - c.radius;
    }
    case ColliderShape::kInsideSphere:
    case ColliderShape::kInsideCapsule: {
      const glm::vec3 q = ClosestOnSegment(c.head, c.tail, p);
      const glm::vec3 d = p - q;
      const float len = glm::length(d);
      *n = -SafeNormalize(d, glm::vec3(0, 1, 0));
      return c.radius - r - len;
    }
  }
  return 0.0f;
}

float SegmentContact(const WorldCollider& c, const glm::vec3& a, const glm::vec3& b, float r,
                     float* u, glm::vec3* n) {
  switch (c.shape) {
    case ColliderShape::kSphere:
    case ColliderShape::kCapsule: {
      float s = 0.0f, t = 0.0f;
      ClosestSegmentParams(a, b, c.head, c.tail, &s, &t);
      const glm::vec3 p = a + s * (b - a);
      const glm::vec3 q = c.head + t * (c.tail - c.head);
      const glm::vec3 d = p - q;
      *u = s;
      // SafeNormalize(d, fallback) with the length computed once and the fallback (the link
      // point seen from the collider's head) only when the link touches the axis itself.
      const float len = glm::length(d);
      *n = len > 1e-9f ? d / len : SafeNormalize(p - c.head, glm::vec3(0, 1, 0));
      return len - r - c.radius;
    }
    default: {
      // Planes and inside shapes are convex constraints on points: a link violates most at one
      // of its ends (the allowed region of an inside capsule is convex, the signed distance of a
      // point to its boundary is concave along a line).
      glm::vec3 na, nb;
      const float ca = PointContact(c, a, r, &na);
      const float cb = PointContact(c, b, r, &nb);
      if (cb <= ca) {
        *u = 1.0f;
        *n = nb;
        return cb;
      }
      *u = 0.0f;
      *n = na;
      return ca;
    }
  }
}

}  // namespace hairswing
