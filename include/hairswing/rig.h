// The runtime rig: a flat, read-only view of an Avatar for the solver, the retargeter, the
// measurer and skinning. Nodes are ordered parents before children; no strings, no pointers.
#pragma once

#include <span>
#include <vector>

#include "hairswing/avatar.h"
#include "hairswing/status.h"

namespace hairswing {

/// A local transform. Matrix = T * R * S (glTF order).
struct Transform {
  glm::vec3 translation{0.0f};     ///< metres
  glm::quat rotation{1, 0, 0, 0};  ///< unit
  glm::vec3 scale{1.0f};
};
/// Its matrix (inline: the solver builds node matrices at every step).
inline glm::mat4 ToMatrix(const Transform& t) {
  glm::mat4 m = glm::mat4_cast(t.rotation);
  m[0] *= t.scale.x;
  m[1] *= t.scale.y;
  m[2] *= t.scale.z;
  m[3] = glm::vec4(t.translation, 1.0f);
  return m;
}

/// One spring chain: joints [joint_begin, joint_end) in the Rig's joint arrays, root first. The
/// last joint is the tail (only its position matters); every joint before it swings.
struct RigChain {
  int joint_begin = 0;
  int joint_end = 0;
  int attach = -1;         ///< rig node the root hangs from (parent of the first joint), or -1
  int center = -1;         ///< rig node of the VRM `center` space, or -1 (world)
  int collider_begin = 0;  ///< [collider_begin, collider_end) into Rig::chain_colliders()
  int collider_end = 0;
  int source_spring = -1;       ///< index into Avatar::vrm.springs
  bool segment_checks = false;  ///< the spring asks for whole-link contact (Spring::segment_checks)
};

struct RigSkin {
  std::vector<int> joints;              ///< rig node per skin joint
  std::vector<glm::mat4> inverse_bind;  ///< per skin joint
};

/// A node that displays a mesh: skinned (skin >= 0, node transform ignored as glTF says) or rigid.
struct MeshInstance {
  int mesh = -1;  ///< index into Avatar::meshes
  int skin = -1;  ///< index into Rig::skins, or -1
  int node = -1;  ///< rig node
};

/// Read-only after BuildRig (ozz's Skeleton): every array is handed out as a span of const, so
/// nothing can break the invariants the solver relies on (parents before children, chain ranges
/// inside the joint arrays, collider indices in range). Only BuildRig writes it.
class Rig {
 public:
  Rig() = default;  ///< an empty rig (0 nodes); assign a built one over it

  size_t node_count() const { return parent_.size(); }

  // Nodes, parents before children.
  std::span<const int> parent() const { return parent_; }  ///< rig node or -1
  /// Avatar node, or -1 for a synthetic node (a VRM 0.x virtual tail).
  std::span<const int> source_node() const { return source_node_; }
  std::span<const Transform> rest_local() const { return rest_local_; }
  std::span<const glm::mat4> rest_world() const { return rest_world_; }
  std::span<const int> node_to_rig() const { return node_to_rig_; }  ///< Avatar node -> rig node

  // Spring joints, flat; chains index into these.
  std::span<const int> joint_node() const { return joint_node_; }  ///< rig node of each joint
  /// Radius of the segment from the joint, in the joint node's units: arc/parent multiply it by the
  /// node's world scale, vrm uses it as world metres like three-vrm (docs/solver.md).
  std::span<const float> joint_hit_radius() const { return joint_hit_radius_; }
  std::span<const float> joint_stiffness() const { return joint_stiffness_; }  ///< VRM stiffness
  std::span<const float> joint_gravity_power() const { return joint_gravity_power_; }
  std::span<const glm::vec3> joint_gravity_dir() const {
    return joint_gravity_dir_;
  }                                                                  ///< world, unit
  std::span<const float> joint_drag() const { return joint_drag_; }  ///< VRM dragForce, [0,1]
  /// The angle limit of the segment from each joint (none on a chain's last joint).
  std::span<const JointLimit> joint_limit() const { return joint_limit_; }
  /// Ordered so an enclosing chain precedes a branch.
  std::span<const RigChain> chains() const { return chains_; }

