// Helpers shared by the solver files (private to src/spring).
#pragma once

#include <cmath>
#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>
#include <span>

#include "core/det_math.h"
#include "core/math.h"
#include "hairswing/rig.h"
#include "hairswing/spring.h"

namespace hairswing::internal {

bool PoseIsFinite(std::span<const Transform> pose);

/// glm::vec3(m * glm::vec4(p, 1)), the same sums in the same order ((m0 x + m1 y) + (m2 z + m3)),
/// inline and without the fourth row.
inline glm::vec3 TransformPoint(const glm::mat4& m, const glm::vec3& p) {
  return (glm::vec3(m[0]) * p.x + glm::vec3(m[1]) * p.y) +
         (glm::vec3(m[2]) * p.z + glm::vec3(m[3]));
}

/// VRM content is authored for one spring update per 60 Hz frame (docs/solver.md).
constexpr float kVrmRefDt = 1.0f / 60.0f;

/// vrm mode's stiffness and gravity pushes per step are scaled by dt times this: 1 for three-vrm's
/// own step of the caller's dt (`variable`), 60 Hz frames' worth of dt for a fixed step.
inline float VrmPushScale(float dt, bool variable) { return variable ? 1.0f : dt / kVrmRefDt; }

/// Eight-lane chain groups (AVX2, arc_lanes.inc): built where GCC compiles for x86-64, where a
/// `#pragma GCC target` region can hold code for a processor checked at run time
/// (LaneWidthFor). Elsewhere (other compilers, WebAssembly) groups have four lanes.
#if HAIRSWING_SIMD && defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define HAIRSWING_LANES8 1
#else
#define HAIRSWING_LANES8 0
#endif

/// The lane width SpringConfig::lane_width asks for on this processor: 4 or 8.
int LaneWidthFor(int requested);

/// Up to this many colliders per chain, no broad phase per chain: the per-link four-wide test of
/// all of them costs less (arc_solver.cpp). Chains in SIMD lanes need it (spring_world.cpp).
constexpr int kNearAll = 16;

/// Merges a chain's collider list into a lane group's union (`merged`) so that both stay
/// subsequences of it: a collider already there keeps its place, a new one goes right after the
/// last collider of `list` placed so far. False (and `merged` unchanged) when the two orders
/// disagree, when the union would hold more than `max_size`, or when either list names a
/// collider twice and the two are not the same list.
bool MergeColliderLists(std::span<const int> list, size_t max_size, std::vector<int>* merged);

/// Relative damping rate (1/s) that brings a segment with restoring coefficient k and drag rate c
/// to 60% of critical damping in all (the tuned defaults); 0 when the drag already does.
float TunedRelativeDamping(float k, float c);

/// Components closer to zero than 1e-30 (metres, m/s) set to exactly zero. A chain hanging in a
/// symmetry plane (a centred ponytail at x = 0) settles with its off-plane components decaying
/// through the subnormal floats, where every operation costs ~100 cycles: frames of the still
/// part of the head-turn ran 3x slower. Flushing in code, not with the CPU's flush-to-zero mode,
/// keeps results the same on every platform (WebAssembly has no such mode).
inline float FlushTiny(float x) { return std::fabs(x) < 1e-30f ? 0.0f : x; }
inline glm::vec3 FlushTiny(const glm::vec3& v) {
  return {FlushTiny(v.x), FlushTiny(v.y), FlushTiny(v.z)};
}

/// The same for a rotation written out (products of small components can be subnormal).
inline glm::quat FlushTiny(const glm::quat& q) {
  return {FlushTiny(q.w), FlushTiny(q.x), FlushTiny(q.y), FlushTiny(q.z)};
}

/// The rejects' margin: a reach of (r + R) * kRejectGrow + kRejectPad, a thousandth more plus a
/// micrometre, far above the rounding of either side. The same constants in the scalar rejects
/// below and in the SIMD ones (arc_solver.cpp: NearBlock, NearBall4, the lanes' candidates).
inline constexpr float kRejectGrow = 1.001f;
inline constexpr float kRejectPad = 1e-6f;

/// A reject without division or square root, before the exact contact test: true when a sphere
/// (centre p, radius r) is clear of a collider's bounding sphere (`bound`: centre, radius; radius
/// < 0 = never rejected). The margin makes it conservative against rounding, so it never rejects
/// a contact the exact test would find: results are bitwise those of the exact test alone.
inline bool ClearOfBound(const glm::vec4& bound, const glm::vec3& p, float r) {
  if (bound.w < 0.0f) return false;
  const glm::vec3 d = p - glm::vec3(bound);
  const float reach = (r + bound.w) * kRejectGrow + kRejectPad;
  return glm::dot(d, d) > reach * reach;
}

/// True when a sphere (centre p, radius r) is clear of the capsule: squared distance to the
/// closest point of its axis against the squared reach, without square root or division. Like
/// ClearOfBound, conservative by a margin, so the exact test alone decides every contact.
/// The capsule runs from `head` along `axis` (zero for a sphere) with 1 / |axis|^2 precomputed (0
/// for a sphere).
inline bool ClearOfCapsule(const glm::vec3& head, const glm::vec3& axis, float inv_len2,
                           float radius, const glm::vec3& p, float r) {
  const glm::vec3 ap = p - head;
  const float t = std::min(std::max(glm::dot(ap, axis) * inv_len2, 0.0f), 1.0f);
  const glm::vec3 d = ap - t * axis;
  const float reach = (r + radius) * kRejectGrow + kRejectPad;
  return glm::dot(d, d) > reach * reach;
}

}  // namespace hairswing::internal

namespace hairswing {

/// vrm mode's velocity kept per step at joint j: 1 - drag for three-vrm's own step of the caller's
/// dt (`variable`); for a fixed step the 60 Hz update's effect over dt, (1 - drag)^(dt / 60 Hz),
/// computed once per chain for the usual 1/120 s (vrm_keep_fixed_, ChainCoefficients).
inline float SpringWorld::VrmKeep(int j, float dt, bool variable) const {
  return variable                          ? 1.0f - drag_[j]
         : dt == static_cast<float>(kStep) ? vrm_keep_fixed_[j]
                                           : det::PowF(1.0f - drag_[j], dt / internal::kVrmRefDt);
}

}  // namespace hairswing
