// The glTF core reader's pieces (private to src/io): accessor decoding, bounds-checked against
// buffer views (Reader), and the conversions of the scene into the Avatar (read_gltf_scene.cpp).
// read_gltf.cpp drives them.
#pragma once

#include <tiny_gltf.h>

#include <algorithm>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "io/read_internal.h"

namespace hairswing::io {

struct Reader {
  const tinygltf::Model& m;
  std::set<int> missing_buffers;
  size_t max_elements;
  size_t max_decoded_values;          ///< budget over every accessor decoded (LoadOptions)
  mutable size_t decoded_values = 0;  ///< spent so far

  static int ComponentSize(int ct) {
    switch (ct) {
      case TINYGLTF_COMPONENT_TYPE_BYTE:
      case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE:
        return 1;
      case TINYGLTF_COMPONENT_TYPE_SHORT:
      case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT:
        return 2;
      case TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT:
      case TINYGLTF_COMPONENT_TYPE_FLOAT:
        return 4;
      default:
        return 0;
    }
  }
  static int NumComponents(int type) {
    switch (type) {
      case TINYGLTF_TYPE_SCALAR:
        return 1;
      case TINYGLTF_TYPE_VEC2:
        return 2;
      case TINYGLTF_TYPE_VEC3:
        return 3;
      case TINYGLTF_TYPE_VEC4:
      case TINYGLTF_TYPE_MAT2:
        return 4;
      case TINYGLTF_TYPE_MAT3:
        return 9;
      case TINYGLTF_TYPE_MAT4:
        return 16;
      default:
        return 0;
    }
  }

  static double ReadComponent(const unsigned char* p, int ct, bool normalized) {
    switch (ct) {
      case TINYGLTF_COMPONENT_TYPE_FLOAT: {
        float f;
        std::memcpy(&f, p, 4);
        return f;
      }
      case TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT: {
        uint32_t v;
        std::memcpy(&v, p, 4);
        return normalized ? v / 4294967295.0 : v;
      }
      case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: {
        uint16_t v;
        std::memcpy(&v, p, 2);
        return normalized ? v / 65535.0 : v;
      }
      case TINYGLTF_COMPONENT_TYPE_SHORT: {
        int16_t v;
        std::memcpy(&v, p, 2);
        return normalized ? std::max(v / 32767.0, -1.0) : v;
      }
      case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE:
        return normalized ? *p / 255.0 : *p;
      case TINYGLTF_COMPONENT_TYPE_BYTE: {
        auto v = static_cast<int8_t>(*p);
        return normalized ? std::max(v / 127.0, -1.0) : v;
      }
      default:
        return 0.0;
    }
  }

  bool UsesMissingBuffer(int acc_index) const {
    if (acc_index < 0 || acc_index >= static_cast<int>(m.accessors.size())) return false;
    const auto& a = m.accessors[acc_index];
    auto view_missing = [&](int bv) {
      return bv >= 0 && bv < static_cast<int>(m.bufferViews.size()) &&
             missing_buffers.count(m.bufferViews[bv].buffer) > 0;
    };
    return view_missing(a.bufferView) ||
           (a.sparse.isSparse && (view_missing(a.sparse.indices.bufferView) ||
                                  view_missing(a.sparse.values.bufferView)));
  }

  // Returns a pointer to `bytes` bytes at `offset` within buffer view `bv`, checked.
  const unsigned char* ViewBytes(int bv, size_t offset, size_t bytes,
                                 const std::string& field) const {
    if (bv < 0 || bv >= static_cast<int>(m.bufferViews.size()))
      throw ReadError(field + ".bufferView", "index " + std::to_string(bv) + " out of range");
    const auto& view = m.bufferViews[bv];
    if (view.buffer < 0 || view.buffer >= static_cast<int>(m.buffers.size()))
      throw ReadError(Idx("bufferViews", bv) + ".buffer", "index out of range");
    const auto& buf = m.buffers[view.buffer].data;
    if (view.byteOffset > buf.size() || view.byteLength > buf.size() - view.byteOffset)
      throw ReadError(Idx("bufferViews", bv), "byteOffset + byteLength exceed buffer " +
                                                  std::to_string(view.buffer) + " (" +
                                                  std::to_string(buf.size()) + " bytes)");
    if (offset > view.byteLength || bytes > view.byteLength - offset)
      throw ReadError(field, "reads past the end of bufferViews[" + std::to_string(bv) + "]");
    return buf.data() + view.byteOffset + offset;
  }

