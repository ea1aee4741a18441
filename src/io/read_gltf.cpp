// glTF 2.0 core reader: bytes -> tinygltf::Model -> Avatar, with every index, count and number
// checked. tinygltf parses the container, JSON, data URIs and external files; we decode
// accessors ourselves so that each one is bounds-checked against its buffer view.
#include <tiny_gltf.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

#include "hairswing/io.h"
#include "io/compat.h"
#include "io/read_internal.h"

namespace hairswing {
namespace io {
namespace {

namespace fs = std::filesystem;

// ---- file system callbacks -------------------------------------------------------------------
// tinygltf fails the whole load when a buffer file is missing. Real files ship without their
// display-mesh .bin (the three-vrm fixtures), so a missing buffer is served as zeros of the
// declared size and remembered; meshes that read from it are dropped afterwards with a warning.
struct FsContext {
  std::string base_dir;
  std::map<std::string, size_t> buffer_paths;  // joined path -> declared byteLength
  std::set<std::string> missing;               // joined paths served as zeros
  size_t max_bytes = 0;
};

bool FsFileExists(const std::string& path, void* user) {
  auto* ctx = static_cast<FsContext*>(user);
  if (ctx->buffer_paths.count(path)) return true;
  std::error_code ec;
  return fs::is_regular_file(path, ec);
}

std::string FsExpandPath(const std::string& p, void*) { return p; }

bool FsReadWholeFile(std::vector<unsigned char>* out, std::string* err, const std::string& path,
                     void* user) {
  auto* ctx = static_cast<FsContext*>(user);
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  if (f) {
    std::streamoff size = f.tellg();
    if (size < 0 || static_cast<size_t>(size) > ctx->max_bytes) {
      if (err) *err = "file too large";
      return false;
    }
    out->resize(static_cast<size_t>(size));
    f.seekg(0);
    if (size > 0 && !f.read(reinterpret_cast<char*>(out->data()), size)) {
      if (err) *err = "read failed";
      return false;
    }
    return true;
  }
  auto it = ctx->buffer_paths.find(path);
  if (it == ctx->buffer_paths.end()) {
    if (err) *err = "cannot open";
    return false;
  }
  ctx->missing.insert(path);
  out->assign(std::max<size_t>(it->second, 1), 0);
  return true;
}

bool FsWriteWholeFile(std::string* err, const std::string&, const std::vector<unsigned char>&,
                      void*) {
  if (err) *err = "writing through the loader is disabled";
  return false;
}

// Images are kept as encoded bytes; we never decode pixels. tinygltf hands an image stored in a
// bufferView over as a pointer into the buffer without checking that the view lies inside it, so
// those bytes are not read here but copied, bounds-checked, in ReadPassThrough.
bool KeepImageBytes(tinygltf::Image* image, const int, std::string*, std::string*, int, int,
                    const unsigned char* bytes, int size, void*) {
  image->as_is = true;
  if (image->bufferView >= 0) return true;
  image->image.assign(bytes, bytes + std::max(size, 0));
  return true;
}

std::string JoinPath(const std::string& dir, const std::string& file) {
  if (dir.empty()) return file;
  if (dir.back() == '/') return dir + file;
  return dir + "/" + file;
}

std::string PercentDecode(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out.push_back(static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16)));
      i += 2;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

// ---- accessor decoding ------------------------------------------------------------------------

struct Reader {
  const tinygltf::Model& m;
  std::set<int> missing_buffers;
  size_t max_elements;

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
  std::vector<T> Read(int index, int* comps_out, const std::string& field) const {
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
      for (size_t i = 0; i < out.size(); ++i)
        if (!std::isfinite(out[i]))
          throw ReadError(af, "element " + std::to_string(i / nc) + " is not a finite number");
    }
    if (comps_out) *comps_out = nc;
    return out;
  }

