// Hand-built avatars for solver tests: a hips/head skeleton with hair chains hanging from the
// head, and optional colliders. Every number here is chosen by hand, not produced by our code.
#pragma once

#include <cmath>
#include <string>
#include <vector>

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

/// Appends a node under `parent` (-1: a root, not added to the scene) and returns its index.
inline int AddNode(Avatar& av, const std::string& name, int parent, glm::vec3 translation) {
  Node n;
  n.name = name;
  n.parent = parent;
  n.translation = translation;
  av.nodes.push_back(n);
  const int id = static_cast<int>(av.nodes.size()) - 1;
  if (parent >= 0) av.nodes[parent].children.push_back(id);
  return id;
}

/// Hips at 1 m, spine, head 0.6 m above the hips, `chains` hair chains on the head.
inline Avatar MakeHairAvatar(const std::vector<ChainSpec>& chains) {
  Avatar av;
  auto add = [&](const std::string& name, int parent, glm::vec3 t) {
    return AddNode(av, name, parent, t);
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

/// The solver benchmark's stress rig: `chains` chains of 8 swinging joints (+ tip) in a ring
/// around a head on hips/spine/chest, 16 capsules on the body that every chain collides with.
inline Avatar MakeStressAvatar(int chains) {
  Avatar av;
  const int hips = AddNode(av, "hips", -1, {0, 1.0f, 0});
  const int spine = AddNode(av, "spine", hips, {0, 0.25f, 0});
  const int chest = AddNode(av, "chest", spine, {0, 0.2f, 0});
  const int head = AddNode(av, "head", chest, {0, 0.25f, 0});
  av.scene_roots = {hips};
  av.vrm.version = VrmVersion::kV1;
  av.vrm.humanoid = {{"hips", hips}, {"spine", spine}, {"chest", chest}, {"head", head}};
  for (int c = 0; c < 16; ++c) {
    Collider col;
    col.node = c < 4 ? head : (c < 10 ? chest : spine);
    col.shape = ColliderShape::kCapsule;
    const float a = c * 0.4f;
    col.offset = {0.12f * std::cos(a), -0.05f * (c % 3), 0.12f * std::sin(a)};
    col.tail = col.offset + glm::vec3(0.05f, -0.1f, 0.0f);
    col.radius = 0.06f;
    av.vrm.colliders.push_back(col);
  }
  ColliderGroup g{"body", {}};
  for (int c = 0; c < 16; ++c) g.colliders.push_back(c);
  av.vrm.collider_groups.push_back(g);
  for (int s = 0; s < chains; ++s) {
    Spring sp;
    const float a = s * 6.2831853f / static_cast<float>(chains);
    int parent = head;
    for (int j = 0; j < 9; ++j) {
      const glm::vec3 t = j == 0 ? glm::vec3(0.1f * std::cos(a), 0.08f, 0.1f * std::sin(a))
                                 : glm::vec3(0.01f * std::cos(a), -0.05f, 0.01f * std::sin(a));
      const int n = AddNode(av, "hair" + std::to_string(s) + "_" + std::to_string(j), parent, t);
      SpringJoint jt;
      jt.node = n;
      jt.hit_radius = 0.015f;
      jt.stiffness = 1.0f;
      jt.drag_force = 0.4f;
      jt.gravity_power = 0.2f;
      sp.joints.push_back(jt);
      parent = n;
    }
    sp.collider_groups = {0};
    av.vrm.springs.push_back(sp);
  }
  return av;
}

}  // namespace hairswing::test
