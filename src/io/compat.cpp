// Buffer lengths that disagree with the bytes present (docs/compat.md). three.js' GLTFLoader never
// reads buffers[].byteLength (it slices bufferViews out of the GLB BIN chunk or the fetched file)
// and UniVRM takes the whole BIN chunk as buffer 0; exporters that write a wrong byteLength
// therefore go unnoticed on the web. tinygltf insists on the declared length, so the declared
// length is replaced by the real one before tinygltf sees the file, and checked afterwards:
// every bufferView must lie within the bytes that are really there.
#include "io/compat.h"

#include <algorithm>
#include <cstring>
#include <filesystem>

namespace hairswing::io {

namespace {
uint32_t U32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
}  // namespace

bool FindGlbBinChunk(const uint8_t* data, size_t size, size_t* offset, size_t* length) {
  if (size < 20) return false;
  const size_t total = std::min<size_t>(U32(data + 8), size);
  size_t pos = 12;
  bool first = true;
  while (pos + 8 <= total) {
    const size_t len = U32(data + pos), type = U32(data + pos + 4);
    if (len > total - pos - 8) return false;
    if (!first && type == 0x004E4942u) {
      *offset = pos + 8;
      *length = len;
      return true;
    }
    first = false;
    pos += 8 + len;
  }
  return false;
}

std::vector<BufferLengthFix> MatchBufferLengths(
    Json& root, const uint8_t* data, size_t size, bool is_glb,
    const std::function<std::string(const std::string&)>& resolve) {
  std::vector<BufferLengthFix> fixes;
  Json* buffers =
      root.contains("buffers") && root["buffers"].is_array() ? &root["buffers"] : nullptr;
  if (!buffers) return fixes;
  for (size_t i = 0; i < buffers->size(); ++i) {
    Json& b = (*buffers)[i];
    if (!b.is_object() || !b.contains("byteLength") || !b["byteLength"].is_number_unsigned())
      continue;
    const size_t declared = b["byteLength"].get<size_t>();
    size_t present = 0;
    std::string source;
    const bool has_uri = b.contains("uri") && b["uri"].is_string();
    if (!has_uri) {
      size_t off, len;
      if (!is_glb || i != 0 || !FindGlbBinChunk(data, size, &off, &len)) continue;
      present = len;
      source = "the GLB BIN chunk";
    } else {
      const std::string uri = b["uri"].get<std::string>();
      if (uri.rfind("data:", 0) == 0) continue;
      std::error_code ec;
      const std::string path = resolve(uri);
      if (!std::filesystem::is_regular_file(path, ec)) continue;
      const auto fsize = std::filesystem::file_size(path, ec);
      if (ec) continue;
      present = static_cast<size_t>(fsize);
      source = "file \"" + uri + "\"";
    }
    if (present == declared) continue;
    b["byteLength"] = present;
    fixes.push_back({static_cast<int>(i), declared, present, source});
  }
  return fixes;
}

std::vector<uint8_t> RewrapGlb(const uint8_t* data, size_t size, const std::string& json) {
  const size_t json_chunk_end = 20 + static_cast<size_t>(U32(data + 12));
  const size_t total = std::min<size_t>(U32(data + 8), size);
  std::string padded = json;
  while (padded.size() % 4) padded.push_back(' ');
  std::vector<uint8_t> out(20 + padded.size());
  std::memcpy(out.data(), data, 12);
  const uint32_t json_len = static_cast<uint32_t>(padded.size()), json_type = 0x4E4F534Au;
  std::memcpy(out.data() + 12, &json_len, 4);
  std::memcpy(out.data() + 16, &json_type, 4);
  std::memcpy(out.data() + 20, padded.data(), padded.size());
  if (json_chunk_end < total) out.insert(out.end(), data + json_chunk_end, data + total);
  const uint32_t new_total = static_cast<uint32_t>(out.size());
  std::memcpy(out.data() + 8, &new_total, 4);
  return out;
}

void CheckBufferLengthFixes(const std::vector<BufferLengthFix>& fixes, const Json& root,
                            const std::string& file, std::vector<std::string>* warnings) {
  const Json* views = Find(root, "bufferViews");
  for (const BufferLengthFix& fix : fixes) {
    // Views of this buffer that reach past the declared length.
    int first_beyond = -1, last_beyond = -1;
    if (views && views->is_array())
      for (size_t v = 0; v < views->size(); ++v) {
        const Json& view = (*views)[v];
        if (!view.is_object() ||
            GetIndex(view, "buffer", -1, 1u << 30, Idx("bufferViews", v)) != fix.buffer)
          continue;
        const double off = GetNumber(view, "byteOffset", 0, Idx("bufferViews", v));
        const double len = GetNumber(view, "byteLength", 0, Idx("bufferViews", v));
        if (off + len > static_cast<double>(fix.present))
          throw ReadError(Idx("bufferViews", v),
                          "byteOffset + byteLength exceed buffer " + std::to_string(fix.buffer) +
                              " (" + std::to_string(fix.present) + " bytes in " + fix.source +
                              ", " + std::to_string(fix.declared) + " declared)");
        if (off + len > static_cast<double>(fix.declared)) {
          if (first_beyond < 0) first_beyond = static_cast<int>(v);
          last_beyond = static_cast<int>(v);
        }
      }
    const std::string field = Idx("buffers", fix.buffer) + ".byteLength";
    if (first_beyond >= 0) {
      const std::string which =
          first_beyond == last_beyond
              ? Idx("bufferViews", first_beyond)
              : "bufferViews " + std::to_string(first_beyond) + "-" + std::to_string(last_beyond);
      warnings->push_back(
          file + ": " + field + " is " + std::to_string(fix.declared) + " but " + fix.source +
          " has " + std::to_string(fix.present) + " bytes and " + which +
          (first_beyond == last_beyond ? " lies" : " lie") +
          " beyond the declared length: read from the bytes present (written correctly on export)");
    } else if (fix.declared > fix.present) {
      warnings->push_back(
          file + ": " + field + " is " + std::to_string(fix.declared) + " but " + fix.source +
          " has only " + std::to_string(fix.present) +
          " bytes; every bufferView lies within them (written correctly on export)");
    }
  }
}

}  // namespace hairswing::io