  template <int N>
  std::vector<glm::vec<N, float>> ReadVecs(int index, const std::string& field) const {
    int nc = 0;
    auto flat = Read<float>(index, &nc, field);
    if (nc != N)
      throw ReadError(field, "expected " + std::to_string(N) + " components, accessor has " +
                                 std::to_string(nc));
    std::vector<glm::vec<N, float>> out(flat.size() / N);
    std::memcpy(out.data(), flat.data(), out.size() * sizeof(out[0]));
    return out;
  }
};

// ---- conversion --------------------------------------------------------------------------------

void ReadNodes(const tinygltf::Model& m, const Json& root, Avatar& av) {
  const size_t n = m.nodes.size();
  av.nodes.resize(n);
  const Json& jnodes = GetArray(root, "nodes", "");
  for (size_t i = 0; i < n; ++i) {
    const auto& src = m.nodes[i];
    Node& dst = av.nodes[i];
    const std::string f = Idx("nodes", i);
    dst.name = src.name;
    if (src.mesh >= static_cast<int>(m.meshes.size()) || src.mesh < -1)
      throw ReadError(f + ".mesh", "index " + std::to_string(src.mesh) + " out of range");
    if (src.skin >= static_cast<int>(m.skins.size()) || src.skin < -1)
      throw ReadError(f + ".skin", "index " + std::to_string(src.skin) + " out of range");
    dst.mesh = src.mesh;
    dst.skin = src.skin;
    for (double w : src.weights) dst.morph_weights.push_back(static_cast<float>(w));
    auto finite = [&](const std::vector<double>& v, const char* what) {
      for (double d : v)
        if (!std::isfinite(d) || std::fabs(d) > 1e30)
          throw ReadError(f + "." + what, "not a finite number within float range");
    };
    finite(src.translation, "translation");
    finite(src.rotation, "rotation");
    finite(src.scale, "scale");
    finite(src.matrix, "matrix");
    if (src.matrix.size() == 16) {
      glm::mat4 mat;
      for (int c = 0; c < 4; ++c)
        for (int r = 0; r < 4; ++r) mat[c][r] = static_cast<float>(src.matrix[c * 4 + r]);
      glm::vec3 t(mat[3]);
      glm::vec3 s(glm::length(glm::vec3(mat[0])), glm::length(glm::vec3(mat[1])),
                  glm::length(glm::vec3(mat[2])));
      if (glm::determinant(glm::mat3(mat)) < 0) s.x = -s.x;
      if (s.x == 0 || s.y == 0 || s.z == 0) {
        dst.translation = t;
        dst.scale = glm::vec3(0.0f);
      } else {
        glm::mat3 rot(glm::vec3(mat[0]) / s.x, glm::vec3(mat[1]) / s.y, glm::vec3(mat[2]) / s.z);
        dst.translation = t;
        dst.rotation = glm::normalize(glm::quat_cast(rot));
        dst.scale = s;
      }
    } else {
      if (src.translation.size() == 3)
        dst.translation = glm::vec3(src.translation[0], src.translation[1], src.translation[2]);
      if (src.rotation.size() == 4) {
        glm::quat q(static_cast<float>(src.rotation[3]), static_cast<float>(src.rotation[0]),
                    static_cast<float>(src.rotation[1]), static_cast<float>(src.rotation[2]));
        float len = glm::length(q);
        if (!(len > 1e-6f)) throw ReadError(f + ".rotation", "zero-length quaternion");
        dst.rotation = q / len;
      }
      if (src.scale.size() == 3) dst.scale = glm::vec3(src.scale[0], src.scale[1], src.scale[2]);
    }
    for (int c : src.children) {
      if (c < 0 || c >= static_cast<int>(n))
        throw ReadError(f + ".children", "index " + std::to_string(c) + " out of range");
      if (c == static_cast<int>(i)) throw ReadError(f + ".children", "node is its own child");
      if (av.nodes[c].parent != -1)
        throw ReadError(f + ".children", "node " + std::to_string(c) + " already has parent " +
                                             std::to_string(av.nodes[c].parent));
      av.nodes[c].parent = static_cast<int>(i);
      dst.children.push_back(c);
    }
    // Unknown node extensions and extras pass through verbatim.
    if (i < jnodes.size()) {
      const Json& jn = jnodes[i];
      if (const Json* ext = Find(jn, "extensions"); ext && ext->is_object()) {
        Json keep = Json::object();
        for (auto it = ext->begin(); it != ext->end(); ++it)
          if (!IsModelledExtension(it.key())) keep[it.key()] = it.value();
        if (!keep.empty()) dst.extensions_json = Dump(keep);
      }
      if (const Json* ex = Find(jn, "extras")) dst.extras_json = Dump(*ex);
    }
  }
  // Cycle check: every parent chain must end at a root within n steps.
  for (size_t i = 0; i < n; ++i) {
    int p = av.nodes[i].parent;
    size_t steps = 0;
    while (p != -1) {
      if (++steps > n) throw ReadError(Idx("nodes", i), "cyclic node hierarchy");
      p = av.nodes[p].parent;
    }
  }
  // Scene roots: the default scene, else every parentless node.
  int scene = m.defaultScene >= 0 ? m.defaultScene : (m.scenes.empty() ? -1 : 0);
  if (scene >= static_cast<int>(m.scenes.size())) throw ReadError("scene", "index out of range");
  if (scene >= 0) {
    for (int r : m.scenes[scene].nodes) {
      if (r < 0 || r >= static_cast<int>(n))
        throw ReadError(Idx("scenes", scene) + ".nodes",
                        "index " + std::to_string(r) + " out of range");
      if (av.nodes[r].parent != -1)
        throw ReadError(Idx("scenes", scene) + ".nodes",
                        "node " + std::to_string(r) + " is not a root");
      av.scene_roots.push_back(r);
    }
  } else {
    for (size_t i = 0; i < n; ++i)
      if (av.nodes[i].parent == -1) av.scene_roots.push_back(static_cast<int>(i));
  }
}

void ReadSkins(const Reader& r, Avatar& av) {
  const auto& m = r.m;
  for (size_t i = 0; i < m.skins.size(); ++i) {
    const auto& src = m.skins[i];
    const std::string f = Idx("skins", i);
    Skin dst;
    dst.name = src.name;
    for (size_t j = 0; j < src.joints.size(); ++j) {
      int jn = src.joints[j];
      if (jn < 0 || jn >= static_cast<int>(m.nodes.size()))
        throw ReadError(Idx(f + ".joints", j),
                        "node index " + std::to_string(jn) + " out of range");
      dst.joints.push_back(jn);
    }
    if (src.skeleton < -1 || src.skeleton >= static_cast<int>(m.nodes.size()))
      throw ReadError(f + ".skeleton", "index out of range");
    dst.skeleton = src.skeleton;
    dst.inverse_bind.assign(dst.joints.size(), glm::mat4(1.0f));
    if (src.inverseBindMatrices >= 0) {
      if (r.UsesMissingBuffer(src.inverseBindMatrices))
        throw ReadError(f + ".inverseBindMatrices", "its buffer file is missing");
      int nc = 0;
      auto flat = r.Read<float>(src.inverseBindMatrices, &nc, f + ".inverseBindMatrices");
      if (nc != 16) throw ReadError(f + ".inverseBindMatrices", "must be MAT4");
      if (flat.size() < dst.joints.size() * 16)
        throw ReadError(f + ".inverseBindMatrices", "fewer matrices than joints");
      for (size_t j = 0; j < dst.joints.size(); ++j)
        std::memcpy(&dst.inverse_bind[j][0][0], flat.data() + j * 16, sizeof(glm::mat4));
    }
    av.skins.push_back(std::move(dst));
  }
}

void ReadMeshes(const Reader& r, const std::string& file, Avatar& av, Warnings& warnings) {
  const auto& m = r.m;
  std::vector<int> remap(m.meshes.size(), -1);
  for (size_t i = 0; i < m.meshes.size(); ++i) {
    const auto& src = m.meshes[i];
    const std::string f = Idx("meshes", i);
    bool missing = false;
    for (const auto& p : src.primitives) {
      for (const auto& [name, acc] : p.attributes) missing |= r.UsesMissingBuffer(acc);
      missing |= r.UsesMissingBuffer(p.indices);
      for (const auto& t : p.targets)
        for (const auto& [name, acc] : t) missing |= r.UsesMissingBuffer(acc);
    }
    if (missing) {
      warnings.push_back(file + ": " + f + " (\"" + src.name +
                         "\") dropped: its buffer file is missing");
      continue;
    }
    Mesh dst;
    dst.name = src.name;
    for (double w : src.weights) dst.morph_weights.push_back(static_cast<float>(w));
    for (size_t pi = 0; pi < src.primitives.size(); ++pi) {
      const auto& sp = src.primitives[pi];
      const std::string pf = Idx(f + ".primitives", pi);
      Primitive p;
      p.mode = sp.mode < 0 ? 4 : sp.mode;
      if (p.mode > 6) throw ReadError(pf + ".mode", "invalid primitive mode");
      if (sp.material < -1 || sp.material >= static_cast<int>(m.materials.size()))
        throw ReadError(pf + ".material", "index out of range");
      p.material = sp.material;
      auto pos_it = sp.attributes.find("POSITION");
      if (pos_it == sp.attributes.end()) throw ReadError(pf + ".attributes", "no POSITION");
      p.positions = r.ReadVecs<3>(pos_it->second, pf + ".attributes.POSITION");
      const size_t nv = p.positions.size();
      for (const auto& [name, acc] : sp.attributes) {
        const std::string af = pf + ".attributes." + name;
        if (name == "POSITION") continue;
        if (name == "NORMAL") {
          p.normals = r.ReadVecs<3>(acc, af);
          if (p.normals.size() != nv) throw ReadError(af, "count differs from POSITION");
        } else if (name == "JOINTS_0") {
          int nc = 0;
          auto flat = r.Read<uint32_t>(acc, &nc, af);
          if (nc != 4 || flat.size() != nv * 4) throw ReadError(af, "expected VEC4 per vertex");
          p.joints.resize(nv);
          for (size_t v = 0; v < nv; ++v)
            for (int c = 0; c < 4; ++c) {
              if (flat[v * 4 + c] > 65535) throw ReadError(af, "joint index too large");
              p.joints[v][c] = static_cast<uint16_t>(flat[v * 4 + c]);
            }
        } else if (name == "WEIGHTS_0") {
          p.weights = r.ReadVecs<4>(acc, af);
          if (p.weights.size() != nv) throw ReadError(af, "count differs from POSITION");
        } else {
          ExtraAttribute ea;
          ea.data = r.Read<float>(acc, &ea.components, af);
          if (ea.components > 4 || ea.data.size() != nv * ea.components)
            throw ReadError(af, "count differs from POSITION");
          p.extra_attributes[name] = std::move(ea);
        }
      }
      if ((p.joints.empty()) != (p.weights.empty()))
        throw ReadError(pf + ".attributes", "JOINTS_0 and WEIGHTS_0 must come together");
      if (sp.indices >= 0) {
        int nc = 0;
        p.indices = r.Read<uint32_t>(sp.indices, &nc, pf + ".indices");
        if (nc != 1) throw ReadError(pf + ".indices", "must be SCALAR");
        for (uint32_t ix : p.indices)
          if (ix >= nv)
            throw ReadError(pf + ".indices",
                            "vertex index " + std::to_string(ix) + " out of range");
      } else {
        p.indices.resize(nv);
        for (size_t v = 0; v < nv; ++v) p.indices[v] = static_cast<uint32_t>(v);
      }
      for (size_t ti = 0; ti < sp.targets.size(); ++ti) {
        MorphTarget t;
        for (const auto& [name, acc] : sp.targets[ti]) {
          const std::string tf = Idx(pf + ".targets", ti) + "." + name;
          std::vector<glm::vec3>* dstv = name == "POSITION"  ? &t.positions
                                         : name == "NORMAL"  ? &t.normals
                                         : name == "TANGENT" ? &t.tangents
                                                             : nullptr;
          if (!dstv) continue;
          *dstv = r.ReadVecs<3>(acc, tf);
          if (dstv->size() != nv) throw ReadError(tf, "count differs from POSITION");
        }
        p.targets.push_back(std::move(t));
      }
      dst.primitives.push_back(std::move(p));
    }
    remap[i] = static_cast<int>(av.meshes.size());
    av.meshes.push_back(std::move(dst));
  }
  for (auto& n : av.nodes)
    if (n.mesh >= 0) n.mesh = remap[n.mesh];
}

void ReadAnimations(const Reader& r, Avatar& av) {
  const auto& m = r.m;
  for (size_t i = 0; i < m.animations.size(); ++i) {
    const auto& src = m.animations[i];
    const std::string f = Idx("animations", i);
    Animation dst;
    dst.name = src.name;
    for (size_t c = 0; c < src.channels.size(); ++c) {
      const auto& ch = src.channels[c];
      const std::string cf = Idx(f + ".channels", c);
      if (ch.target_node < 0) continue;  // channels without a node target are legal but inert
      if (ch.target_node >= static_cast<int>(m.nodes.size()))
        throw ReadError(cf + ".target.node", "index out of range");
      if (ch.sampler < 0 || ch.sampler >= static_cast<int>(src.samplers.size()))
        throw ReadError(cf + ".sampler", "index out of range");
      const auto& s = src.samplers[ch.sampler];
      const std::string sf = Idx(f + ".samplers", ch.sampler);
      AnimationChannel out;
      out.node = ch.target_node;
      if (ch.target_path == "translation")
        out.path = AnimationChannel::Path::kTranslation;
      else if (ch.target_path == "rotation")
        out.path = AnimationChannel::Path::kRotation;
      else if (ch.target_path == "scale")
        out.path = AnimationChannel::Path::kScale;
      else if (ch.target_path == "weights")
        out.path = AnimationChannel::Path::kWeights;
      else
        throw ReadError(cf + ".target.path", "unknown path \"" + ch.target_path + "\"");
      if (s.interpolation == "STEP")
        out.interpolation = AnimationChannel::Interp::kStep;
      else if (s.interpolation == "CUBICSPLINE")
        out.interpolation = AnimationChannel::Interp::kCubicSpline;
      else if (s.interpolation.empty() || s.interpolation == "LINEAR")
        out.interpolation = AnimationChannel::Interp::kLinear;
      else
        throw ReadError(sf + ".interpolation", "unknown \"" + s.interpolation + "\"");
      if (r.UsesMissingBuffer(s.input) || r.UsesMissingBuffer(s.output))
        throw ReadError(sf, "its buffer file is missing");
      int nc = 0;
      out.times = r.Read<float>(s.input, &nc, sf + ".input");
      if (nc != 1) throw ReadError(sf + ".input", "must be SCALAR");
      for (size_t k = 1; k < out.times.size(); ++k)
        if (out.times[k] < out.times[k - 1]) throw ReadError(sf + ".input", "times decrease");
      out.values = r.Read<float>(s.output, &nc, sf + ".output");
      size_t keys =
          out.times.size() * (out.interpolation == AnimationChannel::Interp::kCubicSpline ? 3 : 1);
      if (out.path == AnimationChannel::Path::kWeights) {
        if (nc != 1 || keys == 0 || out.values.size() % keys != 0)
          throw ReadError(sf + ".output", "count does not match input");
        out.components = static_cast<int>(out.values.size() / keys);
      } else {
        out.components = out.path == AnimationChannel::Path::kRotation ? 4 : 3;
        if (nc != out.components || out.values.size() != keys * nc)
          throw ReadError(sf + ".output", "count or type does not match input");
      }
      dst.channels.push_back(std::move(out));
    }
    av.animations.push_back(std::move(dst));
  }
}

void ReadPassThrough(const tinygltf::Model& m, const Json& root, const std::string& file,
                     const std::set<int>& missing_buffers, Avatar& av, Warnings& warnings) {
  const Json& mats = GetArray(root, "materials", "");
  for (size_t i = 0; i < mats.size(); ++i)
    av.materials.push_back({GetString(mats[i], "name", "", Idx("materials", i)), Dump(mats[i])});
  const Json& texs = GetArray(root, "textures", "");
  for (size_t i = 0; i < texs.size(); ++i) {
    GetIndex(texs[i], "source", -1, m.images.size(), Idx("textures", i));
    GetIndex(texs[i], "sampler", -1, m.samplers.size(), Idx("textures", i));
    av.textures_json.push_back(Dump(texs[i]));
  }
  for (const auto& s : GetArray(root, "samplers", "")) av.samplers_json.push_back(Dump(s));
  for (size_t i = 0; i < m.images.size(); ++i) {
    const auto& src = m.images[i];
    Image img;
    img.name = src.name;
    img.mime_type = src.mimeType;
    if (src.uri.rfind("data:", 0) != 0) img.uri = src.uri;
    bool from_missing = src.bufferView >= 0 &&
                        src.bufferView < static_cast<int>(m.bufferViews.size()) &&
                        missing_buffers.count(m.bufferViews[src.bufferView].buffer);
    if (src.bufferView >= 0 && !from_missing) {
      if (src.bufferView >= static_cast<int>(m.bufferViews.size()))
        throw ReadError(Idx("images", i) + ".bufferView", "index out of range");
      const auto& view = m.bufferViews[src.bufferView];
      if (view.buffer < 0 || view.buffer >= static_cast<int>(m.buffers.size()))
        throw ReadError(Idx("bufferViews", src.bufferView) + ".buffer", "index out of range");
      const auto& buf = m.buffers[view.buffer].data;
      if (view.byteOffset > buf.size() || view.byteLength > buf.size() - view.byteOffset)
        throw ReadError(Idx("images", i), "bufferViews[" + std::to_string(src.bufferView) +
                                              "] exceeds buffer " + std::to_string(view.buffer) +
                                              " (" + std::to_string(buf.size()) + " bytes)");
      img.bytes.assign(buf.begin() + static_cast<long>(view.byteOffset),
                       buf.begin() + static_cast<long>(view.byteOffset + view.byteLength));
    } else if (src.as_is && !from_missing) {
      img.bytes = src.image;
    }
    if (img.bytes.empty())
      warnings.push_back(file + ": " + Idx("images", i) + " (\"" +
                         (src.uri.empty() ? src.name : src.uri) +
                         "\") not found; kept as a reference");
    if (img.mime_type.empty()) {
      std::string u = img.uri;
      std::transform(u.begin(), u.end(), u.begin(), ::tolower);
      if (u.size() > 4 && u.substr(u.size() - 4) == ".png")
        img.mime_type = "image/png";
      else if (u.size() > 4 &&
               (u.substr(u.size() - 4) == ".jpg" || u.substr(u.size() - 5) == ".jpeg"))
        img.mime_type = "image/jpeg";
    }
    av.images.push_back(std::move(img));
  }
  if (const Json* a = Find(root, "asset")) av.asset_json = Dump(*a);
  if (const Json* ext = Find(root, "extensions"); ext && ext->is_object())
    for (auto it = ext->begin(); it != ext->end(); ++it)
      if (!IsModelledExtension(it.key())) av.unknown_extensions[it.key()] = Dump(it.value());
  for (const auto& e : GetArray(root, "extensionsRequired", "")) {
    if (!e.is_string()) throw ReadError("extensionsRequired", "expected strings");
    std::string name = e.get<std::string>();
    if (name == "KHR_draco_mesh_compression" || name == "EXT_meshopt_compression" ||
        name == "KHR_mesh_quantization") {
      if (name != "KHR_mesh_quantization")
        throw ReadError("extensionsRequired", "\"" + name + "\" is not supported");
    }
    if (!IsModelledExtension(name) && name != "KHR_mesh_quantization")
      av.extensions_required.push_back(name);
  }
}

}  // namespace

