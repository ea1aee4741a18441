// VRMC_node_constraint 1.0 evaluation: rotation, roll and aim constraints on local rotations,
// each blended from the destination's rest rotation by its weight.
//   rotation: target = dstRest * (srcRest^-1 * src)
//   roll:     delta = dstRest^-1 * src * srcRest^-1 * dstRest (the source's change, seen in the
//             destination's rest frame); keep only its twist about the roll axis:
//             target = dstRest * FromTo(delta * axis -> axis) * delta
//   aim:      a0 = parentWorld * dstRest * aimAxis, a1 = direction to the source (world);
//             target = parentWorld^-1 * FromTo(a0 -> a1) * parentWorld * dstRest
// result = slerp(dstRest, target, weight).
#include <algorithm>

#include "core/det_math.h"
#include "core/math.h"
#include "hairswing/anim.h"

namespace hairswing {

Result<std::vector<RigConstraint>> BuildConstraints(const Avatar& av, const Rig& rig) {
  std::vector<RigConstraint> all;
  for (const NodeConstraint& c : av.vrm.constraints) {
    RigConstraint r;
    r.kind = c.kind;
    r.node = rig.node_to_rig()[c.node];
    r.source = rig.node_to_rig()[c.source];
    r.weight = std::clamp(c.weight, 0.0f, 1.0f);
    if (c.kind == NodeConstraint::Kind::kAim) {
      const float sign = c.axis.rfind("Negative", 0) == 0 ? -1.0f : 1.0f;
      const char ax = c.axis.back();
      r.axis = glm::vec3(ax == 'X' ? sign : 0, ax == 'Y' ? sign : 0, ax == 'Z' ? sign : 0);
    } else if (c.kind == NodeConstraint::Kind::kRoll) {
      r.axis = glm::vec3(c.axis == "X" ? 1 : 0, c.axis == "Y" ? 1 : 0, c.axis == "Z" ? 1 : 0);
    }
    r.dst_rest = rig.rest_local()[r.node].rotation;
    r.src_rest = rig.rest_local()[r.source].rotation;
    all.push_back(r);
  }
  // Order: a constraint runs after every constraint whose destination is its source or an
  // ancestor of it (or, for aim, an ancestor of its own node). Kahn's algorithm over those
  // dependencies, found by walking up from each source: no recursion (a 200,000-long chain of
  // constraints from a file must not overflow the stack) and no n^2 pass over all pairs.
  const size_t n = all.size();
  if (n > kMaxConstraints)
    return Status(StatusCode::kInvalidInput, "VRMC_node_constraint: " + std::to_string(n) +
                                                 " constraints, more than the " +
                                                 std::to_string(kMaxConstraints) + " supported");
  std::vector<std::vector<int>> at_node(rig.node_count());  // rig node -> constraints writing it
  for (size_t k = 0; k < n; ++k) at_node[all[k].node].push_back(static_cast<int>(k));
  std::vector<std::vector<int>> runs_before(n);  // k -> constraints that must run after k
  std::vector<int> waiting(n, 0);                // dependencies not yet placed, per constraint
  // Each walk is as long as the rig is deep: a file with tens of thousands of constraints down a
  // 100,000-deep chain would take billions of steps, so the total is bounded.
  size_t walked = 0;
  constexpr size_t kMaxWalk = 50'000'000;
  auto depend_on_ancestors = [&](size_t i, int start, bool skip_same_node) {
    for (int p = start; p >= 0 && ++walked <= kMaxWalk; p = rig.parent()[p])
      for (int k : at_node[p]) {
        if (static_cast<size_t>(k) == i || (skip_same_node && all[k].node == all[i].node)) continue;
        runs_before[k].push_back(static_cast<int>(i));
        ++waiting[i];
      }
  };
  for (size_t i = 0; i < n; ++i) {
    depend_on_ancestors(i, all[i].source, false);
    if (all[i].kind == NodeConstraint::Kind::kAim) depend_on_ancestors(i, all[i].node, true);
  }
  if (walked > kMaxWalk)
    return Status(StatusCode::kInvalidInput,
                  "VRMC_node_constraint: " + std::to_string(n) +
                      " constraints on a hierarchy this deep are too many to order");
  std::vector<int> order;
  order.reserve(n);
  for (size_t i = 0; i < n; ++i)
    if (waiting[i] == 0) order.push_back(static_cast<int>(i));
  for (size_t head = 0; head < order.size(); ++head)
    for (int j : runs_before[order[head]])
      if (--waiting[j] == 0) order.push_back(j);
  if (order.size() < n) {
    size_t i = 0;
    while (waiting[i] == 0) ++i;
    const int src = rig.source_node()[all[i].node];
    return Status(StatusCode::kInvalidInput,
                  "VRMC_node_constraint: dependency cycle through node " + std::to_string(src) +
                      (src >= 0 ? " (\"" + av.nodes[src].name + "\")" : ""));
  }
  std::vector<RigConstraint> sorted;
  sorted.reserve(order.size());
  for (int i : order) sorted.push_back(all[i]);
  return sorted;
}

void ApplyConstraints(const Rig& rig, std::span<const RigConstraint> cs, std::span<Transform> pose,
                      std::span<glm::mat4> world) {
  for (const RigConstraint& c : cs) {
    glm::quat target;
    switch (c.kind) {
      case NodeConstraint::Kind::kRotation:
        target = c.dst_rest * (glm::inverse(c.src_rest) * pose[c.source].rotation);
        break;
      case NodeConstraint::Kind::kRoll: {
        const glm::quat delta = glm::inverse(c.dst_rest) * pose[c.source].rotation *
                                glm::inverse(c.src_rest) * c.dst_rest;
        const glm::vec3 n1 = delta * c.axis;
        target = c.dst_rest * internal::FromUnitVectors(glm::normalize(n1), c.axis) * delta;
        break;
      }
      case NodeConstraint::Kind::kAim: {
        // World positions under the current pose (recomputed after any earlier constraint).
        ComputeWorld(rig, pose, world);
        const int parent = rig.parent()[c.node];
        const glm::quat pw =
            parent >= 0 ? internal::RotationOf(world[parent]) : glm::quat(1, 0, 0, 0);
        const glm::vec3 a0 = pw * (c.dst_rest * c.axis);
        const glm::vec3 to = glm::vec3(world[c.source][3]) - glm::vec3(world[c.node][3]);
        if (glm::length(to) < 1e-9f) {
          target = c.dst_rest;
          break;
        }
        const glm::vec3 a1 = glm::normalize(to);
        target =
            glm::inverse(pw) * internal::FromUnitVectors(glm::normalize(a0), a1) * pw * c.dst_rest;
        break;
      }
    }
    glm::quat t = glm::normalize(target);
    if (glm::dot(c.dst_rest, t) < 0) t = -t;
    pose[c.node].rotation = glm::normalize(det::Slerp(c.dst_rest, t, c.weight));
  }
}

}  // namespace hairswing
