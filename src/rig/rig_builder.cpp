// Avatar -> Rig: depth-first node order (parents first), rest transforms, flat spring joints and
// colliders. VRM 0.x virtual tails become synthetic leaf nodes so every chain ends in a node.
#include <algorithm>
#include <glm/gtc/matrix_transform.hpp>
#include <set>

#include "hairswing/rig.h"

namespace hairswing {

void ComputeWorld(const Rig& rig, std::span<const Transform> local, std::span<glm::mat4> world) {
  HS_ASSERT(local.size() == rig.node_count() && world.size() == rig.node_count());
  for (size_t i = 0; i < rig.node_count(); ++i) {
    glm::mat4 m = ToMatrix(local[i]);
    int p = rig.parent()[i];
    world[i] = p < 0 ? m : world[p] * m;
  }
}

Result<Rig> BuildRig(const Avatar& av) {
  const int n_src = static_cast<int>(av.nodes.size());
  // Extended node set: avatar nodes, then one synthetic tail per spring with a virtual tail.
  std::vector<int> ext_parent(n_src);
  std::vector<std::vector<int>> ext_children(n_src);
  std::vector<Transform> ext_local(n_src);
  for (int i = 0; i < n_src; ++i) {
    const Node& n = av.nodes[i];
    ext_parent[i] = n.parent;
    ext_children[i] = n.children;
    ext_local[i] = {n.translation, n.rotation, n.scale};
  }
  std::vector<int> spring_tail(av.vrm.springs.size(), -1);
  for (size_t s = 0; s < av.vrm.springs.size(); ++s) {
    const Spring& sp = av.vrm.springs[s];
    if (!sp.has_virtual_tail || sp.joints.empty()) continue;
    int last = sp.joints.back().node;
    if (last < 0 || last >= n_src)
      return Status(StatusCode::kInvalidInput,
                    "springs[" + std::to_string(s) + "]: joint node out of range");
    int id = static_cast<int>(ext_parent.size());
    ext_parent.push_back(last);
    ext_children.emplace_back();
    ext_children[last].push_back(id);
    ext_local.push_back({sp.virtual_tail, glm::quat(1, 0, 0, 0), glm::vec3(1)});
    spring_tail[s] = id;
  }
  const int n_ext = static_cast<int>(ext_parent.size());

  // Depth-first order from the scene roots, then any parentless node not in the scene.
  Rig rig;
  std::vector<int> ext_to_rig(n_ext, -1);
  std::vector<int> roots = av.scene_roots;
  std::vector<uint8_t> is_root(n_src, 0);  // a marker, not a search: 200,000 roots stay linear
  for (int r : roots)
    if (r >= 0 && r < n_src) is_root[r] = 1;
  for (int i = 0; i < n_src; ++i)
    if (ext_parent[i] == -1 && !is_root[i]) roots.push_back(i);
  std::vector<int> stack;
  for (auto r = roots.rbegin(); r != roots.rend(); ++r) stack.push_back(*r);
  while (!stack.empty()) {
    int e = stack.back();
    stack.pop_back();
    if (ext_to_rig[e] != -1) continue;
    ext_to_rig[e] = static_cast<int>(rig.parent_.size());
    rig.parent_.push_back(ext_parent[e] < 0 ? -1 : ext_to_rig[ext_parent[e]]);
    rig.source_node_.push_back(e < n_src ? e : -1);
    rig.rest_local_.push_back(ext_local[e]);
    for (auto c = ext_children[e].rbegin(); c != ext_children[e].rend(); ++c) stack.push_back(*c);
  }
  if (static_cast<int>(rig.parent_.size()) != n_ext)
    return Status(StatusCode::kInvalidInput, "node hierarchy: some nodes are unreachable (cycle?)");
  rig.node_to_rig_.assign(ext_to_rig.begin(), ext_to_rig.begin() + n_src);
  rig.rest_world_.resize(rig.node_count());
  ComputeWorld(rig, rig.rest_local_, rig.rest_world_);

  // Colliders.
  for (size_t c = 0; c < av.vrm.colliders.size(); ++c) {
    const Collider& col = av.vrm.colliders[c];
    if (col.node < 0 || col.node >= n_src)
      return Status(StatusCode::kInvalidInput,
                    "colliders[" + std::to_string(c) + "].node out of range");
    rig.collider_node_.push_back(rig.node_to_rig_[col.node]);
    rig.collider_shape_.push_back(col.shape);
    rig.collider_offset_.push_back(col.offset);
    rig.collider_tail_.push_back(col.tail);
    rig.collider_normal_.push_back(col.normal);
    rig.collider_radius_.push_back(col.radius);
  }

  // Chains, in rig order of their first joint (a branch starts below its enclosing chain).
  std::vector<size_t> order;
  for (size_t s = 0; s < av.vrm.springs.size(); ++s)
    if (!av.vrm.springs[s].joints.empty() && !av.vrm.springs[s].baked) order.push_back(s);
  for (size_t s : order)
    for (const auto& j : av.vrm.springs[s].joints)
      if (j.node < 0 || j.node >= n_src)
        return Status(StatusCode::kInvalidInput,
                      "springs[" + std::to_string(s) + "]: joint node out of range");
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return rig.node_to_rig_[av.vrm.springs[a].joints[0].node] <
           rig.node_to_rig_[av.vrm.springs[b].joints[0].node];
  });
  for (size_t s : order) {
    const Spring& sp = av.vrm.springs[s];
    RigChain ch;
    ch.source_spring = static_cast<int>(s);
    ch.segment_checks = sp.segment_checks;
    ch.joint_begin = static_cast<int>(rig.joint_node_.size());
    auto push = [&](int rig_node, const SpringJoint& j) {
      rig.joint_node_.push_back(rig_node);
      rig.joint_hit_radius_.push_back(j.hit_radius);
      rig.joint_stiffness_.push_back(j.stiffness);
      rig.joint_gravity_power_.push_back(j.gravity_power);
      float len = glm::length(j.gravity_dir);
      rig.joint_gravity_dir_.push_back(len > 0 ? j.gravity_dir / len : glm::vec3(0, -1, 0));
      rig.joint_drag_.push_back(j.drag_force);
      rig.joint_limit_.push_back(j.limit);
    };
    for (const auto& j : sp.joints) push(rig.node_to_rig_[j.node], j);
    if (spring_tail[s] >= 0) push(ext_to_rig[spring_tail[s]], sp.joints.back());
    ch.joint_end = static_cast<int>(rig.joint_node_.size());
    rig.joint_limit_.back() = JointLimit{};  // the tail has no segment to limit
    ch.attach = rig.parent_[rig.joint_node_[ch.joint_begin]];
    ch.center = sp.center >= 0 && sp.center < n_src ? rig.node_to_rig_[sp.center] : -1;
    ch.collider_begin = static_cast<int>(rig.chain_colliders_.size());
    std::set<int> seen;
    for (int g : sp.collider_groups) {
      if (g < 0 || g >= static_cast<int>(av.vrm.collider_groups.size()))
        return Status(StatusCode::kInvalidInput,
                      "springs[" + std::to_string(s) + "].colliderGroups out of range");
      for (int c : av.vrm.collider_groups[g].colliders) {
        if (c < 0 || c >= static_cast<int>(av.vrm.colliders.size()))
          return Status(StatusCode::kInvalidInput,
                        "colliderGroups[" + std::to_string(g) + "] collider out of range");
        if (seen.insert(c).second) rig.chain_colliders_.push_back(c);
      }
    }
    ch.collider_end = static_cast<int>(rig.chain_colliders_.size());
    rig.chains_.push_back(ch);
  }

  // Skins and mesh instances.
  for (const Skin& s : av.skins) {
    RigSkin rs;
    for (int j : s.joints) rs.joints.push_back(rig.node_to_rig_[j]);
    rs.inverse_bind = s.inverse_bind;
    rig.skins_.push_back(std::move(rs));
  }
  for (int i = 0; i < n_src; ++i)
    if (av.nodes[i].mesh >= 0)
      rig.meshes_.push_back({av.nodes[i].mesh, av.nodes[i].skin, rig.node_to_rig_[i]});
  std::sort(rig.meshes_.begin(), rig.meshes_.end(),
            [](const MeshInstance& a, const MeshInstance& b) { return a.node < b.node; });
  return rig;
}

int HumanoidRigNode(const Avatar& avatar, const Rig& rig, const char* bone) {
  auto it = avatar.vrm.humanoid.find(bone);
  if (it == avatar.vrm.humanoid.end() || it->second < 0 ||
      it->second >= static_cast<int>(rig.node_to_rig().size()))
    return -1;
  return rig.node_to_rig()[it->second];
}

}  // namespace hairswing
