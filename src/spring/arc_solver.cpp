// The `arc` and `parent` integrators (SPEC M2, M3; docs/solver.md).
//
// Per segment i with joint position o_i, simulated end x_i, velocity v_i:
//   rest vector  arc:    R_H R_i^0 (s a_i)  = mat3(W_attach) * arc_attach_i  (original arc)
//                parent: mat3(W_joint at rest rotation under the bent parent) * a_i
//   f = k (r - x) + g;  u = e^(-c h) (v + h f);  y = x + h u;  x^ = o + L (y - o)/|y - o|
// then contacts without bounce: v* = (x^ - x)/h is rebuilt before any push-out; each push-out
// along n removes only the inward part of v*; the projection is repeated; finally the radial
// velocity along the link is removed.
#include <algorithm>
#include <cmath>

#include "core/det_math.h"
#include "hairswing/spring.h"
#include "spring/spring_internal.h"

namespace hairswing {

namespace {
constexpr int kContactIterations = 2;
constexpr int kMaxNormals = 8;      // contact normals remembered per segment and step
constexpr float kMinLever = 0.25f;  // contact near the root: bound the tail correction (1/u)
}  // namespace

void SpringWorld::SolveChainArc(int chain, std::span<Transform> pose, float h, StepReport& rep) {
  const Rig& rig = *rig_;
  const RigChain& ch = rig.chains()[chain];
  const bool arc = config_.mode == SolverMode::kArc;
  const bool segment = config_.segment_checks[chain] != 0;
  const glm::mat3 attach = ch.attach >= 0 ? glm::mat3(world_[ch.attach]) : glm::mat3(1.0f);

  // Broad phase: only colliders that can touch a sphere holding the chain this step. The sphere
  // bounds the root and last step's ends, grown by how far any end can travel in one step
  // (|v| h is an upper bound after damping; the pull adds at most h^2 |f|, covered by the
  // margin) and by the largest hit radius; it is never larger than the chain's full reach.
  const glm::mat4& root_world = world_[rig.joint_node()[ch.joint_begin]];
  const glm::vec3 root(root_world[3]);
  const float scale = std::max(glm::length(glm::vec3(root_world[0])), 1e-6f);
  glm::vec3 lo = root, hi = root;
  float max_hit = 0.0f, max_speed = 0.0f;
  for (int j = ch.joint_begin; j + 1 < ch.joint_end; ++j) {
    lo = glm::min(lo, tail_[j]);
    hi = glm::max(hi, tail_[j]);
    max_hit = std::max(max_hit, rig.joint_hit_radius()[j]);
    max_speed = std::max(max_speed, glm::dot(vel_[j], vel_[j]));
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
  int near_end = ch.collider_begin;
  for (int k = ch.collider_begin; k < ch.collider_end; ++k) {
    const int ci = rig.chain_colliders()[k];
    const ColliderShape sh = colliders_[ci].shape;
    const bool always = sh == ColliderShape::kInsideSphere || sh == ColliderShape::kInsideCapsule;
    if (always || PointSeparation(colliders_[ci], bound_c, bound_r) < 0.0f)
      near_colliders_[near_end++] = ci;
  }
  bool below_contact = false;  // a segment above touched a collider (this step or the last)
  // The rotation of the previous joint's world frame, when it is this joint's parent.
  int cached_node = -1;
  glm::quat cached_rot(1, 0, 0, 0);
  // Fast frames: when every joint's world matrix is a similarity (rotation, uniform scale,
  // translation) and each joint is the direct parent of the next, world matrices are composed
  // from (position, quaternion, scale) instead of multiplying 4x4 matrices.
  const bool fast = chain_fast_[chain] && internal::IsSimilarity(root_world);

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
      continue;
    }
    // Draping: below a segment that touches a collider (this step or the last), the head-frame
    // arc would pull the strand back through the collider (a lower segment's arc direction does
    // not know the strand was deflected above it). There the rest direction comes from the
    // deflected parent, so the strand hangs around the collider, as it rests on it.
    const bool drape = arc && below_contact;
    const glm::vec3 rest_vec =
        arc && !drape ? attach * arc_attach_[j] : glm::mat3(joint_world) * axis_local_[j];
    const float joint_scale = glm::length(glm::vec3(joint_world[0]));
    const float len =
        fast ? joint_scale * axis_len_[j] : glm::length(glm::mat3(joint_world) * axis_local_[j]);
    if (!(len > 1e-7f)) {  // zero-length segment: nothing to swing
      rep.flags |= kStepZeroLength;
      UpdateWorldPath(j, pose);
      tail_[j] = glm::vec3(world_[next][3]);
      vel_[j] = glm::vec3(0.0f);
      prev_target_[j] = tail_[j];
      continue;
    }
    const ModeCoefficients& mc = Coefficients(arc);
    const SegmentCoefficients& cf = mc.coef[j];
    const glm::vec3 x = tail_[j];
    // The rest target now and at the previous step (it moves with the head and with this
    // segment's joint). x is the end as it was at the previous step, so the pull compares it with
    // the target of that same instant: comparing it with the target of this step would count the
    // target's whole move over the step as lag (a lead of h V in steady motion, larger than the
    // drag lag c V / k on stiff short segments).
    const glm::vec3 target = o + rest_vec;
    const glm::vec3 target_before = prev_target_[j];
    const glm::vec3 vt = (target - target_before) / h;
    prev_target_[j] = target;
    const glm::vec3 f = cf.k * (target_before - x) + cf.g;
    const bool fixed = h == static_cast<float>(kStep);
    const float damp = fixed ? mc.damp[j] : det::ExpF(-cf.c * h);
    const float damp_rel = fixed ? mc.damp_rel[j] : det::ExpF(-cf.c_rel * h);
    // Relative damping on the velocity relative to the target, then the pull, then air drag on
    // the world velocity:  u = e^(-c h) (v_t + e^(-c_rel h) (v - v_t) + h f). The pull is added
    // after the relative damping so it does not damp the spring's own impulse: a segment moving
    // with its target lags by the drag alone (c V / k), whatever c_rel is.
    const glm::vec3 u = damp * (vt + damp_rel * (vel_[j] - vt) + h * f);
    const glm::vec3 y = x + h * u;
    auto rest_dir = [&] { return rest_vec / std::max(glm::length(rest_vec), 1e-12f); };
    auto project = [&](const glm::vec3& p) {
      const glm::vec3 d = p - o;
      const float l = glm::length(d);
      return o + len * (l > 1e-9f * len ? d / l : rest_dir());
    };
    glm::vec3 xh = project(y);
    glm::vec3 vs = (xh - x) / h;  // rebuilt before any push-out

    const float hit = rig.joint_hit_radius()[j] * joint_scale;
    glm::vec3 normals[kMaxNormals];
    int n_normals = 0;
    // Narrow the chain's colliders to those that can reach this link at all: the link and its
    // hit radius stay inside the ball of radius len + hit around o whatever the pushes do.
    int joint_end = 0;
    for (int k = ch.collider_begin; k < near_end; ++k)
      if (!internal::ClearOfBound(collider_bound_[near_colliders_[k]], o, len + hit))
        joint_colliders_[joint_end++] = near_colliders_[k];
    for (int it = 0; it < kContactIterations && joint_end > 0; ++it) {
      bool any = false;
      for (int k = 0; k < joint_end; ++k) {
        const int ci = joint_colliders_[k];
        if (segment ? internal::ClearOfBound(collider_bound_[ci], 0.5f * (o + xh), 0.5f * len + hit)
                    : internal::ClearOfBound(collider_bound_[ci], xh, hit))
          continue;
        const WorldCollider& col = colliders_[ci];
        glm::vec3 n;
        float at = 1.0f;
        // Cheap reject for a whole link: a sphere around its middle that holds the link.
        if (segment && PointSeparation(col, 0.5f * (o + xh), 0.5f * len + hit) > 0.0f) continue;
        const float sep =
            segment ? SegmentContact(col, o, xh, hit, &at, &n) : PointContactFast(col, xh, hit, &n);
        if (!(sep < 0.0f)) continue;
        // The link pivots about o: moving its point at parameter `at` by -sep along n takes a
        // tail move of about -sep/at.
        xh = project(xh - n * (sep / std::max(at, kMinLever)));
        vs -= std::min(0.0f, glm::dot(vs, n)) * n;
        if (n_normals < kMaxNormals) normals[n_normals++] = n;
        any = true;
        ++rep.contacts;
      }
      if (!any) break;
      rep.flags |= kStepContact;
    }
    const bool touched = n_normals > 0;
    below_contact = below_contact || touched || in_contact_[j];
    in_contact_[j] = touched ? 1 : 0;
    const glm::vec3 dir = (xh - o) / len;
    vs -= glm::dot(vs, dir) * dir;
    // Removing the radial part can tilt the velocity back into a contact whose normal is not
    // perpendicular to the link. Remove the inward part once more, along each normal's component
    // perpendicular to the link, so the result keeps |link| fixed and still never moves inwards.
    for (int i = 0; i < n_normals; ++i) {
      glm::vec3 np = normals[i] - glm::dot(normals[i], dir) * dir;
      const float l = glm::length(np);
      if (l < 1e-6f) continue;
      np /= l;
      vs -= std::min(0.0f, glm::dot(vs, np)) * np;
    }
    if (!(std::isfinite(xh.x) && std::isfinite(xh.y) && std::isfinite(xh.z) &&
          std::isfinite(vs.x) && std::isfinite(vs.y) && std::isfinite(vs.z))) {
      xh = o + rest_dir() * len;  // never let a NaN out
      vs = glm::vec3(0.0f);
      rep.flags |= kStepRepaired;
    }
    xh = internal::FlushTiny(xh);
    vs = internal::FlushTiny(vs);
    tail_[j] = xh;
    vel_[j] = vs;

    // Joint rotation that points the rest axis at the new end: q_w = Rot(a_w -> dir) * base,
    // local = R_parent^-1 * q_w, with base the rest local rotation under the current parent.
    const int parent = rig.parent()[node];
    const glm::quat parent_rot = parent == cached_node ? cached_rot
                                 : parent >= 0         ? internal::RotationOf(world_[parent])
                                                       : glm::quat(1, 0, 0, 0);
    const glm::quat base = parent_rot * rig.rest_local()[node].rotation;
    const glm::vec3 axis_world = base * axis_unit_[j];
    const glm::quat q_world =
        glm::normalize(internal::FromUnitVectors(axis_world, (xh - o) / len) * base);
    pose[node].rotation = internal::FlushTiny(glm::normalize(glm::inverse(parent_rot) * q_world));
    if (fast) {
      // world(node) = T(o) R(q_world) s; the next joint hangs off it at its pose translation.
      world_[node] = internal::Compose(o, q_world, joint_scale);
      const Transform& tn = pose[next];
      world_[next] = internal::Compose(o + q_world * (joint_scale * tn.translation),
                                       q_world * tn.rotation, joint_scale * tn.scale.x);
    } else {
      UpdateWorldPath(j, pose);
    }
    cached_node = node;
    cached_rot = q_world;
  }
}

}  // namespace hairswing
