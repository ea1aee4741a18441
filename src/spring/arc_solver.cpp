// The `arc` and `parent` integrators (docs/solver.md).
//
// Per segment i with joint position o_i, simulated end x_i, velocity v_i:
//   rest vector  arc:    R_H R_i^0 (s a_i)  = mat3(W_attach) * arc_attach_i  (original arc)
//                parent: R_joint(rest rotation under the bent parent) * (s a_i)
//   f = k (r - x) + g;  u = e^(-c h) (v + h f);  y = x + h u;  x^ = o + L (y - o)/|y - o|
// (arc with gravity: g is 0 in f; the chain's arc turns as a whole towards where gravity
// balances its chord (ArcFrame) and each rest vector is scaled by gravity along it (Lifted))
// then contacts without bounce: v* = (x^ - x)/h is rebuilt before any push-out; each push-out
// along n removes only the inward part of v*; the projection is repeated; finally the radial
// velocity along the link is removed.
//
// Two ways through a chain, same maths:
//   flat    (SolveChainFlat) chains of direct parent-child joints with uniform scale, no joint
//           owned by a clip, joint translations and scales as at rest. The joint loop carries
//           only the joint position (the previous segment's end), the chain's uniform scale and,
//           where the rest vector needs it (parent mode, draping below a contact), the world
//           rotation of the joint above. No 4x4 matrix, no quaternion in arc mode away from
//           contacts: the joints' rotations follow from the ends and are built once per caller
//           frame (WriteBack), not at every 1/120 s step. Up to four (eight with AVX2) like flat
//           chains (a lane group) go side by side in SIMD lanes (SolveChainLanes, WriteLaneGroups),
//           each lane doing the same float operations as SolveChainFlat / WriteFlatChain: same
//           bits.
//   general (SolveChainArc) any other chain: world matrices along the node path of every joint.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

#include "core/det_math.h"
#include "core/quat_sse.h"
#include "hairswing/spring.h"
#include "spring/limits.h"
#include "spring/spring_internal.h"
#if HAIRSWING_SIMD && defined(__SSE2__)
#include <emmintrin.h>
#endif
#if HAIRSWING_LANES8
#include <immintrin.h>
#endif

