// Reading and writing .gltf / .glb / .vrm files.
#pragma once

#include <string>

#include "hairswing/avatar.h"
#include "hairswing/status.h"

namespace hairswing {

struct LoadOptions {
  /// Upper bound on any element count (vertices, keys, nodes...) accepted from a file; a larger
  /// declared count is rejected as absurd rather than allocated.
  size_t max_elements = 50'000'000;
  /// A missing external buffer is served as zeros so the skeleton can still load; when the
  /// missing files' declared sizes add up to more than this, it is an error instead (a guard
  /// against absurd byteLength values).
  size_t max_missing_buffer_bytes = 256u << 20;
  /// Memory budget for decoded vertex, index, skin and key data: the number of values (each
  /// held as a 4-byte float or int) summed over every accessor read, counting an accessor again
  /// for every primitive that uses it. 128M values = 512 MiB; a 1M-vertex avatar needs about 16M.
  size_t max_decoded_values = 128'000'000;
};

struct LoadedAvatar {
  Avatar avatar;
  Warnings warnings;  ///< missing images, dropped meshes, repaired values...
};

/// Reads a .gltf, .glb or .vrm (VRM 0.x or 1.0). On error, the message names the file and the
/// field ("a.vrm: accessors[3].count: 4000000000 exceeds ..."). Never throws.
/// VRM 0.x is normalised to VRM 1.0 conventions (docs/conventions.md).
Result<LoadedAvatar> LoadAvatar(const std::string& path, const LoadOptions& options = {});

/// Same, from bytes in memory (a GLB/VRM container or glTF JSON). External files are resolved
/// relative to `base_dir` and must lie inside it; with an empty `base_dir` no file is read at all
/// (buffers and images the asset names by URI are reported missing: only the GLB chunk and data:
/// URIs are used). `name` is used in messages.
Result<LoadedAvatar> LoadAvatarFromMemory(const uint8_t* data, size_t size, const std::string& name,
                                          const std::string& base_dir,
                                          const LoadOptions& options = {});

/// Reads BVH text (LoadAvatar does this for files ending in .bvh): nodes from the hierarchy, one
/// animation "bvh" from the motion (docs/conventions.md, "BVH"). `name` is used in messages.
Result<LoadedAvatar> LoadBvhFromText(const std::string& text, const std::string& name);

/// Which VRM a .vrm/.glb is written as.
enum class VrmOutput {
  kKeepInput,  ///< the version the avatar was read from (VRM 0.x stays 0.x); 1.0 otherwise
  kVrm0,       ///< VRM 0.x: only for avatars read from VRM 0.x (their VRM extension is kept)
  kVrm1,       ///< VRM 1.0 (VRM 0.x converted: expressions, lookAt, MToon, springs...)
};

struct SaveOptions {
  bool force = false;  ///< allow overwriting an existing file (never the source without it)
  VrmOutput vrm = VrmOutput::kKeepInput;
  /// Receives what the output cannot carry (e.g. capsule colliders approximated by spheres in
  /// VRM 0.x); may be null.
  std::vector<std::string>* warnings = nullptr;
};

/// Writes a binary glTF. The extension of `path` decides the flavour: ".vrm" requires a
/// humanoid and writes VRM 1.0 (VRMC_vrm + VRMC_springBone + VRMC_node_constraint); ".glb"
/// writes the same content. The write is atomic (temporary file, then rename).
Status SaveAvatar(const Avatar& avatar, const std::string& path, const SaveOptions& options = {});

/// Serialises to GLB bytes in memory (what SaveAvatar writes). Deterministic for equal input.
Result<std::vector<uint8_t>> EncodeGlb(const Avatar& avatar, bool as_vrm,
                                       VrmOutput vrm = VrmOutput::kKeepInput,
                                       std::vector<std::string>* warnings = nullptr);

/// Non-fatal problems in a loaded avatar: spring joints that are not ancestors of the next one,
/// zero radii, springs without joints, humanoid roles missing... One message per finding.
Warnings CheckAvatar(const Avatar& avatar);

/// Which way the avatar's humanoid faces at rest, in degrees about +Y from +Z (positive: turned
/// to its left, towards +X), from its upper legs (right minus left is its right); NaN when the
/// humanoid does not tell. CheckAvatar warns when a VRM is off its version's facing by more than
/// a degree.
float AvatarFacingDeg(const Avatar& avatar);

}  // namespace hairswing
