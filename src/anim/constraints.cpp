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
#include <functional>

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
  // Order: a constraint runs after every constraint whose destination is its source (or, for
  // aim, an ancestor of its source or of its own node). Depth-first with cycle detection.
  const size_t n = all.size();
  auto is_ancestor_or_self = [&](int a, int node) {
    for (int p = node; p >= 0; p = rig.parent()[p])
      if (p == a) return true;
    return false;
  };
  std::vector<int> state(n, 0), order;
  std::function<bool(size_t)> visit = [&](size_t i) {
    if (state[i] == 2) return true;
    if (state[i] == 1) return false;
    state[i] = 1;
    for (size_t k = 0; k < n; ++k) {
      if (k == i) continue;
      const bool feeds =
          is_ancestor_or_self(all[k].node, all[i].source) ||
          (all[i].kind == NodeConstraint::Kind::kAim &&
           is_ancestor_or_self(all[k].node, all[i].node) && all[k].node != all[i].node);
      if (feeds && !visit(k)) return false;
    }
    state[i] = 2;
    order.push_back(static_cast<int>(i));
    return true;
  };
  for (size_t i = 0; i < n; ++i)
    if (!visit(i)) {
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
    pose[c.node].rotation = glm::normalize(glm::slerp(c.dst_rest, t, c.weight));
  }
}

}  // namespace hairswing
