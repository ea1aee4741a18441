// `vrm` mode: the VRMC_springBone 1.0 reference update, step for step as three-vrm 3.5.5's
// VRMSpringBoneJoint.update(delta) computes it (docs/solver.md, "vrm mode and three-vrm"):
//   next = cur + (cur - prev)(1 - drag)               (in center space, then to world)
//        + worldBoneAxis * stiffness * dt + gravityDir * gravityPower * dt
//   next = pos + L * normalize(next - pos);  collide: push out by -dist, renormalise
//   prev = cur; cur = next; rotation = rest * fromUnitVectors(boneAxis, localDir(next))
// Drag is applied per call, not per second, so three-vrm itself changes with frame rate; under
// our fixed 120 Hz steps this mode is frame-rate independent.
#include <cmath>

#include "core/det_math.h"
#include "core/quat_sse.h"
#include "hairswing/spring.h"
#include "spring/limits.h"
#include "spring/spring_internal.h"

namespace hairswing {

template <class Limit>
inline void SpringWorld::VrmContacts(const NearRange& near, int j, const glm::vec3& pos,
                                     float bone_length, glm::vec3& next, StepReport& rep,
                                     Limit limit) {
  // next stays bone_length from pos through every push, so only colliders whose bounding sphere
  // the ball of radius bone_length + hit around pos reaches can touch it: picked four at a time
  // (NarrowLink, conservative), then tested in the chain's order as three-vrm does. After each
  // push the end goes back onto the bone and into the angle limit (`limit(next)`).
  const float hit = hit_radius_[j];
  const int candidates = NarrowLink(near.begin, near.end, pos, bone_length + hit);
  for (int k = 0; k < candidates; ++k) {
    const int ci = joint_colliders_[k];
    if (internal::ClearOfBound(collider_bound_[ci], next, hit)) continue;
    glm::vec3 n;
    const float dist = PointContactFast(colliders_[ci], next, hit, &n);
    if (dist < 0.0f) {
      next += n * (-dist);
      const glm::vec3 d = next - pos;
      next = d * (bone_length / glm::length(d)) + pos;
      limit(next);
      ++rep.contacts;
      rep.flags |= kStepContact;
    }
  }
}

void SpringWorld::SolveChainVrm(int chain, std::span<Transform> pose, float dt, bool variable,
                                StepReport& rep) {
  const Rig& rig = *rig_;
  // Fixed steps (Step): VRM content is authored for one update per 60 Hz frame, and the Verlet
  // update is not frame-rate independent (drag per call, stiffness * dt per call: at 120 calls
  // per second a chain is twice as stiff and twice as damped as the author saw it). Each fixed
  // step therefore applies the 60 Hz update's effect over h: drag kept per step (1 -
  // drag)^(h/dt_ref), pushes scaled by h/dt_ref. StepVariable (three-vrm's own per-frame update) is
  // unchanged.
  const float push_scale = internal::VrmPushScale(dt, variable);
  const RigChain& ch = rig.chains()[chain];
  const glm::mat4 center_to_world = ch.center >= 0 ? world_[ch.center] : glm::mat4(1.0f);
  const glm::mat4 world_to_center =
      ch.center >= 0 ? glm::inverse(center_to_world) : glm::mat4(1.0f);
  const NearRange near = AllNear(chain);

  for (int j = ch.joint_begin; j + 1 < ch.joint_end; ++j) {
    const int node = rig.joint_node()[j];
    const int next_node = rig.joint_node()[j + 1];
    const int parent = rig.parent()[node];
    const glm::mat4 parent_world = parent >= 0 ? world_[parent] : glm::mat4(1.0f);
    const glm::mat4& bone_world = world_[node];

    if (!owned_.empty() && owned_[node]) {
      UpdateWorldPath(j, pose);
      const glm::vec3 animated(world_[next_node][3]);
      vel_[j] = (animated - tail_[j]) / dt;
      tail_[j] = animated;
      vrm_prev_[j] = vrm_cur_[j] = internal::TransformPoint(world_to_center, animated);
      continue;
    }
    // A virtual tail (synthetic node) is computed from the bone's current matrix in three-vrm
    // too; a real child is read as it was at the start of the frame in compat mode.
    const bool stale = config_.vrm_three_compat && rig.source_node()[next_node] >= 0;
    const float bone_length = stale ? glm::length(glm::vec3(bone_world[3]) - stale_child_[j])
                                    : glm::length(glm::mat3(bone_world) * axis_local_[j]);
    if (!(bone_length > 1e-7f)) {
      rep.flags |= kStepZeroLength;
      UpdateWorldPath(j, pose);
      continue;
    }
    const glm::mat4& initial_local = vrm_initial_local_[j];
    const glm::vec3 bone_axis = vrm_bone_axis_[j];
    const glm::vec3 world_axis = glm::normalize(glm::mat3(parent_world) * vrm_axis_in_parent_[j]);

    const float keep = VrmKeep(j, dt, variable);
    const glm::vec3 cur = vrm_cur_[j];
    glm::vec3 next = cur + (cur - vrm_prev_[j]) * keep;
    next = internal::TransformPoint(center_to_world, next);
    next += world_axis * (stiffness_[j] * config_.stiffness_scale * dt * push_scale);
    next += gravity_dir_[j] * (gravity_power_[j] * dt * push_scale);
    const glm::vec3 pos(bone_world[3]);
    next = glm::normalize(next - pos) * bone_length + pos;
    // An angle limit, after the inertia and again after every push (UniVRM's order, as the
    // VRMC_springBone_limit draft recommends), in the joint's rest frame under its parent.
    const internal::PreparedLimit& limit = limit_[j];
    const bool limited = limit.kind != JointLimit::Kind::kNone;
    // The limit's frame (the parent's world rotation, an orthonormalisation with four square
    // roots) only where it is used: a cone the end is clearly inside of leaves it alone.
    glm::quat limit_frame(1, 0, 0, 0);
    bool framed = false;
    auto frame = [&]() -> const glm::quat& {
      if (!framed)
        limit_frame =
            internal::RotationOf(parent_world) * rig.rest_local()[node].rotation * limit.local;
      framed = true;
      return limit_frame;
    };
    if (limited && !internal::ConeClearly(limit, cone_axis_parent_[j], parent_world, next - pos))
      internal::ApplyLimit(limit, frame(), pos, bone_length, next);

    VrmContacts(near, j, pos, bone_length, next, rep, [&](glm::vec3& end) {
      if (limited) internal::ApplyLimit(limit, frame(), pos, bone_length, end);
    });
    if (!(std::isfinite(next.x) && std::isfinite(next.y) && std::isfinite(next.z))) {
      next = pos + glm::normalize(world_axis) * bone_length;  // never let a NaN out
      rep.flags |= kStepRepaired;
    }
    next = internal::FlushTiny(next);
    const glm::vec3 prev_world = tail_[j];
    vrm_prev_[j] = cur;
    vrm_cur_[j] = internal::TransformPoint(world_to_center, next);
    tail_[j] = next;
    vel_[j] = (next - prev_world) / dt;

    // The end in the bone's initial frame under its current parent, as a direction. That frame
    // is nearly always rotation x uniform scale s, whose inverse is its transpose / s^2: the
    // direction needs only the transpose (the normalisation removes s^2), not a 4x4 inverse.
    glm::mat4 initial_world;
    internal::MulAffineTo(parent_world, initial_local, &initial_world);
    const glm::vec3 local_end =
        internal::IsSimilarity(initial_world)
            ? glm::transpose(glm::mat3(initial_world)) * (next - glm::vec3(initial_world[3]))
            : glm::vec3(glm::inverse(initial_world) * glm::vec4(next, 1.0f));
    const glm::vec3 to = glm::normalize(local_end);
    pose[node].rotation = internal::FlushTiny(rig.rest_local()[node].rotation *
                                              internal::FromUnitVectors(bone_axis, to));
    solved_rot_[j] = pose[node].rotation;
    UpdateWorldPath(j, pose);
  }
}

void SpringWorld::SolveChainVrmFlat(int chain, float dt, bool variable, StepReport& rep) {
  // SolveChainVrm's update for a plain chain (ChainIsFlat: direct parent-child joints, uniform
  // scale, no centre node, no clip-owned joint, the spec's bone length) without 4x4 matrices:
  // the joint loop carries the joint's position (the end solved above it) and the world
  // rotation of the joint above (flat_rot_), and builds each joint's world rotation as it goes,
  // since the next joint's bone axis hangs from it. The same formulas as SolveChainVrm, through
  // quaternions instead of matrices: the same physics up to rounding (flat_path_test.cpp).
  const RigChain& ch = rig_->chains()[chain];
  FlatRoot(chain);
  FlatChain& fc = flat_[chain];
  const NearRange near = AllNear(chain);
  glm::vec3 pos = fc.root;
  glm::quat above = fc.parent_rot;  // world rotation of the joint above (its parent at the root)
  for (int j = ch.joint_begin; j + 1 < ch.joint_end; ++j)
    VrmFlatLink(j, fc.scale, near, dt, variable, pos, above, rep);
  fc.q_done = ch.joint_end - 1;  // the rotations are built: WriteBack takes them as they are
  if (flat_feeds_[chain]) WriteFlatChain(chain, {});  // a later chain hangs from this one
}

void SpringWorld::VrmFlatLink(int j, float scale, const NearRange& near, float dt, bool variable,
                              glm::vec3& pos, glm::quat& above, StepReport& rep) {
  const float push_scale = internal::VrmPushScale(dt, variable);
  // (quat_sse.h: glm's operations, in one register each where SSE2 is; the same bits.)
  const glm::quat base =
      internal::QuatMul(above, rig_->rest_local()[rig_->joint_node()[j]].rotation);
  const float bone_length = scale * rel_scale_[j] * axis_len_[j];
  if (!(bone_length > 1e-7f)) {  // zero-length segment: its end is the joint itself
    rep.flags |= kStepZeroLength;
    tail_[j] = vrm_cur_[j] = vrm_prev_[j] = pos;
    vel_[j] = glm::vec3(0.0f);
    flat_rot_[j] = above = base;
    return;
  }
  const glm::vec3 world_axis = internal::RotateNormalized(base, axis_unit_[j]);
  const float keep = VrmKeep(j, dt, variable);
  const glm::vec3 cur = vrm_cur_[j];
  glm::vec3 next = cur + (cur - vrm_prev_[j]) * keep;
  next += world_axis * (stiffness_[j] * config_.stiffness_scale * dt * push_scale);
  next += gravity_dir_[j] * (gravity_power_[j] * dt * push_scale);
  next = glm::normalize(next - pos) * bone_length + pos;
  // An angle limit (as SolveChainVrm): its frame is the rest rotation under the joint above.
  const internal::PreparedLimit& limit = limit_[j];
  const bool limited = limit.kind != JointLimit::Kind::kNone;
  const glm::quat limit_frame = limited ? base * limit.local : base;
  if (limited) internal::ApplyLimit(limit, limit_frame, pos, bone_length, next);
  VrmContacts(near, j, pos, bone_length, next, rep, [&](glm::vec3& end) {
    if (limited) internal::ApplyLimit(limit, limit_frame, pos, bone_length, end);
  });
  if (!(std::isfinite(next.x) && std::isfinite(next.y) && std::isfinite(next.z))) {
    next = pos + world_axis * bone_length;  // never let a NaN out
    rep.flags |= kStepRepaired;
  }
  next = internal::FlushTiny(next);
  const glm::vec3 prev_world = tail_[j];
  vrm_prev_[j] = cur;
  vrm_cur_[j] = next;
  tail_[j] = next;
  vel_[j] = (next - prev_world) / dt;
  // The joint's world rotation: its rest rotation under the joint above, turned so that the
  // bone axis points at the end (three-vrm's fromUnitVectors, in world space). The shortest-arc
  // quaternion is left unnormalised: the product is normalised once.
  above = flat_rot_[j] =
      internal::TurnToward(base, world_axis, (next - pos) * (1.0f / bone_length));
  pos = next;
}

}  // namespace hairswing