void CollectExtensionNames(const Json& json, std::vector<std::string>& out) {
  if (json.is_object()) {
    for (auto it = json.begin(); it != json.end(); ++it) {
      if (it.key() == "extensions" && it.value().is_object())
        for (auto e = it.value().begin(); e != it.value().end(); ++e) out.push_back(e.key());
      CollectExtensionNames(it.value(), out);
    }
  } else if (json.is_array()) {
    for (const auto& e : json) CollectExtensionNames(e, out);
  }
}

}  // namespace io

namespace {

std::string BaseName(const std::string& path) {
  return std::filesystem::path(path).filename().string();
}

// Parses just enough of a GLB header to hand the JSON chunk to nlohmann for our own passes.
// tinygltf re-validates the container.
bool ExtractGlbJson(const uint8_t* data, size_t size, std::string* json, std::string* err) {
  if (size < 20) {
    *err = "GLB header: file truncated (" + std::to_string(size) + " bytes)";
    return false;
  }
  uint32_t version, length, chunk_len, chunk_type;
  std::memcpy(&version, data + 4, 4);
  std::memcpy(&length, data + 8, 4);
  std::memcpy(&chunk_len, data + 12, 4);
  std::memcpy(&chunk_type, data + 16, 4);
  if (version != 2) {
    *err = "GLB header.version: " + std::to_string(version) + " (expected 2)";
    return false;
  }
  if (length < 20) {
    *err = "GLB header.length: " + std::to_string(length) + " is smaller than the header";
    return false;
  }
  if (length > size) {
    *err = "GLB header.length: " + std::to_string(length) + " bytes declared, file has " +
           std::to_string(size) + " (truncated)";
    return false;
  }
  if (chunk_type != 0x4E4F534Au) {
    *err = "GLB chunk 0: not a JSON chunk";
    return false;
  }
  if (chunk_len > length - 20) {
    *err = "GLB chunk 0.length: " + std::to_string(chunk_len) + " exceeds the file";
    return false;
  }
  json->assign(reinterpret_cast<const char*>(data) + 20, chunk_len);
  return true;
}

}  // namespace