  /// Decodes accessor `index` into doubles-as-T, `comps` values per element.
  template <typename T>
  std::vector<T> Read(int index, int* comps_out, const std::string& field,
                      bool allow_non_finite = false) const {
    if (index < 0 || index >= static_cast<int>(m.accessors.size()))
      throw ReadError(field, "accessor index " + std::to_string(index) + " out of range");
    const auto& a = m.accessors[index];
    const std::string af = Idx("accessors", index);
    int cs = ComponentSize(a.componentType);
    int nc = NumComponents(a.type);
    if (cs == 0) throw ReadError(af + ".componentType", "invalid");
    if (nc == 0) throw ReadError(af + ".type", "invalid");
    if (a.count > max_elements)
      throw ReadError(af + ".count", std::to_string(a.count) + " exceeds the limit of " +
                                         std::to_string(max_elements));
    // One accessor may be used by many primitives (8 x 50M zeros is 4.8 GB): the budget counts
    // every decode, not every accessor.
    decoded_values += a.count * nc;
    if (decoded_values > max_decoded_values)
      throw ReadError(af, "decoding it would pass the budget of " +
                              std::to_string(max_decoded_values) +
                              " values for one file (LoadOptions::max_decoded_values)");
    std::vector<T> out(a.count * nc, T(0));
    if (a.bufferView >= 0 && a.count > 0) {
      size_t elem = static_cast<size_t>(cs) * nc;
      if (a.bufferView >= static_cast<int>(m.bufferViews.size()))
        throw ReadError(af + ".bufferView", "index out of range");
      const auto& view = m.bufferViews[a.bufferView];
      size_t stride = view.byteStride ? view.byteStride : elem;
      if (stride < elem)
        throw ReadError(Idx("bufferViews", a.bufferView) + ".byteStride",
                        "smaller than the element");
      size_t span = stride * (a.count - 1) + elem;
      const unsigned char* base = ViewBytes(a.bufferView, a.byteOffset, span, af);
      for (size_t i = 0; i < a.count; ++i)
        for (int c = 0; c < nc; ++c)
          out[i * nc + c] = static_cast<T>(ReadComponent(
              base + i * stride + static_cast<size_t>(c) * cs, a.componentType, a.normalized));
    }
    if (a.sparse.isSparse) {
      size_t n = static_cast<size_t>(std::max(a.sparse.count, 0));
      if (n > a.count) throw ReadError(af + ".sparse.count", "larger than the accessor count");
      int ict = a.sparse.indices.componentType;
      int ics = ComponentSize(ict);
      if (ics == 0 || ict == TINYGLTF_COMPONENT_TYPE_FLOAT)
        throw ReadError(af + ".sparse.indices.componentType", "invalid");
      const unsigned char* ip =
          ViewBytes(a.sparse.indices.bufferView, std::max(a.sparse.indices.byteOffset, 0), n * ics,
                    af + ".sparse.indices");
      const unsigned char* vp =
          ViewBytes(a.sparse.values.bufferView, std::max(a.sparse.values.byteOffset, 0),
                    n * cs * nc, af + ".sparse.values");
      for (size_t k = 0; k < n; ++k) {
        auto target = static_cast<size_t>(ReadComponent(ip + k * ics, ict, false));
        if (target >= a.count) throw ReadError(af + ".sparse.indices", "index out of range");
        for (int c = 0; c < nc; ++c)
          out[target * nc + c] =
              static_cast<T>(ReadComponent(vp + (k * nc + c) * cs, a.componentType, a.normalized));
      }
    }
    if constexpr (std::is_floating_point_v<T>) {
      for (size_t i = 0; i < out.size() && !allow_non_finite; ++i)
        if (!std::isfinite(out[i]))
          throw ReadError(af, "element " + std::to_string(i / nc) + " is not a finite number");
    }
    if (comps_out) *comps_out = nc;
    return out;
  }

  /// `allow_non_finite`: NaN and infinity pass (the caller repairs them, as for skin weights).
  template <int N>
  std::vector<glm::vec<N, float>> ReadVecs(int index, const std::string& field,
                                           bool allow_non_finite = false) const {
    int nc = 0;
    auto flat = Read<float>(index, &nc, field, allow_non_finite);
    if (nc != N)
      throw ReadError(field, "expected " + std::to_string(N) + " components, accessor has " +
                                 std::to_string(nc));
    std::vector<glm::vec<N, float>> out(flat.size() / N);
    std::memcpy(out.data(), flat.data(), out.size() * sizeof(out[0]));
    return out;
  }
};

/// JSON types and lengths of the core glTF fields (check_types.cpp); throws ReadError.
void CheckCoreTypes(const Json& root);

// Scene conversion, in this order (later steps read what earlier ones wrote).
void ReadNodes(const tinygltf::Model& m, const Json& root, Avatar& av);
void ReadSkins(const Reader& r, Avatar& av);
/// `root` is the document's JSON, for what passes through verbatim (extras, extensions).
void ReadMeshes(const Reader& r, const Json& root, const std::string& file, Avatar& av,
                Warnings& warnings);
/// JOINTS_0 within the skin of every node that draws the mesh (weight-0 influences repaired).
void CheckSkinJoints(Avatar& av);
void ReadAnimations(const Reader& r, Avatar& av);
/// Materials, textures, samplers, images, asset and root extensions (read_gltf_passthrough.cpp).
void ReadPassThrough(const tinygltf::Model& m, const Json& root, const std::string& file,
                     const std::set<int>& missing_buffers, Avatar& av, Warnings& warnings);

}  // namespace hairswing::io
