// Hand-built avatars for solver tests: a hips/head skeleton with hair chains hanging from the
// head, and optional colliders. Every number here is chosen by hand, not produced by our code.
#pragma once

#include <string>

#include "hairswing/avatar.h"

namespace hairswing::test {

struct ChainSpec {
  int joints = 6;                             ///< nodes in the chain, tip included
  glm::vec3 root_offset{0.0f, 0.05f, -0.1f};  ///< from the head, metres
  glm::vec3 segment{0.0f, -0.06f, -0.02f};    ///< each segment's offset from its joint, metres
  float stiffness = 1.0f;
  float drag = 0.4f;
  float gravity = 0.0f;
  float hit_radius = 0.02f;
};

/// Hips at 1 m, spine, head 0.6 m above the hips, `chains` hair chains on the head.
inline Avatar MakeHairAvatar(const std::vector<ChainSpec>& chains) {
  Avatar av;
  auto add = [&](const std::string& name, int parent, glm::vec3 t) {
    Node n;
    n.name = name;
    n.parent = parent;
    n.translation = t;
    av.nodes.push_back(n);
    int id = static_cast<int>(av.nodes.size()) - 1;
    if (parent >= 0) av.nodes[parent].children.push_back(id);
    return id;
  };
  int hips = add("Hips", -1, {0, 1.0f, 0});
  int spine = add("Spine", hips, {0, 0.3f, 0});
  int head = add("Head", spine, {0, 0.3f, 0});
  av.scene_roots = {hips};
  av.vrm.version = VrmVersion::kV1;
  av.vrm.humanoid = {{"hips", hips}, {"spine", spine}, {"head", head}};
  for (size_t c = 0; c < chains.size(); ++c) {
    const ChainSpec& cs = chains[c];
    Spring s;
    s.name = "chain" + std::to_string(c);
    int parent = head;
    for (int j = 0; j < cs.joints; ++j) {
      int n = add("Hair" + std::to_string(c) + "_" + std::to_string(j), parent,
                  j == 0 ? cs.root_offset : cs.segment);
      SpringJoint sj;
      sj.node = n;
      sj.stiffness = cs.stiffness;
      sj.drag_force = cs.drag;
      sj.gravity_power = cs.gravity;
      sj.hit_radius = cs.hit_radius;
      s.joints.push_back(sj);
      parent = n;
    }
    av.vrm.springs.push_back(s);
  }
  return av;
}

/// Adds a collider on `node` and a group holding it, used by every spring.
inline void AddCollider(Avatar& av, int node, ColliderShape shape, glm::vec3 offset, float radius,
                        glm::vec3 tail = glm::vec3(0)) {
  Collider c;
  c.node = node;
  c.shape = shape;
  c.offset = offset;
  c.radius = radius;
  c.tail = tail;
  av.vrm.colliders.push_back(c);
  if (av.vrm.collider_groups.empty()) av.vrm.collider_groups.push_back({"body", {}});
  av.vrm.collider_groups[0].colliders.push_back(static_cast<int>(av.vrm.colliders.size()) - 1);
  for (auto& s : av.vrm.springs)
    if (s.collider_groups.empty()) s.collider_groups.push_back(0);
}

}  // namespace hairswing::test
