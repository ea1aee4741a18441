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
glm::mat4 ToMatrix(const Transform& t);

/// One spring chain: joints [joint_begin, joint_end) in the Rig's joint arrays, root first. The
/// last joint is the tail (only its position matters); every joint before it swings.
struct RigChain {
  int joint_begin = 0;
  int joint_end = 0;
  int attach = -1;           ///< rig node the root hangs from (parent of the first joint), or -1
  int center = -1;           ///< rig node of the VRM `center` space, or -1 (world)
  int collider_begin = 0;    ///< [collider_begin, collider_end) into Rig::chain_colliders
  int collider_end = 0;
  int source_spring = -1;    ///< index into Avatar::vrm.springs
  bool segment_checks = false;  ///< the spring asks for whole-link contact (Spring::segment_checks)
};

struct RigSkin {
  std::vector<int> joints;               ///< rig node per skin joint
  std::vector<glm::mat4> inverse_bind;   ///< per skin joint
};

/// A node that displays a mesh: skinned (skin >= 0, node transform ignored as glTF says) or rigid.
struct MeshInstance {
  int mesh = -1;   ///< index into Avatar::meshes
  int skin = -1;   ///< index into Rig::skins, or -1
  int node = -1;   ///< rig node
};

struct Rig {
  // Nodes, parents before children.
  std::vector<int> parent;              ///< rig node or -1
  std::vector<int> source_node;         ///< Avatar node, or -1 for a synthetic node (VRM 0.x tail)
  std::vector<Transform> rest_local;
  std::vector<glm::mat4> rest_world;
  std::vector<int> node_to_rig;         ///< Avatar node -> rig node

  // Spring joints, flat; chains index into these.
  std::vector<int> joint_node;          ///< rig node of each joint
  std::vector<float> joint_hit_radius;  ///< metres, radius of the segment starting at the joint
  std::vector<float> joint_stiffness;   ///< VRM stiffness
  std::vector<float> joint_gravity_power;
  std::vector<glm::vec3> joint_gravity_dir;  ///< world, unit
  std::vector<float> joint_drag;        ///< VRM dragForce, [0,1]
  std::vector<RigChain> chains;         ///< ordered so an enclosing chain precedes a branch

  // Colliders, flat; a chain's colliders are chain_colliders[collider_begin, collider_end).
  std::vector<int> collider_node;       ///< rig node
  std::vector<ColliderShape> collider_shape;
  std::vector<glm::vec3> collider_offset;  ///< node-local metres
  std::vector<glm::vec3> collider_tail;    ///< node-local (capsules)
  std::vector<glm::vec3> collider_normal;  ///< node-local unit (planes)
  std::vector<float> collider_radius;      ///< metres
  std::vector<int> chain_colliders;        ///< collider indices, deduplicated per chain

  std::vector<RigSkin> skins;
  std::vector<MeshInstance> meshes;

  size_t node_count() const { return parent.size(); }
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

}  // namespace hairswing
