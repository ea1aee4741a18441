// Internal interfaces between the glTF core reader and the VRM extension readers.
#pragma once

#include "hairswing/avatar.h"
#include "hairswing/status.h"
#include "io/json_util.h"

namespace hairswing::io {

/// Reads VRMC_vrm, VRMC_springBone (+ extended collider) and VRMC_node_constraint.
void ReadVrm1(const Json& root, Avatar& avatar, Warnings& warnings);

/// Reads the VRM 0.x `VRM` extension (humanoid, meta, secondaryAnimation) into VRM 1.0 form.
/// Call after the core reader and before NormaliseVrm0Axes.
void ReadVrm0(const Json& root, Avatar& avatar, Warnings& warnings);

/// The chains a VRM 0.x bone group makes from one of its listed roots, as node lists, in the order
/// the reader turns them into springs: every node below the root is a joint; a chain follows the
/// first child, other children start chains of their own (three-vrm's rule). Also used by the
/// VRM 0.x writer to list exactly the roots that read back as the same springs. An empty result
/// means the hierarchy loops.
std::vector<std::vector<int>> Vrm0BoneGroupChains(const Avatar& avatar, int root);

/// VRM 0.x materialProperties (MToon, VRM/Unlit*) -> VRMC_materials_mtoon 1.0 in the materials.
void ConvertVrm0Materials(const Json& vrm, Avatar& avatar, Warnings& warnings);
/// VRM 0.x blendShapeMaster and firstPerson -> VRMC_vrm expressions, lookAt and firstPerson
/// (the returned object; empty when the file has neither). Needs the humanoid read first.
Json ConvertVrm0Face(const Json& vrm, const Json& root, const Avatar& avatar, Warnings& warnings);

/// Rotates a VRM 0.x avatar by 180 degrees about +Y (x -> -x, z -> -z) in every node, vertex,
/// bind matrix, animation key and collider, so it faces +Z like VRM 1.0 (docs/conventions.md).
void NormaliseVrm0Axes(Avatar& avatar);
/// A rotation in hairswing's axes <-> the VRM 0.x file's (the 180 degree turn about Y that
/// NormaliseVrm0Axes applies to every node: (w, x, y, z) -> (w, -x, y, -z); its own inverse).
glm::quat Vrm0TurnedRotation(const glm::quat& q);

/// Returns the names of extensions used by the JSON objects in `json` (top-level "extensions"
/// keys, recursively), for recomputing extensionsUsed on write.
void CollectExtensionNames(const Json& json, std::vector<std::string>& out);

/// A glTF node's world transform check helpers live in rig; here only the extension names we
/// consume (and so do not pass through verbatim): compressed geometry is decoded on reading and
/// written uncompressed.
inline bool IsModelledExtension(const std::string& name) {
  return name == "VRM" || name == "VRMC_vrm" || name == "VRMC_springBone" ||
         name == "VRMC_springBone_extended_collider" || name == "VRMC_springBone_limit" ||
         name == "VRMC_node_constraint" || name == "KHR_draco_mesh_compression" ||
         name == "EXT_meshopt_compression";
}

}  // namespace hairswing::io
