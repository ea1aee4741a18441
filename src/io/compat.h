// Deviations from glTF 2.0 that three.js' GLTFLoader and UniVRM accept and that we accept too when
// the data is fully present (docs/compat.md): buffer lengths that disagree with the bytes there.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "io/json_util.h"

namespace hairswing::io {

/// A buffer whose declared byteLength differs from the bytes actually present.
struct BufferLengthFix {
  int buffer = 0;
  size_t declared = 0;  ///< buffers[i].byteLength as written
  size_t present = 0;   ///< bytes of the GLB BIN chunk or of the external file
  std::string source;   ///< "the GLB BIN chunk" or "file NAME"
};

/// The BIN chunk of a GLB (first chunk after the JSON chunk with type BIN), or false if absent.
bool FindGlbBinChunk(const uint8_t* data, size_t size, size_t* offset, size_t* length);

/// Sets each buffer's byteLength in `root` to the bytes present: the GLB BIN chunk for buffer 0
/// of a GLB without a uri, the file's size for an external buffer file that exists (resolved by
/// `resolve`). Returns what was changed; a buffer whose data URI or missing file cannot be
/// measured is left as it is.
std::vector<BufferLengthFix> MatchBufferLengths(
    Json& root, const uint8_t* data, size_t size, bool is_glb,
    const std::function<std::string(const std::string&)>& resolve);

/// A GLB with `json` as its JSON chunk (padded with spaces) and every chunk after the original
/// JSON chunk unchanged.
std::vector<uint8_t> RewrapGlb(const uint8_t* data, size_t size, const std::string& json);

/// After a load with matched lengths: a buffer view that lies past the bytes present is an error
/// (ReadError naming it); views that needed bytes beyond the declared length, or a declared length
/// beyond the bytes present, give one warning naming the file and the field.
void CheckBufferLengthFixes(const std::vector<BufferLengthFix>& fixes, const Json& root,
                            const std::string& file, std::vector<std::string>* warnings);

}  // namespace hairswing::io