namespace hairswing {

namespace {
// A lane group's constants, packed per link depth for the SIMD lanes (PackLanes): each field is
// one float per lane (four or eight: LaneGroupWidth). kLaneCoef starts a mode's coefficients
// (parent, then arc), each kLaneCoefFields long: k, g (x, y, z), e^(-c h), e^(-c_rel h). Then the
// joint's rest local rotation (w, x, y, z), its rest axis in its own frame (axis_local_) and as a
// unit vector (axis_unit_), and its angle limit's frame (PreparedLimit::local) and cone cosine
// plus the lanes' margin: what the lanes would otherwise gather joint by joint at every step.
enum LaneField : int {
  kLaneRel,
  kLaneAxisLen,
  kLaneHit,
  kLaneArcX,
  kLaneArcY,
  kLaneArcZ,
  kLaneCoef
};
constexpr int kLaneCoefFields = 6;
enum LaneJointField : int {
  kLaneRestW = kLaneCoef + 2 * kLaneCoefFields,
  kLaneRestX,
  kLaneRestY,
  kLaneRestZ,
  kLaneAxisLocalX,
  kLaneAxisLocalY,
  kLaneAxisLocalZ,
  kLaneAxisUnitX,
  kLaneAxisUnitY,
  kLaneAxisUnitZ,
  kLaneLimitW,
  kLaneLimitX,
  kLaneLimitY,
  kLaneLimitZ,
  kLaneLimitCos,
  kLaneFields
};
// The margin the lanes add to a cone's cosine before they call a link clear of it (see the cone
// test in SolveChainLanesW).
constexpr float kLaneConeMargin = 1e-4f;

// A lane group's colliders per slot: every lane has each (the chains share one list). All eight
// bits, for either width (the lanes' own masks have only theirs). Written out for 16 slots, as
// many as SpringWorld::near_bits_ holds.
static_assert(internal::kNearAll == 16);
constexpr uint8_t kAllLanes[internal::kNearAll] = {255, 255, 255, 255, 255, 255, 255, 255,
                                                   255, 255, 255, 255, 255, 255, 255, 255};

constexpr int kContactIterations = 2;
// OntoContactCircle takes an end whose pushes left it deeper than this share of its first
// penetration (the projections undid more than a quarter of the pushes). Below it the pushes
// converge as they are; placing every such end exactly made a strand tangled in many colliders
// jitter by 1.4 mm at rest instead of 0.13 (docs/solver.md, "Contact without bounce").
constexpr float kUndone = 0.25f;
constexpr int kMaxNormals = 8;      // contact normals remembered per segment and step
constexpr float kMinLever = 0.25f;  // contact near the root: bound the tail correction (1/u)

glm::vec3 RestDirection(const glm::vec3& rest_vec) {
  return rest_vec / std::max(glm::length(rest_vec), 1e-12f);
}

// SpringConfig::arc_follow: the first segment's swing, the rotation taking its rest direction to
// where it points after its step (its joint o, its end `end`, len long).
glm::quat FirstSwing(const glm::vec3& rest_vec, const glm::vec3& o, const glm::vec3& end,
                     float len) {
  return internal::FromUnitVectors(RestDirection(rest_vec), (end - o) / len);
}
// A lower segment's rest vector turned by `follow` of the first segment's swing: a blend of the
// two directions, at the rest vector's length.
glm::vec3 FollowRest(const glm::vec3& rest_vec, const glm::quat& first_swing, float follow) {
  const glm::vec3 swung = first_swing * rest_vec;
  const glm::vec3 m = (1.0f - follow) * rest_vec + follow * swung;
  return m * (glm::length(rest_vec) / std::max(glm::length(m), 1e-12f));
}

// arc with gravity: the rest vector of a segment whose pull keeps the part of gravity along it
// (lift = g / k): k (r - x) + (g . r^) r^ is k (mu r - x) with mu = 1 + (lift . r) / |r|^2.
// Hanging, gravity stiffens the segment as before (mu > 1); standing up, it softens it, never
// below kMinLift of its pull (a segment standing straight up under gravity as strong as its
// stiffness would have none). A chain without gravity never comes here.
// A draped segment (below a contact, its rest from the deflected joint above, as in parent mode)
// is not turned with its chain's arc, so it takes the whole of gravity as parent mode does: its
// rest vector plus the lift, k (r + g / k - x) = k (r - x) + g. Else it would keep only the part
// along itself and stand off the collider it hangs around instead of falling around it.
constexpr float kMinLift = 0.1f;
glm::vec3 Lifted(const glm::vec3& rest_vec, const glm::vec3& lift, bool draped) {
  if (draped) return rest_vec + lift;
  const float d = std::max(glm::dot(rest_vec, rest_vec), 1e-30f);
  return rest_vec * std::max(1.0f + glm::dot(lift, rest_vec) / d, kMinLift);
}

// The point at distance len from the joint o in the direction of p (the rest direction when p
// is on o).
glm::vec3 ProjectOnLink(const glm::vec3& p, const glm::vec3& o, float len,
                        const glm::vec3& rest_vec) {
  const glm::vec3 d = p - o;
  const float l = glm::length(d);
  return o + (l > 1e-9f * len ? (len / l) * d : len * RestDirection(rest_vec));
}
// An end point still inside a collider after its push and the projection back to the link's
// length: the projection undoes part of the push whenever the normal is not across the link,
// and all of it when the link points straight into a plane or at a sphere's centre (a chain that
// starts inside a plane below its root then folds back up over itself). The end goes onto the
// circle where the ball of the link's reach around o meets the collider's surface grown by the
// hit radius, at the circle's point nearest the end: the least move that leaves it outside at
// the link's length. Across the circle's axis the end's own offset picks the side, else the rest
// direction's, else a fixed one. Outside spheres, capsules (the axis point nearest the end) and
// planes; false, the end unchanged, where no such circle exists (a root too deep to get out) or
// the end is no deeper than kUndone of `first_sep`, its depth at the first push.
bool OntoContactCircle(const WorldCollider& c, const glm::vec3& o, float len, float hit,
                       float first_sep, const glm::vec3& rest_vec, glm::vec3* xh) {
  if (!(PointSeparation(c, *xh, hit) < kUndone * first_sep)) return false;  // near enough out
  glm::vec3 axis;  // from o towards the circle's centre, unit
  float along;     // the circle's centre: o + along * axis
  float rho2;      // its radius, squared
  if (c.shape == ColliderShape::kPlane) {
    axis = c.normal;
    along = hit - glm::dot(o - c.head, c.normal);
    rho2 = len * len - along * along;
  } else if (c.shape == ColliderShape::kSphere || c.shape == ColliderShape::kCapsule) {
    const glm::vec3 d = ClosestOnSegment(c.head, c.tail, *xh) - o;
    const float dist = glm::length(d);
    const float reach = c.radius + hit;
    if (!(dist > 1e-9f * len)) return false;  // o on the axis: every direction is as deep
    axis = d / dist;
    // |x - o| = len and |x - q| = reach: the plane of the circle at `along` from o.
    along = (len * len - reach * reach + dist * dist) / (2.0f * dist);
    rho2 = len * len - along * along;
  } else {
    return false;  // inside shapes keep the end inside: the push leaves it there
  }
  if (!(rho2 >= 0.0f)) return false;
  auto across = [&](const glm::vec3& v) { return v - glm::dot(v, axis) * axis; };
  glm::vec3 w = across(*xh - o);
  if (!(glm::dot(w, w) > 1e-12f * len * len)) w = across(rest_vec);
  if (!(glm::dot(w, w) > 1e-12f * len * len))
    w = across(std::fabs(axis.x) < 0.9f ? glm::vec3(1, 0, 0) : glm::vec3(0, 1, 0));
  *xh = o + along * axis + std::sqrt(rho2) * glm::normalize(w);
  return true;
}

// arc's lag guard (SpringConfig::arc_max_lag_deg). The direction a segment settles in when
// still: its rest target r (from its joint) tipped by gravity g, k r + g (the pull k (r - x) + g
// has no part across the link there). Zero (no stiffness, no gravity): no guard.
glm::vec3 LagAxis(const glm::vec3& rest_vec, float k, const glm::vec3& g) {
  return k * rest_vec + g;
}

// Whether a link from o to xh of length len is outside the cone of cosine `cos_max` around
// `axis` (NaN counts as outside; the lanes make the same test with the same operations).
bool OutsideLagCone(const glm::vec3& o, const glm::vec3& xh, float len, const glm::vec3& axis,
                    float cos_max) {
  return !(glm::dot(xh - o, axis) >= cos_max * (len * std::sqrt(glm::dot(axis, axis))));
}

// The end put back on the cone: the link turned towards the axis, in the plane of both, until
// it makes the cone's angle with it.
glm::vec3 OntoLagCone(const glm::vec3& o, const glm::vec3& xh, float len, const glm::vec3& axis,
                      float cos_max, float sin_max) {
  const glm::vec3 a = axis * (1.0f / std::sqrt(glm::dot(axis, axis)));
  const glm::vec3 d = xh - o;
  glm::vec3 across = d - glm::dot(d, a) * a;
  float l = glm::length(across);
  if (!(l > 1e-9f * len)) {  // straight against the axis: any side will do
    across = glm::cross(a, std::fabs(a.x) < 0.9f ? glm::vec3(1, 0, 0) : glm::vec3(0, 1, 0));
    l = glm::length(across);
  }
  return o + len * (cos_max * a + (sin_max / l) * across);
}

}  // namespace

SpringWorld::NearRange SpringWorld::NearColliders(int chain, const glm::vec3& root, float scale,
                                                  float h) {
  // Broad phase: only colliders that can touch a sphere holding the chain this step. The sphere
  // bounds the root and last step's ends, grown by how far any end can travel in one step
  // (|v| h is an upper bound after damping; the pull adds at most h^2 |f|, covered by the
  // margin) and by the largest hit radius; it is never larger than the chain's full reach.
  // Spheres and capsules are rejected on their bounding sphere by a squared distance; the exact
  // tests per link decide the rest, so the filter only saves work.
  const Rig& rig = *rig_;
  const RigChain& ch = rig.chains()[chain];
  if (ch.joint_end - ch.joint_begin <= 4 ||
      ch.collider_end - ch.collider_begin <= internal::kNearAll) {
    // Up to 3 links, or up to 16 colliders (four blocks of NarrowLink's four-wide test): the
    // per-link test costs less than this broad phase would save (measured: 7 % fewer
    // instructions on the layered demo, 4 % on the stress rigs with 16 capsules). Every
    // collider goes on; the result is the same.
    return AllNear(chain);
  }
  glm::vec3 lo = root, hi = root;
  float max_hit = 0.0f, max_speed = 0.0f;
  for (int j = ch.joint_begin; j + 1 < ch.joint_end; ++j) {
    lo = glm::min(lo, tail_[j]);
    hi = glm::max(hi, tail_[j]);
    max_hit = std::max(max_hit, hit_radius_[j]);
    max_speed = std::max(max_speed, glm::dot(glm::vec3(vel_[j]), glm::vec3(vel_[j])));
  }
  const float full_reach = (chain_reach_[chain] + max_hit) * scale * 1.01f + 1e-4f;
  const glm::vec3 centre = 0.5f * (lo + hi);
  // Ends follow the root: its move this step can carry them as far again.
  const float root_move = glm::length(root - prev_root_[chain]);
  const float grown = 0.5f * glm::length(hi - lo) + max_hit * scale +
                      std::sqrt(max_speed) * h * 2.0f + 2.0f * root_move + 0.02f * scale;
  const bool use_box = glm::length(centre - root) + grown < full_reach;
  const glm::vec3 bound_c = use_box ? centre : root;
  const float bound_r = use_box ? grown : full_reach;
  // The chain's own slots. If it owns a shared list (near_share_), the chains sharing it come
  // later in the step, so AllNear refills them after this subset: nothing to mark.
  const int base = near_base_[chain];
  int near_end = base;
  for (int k = ch.collider_begin; k < ch.collider_end; ++k) {
    const int ci = rig.chain_colliders()[k];
    const ColliderShape sh = colliders_[ci].shape;
    bool near = sh == ColliderShape::kInsideSphere || sh == ColliderShape::kInsideCapsule;
    if (!near)
      near = sh == ColliderShape::kPlane
                 ? PointSeparation(colliders_[ci], bound_c, bound_r) < 0.0f
                 : !internal::ClearOfBound(collider_bound_[ci], bound_c, bound_r);
    if (near) AddNear(near_end++, ci);
  }
  return {base, EndNear(near_end)};
}

SpringWorld::NearRange SpringWorld::AllNear(int chain) {
  // Every collider of the chain, in the chain's order, in the flat arrays NarrowLink reads: once
  // per step for all chains with the same colliders (the hair on one head shares one list).
  const int owner = near_share_[chain];
  const RigChain& ch = rig_->chains()[owner];
  const int base = near_base_[owner], n = ch.collider_end - ch.collider_begin;
  if (near_all_step_[owner] != step_id_) {
    for (int i = 0; i < n; ++i) AddNear(base + i, rig_->chain_colliders()[ch.collider_begin + i]);
    EndNear(base + n);
    near_all_step_[owner] = step_id_;
  }
  return {base, base + n};
}

void SpringWorld::AddNear(int k, int collider) {
  // The per-link test reads the bounding spheres as flat arrays (x, y, z, radius), in the order
  // of near_colliders_. A plane or inside shape (bound radius < 0: never rejected) gets an
  // infinite radius, which no distance exceeds.
  near_colliders_[k] = collider;
  const glm::vec4& b = collider_bound_[collider];
  near_x_[k] = b.x;
  near_y_[k] = b.y;
  near_z_[k] = b.z;
  near_r_[k] = b.w < 0.0f ? std::numeric_limits<float>::infinity() : b.w;
#if HAIRSWING_SIMD && defined(__SSE2__)
  NearSplat& splat = near_splat_[k];  // the lanes' copy
  _mm_store_ps(splat.x, _mm_set1_ps(b.x));
  _mm_store_ps(splat.y, _mm_set1_ps(b.y));
  _mm_store_ps(splat.z, _mm_set1_ps(b.z));
  _mm_store_ps(splat.r, _mm_set1_ps(near_r_[k]));
#endif
}

int SpringWorld::EndNear(int near_end) {
  // Four entries after the last that every link is clear of (1e30 m away), so the SIMD loop
  // reads whole blocks of four.
  for (int k = near_end; k < near_end + 4; ++k) {
    near_x_[k] = near_y_[k] = near_z_[k] = 1e30f;
    near_r_[k] = 0.0f;
  }
  return near_end;
}

#if HAIRSWING_SIMD && defined(__SSE2__)
namespace {
// The ball test of four near slots (bounding spheres at x, y, z with radius r, flat arrays)
// against the ball (px, py, pz) of radius rr: bit i for slot i that the ball is not clear of.
// ClearOfBound's operations in its order, so its verdicts (NaN: not clear).
inline int NearBlock(const float* x, const float* y, const float* z, const float* r, __m128 px,
                     __m128 py, __m128 pz, __m128 rr) {
  const __m128 dx = _mm_sub_ps(px, _mm_loadu_ps(x));
  const __m128 dy = _mm_sub_ps(py, _mm_loadu_ps(y));
  const __m128 dz = _mm_sub_ps(pz, _mm_loadu_ps(z));
  const __m128 d2 =
      _mm_add_ps(_mm_add_ps(_mm_mul_ps(dx, dx), _mm_mul_ps(dy, dy)), _mm_mul_ps(dz, dz));
  const __m128 reach =
      _mm_add_ps(_mm_mul_ps(_mm_add_ps(rr, _mm_loadu_ps(r)), _mm_set1_ps(internal::kRejectGrow)),
                 _mm_set1_ps(internal::kRejectPad));
  return _mm_movemask_ps(_mm_cmpngt_ps(d2, _mm_mul_ps(reach, reach)));
}
}  // namespace
#endif

#if !(HAIRSWING_SIMD && defined(__SSE2__))
bool SpringWorld::NearSlotClear(int k, const glm::vec3& o, float reach_r) const {
  // ClearOfBound on slot k's bounding sphere (a plane's or inside shape's infinite radius is
  // never clear, as ClearOfBound's negative one).
  return internal::ClearOfBound(glm::vec4(near_x_[k], near_y_[k], near_z_[k], near_r_[k]), o,
                                reach_r);
}
#endif

int SpringWorld::NarrowLink(int near_begin, int near_end, const glm::vec3& o, float reach_r) {
  // The chain's near colliders whose bounding sphere a ball of radius reach_r around o can touch
  // (ClearOfBound, entry by entry, in order) into joint_colliders_; returns how many. The SSE2
  // path does the same operations in the same order on four entries at once, so it picks the
  // same colliders (HAIRSWING_SIMD=OFF builds the scalar loop; CI runs both).
  int n = 0;
#if HAIRSWING_SIMD && defined(__SSE2__)
  const __m128 px = _mm_set1_ps(o.x), py = _mm_set1_ps(o.y), pz = _mm_set1_ps(o.z);
  const __m128 r = _mm_set1_ps(reach_r);
  for (int k = near_begin; k < near_end; k += 4) {
    int mask = NearBlock(&near_x_[k], &near_y_[k], &near_z_[k], &near_r_[k], px, py, pz, r);
    while (mask) {
      const int lane = __builtin_ctz(static_cast<unsigned>(mask));
      joint_colliders_[n++] = near_colliders_[k + lane];
      mask &= mask - 1;
    }
  }
#else
  for (int k = near_begin; k < near_end; ++k) {
    joint_colliders_[n] = near_colliders_[k];
    n += NearSlotClear(k, o, reach_r) ? 0 : 1;
  }
#endif
  return n;
}

uint64_t SpringWorld::NearMask(int near_begin, int near_end, const glm::vec3& o,
                               float reach_r) const {
  // NarrowLink's test as bits: bit i for the slot near_begin + i (up to 64 slots).
  HS_ASSERT(near_end - near_begin <= 64);
  uint64_t mask = 0;
#if HAIRSWING_SIMD && defined(__SSE2__)
  const __m128 px = _mm_set1_ps(o.x), py = _mm_set1_ps(o.y), pz = _mm_set1_ps(o.z);
  const __m128 r = _mm_set1_ps(reach_r);
  for (int k = near_begin; k < near_end; k += 4)
    mask |= static_cast<uint64_t>(
                NearBlock(&near_x_[k], &near_y_[k], &near_z_[k], &near_r_[k], px, py, pz, r))
            << (k - near_begin);
  const int slots = near_end - near_begin;  // not the end's padding slots (a NaN ball takes them)
  if (slots < 64) mask &= (uint64_t{1} << slots) - 1;
#else
  for (int k = near_begin; k < near_end; ++k)
    mask |= static_cast<uint64_t>(!NearSlotClear(k, o, reach_r)) << (k - near_begin);
#endif
  return mask;
}

glm::mat3 SpringWorld::AttachFrame(int c) const {
  const int attach = rig_->chains()[c].attach;
  return attach >= 0 ? glm::mat3(world_[attach]) : glm::mat3(1.0f);
}

glm::mat3 SpringWorld::ArcFrame(int c, const glm::mat3& attach) const {
  // Gravity in arc (docs/solver.md, "Gravity in arc"): the chain's arc turns as a whole, about
  // its root, to where its rest chord c balances against gravity as one segment would: towards
  // c + the sum of its segments' lifts (g / k each; for equal segments the same balance as one
  // segment of the chord's length with the same stiffness and gravity). Each segment's pull
  // keeps only the part of gravity along it (Lifted), so the arc keeps its shape when it hangs:
  // segments balanced one by one sag by angles set by their own directions, so a turn of the
  // head against gravity bends the strand between them (a curl with no motion of the hair).
  if (!chain_lifted_[c]) return attach;  // no gravity: the attachment's frame, bit for bit
  const glm::vec3& lift = chain_lift_[c];
  const glm::vec3 chord = attach * rest_chord_[c];
  const float c2 = glm::dot(chord, chord);
  const glm::vec3 hang = chord + lift;
  const float h2 = glm::dot(hang, hang);
  if (!(c2 > 0.0f) || !(h2 > 0.0f)) return attach;  // no chord, or gravity cancels it exactly
  // The shortest rotation taking the chord's direction to the hanging one, as a matrix without a
  // quaternion (Rodrigues): with v = a x b and cos = a . b of the unit directions,
  // R = cos I + [v]x + v v^T / (1 + cos). Opposite directions (gravity stronger than the
  // stiffness on a chord pointing straight up) have no axis of their own: FromUnitVectors picks
  // one.
  const float inv = 1.0f / std::sqrt(c2 * h2);
  const float cs = glm::dot(chord, hang) * inv;
  if (!(cs > -0.9999f)) {
    const glm::quat turn =
        internal::FromUnitVectors(chord * (1.0f / std::sqrt(c2)), hang * (1.0f / std::sqrt(h2)));
    return glm::mat3_cast(turn) * attach;
  }
  const glm::vec3 v = glm::cross(chord, hang) * inv;
  const glm::vec3 w = v * (1.0f / (1.0f + cs));
  const glm::mat3 turn(cs + w.x * v.x, w.x * v.y + v.z, w.x * v.z - v.y,   // column 0
                       w.y * v.x - v.z, cs + w.y * v.y, w.y * v.z + v.x,   // column 1
                       w.z * v.x + v.y, w.z * v.y - v.x, cs + w.z * v.z);  // column 2
  return turn * attach;
}

bool SpringWorld::ChainThrown(const LinkContext& lc) const {
  return ChainThrown(lc, ArcFrame(lc.chain, AttachFrame(lc.chain)));
}

bool SpringWorld::ChainThrown(const LinkContext& lc, const glm::mat3& arc_frame) const {
  const glm::vec3 r = arc_frame * rest_chord_[lc.chain];
  const glm::vec3 c = tail_[rig_->chains()[lc.chain].joint_end - 2] - lc.root;
  // NaN counts as thrown, as OutsideLagCone's NaN counts as outside.
  return !(glm::dot(c, r) >= lag_cos_ * std::sqrt(glm::dot(c, c) * glm::dot(r, r)));
}

inline bool SpringWorld::ChainHeld(int chain) const {
  const RigChain& ch = rig_->chains()[chain];
  for (int j = ch.joint_begin; j + 1 < ch.joint_end; ++j)
    if (in_contact_[j]) return true;
  return false;
}

inline bool SpringWorld::ChordGuarded(int chain) const {
  // A straighter chain no collider holds: its segments' cones hold its chord.
  return chord_guard_[chain] == kChordAlways ||
         (chord_guard_[chain] == kChordHeld && ChainHeld(chain));
}

// The per-segment guard bounds each segment's lag, and for a straight chain that bounds how far
// its chord turns. A curved one (a strand up over the crown and down the back: a rest chord of 15
// cm on a 45 cm chain) turns its chord much further than any one segment lags: its segments lag
// sideways, each a little, and the short chord swings round. Turned back as a whole about the
// root, the chain keeps the shape the step gave it.
inline bool SpringWorld::ChordGuard(int chain, const glm::vec3& root, const glm::mat3& frame,
                                    float inv_h) {
  return ChordGuarded(chain) && ChordOutside(chain, root, frame, inv_h);
}

inline bool SpringWorld::ChordOutside(int chain, const glm::vec3& root, const glm::mat3& frame,
                                      float inv_h) {
  const RigChain& ch = rig_->chains()[chain];
  const glm::vec3 r = frame * rest_chord_[chain];
  const glm::vec3 c = tail_[ch.joint_end - 2] - root;
  const float cc = glm::dot(c, c), rr = glm::dot(r, r);
  // Inside the cone (ChainThrown's test), the usual case: nothing to do. Not finite: left alone.
  if (__builtin_expect(!(glm::dot(c, r) < lag_cos_ * std::sqrt(cc * rr)), 1)) return false;
  return TurnChord(chain, root, c, r, cc, rr, inv_h);
}

bool SpringWorld::TurnChord(int chain, const glm::vec3& root, const glm::vec3& c,
                            const glm::vec3& r, float cc, float rr, float inv_h) {
  if (!(cc > 1e-12f && rr > 1e-12f)) return false;
  const glm::vec3 cu = c * (1.0f / std::sqrt(cc)), ru = r * (1.0f / std::sqrt(rr));
  const float cs = glm::dot(cu, ru);
  // The chord's direction on the cone, in the plane of both: cos ru + sin (the part of cu
  // across ru, unit). Straight opposite the target there is no such plane: left alone.
  const glm::vec3 across = cu - cs * ru;
  const float a2 = glm::dot(across, across);
  if (!(a2 > 1e-8f)) return false;
  const glm::vec3 onto = lag_cos_ * ru + lag_sin_ * (across * (1.0f / std::sqrt(a2)));
  const glm::mat3 turn = glm::mat3_cast(internal::FromUnitVectors(cu, onto));
  if (ChainHeld(chain)) return TurnHeldChain(chain, root, turn, cs, ru);
  const RigChain& ch = rig_->chains()[chain];
  for (int j = ch.joint_begin; j + 1 < ch.joint_end; ++j) {
    const glm::vec3 end = root + turn * (tail_[j] - root);
    vel_[j] += (end - tail_[j]) * inv_h;
    tail_[j] = end;
  }
  return true;
}

bool SpringWorld::TurnHeldChain(int chain, const glm::vec3& root, const glm::mat3& turn, float cs,
                                const glm::vec3& ru) {
  // Turned whole, a chain that lies on a collider (wrapped over a head sphere) would cut into
  // it: each end follows the turn and the push its link's start got, then leaves the chain's
  // colliders as a link's end does in a step (the end-point test), at the link's length.
  // Made only when the chord then lags less than the step left it, and no end whose link starts
  // clear of a collider is left more than a twentieth of its reach (link and hit radius) inside
  // it: a collider can hold the chain where it is (a root just above a plane it lies on). An end
  // whose link starts inside a collider (a root in a head sphere) cannot leave it: not counted.
  // The velocities turn with the chain, as a rigid turn of its state: the move itself is not
  // added to them (against a collider that holds the chord outside the cone at rest, it would
  // be taken back by the next step, and so on: resting hair that shakes). The ends are tried in
  // turn_ends_ and written only when the turn is made.
  const Rig& rig = *rig_;
  const RigChain& ch = rig.chains()[chain];
  const float scale = glm::length(glm::vec3(world_[rig.joint_node()[ch.joint_begin]][0]));
  // The colliders that can reach the chain at all (every end stays within its links' lengths of
  // the root, with its hit radius): NarrowLink over all of the chain's colliders (the broad
  // phase's subset bounds the step's ends, not the turned ones), into joint_colliders_ (free
  // after the chain's links).
  float reach = 0.0f, hit_max = 0.0f;
  glm::vec3 above = root;
  for (int j = ch.joint_begin; j + 1 < ch.joint_end; ++j) {
    reach += glm::length(tail_[j] - above);
    hit_max = std::max(hit_max, hit_radius_[j] * scale * rel_scale_[j]);
    above = tail_[j];
  }
  const NearRange all = AllNear(chain);
  // Up to 64 near slots the candidates are bits of the slots (near order), and each end's reject
  // (ClearOfBound) tests them four at a time (NearMask), again only when the end is pushed; more
  // go through NarrowLink's list one by one.
  const bool wide = all.end - all.begin <= 64;
  const uint64_t reaching = wide ? NearMask(all.begin, all.end, root, reach + hit_max) : 0;
  const int n_cand = wide ? 0 : NarrowLink(all.begin, all.end, root, reach + hit_max);
  uint64_t not_clear = 0;
  auto reject = [&](const glm::vec3& p, float r) {
    if (wide) not_clear = NearMask(all.begin, all.end, p, r) & reaching;
  };
  // The next candidate from position k on that the ball (p, r) is not clear of: its collider
  // (k then the position after it), or -1.
  auto next = [&](int& k, const glm::vec3& p, float r) {
    if (wide) {
      const uint64_t m = k < 64 ? not_clear >> k << k : 0;
      if (!m) return -1;
      const int i = __builtin_ctzll(m);
      k = i + 1;
      return near_colliders_[all.begin + i];
    }
    while (k < n_cand) {
      const int ci = joint_colliders_[k++];
      if (!internal::ClearOfBound(collider_bound_[ci], p, r)) return ci;
    }
    return -1;
  };
  glm::vec3 o = root, o_turned = root;  // this link's start: now, turned
  above = root;                         // ... and before
  for (int j = ch.joint_begin; j + 1 < ch.joint_end; ++j) {
    const float len = glm::length(tail_[j] - above);
    const glm::vec3 turned = root + turn * (tail_[j] - root);
    glm::vec3 end = turned + (o - o_turned);
    const float hit = hit_radius_[j] * scale * rel_scale_[j];
    for (int push = 0, pushed = 1; push < 2 && pushed; ++push) {  // a second pass after a push
      pushed = 0;
      reject(end, hit);
      for (int k = 0, ci; (ci = next(k, end, hit)) >= 0;) {
        glm::vec3 n;
        const float sep = PointContact(colliders_[ci], end, hit, &n);
        if (sep < 0.0f) end -= n * sep, pushed = 1, reject(end, hit);
      }
    }
    const glm::vec3 d = end - o;
    const float dl = glm::length(d);
    if (!(dl > 1e-9f && std::isfinite(dl))) return false;
    end = o + d * (len / dl);
    reject(end, hit);
    for (int k = 0, ci; (ci = next(k, end, hit)) >= 0;) {
      glm::vec3 n;
      if (PointContact(colliders_[ci], end, hit, &n) < -0.05f * (len + hit) &&
          PointContact(colliders_[ci], o, hit, &n) >= 0.0f)
        return false;
    }
    turn_ends_[j - ch.joint_begin] = end;
    above = tail_[j];
    o_turned = turned;
    o = end;
  }
  const glm::vec3 c = o - root;
  const float cc = glm::dot(c, c);
  if (!(cc > 1e-12f) || !(glm::dot(c, ru) > cs * std::sqrt(cc))) return false;
  for (int j = ch.joint_begin; j + 1 < ch.joint_end; ++j) {
    vel_[j] = turn * vel_[j];
    tail_[j] = turn_ends_[j - ch.joint_begin];
  }
  return true;
}

void SpringWorld::GuardChords(const int* chains, int n, int held, float h, StepReport& rep) {
  // After a lane group's step, each chain as SolveChainFlat does after its own (a group's chains
  // do not touch each other's state, so after all of them is the same as after each). Kept out of
  // SolveChainLanes: its loop keeps more in registers without it.
  if (config_.mode != SolverMode::kArc || !(lag_cos_ >= -1.0f)) return;
  const float inv_h = 1.0f / h;  // as LinkContext::inv_h
  for (int l = 0; l < n; ++l) {
    const int c = chains[l];
    // ChordGuarded, with the lanes' verdict for ChainHeld.
    if (chord_guard_[c] == kChordNever || (chord_guard_[c] == kChordHeld && !(held >> l & 1)))
      continue;
    if (ChordOutside(c, flat_[c].root, chain_lifted_[c] ? lane_frames_[l] : AttachFrame(c),
                     inv_h)) {
      flat_[c].q_done = rig_->chains()[c].joint_begin;
      rep.flags |= kStepLagGuard;
    }
  }
}

bool SpringWorld::IntegrateLink(const LinkContext& lc, int j, const glm::vec3& o,
                                const glm::vec3& rest_vec, float len, float joint_scale,
                                StepReport& rep, const glm::quat* limit_frame) {
  const float h = lc.h, inv_h = lc.inv_h;
  const SegmentCoefficients& cf = lc.mc->coef[j];
  const glm::vec3 x = tail_[j];
  // The rest target now and at the previous step (it moves with the head and with this
  // segment's joint). x is the end as it was at the previous step, so the pull compares it with
  // the target of that same instant: comparing it with the target of this step would count the
  // target's whole move over the step as lag (a lead of h V in steady motion, larger than the
  // drag lag c V / k on stiff short segments).
  const glm::vec3 target = o + rest_vec;
  const glm::vec3 target_before = prev_target_[j];
  const glm::vec3 vt = (target - target_before) * inv_h;
  prev_target_[j] = target;
  const glm::vec3 f = cf.k * (target_before - x) + cf.g;
  const float damp = lc.fixed ? lc.mc->damp[j] : det::ExpF(-cf.c * h);
  const float damp_rel = lc.fixed ? lc.mc->damp_rel[j] : det::ExpF(-cf.c_rel * h);
  // Relative damping on the velocity relative to the target, then the pull, then air drag on
  // the world velocity:  u = e^(-c h) (v_t + e^(-c_rel h) (v - v_t) + h f). The pull is added
  // after the relative damping so it does not damp the spring's own impulse: a segment moving
  // with its target lags by the drag alone (c V / k), whatever c_rel is.
  const glm::vec3 u = damp * (vt + damp_rel * (vel_[j] - vt) + h * f);
  const glm::vec3 y = x + h * u;
  glm::vec3 xh = ProjectOnLink(y, o, len, rest_vec);
  // arc's lag guard, on the projected end like an angle limit (the velocity is rebuilt below). A
  // link a collider held at the last step is the collider's, unless its chain is thrown: then as
  // below.
  const glm::vec3 unguarded = xh;
  glm::vec3 axis(0.0f);
  bool held_guarded = false;
  if (LagGuardOn(lc)) {
    axis = LagAxis(rest_vec, cf.k, cf.g);
    if (OutsideLagCone(o, xh, len, axis, lag_cos_) && (!in_contact_[j] || ChainThrown(lc))) {
      xh = OntoLagCone(o, xh, len, axis, lag_cos_, lag_sin_);
      rep.flags |= kStepLagGuard;
      held_guarded = in_contact_[j] != 0;
    }
  }
  // An angle limit acts like the link's length: on the end before its velocity is rebuilt, so
  // the velocity is the move that was allowed (limits.h). The velocity is rebuilt before any
  // push-out.
  auto limited_velocity = [&](glm::vec3& end) {
    if (limit_frame) internal::ApplyLimit(limit_[j], *limit_frame, o, len, end);
    return (end - x) * inv_h;
  };
  const float hit = hit_radius_[j] * joint_scale;
  // Narrow the chain's colliders to those that can reach this link at all: the link and its
  // hit radius stay inside the ball of radius len + hit around o whatever the pushes do.
  const int n_cand = NarrowLink(lc.near.begin, lc.near.end, o, len + hit);
  // A held link the guard put back: its contacts along the whole link this step (the guard may
  // swing its middle into the collider its end was against), so it slides over the collider
  // towards the cone. Kept only where the link then lags less than the end did unguarded: out
  // of a collider that holds the whole link (a root inside a head sphere) the nearest way out
  // can be its far side, over the head; then the step is made as if unguarded.
  if (held_guarded) {
    const glm::vec3 tail0 = tail_[j], vel0 = vel_[j];
    const uint8_t contact0 = in_contact_[j];
    const StepReport rep0 = rep;
    LinkContext whole = lc;
    whole.segment = true;
    glm::vec3 end = xh;
    const glm::vec3 vs = limited_velocity(end);
    const bool touched = ResolveLink(whole, j, o, rest_vec, len, hit, end, vs,
                                     joint_colliders_.data(), n_cand, rep, limit_frame);
    if (glm::dot(tail_[j] - o, axis) >= glm::dot(unguarded - o, axis)) return touched;
    tail_[j] = tail0, vel_[j] = vel0, in_contact_[j] = contact0, rep = rep0;
    xh = unguarded;
  }
  const glm::vec3 vs = limited_velocity(xh);
  return ResolveLink(lc, j, o, rest_vec, len, hit, xh, vs, joint_colliders_.data(), n_cand, rep,
                     limit_frame);
}

inline bool SpringWorld::ResolveLink(const LinkContext& lc, int j, const glm::vec3& o,
                                     const glm::vec3& rest_vec, float len, float hit, glm::vec3 xh,
                                     glm::vec3 vs, const int* cand, int n_cand, StepReport& rep,
                                     const glm::quat* limit_frame) {
  glm::vec3 normals[kMaxNormals + 1];  // + the angle limit's last push back, if any
  int n_normals = 0;
  glm::vec3 limit_n(0.0f);  // a push back inside the angle limit after a contact, unit (or 0)
  int one_ci = -1;          // the collider of every contact; -2 when there were several
  float first_sep = 0.0f;   // its separation at the first contact
  for (int it = 0; it < kContactIterations && n_cand > 0; ++it) {
    bool any = false;
    for (int k = 0; k < n_cand; ++k) {
      const int ci = cand[k];
      // Rejects without square root or division. An end point: the collider's bounding sphere
      // (PointContactFast has its own early exit). A whole link, with a sphere around its middle
      // that holds it: against a sphere or capsule the squared distance to the closest point of
      // its axis; against a plane or an inside shape the exact separation.
      const WorldCollider& col = colliders_[ci];
      const CapsuleReject& cr = collider_reject_[ci];
      if (!lc.segment ? internal::ClearOfBound(collider_bound_[ci], xh, hit)
          : collider_bound_[ci].w >= 0.0f
              ? internal::ClearOfCapsule(cr.head, cr.axis, cr.inv_len2, cr.radius, 0.5f * (o + xh),
                                         0.5f * len + hit)
              : PointSeparation(col, 0.5f * (o + xh), 0.5f * len + hit) > 0.0f)
        continue;
      glm::vec3 n;
      float at = 1.0f;
      const float sep = lc.segment ? SegmentContact(col, o, xh, hit, &at, &n)
                                   : PointContactFast(col, xh, hit, &n);
      if (!(sep < 0.0f)) continue;
      // The link pivots about o: moving its point at parameter `at` by -sep along n takes a
      // tail move of about -sep/at.
      xh = ProjectOnLink(xh - n * (sep / std::max(at, kMinLever)), o, len, rest_vec);
      if (one_ci == -1) first_sep = sep;
      one_ci = one_ci == -1 || one_ci == ci ? ci : -2;
      vs -= std::min(0.0f, glm::dot(vs, n)) * n;
      if (limit_frame) {  // the limit again after each push, as after the inertia
        const glm::vec3 pushed = xh;
        if (internal::ApplyLimit(limit_[j], *limit_frame, o, len, xh)) {
          const glm::vec3 back = xh - pushed;
          const float bl = glm::length(back);
          if (bl > 0.0f) {
            limit_n = back / bl;
            vs -= std::min(0.0f, glm::dot(vs, limit_n)) * limit_n;
          }
        }
      }
      if (n_normals < kMaxNormals) normals[n_normals++] = n;
      any = true;
      ++rep.contacts;
    }
    if (!any) break;
    rep.flags |= kStepContact;
  }
  // An end one collider pushed that is still deep inside it (OntoContactCircle, kUndone). Not
  // between two colliders, where the exact place on one can be deep in the other and the two
  // would hand the end back and forth from step to step; not under an angle limit, which acts
  // after each push.
  if (one_ci >= 0 && !lc.segment && !limit_frame)
    OntoContactCircle(colliders_[one_ci], o, len, hit, first_sep, rest_vec, &xh);
  const bool touched = n_normals > 0;
  const bool was_touching = in_contact_[j] != 0;
  in_contact_[j] = touched ? 1 : 0;
  const glm::vec3 dir = (xh - o) * (1.0f / len);
  vs -= glm::dot(vs, dir) * dir;
  // Removing the radial part can tilt the velocity back into a contact whose normal is not
  // perpendicular to the link. Remove the inward part once more, along each normal's component
  // perpendicular to the link, so the result keeps |link| fixed and still never moves inwards.
  // The angle limit's push back counts here too (not as a contact: after `touched`).
  if (limit_frame && limit_n != glm::vec3(0.0f)) normals[n_normals++] = limit_n;
  for (int i = 0; i < n_normals; ++i) {
    glm::vec3 np = normals[i] - glm::dot(normals[i], dir) * dir;
    const float l = glm::length(np);
    if (l < 1e-6f) continue;
    np *= 1.0f / l;
    vs -= std::min(0.0f, glm::dot(vs, np)) * np;
  }
  if (!(std::isfinite(xh.x) && std::isfinite(xh.y) && std::isfinite(xh.z) && std::isfinite(vs.x) &&
        std::isfinite(vs.y) && std::isfinite(vs.z))) {
    xh = o + RestDirection(rest_vec) * len;  // never let a NaN out
    vs = glm::vec3(0.0f);
    rep.flags |= kStepRepaired;
  }
  tail_[j] = internal::FlushTiny(xh);
  vel_[j] = internal::FlushTiny(vs);
  return touched || was_touching;
}

void SpringWorld::SolveChainArc(int chain, std::span<Transform> pose, float h, StepReport& rep) {
  const Rig& rig = *rig_;
  const RigChain& ch = rig.chains()[chain];
  const glm::mat4& root_world = world_[rig.joint_node()[ch.joint_begin]];
  const LinkContext lc =
      MakeLinkContext(chain, glm::vec3(root_world[3]), glm::length(glm::vec3(root_world[0])), h);
  const bool arc = lc.arc;
  const glm::mat3& attach = lc.attach;
  bool below_contact = false;  // a segment above touched a collider (this step or the last)
  // The rotation of the previous joint's world frame, when it is this joint's parent.
  int cached_node = -1;
  glm::quat cached_rot(1, 0, 0, 0);
  const float follow = arc ? config_.arc_follow : 0.0f;
  const bool lifted = arc && chain_lifted_[chain];
  glm::quat first_swing(1, 0, 0, 0);

  for (int j = ch.joint_begin; j + 1 < ch.joint_end; ++j) {
    const int node = rig.joint_node()[j];
    const int next = rig.joint_node()[j + 1];
    const glm::mat4& joint_world = world_[node];  // rest rotation under the current parent
    const glm::vec3 o(joint_world[3]);

    if (!owned_.empty() && owned_[node]) {  // animation ownership: the clip wins
      UpdateWorldPath(j, pose);
      const glm::vec3 animated(world_[next][3]);
      vel_[j] = (animated - tail_[j]) / h;
      tail_[j] = animated;
      prev_target_[j] = animated;
      cached_node = -1;
      continue;
    }
    // Draping: below a segment that touches a collider (this step or the last), the head-frame
    // arc would pull the strand back through the collider (a lower segment's arc direction does
    // not know the strand was deflected above it). There the rest direction comes from the
    // deflected parent, so the strand hangs around the collider, as it rests on it.
    const bool drape = arc && below_contact;
    glm::vec3 rest_vec =
        arc && !drape ? attach * arc_attach_[j] : glm::mat3(joint_world) * axis_local_[j];
    if (arc && !drape && follow > 0.0f && j > ch.joint_begin)
      rest_vec = FollowRest(rest_vec, first_swing, follow);  // SpringConfig::arc_follow
    const float joint_scale = glm::length(glm::vec3(joint_world[0]));
    const float len = glm::length(glm::mat3(joint_world) * axis_local_[j]);
    if (lifted) rest_vec = Lifted(rest_vec, arc_lift_[j], drape && len > 1e-7f);
    if (!(len > 1e-7f)) {  // zero-length segment: nothing to swing
      rep.flags |= kStepZeroLength;
      UpdateWorldPath(j, pose);
      tail_[j] = glm::vec3(world_[next][3]);
      vel_[j] = glm::vec3(0.0f);
      prev_target_[j] = tail_[j];
      cached_node = -1;
      continue;
    }
    // base: the joint's rest local rotation under its current parent, in world.
    const int parent = rig.parent()[node];
    const glm::quat parent_rot = parent == cached_node ? cached_rot
                                 : parent >= 0         ? internal::RotationOf(world_[parent])
                                                       : glm::quat(1, 0, 0, 0);
    const glm::quat base = parent_rot * rig.rest_local()[node].rotation;
    // An angle limit's frame (limits.h): base turned from +Y onto the bone, then the limit's own.
    const bool limited = limit_[j].kind != JointLimit::Kind::kNone;
    const glm::quat limit_frame = limited ? base * limit_[j].local : base;
    below_contact = IntegrateLink(lc, j, o, rest_vec, len, joint_scale, rep,
                                  limited ? &limit_frame : nullptr) ||
                    below_contact;
    const glm::vec3 xh = tail_[j];
    if (follow > 0.0f && j == ch.joint_begin)  // the first segment's swing, for those below
      first_swing = FirstSwing(rest_vec, o, xh, len);

    // Joint rotation that points the rest axis at the new end: q_w = Rot(a_w -> dir) * base,
    // local = R_parent^-1 * q_w.
    const glm::vec3 axis_world = base * axis_unit_[j];
    const glm::quat q_world =
        glm::normalize(internal::FromUnitVectors(axis_world, (xh - o) / len) * base);
    pose[node].rotation = internal::FlushTiny(glm::normalize(glm::inverse(parent_rot) * q_world));
    UpdateWorldPath(j, pose);
    cached_node = node;
    cached_rot = q_world;
  }
  if (!LagGuardOn(lc)) return;
  for (int j = ch.joint_begin; j < ch.joint_end; ++j)
    if (!owned_.empty() && owned_[rig.joint_node()[j]]) return;  // the clip's, not the guard's
  if (!ChordGuard(chain, lc.root, lc.attach, lc.inv_h)) return;
  rep.flags |= kStepLagGuard;
  // The joints' rotations again, from the turned ends, as above.
  for (int j = ch.joint_begin; j + 1 < ch.joint_end; ++j) {
    const int node = rig.joint_node()[j];
    const glm::mat4& joint_world = world_[node];
    const float len = glm::length(glm::mat3(joint_world) * axis_local_[j]);
    if (len > 1e-7f) {
      const int parent = rig.parent()[node];
      const glm::quat parent_rot =
          parent >= 0 ? internal::RotationOf(world_[parent]) : glm::quat(1, 0, 0, 0);
      const glm::quat base = parent_rot * rig.rest_local()[node].rotation;
      const glm::quat q_world =
          glm::normalize(internal::FromUnitVectors(base * axis_unit_[j],
                                                   (tail_[j] - glm::vec3(joint_world[3])) / len) *
                         base);
      pose[node].rotation = internal::FlushTiny(glm::normalize(glm::inverse(parent_rot) * q_world));
    }
    UpdateWorldPath(j, pose);
  }
}

// ---- flat chains ---------------------------------------------------------------------------

void SpringWorld::FlatRotations(int chain, int upto) {
  // World rotation of every joint in [q_done, upto) that points its rest axis at its segment's
  // end: q_w = Rot(a_w -> dir) * base, base = (world rotation of the joint above) * rest local.
  // A zero-length segment keeps base.
  const Rig& rig = *rig_;
  const RigChain& ch = rig.chains()[chain];
  FlatChain& fc = flat_[chain];
  // (quat_sse.h: glm's operations, in one register each where SSE2 is; the same bits.)
  for (int j = fc.q_done; j < upto; ++j) {
    const glm::quat& parent_rot = j == ch.joint_begin ? fc.parent_rot : flat_rot_[j - 1];
    const glm::quat base =
        internal::QuatMul(parent_rot, rig.rest_local()[rig.joint_node()[j]].rotation);
    const glm::vec3 o = j == ch.joint_begin ? fc.root : tail_[j - 1];
    const float len = fc.scale * rel_scale_[j] * axis_len_[j];
    // The shortest-arc quaternion is left unnormalised: the product is normalised once.
    flat_rot_[j] =
        len > 1e-7f ? internal::TurnAxisToward(base, axis_unit_[j], (tail_[j] - o) * (1.0f / len))
                    : base;
  }
  fc.q_done = std::max(fc.q_done, upto);
}

SpringWorld::LinkContext SpringWorld::FlatBegin(int chain, float h) {
  // The chain's root frame this step and its broad phase.
  FlatRoot(chain);
  const FlatChain& fc = flat_[chain];
  return MakeLinkContext(chain, fc.root, fc.scale, h);
}

void SpringWorld::FlatRoot(int chain) {
  const Rig& rig = *rig_;
  const RigChain& ch = rig.chains()[chain];
  const int root_node = rig.joint_node()[ch.joint_begin];
  const glm::mat4& root_world = world_[root_node];  // rest rotation under the attachment
  const int parent = rig.parent()[root_node];
  FlatChain& fc = flat_[chain];
  fc.root = glm::vec3(root_world[3]);
  fc.scale = glm::length(glm::vec3(root_world[0]));
  // Chains hanging from one node (the head) share its rotation: computed once per step.
  if (parent != rot_cache_node_) {
    rot_cache_node_ = parent;
    rot_cache_ = parent >= 0 ? internal::RotationOf(world_[parent]) : glm::quat(1, 0, 0, 0);
  }
  fc.parent_rot = rot_cache_;
  fc.q_done = ch.joint_begin;
  fc.pending = 1;
}

void SpringWorld::PackLane(float* block, int width, int lane, int j) const {
  // Joint j's constants into lane `lane` of a depth's block (kLaneFields x width floats).
  auto put = [&](int field, float v) { block[width * field + lane] = v; };
  put(kLaneRel, rel_scale_[j]);
  put(kLaneAxisLen, axis_len_[j]);
  put(kLaneHit, hit_radius_[j]);
  put(kLaneArcX, arc_attach_[j].x);
  put(kLaneArcY, arc_attach_[j].y);
  put(kLaneArcZ, arc_attach_[j].z);
  const glm::quat& rest = rig_->rest_local()[rig_->joint_node()[j]].rotation;
  put(kLaneRestW, rest.w);
  put(kLaneRestX, rest.x);
  put(kLaneRestY, rest.y);
  put(kLaneRestZ, rest.z);
  put(kLaneAxisLocalX, axis_local_[j].x);
  put(kLaneAxisLocalY, axis_local_[j].y);
  put(kLaneAxisLocalZ, axis_local_[j].z);
  put(kLaneAxisUnitX, axis_unit_[j].x);
  put(kLaneAxisUnitY, axis_unit_[j].y);
  put(kLaneAxisUnitZ, axis_unit_[j].z);
  const internal::PreparedLimit& lim = limit_[j];
  put(kLaneLimitW, lim.local.w);
  put(kLaneLimitX, lim.local.x);
  put(kLaneLimitY, lim.local.y);
  put(kLaneLimitZ, lim.local.z);
  put(kLaneLimitCos, lim.cos_a + kLaneConeMargin);
  for (int m = 0; m < 2; ++m) {
    const ModeCoefficients& mc = Coefficients(m == 1);
    const SegmentCoefficients& cf = mc.coef[j];
    const int f = kLaneCoef + kLaneCoefFields * m;
    put(f, cf.k);
    put(f + 1, cf.g.x);
    put(f + 2, cf.g.y);
    put(f + 3, cf.g.z);
    put(f + 4, mc.damp[j]);
    put(f + 5, mc.damp_rel[j]);
  }
}

void SpringWorld::PackLanes() {
  // Every lane group's constants, depth by depth, in the group's lane order (padding lanes, and a
  // lane past its chain's end, repeat the first chain's), for SolveChainLanes. Again whenever
  // coefficients change.
  const Rig& rig = *rig_;
  lane_pack_at_.assign(lane_groups_.size(), 0);
  size_t total = 0;
  for (size_t g = 0; g < lane_groups_.size(); ++g) {
    const RigChain& ch = rig.chains()[lane_groups_[g].chains[0]];
    lane_pack_at_[g] = total;
    total += static_cast<size_t>(ch.joint_end - ch.joint_begin - 1) * kLaneFields *
             LaneGroupWidth(lane_groups_[g].n);
  }
  lane_pack_.assign(total, 0.0f);
  lane_depth_at_.assign(lane_groups_.size(), 0);
  lane_depth_.clear();
  lane_lifted_.assign(lane_groups_.size(), 0);
  lane_has_.assign(lane_groups_.size() * internal::kNearAll, 0);
  for (size_t g = 0; g < lane_groups_.size(); ++g) {
    const LaneGroup& group = lane_groups_[g];
    int begin[kMaxLanes];
    for (int l = 0; l < kMaxLanes; ++l) {  // padding lanes repeat the first chain
      begin[l] = rig.chains()[group.chains[l]].joint_begin;
      lane_lifted_[g] |= chain_lifted_[group.chains[l]] ? 1 << l : 0;
    }
    if (lane_mix_[g].near_base >= 0)
      LaneColliderMasks(static_cast<int>(g), group.chains, &lane_has_[g * internal::kNearAll]);
    lane_depth_at_[g] = lane_depth_.size();
    for (int d = 0; d < group.links[0]; ++d) {
      int in_use = 0;  // the lanes whose chain reaches depth d: a prefix
      while (in_use < group.n && group.links[in_use] > d) ++in_use;
      const int width = LaneGroupWidth(group.n);
      LaneDepth ld;
      MakeLaneDepth(begin, in_use, width, d, &ld,
                    &lane_pack_[lane_pack_at_[g] + static_cast<size_t>(d) * kLaneFields * width]);
      lane_depth_.push_back(ld);
    }
  }
}

inline const float* SpringWorld::LanePackAt(int g, int d, int width) const {
  return &lane_pack_[lane_pack_at_[g] + static_cast<size_t>(d) * kLaneFields * width];
}

void SpringWorld::MakeLaneDepth(const int* begin, int nd, int width, int d, LaneDepth* out,
                                float* pack) const {
  *out = LaneDepth{};
  for (int l = 0; l < width; ++l) {
    const int j = (l < nd ? begin[l] : begin[0]) + d;
    PackLane(pack, width, l, j);
    out->j[l] = j;
    if (l < nd && limit_[j].kind != JointLimit::Kind::kNone) out->limited |= 1 << l;
    if (l < nd && limit_[j].kind == JointLimit::Kind::kCone) out->cones |= 1 << l;
  }
}

void SpringWorld::LaneColliderMasks(int g, const int* chains, uint8_t* has) const {
  for (int k = 0; k < lane_mix_[g].near_n; ++k) {
    has[k] = 0;
    for (int l = 0; l < lane_width_; ++l)
      has[k] |= static_cast<uint8_t>((near_bits_[chains[l]] >> k & 1) << l);
  }
}

SpringWorld::LinkContext SpringWorld::MakeLinkContext(int chain, const glm::vec3& root,
                                                      float root_scale, float h, bool with_near) {
  // What every link of the chain shares this step, the broad phase included.
  const bool arc = config_.mode == SolverMode::kArc;
  LinkContext lc{
      &Coefficients(arc),
      AttachFrame(chain),
      h,
      1.0f / h,
      h == static_cast<float>(kStep),
      arc,
      config_.segment_checks[chain] != 0,
      with_near ? NearColliders(chain, root, std::max(root_scale, 1e-6f), h) : NearRange{0, 0},
      chain,
      root};
  if (arc && chain_lifted_[chain]) lc.attach = ArcFrame(chain, lc.attach);
  return lc;
}

inline glm::vec3 SpringWorld::FlatRestVector(const LinkContext& lc, int chain, int j, float s,
                                             float len, bool below_contact) {
  // arc: the original arc in the attachment frame; parent mode and draping (see SolveChainArc):
  // the rest axis under the bent joint above.
  if (lc.arc && !below_contact && len > 1e-7f) return lc.attach * arc_attach_[j];
  FlatRotations(chain, j);
  const FlatChain& fc = flat_[chain];
  const glm::quat& above =
      j == rig_->chains()[chain].joint_begin ? fc.parent_rot : flat_rot_[j - 1];
  return (above * rig_->rest_local()[rig_->joint_node()[j]].rotation) * (s * axis_local_[j]);
}

inline bool SpringWorld::FlatLink(const LinkContext& lc, int j, const glm::vec3& o,
                                  const glm::vec3& rest_vec, float s, float len, StepReport& rep,
                                  const glm::quat* limit_frame) {
  if (!(len > 1e-7f)) {  // zero-length segment: nothing to swing
    rep.flags |= kStepZeroLength;
    tail_[j] = o + rest_vec;
    vel_[j] = glm::vec3(0.0f);
    prev_target_[j] = tail_[j];
    return false;
  }
  return IntegrateLink(lc, j, o, rest_vec, len, s, rep, limit_frame);
}

void SpringWorld::SolveChainFlat(int chain, float h, StepReport& rep) {
  const RigChain& ch = rig_->chains()[chain];
  const LinkContext lc = FlatBegin(chain, h);
  glm::vec3 o = flat_[chain].root;  // this joint's position: the previous segment's end
  bool below_contact = false;       // a segment above touched a collider (this step or the last)
  const float follow = lc.arc ? config_.arc_follow : 0.0f;
  const bool lifted = lc.arc && chain_lifted_[chain];
  glm::quat first_swing(1, 0, 0, 0);  // SpringConfig::arc_follow, as SolveChainArc
  for (int j = ch.joint_begin; j + 1 < ch.joint_end; ++j) {
    const float s = flat_[chain].scale * rel_scale_[j];
    const float len = s * axis_len_[j];
    glm::vec3 rest_vec = FlatRestVector(lc, chain, j, s, len, below_contact);
    const bool live = len > 1e-7f;
    if (follow > 0.0f && !below_contact && live && j > ch.joint_begin)
      rest_vec = FollowRest(rest_vec, first_swing, follow);
    if (lifted) rest_vec = Lifted(rest_vec, arc_lift_[j], below_contact && live);
    // An angle limit's frame hangs from the bent joint above (limits.h).
    glm::quat limit_frame;
    const bool limited = limit_[j].kind != JointLimit::Kind::kNone;
    if (limited) {
      FlatRotations(chain, j);
      const glm::quat& above = j == ch.joint_begin ? flat_[chain].parent_rot : flat_rot_[j - 1];
      limit_frame = above * rig_->rest_local()[rig_->joint_node()[j]].rotation * limit_[j].local;
    }
    below_contact = FlatLink(lc, j, o, rest_vec, s, len, rep, limited ? &limit_frame : nullptr) ||
                    below_contact;
    if (follow > 0.0f && live && j == ch.joint_begin)
      first_swing = FirstSwing(rest_vec, o, tail_[j], len);
    o = tail_[j];
  }
  if (LagGuardOn(lc) && ChordGuard(chain, flat_[chain].root, lc.attach, lc.inv_h)) {
    flat_[chain].q_done = ch.joint_begin;  // the rotations built this step point the old way
    rep.flags |= kStepLagGuard;
  }
  if (flat_feeds_[chain]) WriteFlatChain(chain, {});  // a later chain hangs from this one
}

#if HAIRSWING_SIMD && defined(__SSE2__)
// The lanes, once per width (arc_lanes.inc): four (SSE2) everywhere, eight (AVX2) where the
// compiler can build them for a processor picked at run time (HAIRSWING_LANES8).
#define HS_W 4
#define HS_LANES_NS lanes4
#include "spring/arc_lanes.inc"
#undef HS_W
#undef HS_LANES_NS
#if HAIRSWING_LANES8
#pragma GCC push_options
#pragma GCC target("avx2")
#define HS_W 8
#define HS_LANES_NS lanes8
#include "spring/arc_lanes.inc"
#undef HS_W
#undef HS_LANES_NS
#pragma GCC pop_options
#endif

// Eight lanes only for more than four chains: a lane costs about as much as the chains' lanes
// beside it, so four chains in eight lanes take longer than in four.
int SpringWorld::SolveChainLanes(const int* chains, int n, float h, StepReport& rep) {
#if HAIRSWING_LANES8
  if (LaneGroupWidth(n) == 8) return SolveChainLanesW<8>(chains, n, h, rep);
#endif
  return SolveChainLanesW<4>(chains, n, h, rep);
}
void SpringWorld::SolveChainVrmLanes(const int* chains, int n, float dt, bool variable,
                                     StepReport& rep) {
#if HAIRSWING_LANES8
  if (LaneGroupWidth(n) == 8) return SolveChainVrmLanesW<8>(chains, n, dt, variable, rep);
#endif
  SolveChainVrmLanesW<4>(chains, n, dt, variable, rep);
}
void SpringWorld::WriteLaneGroups(const int* groups, int count, int count8,
                                  std::span<Transform> pose, bool world) {
  WriteLaneGroupsW<4>(groups, count, pose, world);
#if HAIRSWING_LANES8
  WriteLaneGroupsW<8>(groups + count, count8, pose, world);
#else
  HS_ASSERT(count8 == 0);
#endif
}
#else
int SpringWorld::SolveChainLanes(const int* chains, int n, float h, StepReport& rep) {
  int held = 0;
  for (int l = 0; l < n; ++l) {  // never called: Solve
    SolveChainFlat(chains[l], h, rep);
    held |= ChainHeld(chains[l]) ? 1 << l : 0;
  }
  return held;
}
void SpringWorld::SolveChainVrmLanes(const int* chains, int n, float dt, bool variable,
                                     StepReport& rep) {
  for (int l = 0; l < n; ++l) SolveChainVrmFlat(chains[l], dt, variable, rep);  // never called
}
void SpringWorld::WriteLaneGroups(const int* groups, int count, int count8,
                                  std::span<Transform> pose, bool world) {
  for (int b = 0; b < count + count8; ++b)  // never called: WriteBack
    for (int l = 0; l < lane_groups_[groups[b]].n; ++l)
      WriteFlatChain(lane_groups_[groups[b]].chains[l], pose, world);
}
#endif

void SpringWorld::WriteFlatChain(int chain, std::span<Transform> pose, bool world) {
  // The joints' local rotations (into `pose` when given) and world matrices from the solved ends.
  const Rig& rig = *rig_;
  const RigChain& ch = rig.chains()[chain];
  const FlatChain& fc = flat_[chain];
  const int last = ch.joint_end - 1;  // the chain's end joint, not solved itself
  FlatRotations(chain, last);
  if (!pose.empty())
    for (int j = ch.joint_begin; j < last; ++j) {
      const glm::quat& parent_rot = j == ch.joint_begin ? fc.parent_rot : flat_rot_[j - 1];
      // parent_rot is a unit quaternion: its conjugate is its inverse, without four divisions.
      pose[rig.joint_node()[j]].rotation =
          internal::FlushTiny(glm::normalize(glm::conjugate(parent_rot) * flat_rot_[j]));
    }
  if (world)
    FlatWorld(chain);
  else
    world_lazy_[chain] = 1;
}

void SpringWorld::FlatWorld(int chain) const {
  // A flat chain's joint world matrices from its root frame, its joints' world rotations
  // (flat_rot_, built by FlatRotations or the lanes) and its ends.
  const Rig& rig = *rig_;
  const RigChain& ch = rig.chains()[chain];
  const FlatChain& fc = flat_[chain];
  const int last = ch.joint_end - 1;
  for (int j = ch.joint_begin; j < last; ++j)
    world_[rig.joint_node()[j]] = internal::Compose(j == ch.joint_begin ? fc.root : tail_[j - 1],
                                                    flat_rot_[j], fc.scale * rel_scale_[j]);
  if (last > ch.joint_begin) {
    const int node = rig.joint_node()[last];
    world_[node] =
        internal::Compose(tail_[last - 1], flat_rot_[last - 1] * rig.rest_local()[node].rotation,
                          fc.scale * rel_scale_[last]);
  }
  world_lazy_[chain] = 0;
}

void SpringWorld::FinishWorld() const {
  for (int c = 0; c < static_cast<int>(world_lazy_.size()); ++c)
    if (world_lazy_[c]) FlatWorld(c);
  world_lazy_any_ = false;
}

void SpringWorld::WriteBack(std::span<Transform> pose, bool world) {
  // Lane groups whose chains were all solved flat: in SIMD lanes (WriteLaneGroups).
  const Rig& rig = *rig_;
  const int chains = static_cast<int>(flat_.size());
  std::fill(lane_written_.begin(), lane_written_.end(), 0);
  // The lane groups to write (in lane_write_, after the lone chains' rotations below): the groups
  // of four lanes first, then the `wide` ones of eight.
  int written = 0, wide = 0;
#if HAIRSWING_SIMD && defined(__SSE2__)
  // vrm mode's flat chains built their rotations during the step: the lanes take them as they
  // are (WriteLaneGroups' path for rotations built already), which pays from four chains on (for
  // two, two scalar writes cost 5 % fewer instructions per frame on a two-chain hair-only file).
  if (config_.chain_lanes) {
    const int fewest = config_.mode == SolverMode::kVrm ? 4 : 1;
    for (int width : {4, 8})
      for (int g = 0; g < static_cast<int>(lane_groups_.size()); ++g) {
        const LaneGroup& group = lane_groups_[g];
        if (LaneGroupWidth(group.n) != width || group.n < fewest ||
            !std::all_of(group.chains, group.chains + group.n,
                         [&](int c) { return flat_[c].pending != 0; }))
          continue;
        lane_write_[written++] = g;
        wide += width == 8 ? 1 : 0;
        for (int m = 0; m < group.n; ++m) lane_written_[group.chains[m]] = 1;
      }
  }
#endif
  // The others: each joint's world rotation waits for the one above it: a chain's rotations are
  // one long series of dependent operations (normalisations with a square root and a division),
  // so the processor idles between them. Chains do not depend on each other: building the
  // rotations of all chains depth by depth gives it independent work to overlap, and so do the
  // lane groups' writes, made after them (the processor starts on those while the last
  // rotations are still on their way). Same operations, same bits.
  int left = 0, depth = 0;
  for (int c = 0; c < chains; ++c)
    if (flat_[c].pending && !lane_written_[c]) {
      write_left_[left++] = c;
      depth = std::max(depth, rig.chains()[c].joint_end - rig.chains()[c].joint_begin - 1);
    }
  for (int d = 1; d <= depth; ++d)
    for (int i = 0; i < left; ++i) {
      const RigChain& ch = rig.chains()[write_left_[i]];
      if (ch.joint_begin + d < ch.joint_end) FlatRotations(write_left_[i], ch.joint_begin + d);
    }
  if (written > 0) WriteLaneGroups(lane_write_.data(), written - wide, wide, pose, world);
  for (int i = 0; i < left; ++i) WriteFlatChain(write_left_[i], pose, world);
  if (!world) world_lazy_any_ = true;
}

SpringWorld::LinkContext SpringWorld::LaneOwnContext(const LinkContext& lc, int chain,
                                                     const glm::vec3& root) {
  LinkContext own = LaneContext(lc, chain, root);
  own.near = AllNear(chain);
  return own;
}

SpringWorld::NearRange SpringWorld::LaneOwnNear(int chain, const NearRange& near) {
  return lane_mix_[lane_group_of_[chain]].near_base < 0 ? near : AllNear(chain);
}

SpringWorld::NearRange SpringWorld::UnionNear(int g, const int* chains, uint8_t* lane_has) {
  const LaneMix& mix = lane_mix_[g];
  const int base = mix.near_base, n = mix.near_n;
  if (lane_near_step_[g] != step_id_) {
    for (int i = 0; i < n; ++i) AddNear(base + i, lane_near_[mix.near_list + i]);
    EndNear(base + n);
    lane_near_step_[g] = step_id_;
  }
  if (lane_has) LaneColliderMasks(g, chains, lane_has);
  return {base, base + n};
}

}  // namespace hairswing
