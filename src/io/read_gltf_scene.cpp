// glTF scene -> Avatar: nodes, skins, meshes and animations, every index, count and number
// checked (a ReadError names the field).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>

#include "io/gltf_reader.h"

namespace hairswing::io {

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
    auto finite = [&](const std::vector<double>& v, const char* what) {
      // The limit applies to the float the value becomes (FloatFits): what we write reads back.
      for (double d : v)
        if (!FloatFits(d, 1e30f))
          throw ReadError(f + "." + what, "not a finite number within float range");
    };
    finite(src.weights, "weights");
    for (double w : src.weights) dst.morph_weights.push_back(static_cast<float>(w));
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
        // Normalised in double: [1e20,0,0,0] squared overflows a float and would become zero.
        const auto& r = src.rotation;
        const double len = std::sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3]);
        if (!(len > 1e-6)) throw ReadError(f + ".rotation", "zero-length quaternion");
        dst.rotation = glm::quat(static_cast<float>(r[3] / len), static_cast<float>(r[0] / len),
                                 static_cast<float>(r[1] / len), static_cast<float>(r[2] / len));
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
  // Cycle check: every parent chain must end at a root. Each node has one parent (checked
  // above), so walking up from each node, marking what is known to reach a root, costs O(n) in
  // all (a 100,000-deep chain walked from every node would cost n * depth).
  std::vector<uint8_t> state(n, 0);  // 0 unknown, 1 on the current walk, 2 reaches a root
  std::vector<int> walk;
  for (size_t i = 0; i < n; ++i) {
    walk.clear();
    int p = static_cast<int>(i);
    while (p != -1 && state[p] == 0) {
      state[p] = 1;
      walk.push_back(p);
      p = av.nodes[p].parent;
    }
    if (p != -1 && state[p] == 1) throw ReadError(Idx("nodes", i), "cyclic node hierarchy");
    for (int w : walk) state[w] = 2;
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

void ReadMeshes(const Reader& r, const Json& root, const std::string& file, Avatar& av,
                Warnings& warnings) {
  const Json& jmeshes = GetArray(root, "meshes", "");
  const Json& jaccessors = GetArray(root, "accessors", "");
  // Extras and extensions of a JSON object, verbatim ("" when absent).
  auto kept = [](const Json& obj, const char* key) {
    const Json* v = obj.is_object() ? Find(obj, key) : nullptr;
    return v && !v->is_null() ? Dump(*v) : std::string();
  };
  auto accessor_ext = [&](int index) {
    return index >= 0 && static_cast<size_t>(index) < jaccessors.size()
               ? kept(jaccessors[index], "extensions")
               : std::string();
  };
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
    const Json& jm = i < jmeshes.size() ? jmeshes[i] : Json::object();
    dst.extras_json = kept(jm, "extras");
    dst.extensions_json = kept(jm, "extensions");
    for (double w : src.weights) dst.morph_weights.push_back(static_cast<float>(w));
    for (size_t pi = 0; pi < src.primitives.size(); ++pi) {
      const auto& sp = src.primitives[pi];
      const std::string pf = Idx(f + ".primitives", pi);
      Primitive p;
      p.mode = sp.mode < 0 ? 4 : sp.mode;
      if (const Json* jps = Find(jm, "primitives"); jps && jps->is_array() && pi < jps->size()) {
        // Compressed geometry was decoded (decode_compressed.h): its extension does not pass on.
        Json exts = (*jps)[pi].is_object() && Find((*jps)[pi], "extensions")
                        ? *Find((*jps)[pi], "extensions")
                        : Json();
        if (exts.is_object()) exts.erase("KHR_draco_mesh_compression");
        if (exts.is_object() && !exts.empty()) p.extensions_json = Dump(exts);
        p.extras_json = kept((*jps)[pi], "extras");
      }
      for (const auto& [name, acc] : sp.attributes)
        if (std::string e = accessor_ext(acc); !e.empty()) p.accessor_extensions[name] = e;
      if (std::string e = accessor_ext(sp.indices); !e.empty())
        p.accessor_extensions["indices"] = e;
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
          // Normals that are not finite numbers (an exporter defect) are left out: no spring or
          // measurement reads them, and viewers compute normals when a mesh has none.
          p.normals = r.ReadVecs<3>(acc, af, /*allow_non_finite=*/true);
          if (p.normals.size() != nv) throw ReadError(af, "count differs from POSITION");
          const size_t bad = static_cast<size_t>(
              std::count_if(p.normals.begin(), p.normals.end(), [](const glm::vec3& n) {
                return !std::isfinite(n.x) || !std::isfinite(n.y) || !std::isfinite(n.z);
              }));
          if (bad) {
            warnings.push_back(file + ": " + af + ": " + std::to_string(bad) + " of " +
                               std::to_string(nv) +
                               " normals are not finite numbers; the primitive's normals are left "
                               "out (viewers compute them)");
            p.normals.clear();
          }
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
          // Weights that are not numbers (an exporter defect: a mesh whose WEIGHTS_0 are all
          // NaN) do not make the file unusable: such a vertex follows its first joint alone, as
          // three.js does for a vertex whose weights do not add up to anything.
          p.weights = r.ReadVecs<4>(acc, af, /*allow_non_finite=*/true);
          if (p.weights.size() != nv) throw ReadError(af, "count differs from POSITION");
          size_t repaired = 0;
          for (glm::vec4& w : p.weights)
            if (!std::isfinite(w.x) || !std::isfinite(w.y) || !std::isfinite(w.z) ||
                !std::isfinite(w.w)) {
              w = glm::vec4(1, 0, 0, 0);
              ++repaired;
            }
          if (repaired)
            warnings.push_back(file + ": " + af + ": " + std::to_string(repaired) + " of " +
                               std::to_string(nv) +
                               " vertices have weights that are not finite numbers; they follow "
                               "their first joint alone");
        } else {
          // UVs, colours, tangents, second skin sets: nothing here reads them; values that are
          // not finite numbers become 0 with a warning instead of refusing the file.
          ExtraAttribute ea;
          ea.data = r.Read<float>(acc, &ea.components, af, /*allow_non_finite=*/true);
          if (ea.components > 4 || ea.data.size() != nv * ea.components)
            throw ReadError(af, "count differs from POSITION");
          size_t bad = 0;
          for (size_t v = 0; v < nv; ++v) {
            bool finite = true;
            for (int c = 0; c < ea.components; ++c)
              finite &= std::isfinite(ea.data[v * ea.components + c]);
            if (finite) continue;
            ++bad;
            for (int c = 0; c < ea.components; ++c) ea.data[v * ea.components + c] = 0.0f;
          }
          if (bad)
            warnings.push_back(file + ": " + af + ": " + std::to_string(bad) + " of " +
                               std::to_string(nv) +
                               " values are not finite numbers; they are set to 0");
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
          *dstv = r.ReadVecs<3>(acc, tf, /*allow_non_finite=*/true);
          if (dstv->size() != nv) throw ReadError(tf, "count differs from POSITION");
          // Deltas that are not finite numbers would throw the vertex to infinity when the
          // target is weighted: they become 0 (that vertex does not move with the target).
          size_t bad = 0;
          for (glm::vec3& d : *dstv)
            if (!std::isfinite(d.x) || !std::isfinite(d.y) || !std::isfinite(d.z)) {
              d = glm::vec3(0);
              ++bad;
            }
          if (bad)
            warnings.push_back(file + ": " + tf + ": " + std::to_string(bad) + " of " +
                               std::to_string(nv) +
                               " deltas are not finite numbers; they are set to 0");
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

// JOINTS_0 indexes the skin of the node that draws the mesh: a larger index would read past
// the joint palette in everything that skins (fitters, measurement, renderer). An influence
// of weight 0 is harmless (some exporters pad with any index): it is pointed at joint 0.
void CheckSkinJoints(Avatar& av) {
  for (size_t n = 0; n < av.nodes.size(); ++n) {
    const Node& node = av.nodes[n];
    if (node.mesh < 0 || node.skin < 0) continue;
    const size_t joints = av.skins[node.skin].joints.size();
    Mesh& mesh = av.meshes[node.mesh];
    for (size_t p = 0; p < mesh.primitives.size(); ++p) {
      Primitive& prim = mesh.primitives[p];
      for (size_t v = 0; v < prim.joints.size(); ++v)
        for (int c = 0; c < 4; ++c) {
          if (prim.joints[v][c] < joints) continue;
          if (v < prim.weights.size() && prim.weights[v][c] == 0.0f) {
            prim.joints[v][c] = 0;
            continue;
          }
          throw ReadError(
              Idx(Idx("meshes", node.mesh) + ".primitives", p) + ".attributes.JOINTS_0",
              "vertex " + std::to_string(v) + " uses joint " + std::to_string(prim.joints[v][c]) +
                  ", past the " + std::to_string(joints) + " joints of skins[" +
                  std::to_string(node.skin) + "] (drawn by nodes[" + std::to_string(n) + "])");
        }
    }
  }
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
      for (float t : {out.times.empty() ? 0.0f : out.times.front(),
                      out.times.empty() ? 0.0f : out.times.back()})
        if (std::fabs(t) > kMaxAnimationSeconds)
          throw ReadError(sf + ".input",
                          "key time " + std::to_string(t) + " s is past the limit of " +
                              std::to_string(static_cast<int>(kMaxAnimationSeconds)) +
                              " s for a clip");
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

}  // namespace hairswing::io
