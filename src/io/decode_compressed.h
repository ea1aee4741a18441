// Compressed glTF geometry (private to src/io): KHR_draco_mesh_compression primitives and
// EXT_meshopt_compression buffer views are decoded into plain buffers before the scene is read,
// so every later step (accessor bounds checks, skinning, writing) sees an uncompressed file.
// Decoding uses Debian's libdraco and libmeshoptimizer; a build without them (the WebAssembly
// package) refuses such files with one line saying so.
#pragma once

#include <tiny_gltf.h>

#include <string>

#include "io/json_util.h"
#include "io/read_internal.h"

namespace hairswing::io {

/// The two compression extensions this reader decodes.
inline constexpr const char* kDracoExtension = "KHR_draco_mesh_compression";
inline constexpr const char* kMeshoptExtension = "EXT_meshopt_compression";

/// Before tinygltf parses the document: a buffer that only stands in for meshopt data
/// (`extensions.EXT_meshopt_compression.fallback: true`) has no bytes of its own; it is given a
/// one-byte data URI so the container parser does not look for them. A Draco primitive's
/// `indices` (an accessor without data, which tinygltf refuses) is left out: decoding makes new
/// ones. Returns whether `root` changed.
bool PrepareCompressedForParser(Json& root);

/// After tinygltf parsed the document: decodes every EXT_meshopt_compression buffer view and
/// every KHR_draco_mesh_compression primitive into new buffers of `m` and points the views and
/// accessors at them. `max_values` bounds the decoded elements of each stream
/// (LoadOptions::max_elements), `max_bytes` the decoded bytes of all streams together; a stream
/// that does not decode, or goes past either, is a ReadError naming the view or primitive.
void DecodeCompressedGeometry(tinygltf::Model& m, const Json& root, size_t max_values,
                              size_t max_bytes);

/// Whether this build decodes the extension (false in the WebAssembly package).
bool CanDecode(const std::string& extension);

}  // namespace hairswing::io