Result<LoadedAvatar> LoadAvatarFromMemory(const uint8_t* data, size_t size, const std::string& name,
                                          const std::string& base_dir, const LoadOptions& options) {
  using namespace io;
  const std::string file = BaseName(name);
  auto fail = [&](StatusCode code, const std::string& what) -> Status {
    return Status(code, file + ": " + what);
  };
  if (size > 0xFFFFFFF0u) return fail(StatusCode::kInvalidInput, "file larger than 4 GiB");
  const bool is_glb = size >= 4 && std::memcmp(data, "glTF", 4) == 0;
  std::string json_text;
  if (is_glb) {
    std::string err;
    if (!ExtractGlbJson(data, size, &json_text, &err)) return fail(StatusCode::kInvalidInput, err);
  } else {
    json_text.assign(reinterpret_cast<const char*>(data), size);
  }
  Json root;
  try {
    root = Json::parse(json_text);
  } catch (const std::exception& e) {
    std::string what = e.what();
    if (auto p = what.find("] "); p != std::string::npos) what = what.substr(p + 2);
    return fail(StatusCode::kInvalidInput,
                std::string(is_glb ? "JSON chunk" : "JSON") + ": " + what);
  }
  if (!root.is_object()) return fail(StatusCode::kInvalidInput, "JSON: top level is not an object");

  LoadedAvatar out;
  Avatar& av = out.avatar;
  av.source_path = name;
  try {
    // Buffer lengths that disagree with the bytes present (docs/compat.md): tinygltf is given the
    // real lengths; CheckBufferLengthFixes below keeps every view within the real bytes.
    std::vector<uint8_t> rewrapped;
    const uint8_t* load_data = data;
    size_t load_size = size;
    const std::vector<BufferLengthFix> length_fixes = MatchBufferLengths(
        root, data, size, is_glb,
        [&](const std::string& uri) { return JoinPath(base_dir, PercentDecode(uri)); });
    if (!length_fixes.empty()) {
      json_text = Dump(root);
      if (is_glb) {
        rewrapped = RewrapGlb(data, size, json_text);
        load_data = rewrapped.data();
        load_size = rewrapped.size();
      }
    }
    // Declared buffer sizes, so missing .bin files can be served as zeros (see FsContext).
    FsContext fsctx;
    fsctx.base_dir = base_dir;
    fsctx.max_bytes = 0xFFFFFFF0u;
    const Json& jbuffers = GetArray(root, "buffers", "");
    for (size_t i = 0; i < jbuffers.size(); ++i) {
      double len = GetNumber(jbuffers[i], "byteLength", -1, Idx("buffers", i));
      if (len < 0 || len > 2.0e9 || len != std::floor(len))
        throw ReadError(Idx("buffers", i) + ".byteLength", "missing or absurd");
      std::string uri = GetString(jbuffers[i], "uri", "", Idx("buffers", i));
      if (uri.empty() || uri.rfind("data:", 0) == 0) continue;
      std::error_code ec;
      if (len > static_cast<double>(options.max_missing_buffer_bytes) &&
          !std::filesystem::is_regular_file(JoinPath(base_dir, PercentDecode(uri)), ec))
        throw ReadError(
            Idx("buffers", i),
            "file \"" + uri + "\" is missing and its byteLength is too large to stand in for");
      fsctx.buffer_paths[JoinPath(base_dir, uri)] = static_cast<size_t>(len);
      fsctx.buffer_paths[JoinPath(base_dir, PercentDecode(uri))] = static_cast<size_t>(len);
    }
    for (const char* key : {"accessors", "nodes", "meshes", "bufferViews", "animations", "skins"})
      if (GetArray(root, key, "").size() > options.max_elements)
        throw ReadError(key, "absurd element count");

    tinygltf::TinyGLTF loader;
    tinygltf::FsCallbacks cbs{&FsFileExists, &FsExpandPath, &FsReadWholeFile, &FsWriteWholeFile,
                              &fsctx};
    loader.SetFsCallbacks(cbs);
    loader.SetImageLoader(&KeepImageBytes, nullptr);
    tinygltf::Model model;
    std::string err, warn;
    bool ok = is_glb
                  ? loader.LoadBinaryFromMemory(&model, &err, &warn, load_data,
                                                static_cast<unsigned>(load_size), base_dir)
                  : loader.LoadASCIIFromString(&model, &err, &warn, json_text.data(),
                                               static_cast<unsigned>(json_text.size()), base_dir);
    if (!ok) {
      std::string first = err.substr(0, err.find('\n'));
      return fail(StatusCode::kInvalidInput, first.empty() ? "not a valid glTF file" : first);
    }
    Reader reader{model, {}, options.max_elements};
    for (size_t i = 0; i < model.buffers.size(); ++i) {
      const std::string uri = model.buffers[i].uri;
      if (!uri.empty() && (fsctx.missing.count(JoinPath(base_dir, uri)) ||
                           fsctx.missing.count(JoinPath(base_dir, PercentDecode(uri))))) {
        reader.missing_buffers.insert(static_cast<int>(i));
        out.warnings.push_back(file + ": " + Idx("buffers", i) + " file \"" + uri + "\" not found");
      }
    }
    CheckBufferLengthFixes(length_fixes, root, file, &out.warnings);
    std::string ext = std::filesystem::path(name).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), ::tolower);
    av.source_format = ext == ".vrm" ? "vrm" : is_glb ? "glb" : "gltf";

    ReadNodes(model, root, av);
    ReadSkins(reader, av);
    ReadMeshes(reader, file, av, out.warnings);
    ReadAnimations(reader, av);
    ReadPassThrough(model, root, file, reader.missing_buffers, av, out.warnings);
    const Json* exts = Find(root, "extensions");
    if (exts && Find(*exts, "VRM")) {
      ReadVrm0(root, av, out.warnings);
      NormaliseVrm0Axes(av);
    } else {
      ReadVrm1(root, av, out.warnings);
    }
  } catch (const ReadError& e) {
    return fail(StatusCode::kInvalidInput, e.what());
  } catch (const std::bad_alloc&) {
    return fail(StatusCode::kInvalidInput, "out of memory (absurd counts?)");
  } catch (const std::exception& e) {
    return fail(StatusCode::kInvalidInput, e.what());
  }
  return out;
}

Result<LoadedAvatar> LoadAvatar(const std::string& path, const LoadOptions& options) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    return Status(StatusCode::kIoError, path + ": no such file");
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  if (!f) return Status(StatusCode::kIoError, path + ": cannot open");
  std::streamoff size = f.tellg();
  if (size < 0 || size > 0xFFFFFFF0ll)
    return Status(StatusCode::kInvalidInput, path + ": file too large");
  std::vector<uint8_t> bytes(static_cast<size_t>(size));
  f.seekg(0);
  if (size > 0 && !f.read(reinterpret_cast<char*>(bytes.data()), size))
    return Status(StatusCode::kIoError, path + ": read failed");
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), ::tolower);
  if (ext == ".bvh")
    return LoadBvhFromText(std::string(bytes.begin(), bytes.end()), BaseName(path));
  std::string dir = std::filesystem::path(path).parent_path().string();
  if (dir.empty()) dir = ".";
  return LoadAvatarFromMemory(bytes.data(), bytes.size(), path, dir, options);
}

}  // namespace hairswing
