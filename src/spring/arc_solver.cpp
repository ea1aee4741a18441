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
//           frame (WriteBack), not at every 1/120 s step. Up to four like flat chains (a lane
//           group) go side by side in SIMD lanes (SolveChainLanes, WriteLaneGroups), each lane
//           doing the same float operations as SolveChainFlat / WriteFlatChain: same bits.
//   general (SolveChainArc) any other chain: world matrices along the node path of every joint.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#if HAIRSWING_SIMD && defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/det_math.h"
#include "hairswing/spring.h"
#include "spring/limits.h"
#include "spring/spring_internal.h"

namespace hairswing {

namespace {
// A lane group's constants, packed per link depth for the SIMD lanes (PackLanes): each field is
// four floats, one per lane. kLaneCoef starts a mode's coefficients (parent, then arc), each
// kLaneCoefFields long: k, g (x, y, z), e^(-c h), e^(-c_rel h).
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
constexpr int kLaneFields = kLaneCoef + 2 * kLaneCoefFields;

// A lane group's colliders per slot: every lane has each (the chains share one list). Written
// out for 16 slots, as many as SpringWorld::near_bits_ holds.
static_assert(internal::kNearAll == 16);
constexpr uint8_t kAllLanes[internal::kNearAll] = {15, 15, 15, 15, 15, 15, 15, 15,
                                                   15, 15, 15, 15, 15, 15, 15, 15};

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
  const glm::mat3 attach = AttachFrame(lc.chain);
  const glm::vec3 r = ArcFrame(lc.chain, attach) * rest_chord_[lc.chain];
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
  if (!ChordGuarded(chain)) return false;
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

void SpringWorld::GuardChords(const int* chains, int n, float h, StepReport& rep) {
  // After a lane group's step, each chain as SolveChainFlat does after its own (a group's chains
  // do not touch each other's state, so after all of them is the same as after each). Kept out of
  // SolveChainLanes: its loop keeps more in registers without it.
  if (config_.mode != SolverMode::kArc || !(lag_cos_ >= -1.0f)) return;
  const float inv_h = 1.0f / h;  // as LinkContext::inv_h
  for (int l = 0; l < n; ++l) {
    const int c = chains[l];
    if (ChordGuarded(c) &&
        ChordGuard(c, flat_[c].root, chain_lifted_[c] ? lane_frames_[l] : AttachFrame(c), inv_h)) {
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
  for (int j = fc.q_done; j < upto; ++j) {
    const glm::quat& parent_rot = j == ch.joint_begin ? fc.parent_rot : flat_rot_[j - 1];
    const glm::quat base = parent_rot * rig.rest_local()[rig.joint_node()[j]].rotation;
    const glm::vec3 o = j == ch.joint_begin ? fc.root : tail_[j - 1];
    const float len = fc.scale * rel_scale_[j] * axis_len_[j];
    // The shortest-arc quaternion is left unnormalised: the product is normalised once.
    flat_rot_[j] = len > 1e-7f
                       ? glm::normalize(internal::FromUnitVectorsUnnormalised(
                                            base * axis_unit_[j], (tail_[j] - o) * (1.0f / len)) *
                                        base)
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

void SpringWorld::PackLane(float* block, int lane, int j) const {
  // Joint j's constants into lane `lane` of a depth's block (kLaneFields x 4 floats).
  auto put = [&](int field, float v) { block[4 * field + lane] = v; };
  put(kLaneRel, rel_scale_[j]);
  put(kLaneAxisLen, axis_len_[j]);
  put(kLaneHit, hit_radius_[j]);
  put(kLaneArcX, arc_attach_[j].x);
  put(kLaneArcY, arc_attach_[j].y);
  put(kLaneArcZ, arc_attach_[j].z);
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
    total += static_cast<size_t>(ch.joint_end - ch.joint_begin - 1) * kLaneFields * 4;
  }
  lane_pack_.assign(total, 0.0f);
  for (size_t g = 0; g < lane_groups_.size(); ++g) {
    const LaneGroup& group = lane_groups_[g];
    const RigChain& first = rig.chains()[group.chains[0]];
    for (int d = 0; d + 1 < first.joint_end - first.joint_begin; ++d)
      for (int l = 0; l < 4; ++l)
        PackLane(&lane_pack_[lane_pack_at_[g] + static_cast<size_t>(d) * kLaneFields * 4], l,
                 (l < group.n && group.links[l] > d ? rig.chains()[group.chains[l]].joint_begin
                                                    : first.joint_begin) +
                     d);
  }
}

SpringWorld::LinkContext SpringWorld::MakeLinkContext(int chain, const glm::vec3& root,
                                                      float root_scale, float h) {
  // What every link of the chain shares this step, the broad phase included.
  const bool arc = config_.mode == SolverMode::kArc;
  LinkContext lc{&Coefficients(arc),
                 AttachFrame(chain),
                 h,
                 1.0f / h,
                 h == static_cast<float>(kStep),
                 arc,
                 config_.segment_checks[chain] != 0,
                 NearColliders(chain, root, std::max(root_scale, 1e-6f), h),
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
namespace {
// A vector per lane: x, y and z of four lanes. Each operation is the one glm does on one vector,
// lane by lane (IEEE single precision, no contraction), so a lane's result is bitwise that of
// the scalar code.
// The lane helpers are always inlined: called, they pass their four-lane vectors through memory.
#define HS_LANE inline __attribute__((always_inline))
struct V4 {
  __m128 x, y, z;
};
HS_LANE V4 operator+(const V4& a, const V4& b) {
  return {_mm_add_ps(a.x, b.x), _mm_add_ps(a.y, b.y), _mm_add_ps(a.z, b.z)};
}
HS_LANE V4 operator-(const V4& a, const V4& b) {
  return {_mm_sub_ps(a.x, b.x), _mm_sub_ps(a.y, b.y), _mm_sub_ps(a.z, b.z)};
}
HS_LANE V4 operator*(__m128 s, const V4& a) {
  return {_mm_mul_ps(s, a.x), _mm_mul_ps(s, a.y), _mm_mul_ps(s, a.z)};
}
HS_LANE __m128 Dot(const V4& a, const V4& b) {  // (x + y) + z, as glm::dot
  return _mm_add_ps(_mm_add_ps(_mm_mul_ps(a.x, b.x), _mm_mul_ps(a.y, b.y)), _mm_mul_ps(a.z, b.z));
}
// Four records of four floats (p[l]: lane l's) as four vectors, the records' first floats in r[0]
// and so on: one load per record, then the transpose.
HS_LANE void Load4(const float* const p[4], __m128 r[4]) {
  r[0] = _mm_loadu_ps(p[0]), r[1] = _mm_loadu_ps(p[1]);
  r[2] = _mm_loadu_ps(p[2]), r[3] = _mm_loadu_ps(p[3]);
  _MM_TRANSPOSE4_PS(r[0], r[1], r[2], r[3]);
}
// Load4's inverse for the lanes in `lanes` (bit l: lane l): lane l's a, b, c, d to p[l] in one
// store.
HS_LANE void Store4(float* const p[4], __m128 a, __m128 b, __m128 c, __m128 d, int lanes) {
  _MM_TRANSPOSE4_PS(a, b, c, d);
  if (lanes & 1) _mm_storeu_ps(p[0], a);
  if (lanes & 2) _mm_storeu_ps(p[1], b);
  if (lanes & 4) _mm_storeu_ps(p[2], c);
  if (lanes & 8) _mm_storeu_ps(p[3], d);
}
// Each joint's point (x, y, z and the unused fourth float, PaddedVec3) in one load per lane.
HS_LANE V4 Gather(const std::vector<PaddedVec3>& v, const int* j) {
  const float* p[4] = {&v[j[0]].x, &v[j[1]].x, &v[j[2]].x, &v[j[3]].x};
  __m128 r[4];
  Load4(p, r);
  return {r[0], r[1], r[2]};
}
// Gather's inverse for the lanes in `lanes`: the unused fourth float takes z again.
HS_LANE void Scatter(std::vector<PaddedVec3>& v, const int* j, const V4& a, int lanes) {
  float* p[4] = {&v[j[0]].x, &v[j[1]].x, &v[j[2]].x, &v[j[3]].x};
  Store4(p, a.x, a.y, a.z, a.z, lanes);
}
// Four vectors in memory, lane by lane.
struct Lanes {
  alignas(16) float x[4], y[4], z[4];
  glm::vec3 operator[](int l) const { return {x[l], y[l], z[l]}; }
  void Set(int l, const glm::vec3& v) { x[l] = v.x, y[l] = v.y, z[l] = v.z; }
  V4 Load() const { return {_mm_load_ps(x), _mm_load_ps(y), _mm_load_ps(z)}; }
  void Store(const V4& v) { _mm_store_ps(x, v.x), _mm_store_ps(y, v.y), _mm_store_ps(z, v.z); }
};
HS_LANE __m128 FlushTiny4(__m128 v) {  // internal::FlushTiny: |v| < 1e-30 -> +0
  const __m128 abs = _mm_andnot_ps(_mm_set1_ps(-0.0f), v);
  return _mm_andnot_ps(_mm_cmplt_ps(abs, _mm_set1_ps(1e-30f)), v);
}
}  // namespace

namespace {
// A quaternion per lane, with glm's operations replicated lane by lane (same order of float
// operations as glm 0.9.9's qua, vec3 and mat3_cast, so each lane is bitwise glm's result).
struct Q4 {
  __m128 w, x, y, z;
};
// glm keeps a quaternion as x, y, z, w (GLM_FORCE_QUAT_DATA_WXYZ is not set): GatherQ loads each
// in one go.
static_assert(sizeof(glm::quat) == 16 && offsetof(glm::quat, x) == 0 &&
              offsetof(glm::quat, w) == 12);
HS_LANE Q4 GatherQ(const glm::quat* const q[4]) {
  const float* p[4] = {&q[0]->x, &q[1]->x, &q[2]->x, &q[3]->x};
  __m128 r[4];
  Load4(p, r);
  return {r[3], r[0], r[1], r[2]};
}
HS_LANE Q4 operator*(const Q4& p, const Q4& q) {  // glm: qua * qua
  auto m = [](__m128 a, __m128 b) { return _mm_mul_ps(a, b); };
  return {_mm_sub_ps(_mm_sub_ps(_mm_sub_ps(m(p.w, q.w), m(p.x, q.x)), m(p.y, q.y)), m(p.z, q.z)),
          _mm_sub_ps(_mm_add_ps(_mm_add_ps(m(p.w, q.x), m(p.x, q.w)), m(p.y, q.z)), m(p.z, q.y)),
          _mm_sub_ps(_mm_add_ps(_mm_add_ps(m(p.w, q.y), m(p.y, q.w)), m(p.z, q.x)), m(p.x, q.z)),
          _mm_sub_ps(_mm_add_ps(_mm_add_ps(m(p.w, q.z), m(p.z, q.w)), m(p.x, q.y)), m(p.y, q.x))};
}
HS_LANE V4 Cross(const V4& a, const V4& b) {  // glm::cross
  return {_mm_sub_ps(_mm_mul_ps(a.y, b.z), _mm_mul_ps(b.y, a.z)),
          _mm_sub_ps(_mm_mul_ps(a.z, b.x), _mm_mul_ps(b.z, a.x)),
          _mm_sub_ps(_mm_mul_ps(a.x, b.y), _mm_mul_ps(b.x, a.y))};
}
HS_LANE V4 Rotate(const Q4& q, const V4& v) {  // glm: qua * vec3
  const V4 qv{q.x, q.y, q.z};
  const V4 uv = Cross(qv, v), uuv = Cross(qv, uv);
  return v + _mm_set1_ps(2.0f) * (q.w * uv + uuv);
}
HS_LANE Q4 Normalize(const Q4& q) {  // glm::normalize(qua): identity when the length is not > 0
  const __m128 dot = _mm_add_ps(_mm_add_ps(_mm_mul_ps(q.w, q.w), _mm_mul_ps(q.x, q.x)),
                                _mm_add_ps(_mm_mul_ps(q.y, q.y), _mm_mul_ps(q.z, q.z)));
  const __m128 len = _mm_sqrt_ps(dot);
  const __m128 inv = _mm_div_ps(_mm_set1_ps(1.0f), len);
  const __m128 bad = _mm_cmple_ps(len, _mm_setzero_ps());
  auto pick = [&](__m128 v, float id) {
    return _mm_or_ps(_mm_and_ps(bad, _mm_set1_ps(id)), _mm_andnot_ps(bad, _mm_mul_ps(v, inv)));
  };
  return {pick(q.w, 1.0f), pick(q.x, 0.0f), pick(q.y, 0.0f), pick(q.z, 0.0f)};
}
HS_LANE Q4 Select(__m128 mask, const Q4& a, const Q4& b) {  // a where mask, else b
  auto sel = [&](__m128 x, __m128 y) {
    return _mm_or_ps(_mm_and_ps(mask, x), _mm_andnot_ps(mask, y));
  };
  return {sel(a.w, b.w), sel(a.x, b.x), sel(a.y, b.y), sel(a.z, b.z)};
}
// Four quaternions in memory, lane by lane.
struct QLanes {
  alignas(16) float w[4], x[4], y[4], z[4];
  glm::quat operator[](int l) const { return {w[l], x[l], y[l], z[l]}; }
  void Set(int l, const glm::quat& q) { w[l] = q.w, x[l] = q.x, y[l] = q.y, z[l] = q.z; }
  Q4 Load() const { return {_mm_load_ps(w), _mm_load_ps(x), _mm_load_ps(y), _mm_load_ps(z)}; }
  void Store(const Q4& q) {
    _mm_store_ps(w, q.w), _mm_store_ps(x, q.x), _mm_store_ps(y, q.y), _mm_store_ps(z, q.z);
  }
};
// GatherQ's inverse for lanes 0 .. n-1: each lane's quaternion to dst[l] in one store.
HS_LANE void ScatterQ(glm::quat* const* dst, const Q4& q, int n) {
  float* p[4] = {&dst[0]->x, n > 1 ? &dst[1]->x : nullptr, n > 2 ? &dst[2]->x : nullptr,
                 n > 3 ? &dst[3]->x : nullptr};
  Store4(p, q.x, q.y, q.z, q.w, (1 << n) - 1);
}
// internal::FromUnitVectorsUnnormalised for four pairs of unit vectors; the rare shortest arc
// between opposite vectors is built per lane by the scalar code.
HS_LANE Q4 FromUnitVectorsUnnormalised4(const V4& from, const V4& to) {
  const __m128 r = _mm_add_ps(Dot(from, to), _mm_set1_ps(1.0f));
  const V4 c = Cross(from, to);
  Q4 arc{r, c.x, c.y, c.z};
  if (_mm_movemask_ps(_mm_cmplt_ps(r, _mm_set1_ps(1e-7f)))) {  // opposite vectors: per lane
    QLanes a;
    a.Store(arc);
    Lanes f, t;
    f.Store(from), t.Store(to);
    for (int l = 0; l < 4; ++l)
      if (a.w[l] < 1e-7f) a.Set(l, internal::FromUnitVectorsUnnormalised(f[l], t[l]));
    arc = a.Load();
  }
  return arc;
}
// FlatRotations for four joints: the world rotation that points each rest axis (`axis_unit` under
// `base`) at its segment's end (`tail`, from the joint `o`, `len` long); base for a zero-length
// segment.
HS_LANE Q4 JointRotation(const Q4& base, const V4& axis_unit, const V4& o, const V4& tail,
                         __m128 len4) {
  const V4 from = Rotate(base, axis_unit);
  const V4 to = _mm_div_ps(_mm_set1_ps(1.0f), len4) * (tail - o);
  const Q4 arc = FromUnitVectorsUnnormalised4(from, to);
  return Select(_mm_cmpgt_ps(len4, _mm_set1_ps(1e-7f)), Normalize(arc * base), base);
}
}  // namespace

namespace {
// The exact contact tests of four links against one outside sphere or capsule, lane by lane the
// operations of the scalar functions (collide.cpp, collide.h), for their verdict: a lane is in
// contact when its separation is < 0, as ResolveLink asks. The scalar code's branches become
// selects between both sides, each computed as the scalar code would. Lanes the selects drop may
// divide by zero; no floating-point exception is trapped and their values are never used.
HS_LANE __m128 Sel(__m128 mask, __m128 a, __m128 b) {  // a where mask, else b
  return _mm_or_ps(_mm_and_ps(mask, a), _mm_andnot_ps(mask, b));
}
HS_LANE __m128 Clamp01(__m128 x) {  // std::clamp(x, 0.0f, 1.0f), NaN kept
  const __m128 zero = _mm_setzero_ps(), one = _mm_set1_ps(1.0f);
  return Sel(_mm_cmplt_ps(x, zero), zero, Sel(_mm_cmplt_ps(one, x), one, x));
}
HS_LANE V4 Splat(const glm::vec3& v) {
  return {_mm_set1_ps(v.x), _mm_set1_ps(v.y), _mm_set1_ps(v.z)};
}
HS_LANE __m128 Neg(__m128 x) { return _mm_xor_ps(x, _mm_set1_ps(-0.0f)); }
// NarrowLink's test of one near slot (bounding sphere at x, y, z, radius r, each four times:
// SpringWorld::near_splat_) for four joints O, each with its ball of radius reach_r: the lanes it
// cannot be ruled out for (NaN included), the scalar test's operations.
template <class Splat>  // SpringWorld::NearSplat (private to it)
HS_LANE int NearBall4(const V4& O, __m128 reach_r, const Splat& slot) {
  const V4 dc = O - V4{_mm_load_ps(slot.x), _mm_load_ps(slot.y), _mm_load_ps(slot.z)};
  const __m128 reach = _mm_add_ps(
      _mm_mul_ps(_mm_add_ps(reach_r, _mm_load_ps(slot.r)), _mm_set1_ps(internal::kRejectGrow)),
      _mm_set1_ps(internal::kRejectPad));
  return _mm_movemask_ps(_mm_cmpngt_ps(Dot(dc, dc), _mm_mul_ps(reach, reach)));
}

// The closest points of the links a-b and an outside sphere's or capsule's axis, as SegmentContact
// finds them through ClosestSegmentParams: the link parameter u, the link's point p and the
// distance vector d from the axis. e (the collider's squared length) is the same for all lanes:
// its branch stays a branch.
struct SegmentClosest4 {
  __m128 u;
  V4 p, d;
};
HS_LANE SegmentClosest4 ClosestOnLinks(const WorldCollider& col, const V4& a, const V4& b) {
  constexpr float kEps = 1e-12f;  // ClosestSegmentParams'
  const glm::vec3 d2s = col.tail - col.head;
  const V4 d1 = b - a, d2 = Splat(d2s), head = Splat(col.head), rr = a - head;
  const __m128 a2 = Dot(d1, d1), f = Dot(d2, rr);
  const float e = glm::dot(d2s, d2s);
  const __m128 zero = _mm_setzero_ps(), eps = _mm_set1_ps(kEps);
  const __m128 a_small = _mm_cmple_ps(a2, eps);
  const __m128 c = Dot(d1, rr);
  __m128 u, v;
  if (e <= kEps) {  // a sphere: u = clamp(-c / a), v = 0 (both 0 for a zero-length link)
    u = Sel(a_small, zero, Clamp01(_mm_div_ps(Neg(c), a2)));
    v = zero;
  } else {
    const __m128 e4 = _mm_set1_ps(e), one = _mm_set1_ps(1.0f);
    const __m128 b2 = Dot(d1, d2);
    const __m128 denom = _mm_sub_ps(_mm_mul_ps(a2, e4), _mm_mul_ps(b2, b2));
    const __m128 ok = _mm_cmpgt_ps(denom, _mm_mul_ps(_mm_mul_ps(eps, a2), e4));
    const __m128 u0 =
        Sel(ok, Clamp01(_mm_div_ps(_mm_sub_ps(_mm_mul_ps(b2, f), _mm_mul_ps(c, e4)), denom)), zero);
    const __m128 v0 = _mm_div_ps(_mm_add_ps(_mm_mul_ps(b2, u0), f), e4);
    const __m128 below = _mm_cmplt_ps(v0, zero), above = _mm_cmpgt_ps(v0, one);
    const __m128 u1 = Sel(below, Clamp01(_mm_div_ps(Neg(c), a2)),
                          Sel(above, Clamp01(_mm_div_ps(_mm_sub_ps(b2, c), a2)), u0));
    const __m128 v1 = Sel(below, zero, Sel(above, one, v0));
    u = Sel(a_small, zero, u1);
    v = Sel(a_small, Clamp01(_mm_div_ps(f, e4)), v1);
  }
  const V4 p = a + u * d1;
  return {u, p, p - (head + v * d2)};
}

// PointContactFast's early out and PointContact's distance vector for an outside sphere or
// capsule: *e from the closest point of the axis (ClosestOnSegment's: the head itself for a
// sphere) to p, *e2 its squared length; returns the lanes clearly clear of the collider.
HS_LANE __m128 PointReach4(const WorldCollider& col, const V4& p, __m128 r, V4* e, __m128* e2) {
  const glm::vec3 ds = col.tail - col.head;
  const float len2 = glm::dot(ds, ds);
  const V4 d = Splat(ds), head = Splat(col.head);
  *e = p -
       (len2 > 1e-12f ? head + Clamp01(_mm_div_ps(Dot(p - head, d), _mm_set1_ps(len2))) * d : head);
  *e2 = Dot(*e, *e);
  const __m128 reach = _mm_add_ps(r, _mm_set1_ps(col.radius));
  return _mm_cmpge_ps(*e2, _mm_mul_ps(reach, reach));
}

// PointContactFast's separation for an outside sphere or capsule: +1 when clearly clear.
HS_LANE __m128 PointSeparation4(const WorldCollider& col, const V4& p, __m128 r) {
  V4 e;
  __m128 e2;
  const __m128 clear = PointReach4(col, p, r, &e, &e2);
  return Sel(clear, _mm_set1_ps(1.0f),
             _mm_sub_ps(_mm_sub_ps(_mm_sqrt_ps(e2), r), _mm_set1_ps(col.radius)));
}

HS_LANE __m128 Min0(__m128 x) {  // std::min(0.0f, x)
  return Sel(_mm_cmplt_ps(x, _mm_setzero_ps()), x, _mm_setzero_ps());
}
HS_LANE V4 Sel(__m128 m, const V4& a, const V4& b) {
  return {Sel(m, a.x, b.x), Sel(m, a.y, b.y), Sel(m, a.z, b.z)};
}
HS_LANE V4 Div(const V4& v, __m128 s) {  // glm: vec3 / float
  return {_mm_div_ps(v.x, s), _mm_div_ps(v.y, s), _mm_div_ps(v.z, s)};
}
HS_LANE __m128 LaneMask(int bits) {  // lane l all ones where bit l is set
  const __m128i b = _mm_setr_epi32(1, 2, 4, 8);
  return _mm_castsi128_ps(_mm_cmpeq_epi32(_mm_and_si128(_mm_set1_epi32(bits), b), b));
}
// SafeNormalize(v, (0, 1, 0)) of collide.cpp: v / |v|, or +Y when |v| <= 1e-9.
HS_LANE V4 SafeNormalize4(const V4& v) {
  const __m128 l = _mm_sqrt_ps(Dot(v, v));
  const __m128 ok = _mm_cmpgt_ps(l, _mm_set1_ps(1e-9f));
  const __m128 zero = _mm_setzero_ps();
  return Sel(ok, Div(v, l), V4{zero, _mm_set1_ps(1.0f), zero});
}
// RestDirection (above): rest / max(|rest|, 1e-12).
HS_LANE V4 RestDirection4(const V4& rest) {
  const __m128 rl = _mm_sqrt_ps(Dot(rest, rest)), tiny = _mm_set1_ps(1e-12f);
  return Div(rest, Sel(_mm_cmplt_ps(rl, tiny), tiny, rl));
}
// FirstSwing and FollowRest (above) for four chains: the first segments' swings (identity for a
// zero-length first segment, as the scalar code leaves it) and a lower segment's turned rest.
HS_LANE Q4 FirstSwing4(const V4& rest, const V4& o, const V4& end, __m128 len) {
  const Q4 q = Normalize(FromUnitVectorsUnnormalised4(RestDirection4(rest), Div(end - o, len)));
  const __m128 zero = _mm_setzero_ps();
  return Select(_mm_cmpgt_ps(len, _mm_set1_ps(1e-7f)), q, Q4{_mm_set1_ps(1.0f), zero, zero, zero});
}
HS_LANE V4 FollowRest4(const V4& rest, const Q4& first_swing, float follow) {
  const V4 swung = Rotate(first_swing, rest);
  const V4 m = _mm_set1_ps(1.0f - follow) * rest + _mm_set1_ps(follow) * swung;
  // std::max(length(m), 1e-12f): _mm_max_ps gives its second operand for a NaN, as std::max.
  const __m128 ml = _mm_max_ps(_mm_set1_ps(1e-12f), _mm_sqrt_ps(Dot(m, m)));
  return _mm_div_ps(_mm_sqrt_ps(Dot(rest, rest)), ml) * m;
}
// ProjectOnLink (above): the point at distance len from o towards p, or along the rest direction
// when p is on o.
HS_LANE V4 ProjectOnLink4(const V4& p, const V4& o, __m128 len, const V4& rest) {
  const V4 d = p - o;
  const __m128 l = _mm_sqrt_ps(Dot(d, d));
  return o + Sel(_mm_cmpgt_ps(l, _mm_mul_ps(_mm_set1_ps(1e-9f), len)), _mm_div_ps(len, l) * d,
                 len * RestDirection4(rest));
}
// PointContactFast for an outside sphere or capsule, all of it: +1 when clearly clear (no
// direction), else PointContact's separation and push direction.
HS_LANE __m128 PointContact4(const WorldCollider& col, const V4& p, __m128 r, V4* n) {
  V4 e;
  __m128 e2;
  const __m128 clear = PointReach4(col, p, r, &e, &e2);
  *n = SafeNormalize4(e);
  return Sel(clear, _mm_set1_ps(1.0f),
             _mm_sub_ps(_mm_sub_ps(_mm_sqrt_ps(e2), r), _mm_set1_ps(col.radius)));
}
}  // namespace

void SpringWorld::SolveChainLanes(const int* chains, int n, float h, StepReport& rep) {
  // Up to four chains of a lane group (Create: longest chain first; most often on one attachment
  // with one collider list), side by side: link depth by link depth, the rest vectors, pull,
  // damping and projection of the four links run in SIMD lanes, their narrow contact filter and the
  // exact contact tests against outside spheres and capsules test each collider against the four
  // links at once, and a link no collider touches ends in the lanes too. Whatever needs branching
  // stays per lane in the scalar code: contacts, planes and inside shapes, zero-length links,
  // non-finite values. chains[0..3]: n in use, the others repeat chains[0] (LaneGroup's padding);
  // unused lanes compute lane 0's chain and are never stored; so does a lane whose chain has ended
  // (shorter than lane 0's) at the depths below its end. The joints' constants come packed for
  // the lanes (PackLanes) when the chains are the whole group in its order (the usual case).
  const Rig& rig = *rig_;
  // One context for all: the chains share the coefficients and, most often, the attachment and
  // colliders, so FlatBegin once and the root frames (the attachment frames and colliders of a
  // group whose chains differ there: below).
  const LinkContext lc = FlatBegin(chains[0], h);
  for (int l = 1; l < n; ++l) FlatRoot(chains[l]);
  // arc with gravity: each chain's arc turns on its own (ArcFrame), so the lanes take a frame
  // each; without gravity they all have the attachment's (lc.attach).
  int lifted_lanes = 0;  // lanes whose chain has gravity (padding lanes as lane 0)
  for (int l = 0; l < 4; ++l) lifted_lanes |= chain_lifted_[chains[l < n ? l : 0]] ? 1 << l : 0;
  const bool lifted = lc.arc && lifted_lanes != 0;
  int begin[4];
  for (int l = 0; l < 4; ++l) begin[l] = rig.chains()[chains[l]].joint_begin;
  const int g = lane_group_of_[chains[0]];
  const LaneGroup& group = lane_groups_[g];
  const bool whole = n == group.n && std::equal(chains, chains + n, group.chains);
  // Per lane in use, its chain's links: not increasing (the group's order, longest first).
  int lane_links[4];
  if (whole) {
    std::copy(group.links, group.links + 4, lane_links);
  } else {
    for (int l = 0; l < n; ++l) lane_links[l] = rig.chains()[chains[l]].joint_end - begin[l] - 1;
  }
  const int links = lane_links[0];
  // The lanes whose chain reaches depth d: a prefix; all n while the shortest lasts.
  const int shortest = lane_links[n - 1];
  auto in_use = [&](int d) {
    if (d < shortest) return n;
    int k = 0;
    while (k < n && lane_links[k] > d) ++k;
    return k;
  };
  const int mode = lc.arc ? 1 : 0;
  // A group whose chains have different colliders: the union, each lane masked to its chain's.
  uint8_t lane_own[internal::kNearAll];
  const LaneMix& mix = lane_mix_[g];
  const bool mixed = mix.near_base >= 0;
  const NearRange near = mixed ? UnionNear(g, chains, lane_own) : lc.near;
  const uint8_t* lane_has = mixed ? lane_own : kAllLanes;
  const __m128 h4 = _mm_set1_ps(h), inv_h4 = _mm_set1_ps(lc.inv_h);
  alignas(16) float local_pack[kLaneFields * 4];
  auto depth_pack = [&](int d, const int* j) -> const float* {
    if (whole)  // Create packs every group
      return &lane_pack_[lane_pack_at_[g] + static_cast<size_t>(d) * kLaneFields * 4];
    for (int l = 0; l < 4; ++l) PackLane(local_pack, l, j[l]);
    return local_pack;
  };
  Lanes lroot;
  alignas(16) float sc[4];
  for (int l = 0; l < 4; ++l) {
    lroot.Set(l, flat_[chains[l]].root);
    sc[l] = flat_[chains[l]].scale;
  }
  const __m128 scale4 = _mm_load_ps(sc);
  const V4 root4 = lroot.Load();
  V4 O = root4;   // the joints at this depth: the roots, then each depth's ends
  int below = 0;  // lanes with a segment above touching a collider (this step or the last)
  // Rest vectors from the bent joint above (parent mode; arc's draping below a contact and a
  // zero-length link): the joints' world rotations, built down the four chains in the lanes
  // (FlatRotations' work) up to the depth that needs them. `above` holds the rotations of the
  // joints at depth rot_depth - 1 (the chains' parent rotations for 0).
  QLanes first;
  for (int l = 0; l < 4; ++l) first.Set(l, flat_[chains[l]].parent_rot);
  Q4 above = first.Load();
  int rot_depth = 0;
  // The joints at depth dd of the k lanes in use there; lane 0's past a lane's end.
  auto lane_j = [&](int dd, int k, int* jj) {
    for (int l = 0; l < 4; ++l) jj[l] = (l < k ? begin[l] : begin[0]) + dd;
  };
  auto rest_rotations = [&](const int* jj) {
    const glm::quat* q[4];
    for (int l = 0; l < 4; ++l) q[l] = &rig.rest_local()[rig.joint_node()[jj[l]]].rotation;
    return GatherQ(q);
  };
  // The depth loop's last depth (the one above the current), kept for rotations_to: its joint
  // positions, link lengths and, once built there, above * its joints' rest rotations. The
  // current depth's joint positions are o_now. A lane past its chain's end holds its own chain's
  // values here where rotations_to would read lane 0's; such a lane's rotation is never stored.
  struct Depth {
    V4 o;
    __m128 len;
    Q4 base;
    bool has_base;
  };
  Depth depth_slot[2];  // each filled by the depth loop before rotations_to reads it
  Depth *last = &depth_slot[0], *cur = &depth_slot[1];
  int d_cur = -1;  // the depth loop's depth
  // The rotations of the joints above `depth`; o_now: the joints at the depth loop's depth (O).
  auto rotations_to = [&](int depth, const V4& o_now) {
    for (; rot_depth < depth; ++rot_depth) {
      // Built in registers (four scalars stored and read back as one vector stall the
      // processor: it cannot forward them).
      int jj[4];
      const int k = in_use(rot_depth);
      lane_j(rot_depth, k, jj);
      if (rot_depth == d_cur - 1) {  // the depth just solved: its values are at hand
        above = JointRotation(last->has_base ? last->base : above * rest_rotations(jj),
                              Gather(axis_unit_, jj), last->o, o_now, last->len);
      } else {
        int jm[4];
        for (int l = 0; l < 4; ++l) jm[l] = jj[l] - 1;
        const __m128 len4 = _mm_mul_ps(
            _mm_mul_ps(scale4, _mm_setr_ps(rel_scale_[jj[0]], rel_scale_[jj[1]], rel_scale_[jj[2]],
                                           rel_scale_[jj[3]])),
            _mm_setr_ps(axis_len_[jj[0]], axis_len_[jj[1]], axis_len_[jj[2]], axis_len_[jj[3]]));
        above = JointRotation(above * rest_rotations(jj), Gather(axis_unit_, jj),
                              rot_depth == 0 ? root4 : Gather(tail_, jm), Gather(tail_, jj), len4);
      }
      QLanes r;
      r.Store(above);
      for (int l = 0; l < k; ++l) {
        flat_rot_[jj[l]] = r[l];
        flat_[chains[l]].q_done = jj[l] + 1;
      }
    }
  };
  // The attachment frame's rows, for the original arc (glm's mat3 * vec3, lane by lane).
  // With gravity kept in lane_frames_ for GuardChords after the step (not built again there).
  // Chains on different attachments: each lane its chain's frame too (as MakeLinkContext's).
  __m128 arow[3][3];
  if (!lc.arc || (!lifted && mix.one_attach)) {
    const glm::mat3& attach = lc.attach;
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) arow[r][c] = _mm_set1_ps(attach[c][r]);
  } else {  // each lane its chain's frame (lane 0's is lc's)
    const glm::mat3 attach = AttachFrame(chains[0]);
    glm::mat3* frame = lane_frames_;
    frame[0] = lc.attach;
    for (int l = 1; l < 4; ++l)
      frame[l] = ArcFrame(chains[l], mix.one_attach ? attach : AttachFrame(chains[l]));
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c)
        arow[r][c] = _mm_setr_ps(frame[0][c][r], frame[1][c][r], frame[2][c][r], frame[3][c][r]);
  }
  const __m128 grow = _mm_set1_ps(internal::kRejectGrow), eps = _mm_set1_ps(internal::kRejectPad);
  const __m128 half = _mm_set1_ps(0.5f), one = _mm_set1_ps(1.0f), zero4 = _mm_setzero_ps();
  const bool segment = lc.segment;
  // SpringConfig::arc_follow, as SolveChainFlat: the first segments' rest vectors and lengths,
  // then their swings (built at depth 1 from depth 0's ends).
  const float follow = lc.arc ? config_.arc_follow : 0.0f;
  V4 rest0{zero4, zero4, zero4};
  __m128 len0 = zero4;
  Q4 first_swing{one, zero4, zero4, zero4};
  int nd = n, nmask = (1 << n) - 1;  // lanes in use at this depth: n until the shortest ends
  for (int d = 0; d < links; ++d) {
    if (d >= shortest) {
      nd = in_use(d);
      nmask = (1 << nd) - 1;
    }
    int j[4];
    lane_j(d, nd, j);
    const float* P = depth_pack(d, j);
    auto field = [&](int f) { return _mm_loadu_ps(P + static_cast<ptrdiff_t>(4) * f); };
    // A joint's world scale, its link's length and hit radius: (scale * rel) * axis length,
    // hit radius * scale, as SolveChainFlat.
    const __m128 s4 = _mm_mul_ps(scale4, field(kLaneRel));
    const __m128 len4 = _mm_mul_ps(s4, field(kLaneAxisLen));
    const __m128 hit4 = _mm_mul_ps(field(kLaneHit), s4);
    alignas(16) float s[4], len[4], hit[4];
    _mm_store_ps(s, s4), _mm_store_ps(len, len4), _mm_store_ps(hit, hit4);
    std::swap(last, cur);  // this depth for rotations_to at the next
    cur->o = O, cur->len = len4, cur->has_base = false;
    d_cur = d;
    // above * the rest rotations of this depth's joints (above: the rotations of the joints
    // above, rotations_to(d) first), built once for the rest vectors, the cone test and the
    // next depth's rotations.
    auto base = [&]() -> const Q4& {
      if (!cur->has_base) cur->base = above * rest_rotations(j), cur->has_base = true;
      return cur->base;
    };
    const int zero_len = _mm_movemask_ps(_mm_cmpngt_ps(len4, _mm_set1_ps(1e-7f)));
    const bool alone = zero_len != 0;
    const bool bent = !lc.arc || (below & nmask) != 0 || alone;
    V4 rest{zero4, zero4, zero4};
    if (lc.arc) {
      const V4 v{field(kLaneArcX), field(kLaneArcY), field(kLaneArcZ)};
      auto row = [&](int r) {
        return _mm_add_ps(_mm_add_ps(_mm_mul_ps(arow[r][0], v.x), _mm_mul_ps(arow[r][1], v.y)),
                          _mm_mul_ps(arow[r][2], v.z));
      };
      rest = {row(0), row(1), row(2)};
      if (follow > 0.0f && d > 0) {  // lanes below a contact or zero-length take another below
        if (d == 1) first_swing = FirstSwing4(rest0, root4, O, len0);
        rest = FollowRest4(rest, first_swing, follow);
      }
    }
    // Lanes below a contact (padding lanes as lane 0).
    const int padded_below = (below & nmask) | ((below & 1) ? 0xf & ~nmask : 0);
    if (bent) {  // (above * rest rotation) * (s * rest axis), as FlatRestVector
      rotations_to(d, O);
      const V4 from_above = Rotate(base(), s4 * Gather(axis_local_, j));
      // The lanes that take it: parent mode, below a contact, a zero-length link.
      const int take = !lc.arc ? 0xf : padded_below | zero_len;
      rest = Sel(LaneMask(take), from_above, rest);
    }
    if (lifted) {  // Lifted, lane by lane (a lane without gravity keeps its bits: mu is 1)
      const V4 lift = Gather(arc_lift_, j);
      // _mm_max_ps(a, b) gives b when either is NaN: std::max's NaN, with the bound first.
      const __m128 q =
          _mm_div_ps(Dot(lift, rest), _mm_max_ps(_mm_set1_ps(1e-30f), Dot(rest, rest)));
      const V4 scaled = _mm_max_ps(_mm_set1_ps(kMinLift), _mm_add_ps(one, q)) * rest;
      // Draped lanes take the whole lift, as Lifted.
      const int draped = padded_below & ~zero_len & lifted_lanes;
      rest = draped ? Sel(LaneMask(draped), rest + lift, scaled) : scaled;
    }
    Lanes lrest;  // for the lanes solved alone
    lrest.Store(rest);
    if (d == 0) rest0 = rest, len0 = len4;
    // Angle limits at this depth: each frame hangs from the bent joint above (limits.h), whose
    // rotation the lanes build as FlatRotations does alone. The exact frame (the scalar code's
    // operations) is made only for a lane that needs it: a hinge, a spherical limit, a cone the
    // lanes cannot show clear (below), a contact or a zero-length link.
    int limited = 0, framed = 0;
    glm::quat frame[4];
    for (int l = 0; l < nd; ++l)
      if (limit_[j[l]].kind != JointLimit::Kind::kNone) limited |= 1 << l;
    if (limited) rotations_to(d, O);
    auto frame_of = [&](int l) -> const glm::quat* {
      if (!(limited >> l & 1)) return nullptr;
      if (!(framed >> l & 1)) {
        frame[l] = (d == 0 ? flat_[chains[l]].parent_rot : flat_rot_[j[l] - 1]) *
                   rig.rest_local()[rig.joint_node()[j[l]]].rotation * limit_[j[l]].local;
        framed |= 1 << l;
      }
      return &frame[l];
    };
    Lanes lo;
    lo.Store(O);
    // This depth one lane after the other, as SolveChainFlat (a zero-length link, or a held link
    // of a thrown chain past the lag guard's cone): the lanes whose link touched a collider this
    // step or the last; the ends are then in tail_. Inlined at both uses, like the hand-written
    // loop (called, it cost the lanes 1 % more instructions in every mode).
    auto one_by_one = [&]() __attribute__((always_inline)) {
      int touched = 0;
      for (int l = 0; l < nd; ++l)
        if (FlatLink(mixed ? LaneOwnContext(lc, chains[l], lroot[l])
                           : LaneContext(lc, chains[l], lroot[l]),
                     j[l], lo[l], lrest[l], s[l], len[l], rep, frame_of(l)))
          touched |= 1 << l;
      return touched;
    };
    if (alone) {  // a zero-length link
      below |= one_by_one();
      O = Gather(tail_, j);
      continue;
    }
    // IntegrateLink's prediction, lane by lane the same operations.
    const V4 x = Gather(tail_, j), before = Gather(prev_target_, j);
    const V4 target = O + rest;
    Scatter(prev_target_, j, target, nmask);
    const V4 vt = inv_h4 * (target - before);
    const int cf = kLaneCoef + kLaneCoefFields * mode;
    const V4 gv{field(cf + 1), field(cf + 2), field(cf + 3)};
    const V4 f = field(cf) * (before - x) + gv;
    const V4 u = field(cf + 4) * (vt + field(cf + 5) * (Gather(vel_, j) - vt) + h4 * f);
    const V4 y = x + h4 * u;
    const V4 dy = y - O;
    const __m128 dist = _mm_sqrt_ps(Dot(dy, dy));
    const int ok = _mm_movemask_ps(_mm_cmpgt_ps(dist, _mm_mul_ps(_mm_set1_ps(1e-9f), len4)));
    Lanes lxh;
    lxh.Store(O + _mm_div_ps(len4, dist) * dy);
    if (ok != 0xf) {  // an end on its joint: ProjectOnLink's rest direction, per lane
      Lanes ly;
      ly.Store(y);
      for (int l = 0; l < 4; ++l)
        if (!(ok >> l & 1)) lxh.Set(l, ProjectOnLink(ly[l], lo[l], len[l], lrest[l]));
    }
    if (LagGuardOn(lc)) {
      // arc's lag guard, as IntegrateLink: the cone test in the lanes (OutsideLagCone's
      // operations), an end outside put back per lane (rare: a violent roll or jump), a link in
      // contact at the last step left alone unless its chain is thrown: then this depth is
      // solved one lane after the other, as IntegrateLink (the targets put back first).
      const V4 axis = field(cf) * rest + gv;
      const V4 e = lxh.Load() - O;
      const __m128 need =
          _mm_mul_ps(_mm_set1_ps(lag_cos_), _mm_mul_ps(len4, _mm_sqrt_ps(Dot(axis, axis))));
      int held = 0;  // lanes whose link touched a collider at the last step
      for (int l = 0; l < nd; ++l) held |= in_contact_[j[l]] ? 1 << l : 0;
      const int outside = nmask & ~_mm_movemask_ps(_mm_cmpge_ps(Dot(e, axis), need));
      bool thrown = false;
      if (outside & held)  // rare: a held link past the cone
        for (int l = 0; l < nd && !thrown; ++l)
          thrown = (outside & held) >> l & 1 && ChainThrown(LaneContext(lc, chains[l], lroot[l]));
      if (thrown) {  // this depth one lane after the other (the targets put back first)
        Scatter(prev_target_, j, before, nmask);
        below |= one_by_one();
        O = Gather(tail_, j);
        continue;
      }
      const int out = outside & ~held;
      if (out) {
        rep.flags |= kStepLagGuard;
        Lanes lax;
        lax.Store(axis);
        for (int l = 0; l < nd; ++l)
          if (out >> l & 1)
            lxh.Set(l, OntoLagCone(lo[l], lxh[l], len[l], lax[l], lag_cos_, lag_sin_));
      }
    }
    if (limited) {
      // IntegrateLink's limit, on the projected end. A cone leaves the end alone when its
      // direction is within the cone: here the cone's axis (the limit frame's +Y, the frame built
      // in the lanes) against the link, with a margin of 1e-4 in the cosine far above the
      // rounding of either way of computing it, so a lane shown clear is one ApplyLimit would
      // leave alone. Every other limited lane goes through ApplyLimit with the exact frame.
      int clear = 0;
      const glm::quat* local[4];
      alignas(16) float cos_a[4];
      int cones = 0;
      for (int l = 0; l < 4; ++l) {
        const internal::PreparedLimit& lim = limit_[j[l < nd ? l : 0]];
        local[l] = &lim.local;
        cos_a[l] = lim.cos_a + 1e-4f;
        if (l < nd && lim.kind == JointLimit::Kind::kCone) cones |= 1 << l;
      }
      if (cones) {
        const V4 axis = Rotate(base() * GatherQ(local), V4{zero4, one, zero4});
        const V4 e = lxh.Load() - O;
        const __m128 need = _mm_mul_ps(_mm_load_ps(cos_a), _mm_sqrt_ps(Dot(e, e)));
        clear = cones & _mm_movemask_ps(_mm_cmpge_ps(Dot(axis, e), need));
      }
      for (int l = 0; l < nd; ++l)
        if ((limited & ~clear) >> l & 1) {
          glm::vec3 end = lxh[l];
          if (internal::ApplyLimit(limit_[j[l]], *frame_of(l), lo[l], len[l], end)) lxh.Set(l, end);
        }
    }
    const V4 xh = lxh.Load();
    const V4 vs = inv_h4 * (xh - x);
    // NarrowLink for the four links: each near collider against the four balls. A candidate is
    // then put through ResolveLink's reject on the predicted end (the same operations, so the
    // same verdict) and, against an outside sphere or capsule, through the exact test: a lane
    // that no candidate touches has no contact this step, as the scalar code would find, and
    // ends in the lanes; any other goes through ResolveLink.
    const __m128 reach_r = _mm_add_ps(len4, hit4);
    const __m128 mid_r = _mm_add_ps(_mm_mul_ps(half, len4), hit4);
    // ResolveLink's reject of collider ci (an outside sphere or capsule) for the lanes `mask`
    // with their ends at X: the lanes it leaves to the exact test.
    auto candidates = [&](int ci, int mask, const V4& X) __attribute__((always_inline)) {
      const glm::vec4& bound = collider_bound_[ci];
      if (!segment) {  // internal::ClearOfBound(bound, xh, hit)
        const V4 dd = X - V4{_mm_set1_ps(bound.x), _mm_set1_ps(bound.y), _mm_set1_ps(bound.z)};
        const __m128 r = _mm_add_ps(_mm_mul_ps(_mm_add_ps(hit4, _mm_set1_ps(bound.w)), grow), eps);
        return mask & _mm_movemask_ps(_mm_cmpngt_ps(Dot(dd, dd), _mm_mul_ps(r, r)));
      }
      // internal::ClearOfCapsule(head, axis, inv_len2, radius, mid, mid_r)
      const V4 middle = half * (O + X);  // the link's middle, a ball of 0.5 len + hit around it
      const CapsuleReject& cr = collider_reject_[ci];
      const V4 axis{_mm_set1_ps(cr.axis.x), _mm_set1_ps(cr.axis.y), _mm_set1_ps(cr.axis.z)};
      const V4 ap =
          middle - V4{_mm_set1_ps(cr.head.x), _mm_set1_ps(cr.head.y), _mm_set1_ps(cr.head.z)};
      const __m128 at = _mm_mul_ps(Dot(ap, axis), _mm_set1_ps(cr.inv_len2));
      const V4 dd = ap - _mm_min_ps(_mm_max_ps(at, zero4), one) * axis;
      const __m128 r = _mm_add_ps(_mm_mul_ps(_mm_add_ps(mid_r, _mm_set1_ps(cr.radius)), grow), eps);
      // std::min/max keep a NaN where SSE's give the bound: a NaN parameter is never clear.
      return mask & _mm_movemask_ps(_mm_or_ps(_mm_cmpngt_ps(Dot(dd, dd), _mm_mul_ps(r, r)),
                                              _mm_cmpunord_ps(at, at)));
    };
    // The contacts in the lanes, ResolveLink's operations lane by lane: the end X and velocity VS
    // pushed out of each collider in turn, the normals per lane in the order found.
    // The per-lane records are set at the first contact (clear() below): most links have none.
    V4 X = xh, VS = vs;
    Lanes nslot[kMaxNormals];
    int count[4], one_ci[4];  // one_ci per lane, as ResolveLink's
    float first_sep[4];
    int first_contacts[4];  // per lane, the contacts of the first round
    auto clear = [&]() __attribute__((always_inline)) {
      for (int l = 0; l < 4; ++l)
        count[l] = 0, one_ci[l] = -1, first_sep[l] = 0, first_contacts[l] = 0;
    };
    // Collider ci's exact test for the lanes `cand` at X; the lanes in contact are pushed out (a
    // push of -sep at link parameter `at` moves the end about -sep / at, as the link pivots about
    // o; then only the inward part of the velocity is removed) and returned.
    auto contact = [&](int ci, int cand, int* contacts) __attribute__((always_inline)) {
      const WorldCollider& col = colliders_[ci];
      V4 nrm;
      __m128 at = one, sep;
      int in;
      if (segment) {  // SegmentContact's separation, its direction only where there is a contact
        const SegmentClosest4 k = ClosestOnLinks(col, O, X);
        const __m128 dl = _mm_sqrt_ps(Dot(k.d, k.d));
        sep = _mm_sub_ps(_mm_sub_ps(dl, hit4), _mm_set1_ps(col.radius));
        in = cand & _mm_movemask_ps(_mm_cmplt_ps(sep, zero4));
        if (!in) return 0;
        at = k.u;
        nrm = Sel(_mm_cmpgt_ps(dl, _mm_set1_ps(1e-9f)), Div(k.d, dl),
                  SafeNormalize4(k.p - Splat(col.head)));
      } else {
        sep = PointContact4(col, X, hit4, &nrm);
        in = cand & _mm_movemask_ps(_mm_cmplt_ps(sep, zero4));
        if (!in) return 0;
      }
      const __m128 lever =
          Sel(_mm_cmplt_ps(at, _mm_set1_ps(kMinLever)), _mm_set1_ps(kMinLever), at);
      const __m128 m = LaneMask(in);
      X = Sel(m, ProjectOnLink4(X - _mm_div_ps(sep, lever) * nrm, O, len4, rest), X);
      VS = Sel(m, VS - Min0(Dot(VS, nrm)) * nrm, VS);
      Lanes ln;
      ln.Store(nrm);
      alignas(16) float sep_l[4];
      _mm_store_ps(sep_l, sep);
      for (int l = 0; l < 4; ++l) {
        if (!(in >> l & 1)) continue;
        if (count[l] < kMaxNormals) nslot[count[l]++].Set(l, ln[l]);
        if (one_ci[l] == -1) first_sep[l] = sep_l[l];
        one_ci[l] = one_ci[l] == -1 || one_ci[l] == ci ? ci : -2;
        ++contacts[l];
      }
      return in;
    };
    // NarrowLink for the four links: each near collider against the four balls. A candidate is
    // then put through ResolveLink's reject on the end (the same operations, so the same verdict)
    // and, against an outside sphere or capsule, through the exact test: this is ResolveLink's
    // first round for every lane. A lane that no candidate touches has no contact this step, as
    // the scalar code would find, and ends in the lanes; a lane in contact with outside spheres
    // and capsules only goes on with the next round in the lanes (below), any other through
    // ResolveLink, which starts again from the predicted end.
    int maybe = 0;  // lanes an outside sphere or capsule touches
    int other = 0;  // lanes with a plane or an inside shape among their candidates
    uint8_t lanes_of[internal::kNearAll];  // per near collider: the lanes it is a candidate of
    for (int c = near.begin; c < near.end; ++c) {
      const int mask = lane_has[c - near.begin] & NearBall4(O, reach_r, near_splat_[c]);
      lanes_of[c - near.begin] = static_cast<uint8_t>(mask);
      if (!mask) continue;
      const int ci = near_colliders_[c];
      if (collider_bound_[ci].w < 0.0f) {  // a plane or an inside shape: the scalar code decides
        other |= mask;
        continue;
      }
      const int cand = candidates(ci, mask, X);
      if (!cand) continue;
      if (!maybe) clear();  // no contact yet at this depth
      maybe |= contact(ci, cand, first_contacts);
    }
    // ResolveLink without contacts: the velocity's radial part, then the flush.
    const V4 dir = _mm_div_ps(one, len4) * (xh - O);
    const V4 vr = vs - Dot(vs, dir) * dir;
    const __m128 zero =
        _mm_sub_ps(_mm_add_ps(_mm_add_ps(_mm_sub_ps(xh.x, xh.x), _mm_sub_ps(xh.y, xh.y)),
                              _mm_add_ps(_mm_sub_ps(xh.z, xh.z), _mm_sub_ps(vr.x, vr.x))),
                   _mm_add_ps(_mm_sub_ps(vr.y, vr.y), _mm_sub_ps(vr.z, vr.z)));
    const int finite = _mm_movemask_ps(_mm_cmpord_ps(zero, zero));  // x - x is NaN for inf, NaN
    // Lanes in contact with outside spheres and capsules only, without an angle limit, resolve
    // their contacts in the lanes (ResolveLink's operations lane by lane); the others in
    // contact, or not finite, go through ResolveLink.
    const int slow = ((maybe & limited) | other | ~finite) & nmask;
    const int resolve = maybe & ~slow & nmask;
    V4 end{FlushTiny4(xh.x), FlushTiny4(xh.y), FlushTiny4(xh.z)};
    V4 vend{FlushTiny4(vr.x), FlushTiny4(vr.y), FlushTiny4(vr.z)};
    int touched_lanes = 0;
    if (resolve) {
      // The first round's contacts of these lanes, then the next rounds (every lane here had a
      // contact in the first).
      rep.flags |= kStepContact;
      for (int l = 0; l < 4; ++l) {
        if (resolve >> l & 1) {
          rep.contacts += first_contacts[l];
        } else {  // not resolved here: none of the first round's contacts count
          count[l] = 0;
          one_ci[l] = -1;
        }
      }
      int active = resolve;  // lanes whose last round found a contact
      int contacts[4] = {0, 0, 0, 0};
      for (int it = 1; it < kContactIterations && active; ++it) {
        int any = 0;
        for (int c = near.begin; c < near.end; ++c) {
          const int mask = lanes_of[c - near.begin] & active;
          if (!mask) continue;
          const int ci = near_colliders_[c];
          const int cand = candidates(ci, mask, X);
          if (cand) any |= contact(ci, cand, contacts);
        }
        if (any) rep.flags |= kStepContact;
        active &= any;
      }
      for (int l = 0; l < 4; ++l) rep.contacts += contacts[l];
      if (!segment) {  // ResolveLink's OntoContactCircle (lanes here have no angle limit)
        Lanes lx;
        lx.Store(X);
        bool moved = false;
        for (int l = 0; l < 4; ++l) {
          if (one_ci[l] < 0) continue;
          glm::vec3 e = lx[l];
          if (OntoContactCircle(colliders_[one_ci[l]], lo[l], len[l], hit[l], first_sep[l],
                                lrest[l], &e)) {
            lx.Set(l, e);
            moved = true;
          }
        }
        if (moved) X = lx.Load();
      }
      for (int l = 0; l < 4; ++l) touched_lanes |= count[l] > 0 ? 1 << l : 0;
      // The velocity's radial part, then once more the inward part along each normal's
      // component across the link.
      const V4 d = _mm_div_ps(one, len4) * (X - O);
      VS = VS - Dot(VS, d) * d;
      const int most = std::max(std::max(count[0], count[1]), std::max(count[2], count[3]));
      for (int i = 0; i < most; ++i) {
        int has = 0;
        for (int l = 0; l < 4; ++l) has |= count[l] > i ? 1 << l : 0;
        const V4 ni = nslot[i].Load();
        V4 np = ni - Dot(ni, d) * d;
        const __m128 l = _mm_sqrt_ps(Dot(np, np));
        np = _mm_div_ps(one, l) * np;
        const __m128 m = _mm_andnot_ps(_mm_cmplt_ps(l, _mm_set1_ps(1e-6f)), LaneMask(has));
        VS = Sel(m, VS - Min0(Dot(VS, np)) * np, VS);
      }
      // Never let a NaN out: the rest direction, at rest (kStepRepaired).
      const V4 bad4 = (X - X) + (VS - VS);
      const int bad = resolve & ~_mm_movemask_ps(_mm_cmpord_ps(
                                    _mm_add_ps(_mm_add_ps(bad4.x, bad4.y), bad4.z), zero4));
      if (bad) {
        const __m128 m = LaneMask(bad);
        X = Sel(m, O + len4 * RestDirection4(rest), X);
        VS = Sel(m, V4{zero4, zero4, zero4}, VS);
        rep.flags |= kStepRepaired;
      }
      const __m128 m = LaneMask(resolve);
      end = Sel(m, V4{FlushTiny4(X.x), FlushTiny4(X.y), FlushTiny4(X.z)}, end);
      vend = Sel(m, V4{FlushTiny4(VS.x), FlushTiny4(VS.y), FlushTiny4(VS.z)}, vend);
    }
    for (int l = 0; l < nd; ++l) {
      const int jl = j[l];
      if (slow >> l & 1) {
        // The lane's candidates, in order, as NarrowLink would list them.
        int n_cand = 0;
        for (int c = near.begin; c < near.end; ++c)
          if (lanes_of[c - near.begin] >> l & 1) joint_colliders_[n_cand++] = near_colliders_[c];
        Lanes lvs;
        lvs.Store(vs);
        const bool touched = ResolveLink(lc, jl, lo[l], lrest[l], len[l], hit[l], lxh[l], lvs[l],
                                         joint_colliders_.data(), n_cand, rep, frame_of(l));
        below |= touched ? 1 << l : 0;
      } else {
        const int touched = touched_lanes >> l & 1;
        below |= in_contact_[jl] != 0 || touched ? 1 << l : 0;
        in_contact_[jl] = static_cast<uint8_t>(touched);
      }
    }
    Scatter(tail_, j, end, nmask & ~slow);
    Scatter(vel_, j, vend, nmask & ~slow);
    // The next depth's joints: these ends (padding lanes, lane 0's chain, end as lane 0 in the
    // lanes; a lane solved alone or in contact ended in tail_).
    O = slow || resolve ? Gather(tail_, j) : end;
  }
}

void SpringWorld::WriteLaneGroups(const int* groups, int count, std::span<Transform> pose,
                                  bool world) {
  // WriteFlatChain (after FlatRotations) for the chains of lane groups, depth by depth in SIMD
  // lanes: each joint's world rotation from its end, its local rotation and (with `world`) its
  // world matrix. A chain's rotations are one series of dependent operations (each joint's from
  // the one above, through a square root and divisions): up to four groups go depth by depth
  // together, so the processor has independent work while one waits. The rare shortest arc
  // between opposite vectors is built per lane by the scalar function. Padding lanes repeat the
  // group's first chain and are never stored; so does a lane past its chain's end.
  const Rig& rig = *rig_;
  struct State {
    Q4 above;  // the world rotations of the joints above this depth
    V4 O;      // the joints' positions at this depth
    Lanes o;
    int begin[4];
    const int* chains;
    const int* links;  // per lane, its chain's links (the end joint's depth); not increasing
    int n;
    int nd;             // lanes in use at the current depth
    int next_end;       // the depth at which the shortest of them ends
    __m128 scale;       // per lane its chain's scale (lane 0's past a lane's end)
    const float* pack;  // the group's constants (PackLanes)
  };
  auto lane_scales = [&](const State& s) {
    auto scale = [&](int l) { return flat_[s.chains[l < s.nd ? l : 0]].scale; };
    return _mm_setr_ps(scale(0), scale(1), scale(2), scale(3));
  };
  constexpr int kBatch = 4;
  for (int b0 = 0; b0 < count; b0 += kBatch) {
    const int nb = std::min(kBatch, count - b0);
    State st[kBatch];
    int max_d = 0;
    for (int b = 0; b < nb; ++b) {
      State& s = st[b];
      const LaneGroup& g = lane_groups_[groups[b0 + b]];
      s.chains = g.chains;
      s.links = g.links;
      s.n = s.nd = g.n;
      s.next_end = g.links[g.n - 1];
      QLanes parent;
      for (int l = 0; l < 4; ++l) {
        const FlatChain& f = flat_[g.chains[l]];
        parent.Set(l, f.parent_rot);
        s.o.Set(l, f.root);
        s.begin[l] = rig.chains()[g.chains[l]].joint_begin;
      }
      s.above = parent.Load();
      s.O = s.o.Load();
      s.scale = lane_scales(s);
      s.pack = &lane_pack_[lane_pack_at_[groups[b0 + b]]];  // Create packs every group
      max_d = std::max(max_d, s.links[0]);
    }
    for (int d = 0; d < max_d; ++d)
      for (int b = 0; b < nb; ++b) {
        State& s = st[b];
        if (d >= s.links[0]) continue;
        // The lanes whose chain reaches this depth (a prefix): past a lane's end it repeats
        // lane 0's joint, as padding lanes do.
        if (d >= s.next_end) {  // a lane's chain has ended
          while (s.nd > 1 && s.links[s.nd - 1] <= d) s.begin[--s.nd] = s.begin[0];
          s.next_end = s.links[s.nd - 1];
          s.scale = lane_scales(s);
        }
        const int nd = s.nd;
        int j[4];
        const glm::quat* rest[4];
        for (int l = 0; l < 4; ++l) {
          j[l] = s.begin[l] + d;
          rest[l] = &rig.rest_local()[rig.joint_node()[j[l]]].rotation;
        }
        // Each joint's world scale and link length, as FlatRotations: (scale * rel) * axis
        // length; the joints' constants from the group's pack (the lanes' joints, in its order).
        const float* P = s.pack + static_cast<ptrdiff_t>(d) * kLaneFields * 4;
        const __m128 s4 =
            _mm_mul_ps(s.scale, _mm_loadu_ps(P + static_cast<ptrdiff_t>(4) * kLaneRel));
        const __m128 axis_len4 = _mm_loadu_ps(P + static_cast<ptrdiff_t>(4) * kLaneAxisLen);
        const V4 tail = Gather(tail_, j);
        // The last step built these rotations already where the lanes needed them (parent
        // mode, draping, angle limits: rotations_to in SolveChainLanes, the same operations on
        // the same values): taken from there.
        bool built = true;
        for (int l = 0; l < nd; ++l) built = built && flat_[s.chains[l]].q_done > j[l];
        Q4 rot;
        if (built) {
          const glm::quat* q[4];
          for (int l = 0; l < 4; ++l) q[l] = &flat_rot_[j[l < nd ? l : 0]];
          rot = GatherQ(q);
        } else {
          rot = JointRotation(s.above * GatherQ(rest), Gather(axis_unit_, j), s.O, tail,
                              _mm_mul_ps(s4, axis_len4));
        }
        // Local rotation: conjugate(parent) * rot, normalised, tiny components flushed.
        const __m128 sign = _mm_set1_ps(-0.0f);
        const Q4 local = Normalize(Q4{s.above.w, _mm_xor_ps(s.above.x, sign),
                                      _mm_xor_ps(s.above.y, sign), _mm_xor_ps(s.above.z, sign)} *
                                   rot);
        glm::quat *rot_to[4] = {}, *local_to[4] = {};
        for (int l = 0; l < nd; ++l) {
          rot_to[l] = &flat_rot_[j[l]];
          local_to[l] = &pose[rig.joint_node()[j[l]]].rotation;
        }
        ScatterQ(rot_to, rot, nd);
        ScatterQ(
            local_to,
            {FlushTiny4(local.w), FlushTiny4(local.x), FlushTiny4(local.y), FlushTiny4(local.z)},
            nd);
        s.above = rot;
        if (!world) {
          s.O = tail;
          continue;
        }
        // World matrix: internal::Compose(o, rot, scale) = mat3_cast(rot) * scale, then o.
        const __m128 two = _mm_set1_ps(2.0f), one = _mm_set1_ps(1.0f);
        auto m = [](__m128 a, __m128 c) { return _mm_mul_ps(a, c); };
        const __m128 qxx = m(rot.x, rot.x), qyy = m(rot.y, rot.y), qzz = m(rot.z, rot.z);
        const __m128 qxz = m(rot.x, rot.z), qxy = m(rot.x, rot.y), qyz = m(rot.y, rot.z);
        const __m128 qwx = m(rot.w, rot.x), qwy = m(rot.w, rot.y), qwz = m(rot.w, rot.z);
        alignas(16) float mat[9][4];
        _mm_store_ps(mat[0], m(_mm_sub_ps(one, m(two, _mm_add_ps(qyy, qzz))), s4));
        _mm_store_ps(mat[1], m(m(two, _mm_add_ps(qxy, qwz)), s4));
        _mm_store_ps(mat[2], m(m(two, _mm_sub_ps(qxz, qwy)), s4));
        _mm_store_ps(mat[3], m(m(two, _mm_sub_ps(qxy, qwz)), s4));
        _mm_store_ps(mat[4], m(_mm_sub_ps(one, m(two, _mm_add_ps(qxx, qzz))), s4));
        _mm_store_ps(mat[5], m(m(two, _mm_add_ps(qyz, qwx)), s4));
        _mm_store_ps(mat[6], m(m(two, _mm_add_ps(qxz, qwy)), s4));
        _mm_store_ps(mat[7], m(m(two, _mm_sub_ps(qyz, qwx)), s4));
        _mm_store_ps(mat[8], m(_mm_sub_ps(one, m(two, _mm_add_ps(qxx, qyy))), s4));
        for (int l = 0; l < nd; ++l) {
          glm::mat4& w = world_[rig.joint_node()[j[l]]];
          w[0] = glm::vec4(mat[0][l], mat[1][l], mat[2][l], 0.0f);
          w[1] = glm::vec4(mat[3][l], mat[4][l], mat[5][l], 0.0f);
          w[2] = glm::vec4(mat[6][l], mat[7][l], mat[8][l], 0.0f);
          w[3] = glm::vec4(s.o[l], 1.0f);
        }
        s.O = tail;
        s.o.Store(tail);
      }
    for (int b = 0; b < nb; ++b)
      for (int l = 0; l < st[b].n; ++l) {  // the end joint, as WriteFlatChain
        const State& s = st[b];
        FlatChain& f = flat_[s.chains[l]];
        const int last = rig.chains()[s.chains[l]].joint_begin + s.links[l];
        f.q_done = last;
        world_lazy_[s.chains[l]] = world ? 0 : 1;
        if (world && s.links[l] > 0) {
          const int node = rig.joint_node()[last];
          world_[node] = internal::Compose(tail_[last - 1],
                                           flat_rot_[last - 1] * rig.rest_local()[node].rotation,
                                           f.scale * rel_scale_[last]);
        }
      }
  }
}
void SpringWorld::SolveChainVrmLanes(const int* chains, int n, float dt, bool variable,
                                     StepReport& rep) {
  // vrm mode's flat chains of a lane group side by side (as SolveChainLanes: chains[0..3], n in
  // use, padding lanes and lanes past their chain's end compute lane 0's joint and are never
  // stored), one step: a fixed 1/120 s one, or one of the caller's dt (`variable`, three-vrm's own
  // stepping): link depth by link depth VrmFlatLink's operations in the lanes, the joints' world
  // rotations included (the next depth's bone axes hang from them). A lane goes through
  // VrmFlatLink itself at a depth where its link has a zero length or an angle limit other than a
  // cone it is clearly inside of, where the exact test finds a contact (the lanes only give the
  // verdict: no collider touches the end) or where its end is not finite; the state it reads is
  // stored only after that.
  const Rig& rig = *rig_;
  // VrmFlatLink's factors (spring_internal.h): the push scale is exactly 1 for a variable step, so
  // the pushes below are its expressions in both steppings. A fixed step here is the usual one,
  // so the velocity kept is VrmKeep's at kStep (which folds its step test away).
  HS_ASSERT(variable || dt == static_cast<float>(kStep));
  const float push_scale = internal::VrmPushScale(dt, variable);
  for (int l = 0; l < n; ++l) FlatRoot(chains[l]);
  // The group's colliders. A group whose chains have different ones tests their union: a lane
  // that finds a collider not its chain's goes through VrmFlatLink with its own (LaneOwnNear),
  // like any lane with a contact.
  const int g = lane_group_of_[chains[0]];
  const NearRange near =
      lane_mix_[g].near_base < 0 ? AllNear(chains[0]) : UnionNear(g, chains, nullptr);
  int begin[4], lane_links[4];
  for (int l = 0; l < 4; ++l) begin[l] = rig.chains()[chains[l]].joint_begin;
  for (int l = 0; l < n; ++l) lane_links[l] = rig.chains()[chains[l]].joint_end - begin[l] - 1;
  const int links = lane_links[0];  // not increasing: the group's order, longest first
  Lanes lroot;
  QLanes lparent;
  alignas(16) float sc[4];
  for (int l = 0; l < 4; ++l) {
    const FlatChain& fc = flat_[chains[l]];
    lroot.Set(l, fc.root);
    lparent.Set(l, fc.parent_rot);
    sc[l] = fc.scale;
  }
  const __m128 scale4 = _mm_load_ps(sc), one = _mm_set1_ps(1.0f), zero4 = _mm_setzero_ps();
  const __m128 dt4 = _mm_set1_ps(dt);
  V4 O = lroot.Load();        // the joints at this depth: the roots, then each depth's ends
  Q4 above = lparent.Load();  // the world rotations of the joints above them
  int nd = n;
  for (int d = 0; d < links; ++d) {
    while (nd > 1 && lane_links[nd - 1] <= d) --nd;  // lanes whose chain reaches this depth
    const int nmask = (1 << nd) - 1;
    int j[4];
    for (int l = 0; l < 4; ++l) j[l] = (l < nd ? begin[l] : begin[0]) + d;
    auto per_lane = [&](auto f) { return _mm_setr_ps(f(j[0]), f(j[1]), f(j[2]), f(j[3])); };
    const glm::quat* rest[4];
    for (int l = 0; l < 4; ++l) rest[l] = &rig.rest_local()[rig.joint_node()[j[l]]].rotation;
    const Q4 base = above * GatherQ(rest);
    // VrmFlatLink's bone length (scale * rel) * axis length, push and gravity factors.
    const __m128 len4 =
        _mm_mul_ps(_mm_mul_ps(scale4, per_lane([&](int k) { return rel_scale_[k]; })),
                   per_lane([&](int k) { return axis_len_[k]; }));
    int slow = _mm_movemask_ps(_mm_cmpngt_ps(len4, _mm_set1_ps(1e-7f)));  // zero length
    int cones = 0;  // cone limits: a lane whose end is clearly inside stays in the lanes
    const glm::quat* local[4];
    alignas(16) float cos_a[4];
    for (int l = 0; l < 4; ++l) {
      const internal::PreparedLimit& lim = limit_[j[l < nd ? l : 0]];
      local[l] = &lim.local;
      cos_a[l] = lim.cos_a + 1e-4f;
      if (l < nd && lim.kind == JointLimit::Kind::kCone)
        cones |= 1 << l;
      else if (l < nd && lim.kind != JointLimit::Kind::kNone)
        slow |= 1 << l;
    }
    const V4 wa = Rotate(base, Gather(axis_unit_, j));
    const V4 world_axis = _mm_div_ps(one, _mm_sqrt_ps(Dot(wa, wa))) * wa;  // glm::normalize
    const V4 cur = Gather(vrm_cur_, j), prev = Gather(vrm_prev_, j);
    V4 next = cur + per_lane([&](int k) {
                      return VrmKeep(k, static_cast<float>(kStep), variable);
                    }) * (cur - prev);
    next = next + per_lane([&](int k) {
                    return stiffness_[k] * config_.stiffness_scale * dt * push_scale;
                  }) * world_axis;
    next = next + per_lane([&](int k) { return gravity_power_[k] * dt * push_scale; }) *
                      Gather(gravity_dir_, j);
    const V4 dn = next - O;
    next = len4 * (_mm_div_ps(one, _mm_sqrt_ps(Dot(dn, dn))) * dn) + O;
    if (cones) {
      // VrmFlatLink's limit leaves the end alone when its direction is within the cone: here
      // the cone's axis (the limit frame's +Y) against the link with a margin of 1e-4 in the
      // cosine, as SolveChainLanes; any other lane goes through VrmFlatLink.
      const V4 axis = Rotate(base * GatherQ(local), V4{zero4, one, zero4});
      const V4 e = next - O;
      const __m128 need = _mm_mul_ps(_mm_load_ps(cos_a), _mm_sqrt_ps(Dot(e, e)));
      slow |= cones & ~_mm_movemask_ps(_mm_cmpge_ps(Dot(axis, e), need));
    }
    // The contact verdict: NarrowLink's candidates (a ball of the bone length + hit radius
    // around the joint), then the exact test on the end; a plane or an inside shape, or a
    // contact, sends the lane to VrmFlatLink.
    const __m128 hit4 = per_lane([&](int k) { return hit_radius_[k]; });
    const __m128 reach_r = _mm_add_ps(len4, hit4);
    for (int c = near.begin; c < near.end; ++c) {
      const int cand = nmask & ~slow & NearBall4(O, reach_r, near_splat_[c]);
      if (!cand) continue;
      const int ci = near_colliders_[c];
      if (collider_bound_[ci].w < 0.0f) {
        slow |= cand;
        continue;
      }
      slow |=
          cand & _mm_movemask_ps(_mm_cmplt_ps(PointSeparation4(colliders_[ci], next, hit4), zero4));
    }
    const V4 z = (next - next);  // x - x is NaN for inf and NaN
    slow |= nmask & ~_mm_movemask_ps(_mm_cmpord_ps(_mm_add_ps(_mm_add_ps(z.x, z.y), z.z), zero4));
    next = V4{FlushTiny4(next.x), FlushTiny4(next.y), FlushTiny4(next.z)};
    const Q4 rot = Normalize(
        FromUnitVectorsUnnormalised4(world_axis, _mm_div_ps(one, len4) * (next - O)) * base);
    slow &= nmask;
    if (slow) {  // those lanes alone, before the state they read is stored
      Lanes lo;
      QLanes la;
      lo.Store(O);
      la.Store(above);
      for (int l = 0; l < nd; ++l)
        if (slow >> l & 1) {
          glm::vec3 pos = lo[l];
          glm::quat q = la[l];
          VrmFlatLink(j[l], sc[l], LaneOwnNear(chains[l], near), dt, variable, pos, q, rep);
        }
    }
    const int store = nmask & ~slow;
    const V4 vel = Div(next - Gather(tail_, j), dt4);
    Scatter(vrm_prev_, j, cur, store);
    Scatter(vrm_cur_, j, next, store);
    Scatter(tail_, j, next, store);
    Scatter(vel_, j, vel, store);
    QLanes lr;
    lr.Store(rot);
    for (int l = 0; l < nd; ++l)
      if (store >> l & 1) flat_rot_[j[l]] = lr[l];
    if (slow) {  // the next depth's joints and rotations from memory (lane 0's for padding)
      const glm::quat* q[4];
      for (int l = 0; l < 4; ++l) q[l] = &flat_rot_[j[l]];
      above = GatherQ(q);
      O = Gather(tail_, j);
    } else {
      above = rot;
      O = next;
    }
  }
  for (int l = 0; l < n; ++l) flat_[chains[l]].q_done = begin[l] + lane_links[l];
}
#undef HS_LANE
#else
void SpringWorld::SolveChainLanes(const int* chains, int n, float h, StepReport& rep) {
  for (int l = 0; l < n; ++l) SolveChainFlat(chains[l], h, rep);  // never called: Solve
}
void SpringWorld::SolveChainVrmLanes(const int* chains, int n, float dt, bool variable,
                                     StepReport& rep) {
  for (int l = 0; l < n; ++l) SolveChainVrmFlat(chains[l], dt, variable, rep);  // never called
}
void SpringWorld::WriteLaneGroups(const int* groups, int count, std::span<Transform> pose,
                                  bool world) {
  for (int b = 0; b < count; ++b)  // never called: WriteBack
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
#if HAIRSWING_SIMD && defined(__SSE2__)
  // (vrm mode's flat chains built their rotations during the step: taken as they are, below.)
  if (config_.chain_lanes && config_.mode != SolverMode::kVrm) {
    int written = 0;
    for (int g = 0; g < static_cast<int>(lane_groups_.size()); ++g) {
      const LaneGroup& group = lane_groups_[g];
      if (!std::all_of(group.chains, group.chains + group.n,
                       [&](int c) { return flat_[c].pending != 0; }))
        continue;
      lane_write_[written++] = g;
      for (int m = 0; m < group.n; ++m) lane_written_[group.chains[m]] = 1;
    }
    WriteLaneGroups(lane_write_.data(), written, pose, world);
  }
#endif
  // The others: each joint's world rotation waits for the one above it: a chain's rotations are
  // one long series of dependent operations (normalisations with a square root and a division),
  // so the processor idles between them. Chains do not depend on each other: building the
  // rotations of all chains depth by depth gives it independent work to overlap. Same
  // operations, same bits.
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
  if (!lane_has) return {base, base + n};
  const uint32_t bits[4] = {near_bits_[chains[0]], near_bits_[chains[1]], near_bits_[chains[2]],
                            near_bits_[chains[3]]};
  for (int k = 0; k < n; ++k)
    lane_has[k] = static_cast<uint8_t>((bits[0] >> k & 1) | (bits[1] >> k & 1) << 1 |
                                       (bits[2] >> k & 1) << 2 | (bits[3] >> k & 1) << 3);
  return {base, base + n};
}

}  // namespace hairswing
