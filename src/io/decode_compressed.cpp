// Decoding of compressed glTF geometry (decode_compressed.h). Each decoded stream becomes a new
// buffer of the tinygltf model; the buffer views (meshopt) or accessors (Draco) that named the
// compressed bytes are pointed at it, so the accessor reader checks the decoded data like any
// other. Limits: counts are bounded by the caller's element budget before anything is allocated,
// and every offset into the compressed bytes is checked against its buffer.
#include "io/decode_compressed.h"

#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <set>

// The native build defines both as 1 (src/CMakeLists.txt); the WebAssembly build leaves them out.
#ifndef HAIRSWING_DRACO
#define HAIRSWING_DRACO 0
#endif
#ifndef HAIRSWING_MESHOPT
#define HAIRSWING_MESHOPT 0
#endif
#if HAIRSWING_MESHOPT
#include <meshoptimizer.h>
#endif
#if HAIRSWING_DRACO
#include <draco/compression/decode.h>
#endif

#include "io/gltf_reader.h"

namespace hairswing::io {

namespace {

constexpr size_t kMaxDecodedBytes = size_t(1) << 30;  ///< per buffer view or attribute

#if HAIRSWING_MESHOPT || HAIRSWING_DRACO
// Takes `bytes` of decoded output from what is left of the file's budget (`*left`): a few bytes
// of stream can claim up to 1 GiB per view or attribute, and a file can hold many of them.
void TakeDecoded(size_t bytes, size_t* left, const std::string& field) {
  if (bytes > *left)
    throw ReadError(field, "decodes to " + std::to_string(bytes) + " bytes, more than the " +
                               std::to_string(*left) +
                               " left of the file's budget for decoded data "
                               "(LoadOptions::max_decoded_values x 4 bytes, over all streams)");
  *left -= bytes;
}
#endif

const Json* ExtensionOf(const Json& obj, const char* name) {
  if (!obj.is_object()) return nullptr;
  const Json* exts = Find(obj, "extensions");
  return exts && exts->is_object() ? Find(*exts, name) : nullptr;
}

// The compressed bytes [offset, offset + length) of buffer `buffer`, checked.
[[maybe_unused]] const uint8_t* SourceBytes(const tinygltf::Model& m, int buffer, size_t offset,
                                            size_t length, const std::string& field) {
  if (buffer < 0 || buffer >= static_cast<int>(m.buffers.size()))
    throw ReadError(field + ".buffer", "index " + std::to_string(buffer) + " out of range");
  const auto& data = m.buffers[buffer].data;
  if (offset > data.size() || length > data.size() - offset)
    throw ReadError(field, "byteOffset + byteLength (" + std::to_string(offset) + " + " +
                               std::to_string(length) + ") exceed buffer " +
                               std::to_string(buffer) + " (" + std::to_string(data.size()) +
                               " bytes)");
  return data.data() + offset;
}

// A count or size read from JSON: a non-negative integer no larger than `max`.
[[maybe_unused]] size_t Count(const Json& obj, const char* key, size_t max, const std::string& f,
                              bool required = true) {
  const Json* v = Find(obj, key);
  if (!v) {
    if (required) throw ReadError(f + "." + key, "missing");
    return 0;
  }
  if (!v->is_number_integer() && !v->is_number_unsigned())
    throw ReadError(f + "." + key, "expected a non-negative integer");
  if (v->is_number_integer() && v->get<int64_t>() < 0) throw ReadError(f + "." + key, "negative");
  const uint64_t n = v->get<uint64_t>();
  if (n > max)
    throw ReadError(f + "." + key,
                    std::to_string(n) + " exceeds the limit of " + std::to_string(max));
  return static_cast<size_t>(n);
}

// The extension's object is an object and this build has its decoder.
void CheckDecodable(const Json& ext, const std::string& f, const char* extension,
                    const char* what) {
  if (!ext.is_object()) throw ReadError(f, "expected an object");
  if (!CanDecode(extension))
    throw ReadError(f, std::string("this build of hairswing cannot decode ") + what +
                           " data (the WebAssembly package has no decoder; decompress the file "
                           "first with the command-line tool: hairswing convert IN -o OUT)");
}

[[maybe_unused]] int AppendBuffer(tinygltf::Model& m, std::vector<unsigned char> bytes) {
  tinygltf::Buffer b;
  b.data = std::move(bytes);
  m.buffers.push_back(std::move(b));
  return static_cast<int>(m.buffers.size()) - 1;
}

// ---- EXT_meshopt_compression ----------------------------------------------------------------

void DecodeMeshoptViews(tinygltf::Model& m, const Json& root, size_t max_values, size_t* left) {
  const Json* views = Find(root, "bufferViews");
  if (!views || !views->is_array()) return;
  for (size_t i = 0; i < views->size() && i < m.bufferViews.size(); ++i) {
    const Json* ext = ExtensionOf((*views)[i], kMeshoptExtension);
    if (!ext) continue;
    const std::string f = Idx("bufferViews", i) + ".extensions." + kMeshoptExtension;
    CheckDecodable(*ext, f, kMeshoptExtension, "meshopt");
#if HAIRSWING_MESHOPT
    const int buffer = GetIndex(*ext, "buffer", -1, m.buffers.size(), f);
    if (buffer < 0) throw ReadError(f + ".buffer", "missing");
    const size_t offset = Count(*ext, "byteOffset", std::numeric_limits<uint32_t>::max(), f, false);
    const size_t length = Count(*ext, "byteLength", std::numeric_limits<uint32_t>::max(), f);
    const size_t stride = Count(*ext, "byteStride", 256, f);
    const size_t count = Count(*ext, "count", max_values, f);
    const std::string mode = GetString(*ext, "mode", "", f);
    const std::string filter = GetString(*ext, "filter", "NONE", f);
    const uint8_t* src = SourceBytes(m, buffer, offset, length, f);
    auto& view = m.bufferViews[i];
    if (count * stride != view.byteLength)
      throw ReadError(f, "count x byteStride (" + std::to_string(count) + " x " +
                             std::to_string(stride) + ") is not the view's byteLength " +
                             std::to_string(view.byteLength));
    // A few bytes of stream can claim gigabytes of zeros: one view decodes to at most 1 GiB.
    if (count * stride > kMaxDecodedBytes)
      throw ReadError(f, "decodes to " + std::to_string(count * stride) +
                             " bytes, over the limit of 1 GiB for one buffer view");
    TakeDecoded(count * stride, left, f);
    std::vector<unsigned char> out(count * stride);
    int rc = -1;
    if (mode == "ATTRIBUTES") {
      if (stride == 0 || stride % 4 != 0)
        throw ReadError(f + ".byteStride", "must be a multiple of 4 for ATTRIBUTES");
      rc = meshopt_decodeVertexBuffer(out.data(), count, stride, src, length);
      if (rc == 0 && filter == "OCTAHEDRAL") {
        if (stride != 4 && stride != 8)
          throw ReadError(f + ".byteStride", "must be 4 or 8 for the OCTAHEDRAL filter");
        meshopt_decodeFilterOct(out.data(), count, stride);
      } else if (rc == 0 && filter == "QUATERNION") {
        if (stride != 8) throw ReadError(f + ".byteStride", "must be 8 for the QUATERNION filter");
        meshopt_decodeFilterQuat(out.data(), count, stride);
      } else if (rc == 0 && filter == "EXPONENTIAL") {
        meshopt_decodeFilterExp(out.data(), count, stride);
      } else if (filter != "NONE") {
        throw ReadError(f + ".filter", "\"" + filter + "\" is not a meshopt filter");
      }
    } else if (mode == "TRIANGLES" || mode == "INDICES") {
      if (stride != 2 && stride != 4)
        throw ReadError(f + ".byteStride", "must be 2 or 4 for " + mode);
      if (filter != "NONE") throw ReadError(f + ".filter", "only NONE is allowed for " + mode);
      if (mode == "TRIANGLES") {
        if (count % 3 != 0) throw ReadError(f + ".count", "not a multiple of 3 for TRIANGLES");
        rc = meshopt_decodeIndexBuffer(out.data(), count, stride, src, length);
      } else {
        rc = meshopt_decodeIndexSequence(out.data(), count, stride, src, length);
      }
    } else {
      throw ReadError(f + ".mode", "\"" + mode + "\" (expected ATTRIBUTES, TRIANGLES or INDICES)");
    }
    if (rc != 0)
      throw ReadError(
          f, "the meshopt stream does not decode (meshoptimizer error " + std::to_string(rc) + ")");
    view.buffer = AppendBuffer(m, std::move(out));
    view.byteOffset = 0;
#else
    (void)max_values, (void)left;
#endif
  }
}

// ---- KHR_draco_mesh_compression -------------------------------------------------------------

#if HAIRSWING_DRACO
// Writes `nc` components of draco attribute value `avi` as glTF component type `ct`.
bool ConvertTo(const draco::PointAttribute& att, draco::AttributeValueIndex avi, int ct, int nc,
               unsigned char* dst) {
  auto as = [&](auto tag) {
    using T = decltype(tag);
    T tmp[16] = {};
    if (!att.ConvertValue<T>(avi, static_cast<int8_t>(nc), tmp)) return false;
    std::memcpy(dst, tmp, sizeof(T) * static_cast<size_t>(nc));
    return true;
  };
  switch (ct) {
    case TINYGLTF_COMPONENT_TYPE_FLOAT:
      return as(float{});
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT:
      return as(uint32_t{});
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT:
      return as(uint16_t{});
    case TINYGLTF_COMPONENT_TYPE_SHORT:
      return as(int16_t{});
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE:
      return as(uint8_t{});
    case TINYGLTF_COMPONENT_TYPE_BYTE:
      return as(int8_t{});
    default:
      return false;
  }
}

// Points accessor `*acc` (a copy of it when an earlier primitive already took it) at `bytes`.
void SetAccessorData(tinygltf::Model& m, int* acc, std::set<int>& taken,
                     std::vector<unsigned char> bytes, size_t count) {
  if (taken.count(*acc)) {
    m.accessors.push_back(m.accessors[*acc]);
    *acc = static_cast<int>(m.accessors.size()) - 1;
  }
  taken.insert(*acc);
  tinygltf::BufferView view;
  view.byteLength = bytes.size();
  view.buffer = AppendBuffer(m, std::move(bytes));
  m.bufferViews.push_back(view);
  auto& a = m.accessors[*acc];
  a.bufferView = static_cast<int>(m.bufferViews.size()) - 1;
  a.byteOffset = 0;
  a.count = count;
  a.sparse.isSparse = false;
  a.sparse.count = 0;
}
#endif

void DecodeDracoPrimitives(tinygltf::Model& m, const Json& root, size_t max_values, size_t* left) {
  const Json* meshes = Find(root, "meshes");
  if (!meshes || !meshes->is_array()) return;
#if HAIRSWING_DRACO
  std::set<int> taken;  // accessors already holding one primitive's decoded data
#endif
  for (size_t i = 0; i < meshes->size() && i < m.meshes.size(); ++i) {
    const Json* prims = Find((*meshes)[i], "primitives");
    if (!prims || !prims->is_array()) continue;
    for (size_t pi = 0; pi < prims->size() && pi < m.meshes[i].primitives.size(); ++pi) {
      const Json* ext = ExtensionOf((*prims)[pi], kDracoExtension);
      if (!ext) continue;
      const std::string pf = Idx(Idx("meshes", i) + ".primitives", pi);
      const std::string f = pf + ".extensions." + kDracoExtension;
      CheckDecodable(*ext, f, kDracoExtension, "Draco");
#if HAIRSWING_DRACO
      auto& prim = m.meshes[i].primitives[pi];
      if (prim.mode != -1 && prim.mode != TINYGLTF_MODE_TRIANGLES)
        throw ReadError(pf + ".mode", "Draco data is decoded for triangle primitives only");
      const int bv = GetIndex(*ext, "bufferView", -1, m.bufferViews.size(), f);
      if (bv < 0) throw ReadError(f + ".bufferView", "missing");
      const auto& view = m.bufferViews[bv];
      const uint8_t* src =
          SourceBytes(m, view.buffer, view.byteOffset, view.byteLength, Idx("bufferViews", bv));
      const Json* attrs = GetObject(*ext, "attributes", f);
      if (!attrs) throw ReadError(f + ".attributes", "missing");

      draco::DecoderBuffer buf;
      buf.Init(reinterpret_cast<const char*>(src), view.byteLength);
      auto type = draco::Decoder::GetEncodedGeometryType(&buf);
      if (!type.ok() || type.value() != draco::TRIANGULAR_MESH)
        throw ReadError(f, type.ok() ? "the Draco stream is not a triangle mesh"
                                     : "the Draco stream does not decode (" +
                                           type.status().error_msg_string() + ")");
      draco::Decoder decoder;
      auto decoded = decoder.DecodeMeshFromBuffer(&buf);
      if (!decoded.ok())
        throw ReadError(
            f, "the Draco stream does not decode (" + decoded.status().error_msg_string() + ")");
      const std::unique_ptr<draco::Mesh> mesh = std::move(decoded).value();
      const size_t points = mesh->num_points();
      const size_t corners = static_cast<size_t>(mesh->num_faces()) * 3;
      if (points > max_values || corners > max_values)
        throw ReadError(f, "decodes to " + std::to_string(points) + " points and " +
                               std::to_string(corners) + " indices, over the limit of " +
                               std::to_string(max_values));

      for (auto it = attrs->begin(); it != attrs->end(); ++it) {
        const std::string af = f + ".attributes." + it.key();
        if (!it.value().is_number_integer()) throw ReadError(af, "expected an attribute id");
        const auto found = prim.attributes.find(it.key());
        if (found == prim.attributes.end())
          throw ReadError(af, "the primitive has no attribute \"" + it.key() + "\"");
        int acc = found->second;
        if (acc < 0 || acc >= static_cast<int>(m.accessors.size()))
          throw ReadError(pf + ".attributes." + it.key(), "accessor index out of range");
        const auto id = it.value().get<int64_t>();
        const draco::PointAttribute* att =
            id >= 0 && id <= std::numeric_limits<uint32_t>::max()
                ? mesh->GetAttributeByUniqueId(static_cast<uint32_t>(id))
                : nullptr;
        if (!att) throw ReadError(af, "the Draco stream has no attribute " + std::to_string(id));
        const int ct = m.accessors[acc].componentType;
        const int nc = Reader::NumComponents(m.accessors[acc].type);
        const int cs = Reader::ComponentSize(ct);
        if (nc == 0 || nc > 16 || cs == 0)
          throw ReadError(Idx("accessors", acc), "invalid type or componentType");
        const size_t elem = static_cast<size_t>(nc) * cs;
        if (points * elem > kMaxDecodedBytes) throw ReadError(af, "decodes to more than 1 GiB");
        TakeDecoded(points * elem, left, af);
        std::vector<unsigned char> bytes(points * elem);
        for (size_t p = 0; p < points; ++p)
          if (!ConvertTo(*att, att->mapped_index(draco::PointIndex(static_cast<uint32_t>(p))), ct,
                         nc, bytes.data() + p * elem))
            throw ReadError(af, "Draco attribute " + std::to_string(id) +
                                    " cannot be read as the accessor's type");
        SetAccessorData(m, &acc, taken, std::move(bytes), points);
        found->second = acc;
      }
      if (prim.attributes.find("POSITION") == prim.attributes.end() || !attrs->contains("POSITION"))
        throw ReadError(f + ".attributes", "no POSITION");

      TakeDecoded(corners * 4, left, f + " (indices)");
      std::vector<unsigned char> idx(corners * 4);
      for (draco::FaceIndex fi(0); fi < mesh->num_faces(); ++fi) {
        const auto& face = mesh->face(fi);
        for (int c = 0; c < 3; ++c) {
          const uint32_t v = face[c].value();
          std::memcpy(idx.data() + (static_cast<size_t>(fi.value()) * 3 + c) * 4, &v, 4);
        }
      }
      m.accessors.emplace_back();  // the file's own was left out (PrepareCompressedForParser)
      prim.indices = static_cast<int>(m.accessors.size()) - 1;
      SetAccessorData(m, &prim.indices, taken, std::move(idx), corners);
      auto& ia = m.accessors[prim.indices];
      ia.componentType = TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT;
      ia.type = TINYGLTF_TYPE_SCALAR;
      ia.normalized = false;
#else
      (void)max_values, (void)left;
#endif
    }
  }
}

}  // namespace

bool CanDecode(const std::string& extension) {
  if (extension == kDracoExtension) return HAIRSWING_DRACO != 0;
  if (extension == kMeshoptExtension) return HAIRSWING_MESHOPT != 0;
  return false;
}

bool PrepareCompressedForParser(Json& root) {
  bool changed = false;
  if (Json* buffers = root.contains("buffers") ? &root["buffers"] : nullptr;
      buffers && buffers->is_array())
    for (auto& b : *buffers) {
      const Json* ext = ExtensionOf(b, kMeshoptExtension);
      if (!ext || !ext->is_object() || !GetBool(*ext, "fallback", false, kMeshoptExtension))
        continue;
      if (b.contains("uri")) continue;  // a real file or data URI: read as usual
      // One zero byte (tinygltf refuses an empty data URI); views into the fallback are all
      // replaced by their decoded data, and one that is not reads past this byte: an error.
      b["uri"] = "data:application/octet-stream;base64,AA==";
      b["byteLength"] = 1;
      changed = true;
    }
  // A Draco primitive's indices accessor has no buffer view, which tinygltf refuses for indices:
  // the decoder gives the primitive a new indices accessor instead.
  if (Json* meshes = root.contains("meshes") ? &root["meshes"] : nullptr;
      meshes && meshes->is_array())
    for (auto& mesh : *meshes) {
      if (!mesh.is_object() || !mesh.contains("primitives") || !mesh["primitives"].is_array())
        continue;
      for (auto& prim : mesh["primitives"])
        if (ExtensionOf(prim, kDracoExtension) && prim.contains("indices")) {
          prim.erase("indices");
          changed = true;
        }
    }
  return changed;
}

void DecodeCompressedGeometry(tinygltf::Model& m, const Json& root, size_t max_values,
                              size_t max_bytes) {
  size_t left = max_bytes;
  DecodeMeshoptViews(m, root, max_values, &left);  // Draco streams may lie in meshopt views: first
  DecodeDracoPrimitives(m, root, max_values, &left);
}

}  // namespace hairswing::io
