// Non-fatal findings on a loaded avatar, shown by `hairswing inspect`.
#include <cmath>
#include <cstdio>
#include <glm/gtc/quaternion.hpp>

#include "core/node_tree.h"
#include "hairswing/humanoid.h"
#include "hairswing/io.h"

namespace hairswing {
namespace {

std::string NodeLabel(const Avatar& av, int n) {
  return "node " + std::to_string(n) + " (\"" + av.nodes[n].name + "\")";
}

// A node's rest position in the world (its parents' translations, rotations and scales).
glm::vec3 RestPosition(const Avatar& av, int n) {
  glm::vec3 p(0.0f);
  for (int guard = 0; n >= 0 && guard <= static_cast<int>(av.nodes.size()); ++guard) {
    const Node& node = av.nodes[n];
    p = node.translation + node.rotation * (node.scale * p);
    n = node.parent;
  }
  return p;
}

}  // namespace

// From the upper legs: right minus left is the avatar's right, its front is up x right.
float AvatarFacingDeg(const Avatar& av) {
  const auto r = av.vrm.humanoid.find("rightUpperLeg"), l = av.vrm.humanoid.find("leftUpperLeg");
  const int n = static_cast<int>(av.nodes.size());
  if (r == av.vrm.humanoid.end() || l == av.vrm.humanoid.end() || r->second < 0 || r->second >= n ||
      l->second < 0 || l->second >= n)
    return NAN;
  glm::vec3 right = RestPosition(av, r->second) - RestPosition(av, l->second);
  right.y = 0.0f;
  if (!(glm::length(right) > 1e-6f)) return NAN;
  const glm::vec3 front = glm::cross(glm::vec3(0, 1, 0), right);
  return glm::degrees(std::atan2(front.x, front.z));
}

namespace {}  // namespace

Warnings CheckAvatar(const Avatar& av) {
  Warnings w;
  for (size_t s = 0; s < av.vrm.springs.size(); ++s) {
    const Spring& sp = av.vrm.springs[s];
    const std::string f = "spring " + std::to_string(s) + " (\"" + sp.name + "\")";
    if (sp.joints.empty()) {
      w.push_back(f + ": has no joints");
      continue;
    }
    if (sp.joints.size() == 1 && !sp.has_virtual_tail)
      w.push_back(f + ": a single joint is only a tail; nothing swings");
    for (size_t j = 0; j + 1 < sp.joints.size(); ++j) {
      int a = sp.joints[j].node, b = sp.joints[j + 1].node;
      if (!internal::IsAncestor(av, a, b))
        w.push_back(f + ": joint " + std::to_string(j) + " " + NodeLabel(av, a) +
                    " is not an ancestor of the next joint " + NodeLabel(av, b));
      else if (av.nodes[b].parent != a)
        w.push_back(f + ": joint " + std::to_string(j + 1) + " " + NodeLabel(av, b) +
                    " is not a direct child of the previous joint");
    }
    for (size_t j = 0; j + (sp.has_virtual_tail ? 0 : 1) < sp.joints.size(); ++j) {
      const SpringJoint& jt = sp.joints[j];
      if (jt.hit_radius == 0.0f && !sp.collider_groups.empty())
        w.push_back(f + ": joint " + std::to_string(j) + " has hitRadius 0 but collides");
      if (jt.drag_force < 0 || jt.drag_force > 1)
        w.push_back(f + ": joint " + std::to_string(j) + " dragForce " +
                    std::to_string(jt.drag_force) + " outside [0,1]");
      if (jt.stiffness < 0)
        w.push_back(f + ": joint " + std::to_string(j) + " has negative stiffness");
    }
    for (size_t j = 0; j < sp.joints.size(); ++j)
      if (j + 1 < sp.joints.size() &&
          glm::length(av.nodes[sp.joints[j + 1].node].translation) == 0.0f)
        w.push_back(f + ": segment " + std::to_string(j) + " has zero length");
  }
  for (size_t c = 0; c < av.vrm.colliders.size(); ++c) {
    const Collider& col = av.vrm.colliders[c];
    if (col.shape != ColliderShape::kPlane && col.radius == 0.0f)
      w.push_back("collider " + std::to_string(c) + " on " + NodeLabel(av, col.node) +
                  " has radius 0");
  }
  if (!av.vrm.humanoid.empty() || !av.vrm.meta_json.empty()) {
    std::string missing;
    for (std::string_view role : RequiredHumanBoneNames())
      if (!av.vrm.humanoid.count(std::string(role)))
        missing += (missing.empty() ? "" : ", ") + std::string(role);
    if (!missing.empty()) w.push_back("humanoid: required bones missing: " + missing);
  }
  // VRM 1.0 avatars face +Z (VRM 0.x ones -Z in the file, +Z once read). One that faces another
  // way shows turned in other VRM apps (its look-at and first-person offsets point the wrong
  // way); hairswing takes the facing from the humanoid where it matters (docs/conventions.md).
  if (av.vrm.version != VrmVersion::kNone) {
    const float deg = AvatarFacingDeg(av);
    if (std::isfinite(deg) && std::fabs(deg) > 1.0f) {
      const bool v0 = av.vrm.version == VrmVersion::kV0;
      char turned[64];
      if (std::fabs(deg) >= 179.5f)
        std::snprintf(turned, sizeof turned, "the opposite way");
      else
        std::snprintf(turned, sizeof turned, "%.0f degrees to its %s", std::fabs(deg),
                      deg > 0 ? "left" : "right");
      char b[300];
      std::snprintf(b, sizeof b,
                    "the avatar is turned %s (from its upper legs): VRM %s avatars face %s, so "
                    "other VRM apps show it turned",
                    turned, v0 ? "0.x" : "1.0", v0 ? "-Z in the file" : "+Z");
      w.push_back(b);
    }
  }
  for (size_t n = 0; n < av.nodes.size(); ++n) {
    const glm::vec3& s = av.nodes[n].scale;
    if (s.x <= 0 || s.y <= 0 || s.z <= 0)
      w.push_back(NodeLabel(av, static_cast<int>(n)) + " has zero or negative scale");
  }
  return w;
}

}  // namespace hairswing