  // Colliders, flat; a chain's colliders are chain_colliders()[collider_begin, collider_end).
  std::span<const int> collider_node() const { return collider_node_; }  ///< rig node
  std::span<const ColliderShape> collider_shape() const { return collider_shape_; }
  std::span<const glm::vec3> collider_offset() const { return collider_offset_; }  ///< node-local m
  std::span<const glm::vec3> collider_tail() const {
    return collider_tail_;
  }  ///< node-local (capsules)
  std::span<const glm::vec3> collider_normal() const {
    return collider_normal_;
  }  ///< node-local unit
  /// In the collider node's units: arc/parent multiply it by the node's world scale (length of the
  /// world matrix's first column), vrm uses it as world metres like three-vrm (docs/solver.md).
  std::span<const float> collider_radius() const { return collider_radius_; }
  /// Collider indices, deduplicated per chain.
  std::span<const int> chain_colliders() const { return chain_colliders_; }

  std::span<const RigSkin> skins() const { return skins_; }
  std::span<const MeshInstance> meshes() const { return meshes_; }

 private:
  friend Result<Rig> BuildRig(const Avatar& avatar);

  std::vector<int> parent_, source_node_, node_to_rig_;
  std::vector<Transform> rest_local_;
  std::vector<glm::mat4> rest_world_;
  std::vector<int> joint_node_;
  std::vector<float> joint_hit_radius_, joint_stiffness_, joint_gravity_power_, joint_drag_;
  std::vector<glm::vec3> joint_gravity_dir_;
  std::vector<JointLimit> joint_limit_;
  std::vector<RigChain> chains_;
  std::vector<int> collider_node_;
  std::vector<ColliderShape> collider_shape_;
  std::vector<glm::vec3> collider_offset_, collider_tail_, collider_normal_;
  std::vector<float> collider_radius_;
  std::vector<int> chain_colliders_;
  std::vector<RigSkin> skins_;
  std::vector<MeshInstance> meshes_;
};

/// Builds the flat rig. Fails (naming the field) when a spring or collider refers to nothing
/// usable; the Avatar itself was already validated by the loader.
Result<Rig> BuildRig(const Avatar& avatar);

/// World matrices from local transforms (both sized rig.node_count()). Allocation-free.
void ComputeWorld(const Rig& rig, std::span<const Transform> local, std::span<glm::mat4> world);

/// Skin palette: world[joint] * inverse_bind for each joint of `skin` (palette sized joints).
void ComputeSkinPalette(const Rig& rig, int skin, std::span<const glm::mat4> world,
                        std::span<glm::mat4> palette);

/// Linear-blend skinning job: out[v] = sum_k w_k * palette[j_k] * p[v]. Weights are used as
/// given (normalised by their sum when it is not 1). The caller owns every buffer.
struct SkinningJob {
  std::span<const glm::mat4> palette;
  std::span<const glm::vec3> positions;
  std::span<const glm::u16vec4> joints;
  std::span<const glm::vec4> weights;
  std::span<glm::vec3> out;

  Status Validate() const;
  void Run() const;
};

/// Positions of one mesh primitive at a pose, skinned or rigid, into `out` (sized like the
/// primitive's positions). `palette_scratch` must hold the skin's joint count (or be empty for a
/// rigid mesh).
Status PosePrimitive(const Rig& rig, const MeshInstance& inst, const Primitive& prim,
                     std::span<const glm::mat4> world, std::span<glm::mat4> palette_scratch,
                     std::span<glm::vec3> out);

/// For every spring joint (flat index into Rig::joint_node), how many vertices of skinned
/// primitives carry weight on it: 0 means the mesh does not follow that joint.
std::vector<int> SpringJointVertexCounts(const Avatar& avatar, const Rig& rig);

/// Vertices of skinned primitives that carry weight on any spring joint (the hair).
int HairVertexCount(const Avatar& avatar, const Rig& rig);

/// The rig node of a VRM humanoid bone ("head", "hips"), or -1.
int HumanoidRigNode(const Avatar& avatar, const Rig& rig, const char* bone);

}  // namespace hairswing
