// Avatar -> GLB. We serialise the glTF JSON with nlohmann::json (keys sorted, so the output is
// deterministic) and pack all binary data into one buffer. VRM data is always written as VRM 1.0.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "hairswing/files.h"
#include "hairswing/io.h"
#include "io/read_internal.h"
#include "read_internal.h"

namespace hairswing {
namespace io {
namespace {

constexpr int kFloat = 5126, kUShort = 5123, kUInt = 5125;

Json Vec(const glm::vec3& v) { return Json::array({v.x, v.y, v.z}); }

Json ParseKept(const std::string& s) { return s.empty() ? Json() : Json::parse(s); }

// Packs arrays into one binary buffer, one bufferView + accessor each.
struct BinWriter {
  std::vector<uint8_t> bin;
  Json views = Json::array();
  Json accessors = Json::array();

  int View(const void* data, size_t bytes, int target) {
    while (bin.size() % 4) bin.push_back(0);
    size_t off = bin.size();
    bin.resize(off + bytes);
    if (bytes) std::memcpy(bin.data() + off, data, bytes);
    Json v = {{"buffer", 0}, {"byteOffset", off}, {"byteLength", bytes}};
    if (target) v["target"] = target;
    views.push_back(v);
    return static_cast<int>(views.size()) - 1;
  }

  int Accessor(const void* data, size_t count, int comps, int ctype, int target,
               bool minmax = false) {
    static const char* kTypes[] = {"", "SCALAR", "VEC2", "VEC3", "VEC4", "", "", "",    "",
                                   "", "",       "",     "",     "",     "", "", "MAT4"};
    size_t csize = ctype == kUShort ? 2 : 4;
    int view = View(data, count * comps * csize, target);
    Json a = {
        {"bufferView", view}, {"componentType", ctype}, {"count", count}, {"type", kTypes[comps]}};
    if (minmax && ctype == kFloat && count > 0) {
      const float* f = static_cast<const float*>(data);
      std::vector<float> lo(f, f + comps), hi(f, f + comps);
      for (size_t i = 0; i < count; ++i)
        for (int c = 0; c < comps; ++c) {
          lo[c] = std::min(lo[c], f[i * comps + c]);
          hi[c] = std::max(hi[c], f[i * comps + c]);
        }
      a["min"] = lo;
      a["max"] = hi;
    }
    accessors.push_back(a);
    return static_cast<int>(accessors.size()) - 1;
  }
};

Json WriteShape(ColliderShape kind, const glm::vec3& offset, float radius, const glm::vec3& tail) {
  if (kind == ColliderShape::kCapsule || kind == ColliderShape::kInsideCapsule)
    return {{"capsule", {{"offset", Vec(offset)}, {"radius", radius}, {"tail", Vec(tail)}}}};
  return {{"sphere", {{"offset", Vec(offset)}, {"radius", radius}}}};
}

// VRMC_springBone_limit (1.0-draft) of one joint.
Json LimitJson(const JointLimit& l) {
  const Json rotation = {l.rotation.x, l.rotation.y, l.rotation.z, l.rotation.w};
  Json shape;
  if (l.kind == JointLimit::Kind::kSpherical)
    shape = {{"pitch", l.angle}, {"yaw", l.yaw}, {"rotation", rotation}};
  else
    shape = {{"angle", l.angle}, {"rotation", rotation}};
  return {{"specVersion", "1.0-draft"}, {"limit", {{JointLimitKindName(l.kind), shape}}}};
}

Json WriteSpringBone(const Avatar& av, std::vector<Node>& nodes, bool* uses_extended) {
  Json sb = {{"specVersion", "1.0"}};
  Json colliders = Json::array();
  for (const auto& c : av.vrm.colliders) {
    Json jc = {{"node", c.node}};
    bool extended = c.shape == ColliderShape::kInsideSphere ||
                    c.shape == ColliderShape::kInsideCapsule || c.shape == ColliderShape::kPlane;
    if (!extended) {
      jc["shape"] = WriteShape(c.shape, c.offset, c.radius, c.tail);
    } else {
      *uses_extended = true;
      // Readers without the extension need a core shape; when the source had none we write one
      // that can never touch anything (radius 0, far away), the convention of the spec examples.
      jc["shape"] =
          c.has_fallback
              ? WriteShape(c.fallback_shape, c.fallback_offset, c.fallback_radius, c.fallback_tail)
              : WriteShape(ColliderShape::kSphere, glm::vec3(0, -10000, 0), 0.0f, glm::vec3(0));
      Json shape;
      if (c.shape == ColliderShape::kPlane)
        shape = {{"plane", {{"offset", Vec(c.offset)}, {"normal", Vec(c.normal)}}}};
      else if (c.shape == ColliderShape::kInsideSphere)
        shape = {{"sphere", {{"offset", Vec(c.offset)}, {"radius", c.radius}, {"inside", true}}}};
      else
        shape = {{"capsule",
                  {{"offset", Vec(c.offset)},
                   {"radius", c.radius},
                   {"tail", Vec(c.tail)},
                   {"inside", true}}}};
      jc["extensions"] = {
          {"VRMC_springBone_extended_collider", {{"specVersion", "1.0"}, {"shape", shape}}}};
    }
    colliders.push_back(jc);
  }
  Json groups = Json::array();
  for (const auto& g : av.vrm.collider_groups) {
    Json jg = {{"colliders", g.colliders}};
    if (!g.name.empty()) jg["name"] = g.name;
    groups.push_back(jg);
  }
  Json springs = Json::array(), baked = Json::array();
  for (const auto& s : av.vrm.springs) {
    Json js = Json::object();
    if (!s.name.empty()) js["name"] = s.name;
    if (s.center >= 0) js["center"] = s.center;
    if (!s.collider_groups.empty()) js["colliderGroups"] = s.collider_groups;
    if (s.segment_checks) js["extras"] = {{"hairswing_segment_checks", true}};
    Json joints = Json::array();
    auto joint_json = [](const SpringJoint& j, bool tail) {
      Json jj{{"node", j.node},
              {"hitRadius", j.hit_radius},
              {"stiffness", j.stiffness},
              {"gravityPower", j.gravity_power},
              {"gravityDir", Vec(j.gravity_dir)},
              {"dragForce", j.drag_force}};
      // The draft forbids a limit on the last joint (only a tail); the reader never sets one.
      if (j.limit.kind != JointLimit::Kind::kNone && !tail)
        jj["extensions"] = {{"VRMC_springBone_limit", LimitJson(j.limit)}};
      return jj;
    };
    const bool tail_node = s.has_virtual_tail;  // a node is added below: the last joint swings
    for (size_t k = 0; k < s.joints.size(); ++k)
      joints.push_back(joint_json(s.joints[k], !tail_node && k + 1 == s.joints.size()));
    if (s.has_virtual_tail && !s.joints.empty()) {
      // VRM 1.0 has no virtual tails: materialise the VRM 0.x tail as a real end node so the
      // last bone keeps swinging exactly as before (same rest shape).
      int parent = s.joints.back().node;
      Node tail;
      tail.name = nodes[parent].name + "_tail";
      tail.parent = parent;
      tail.translation = s.virtual_tail;
      int idx = static_cast<int>(nodes.size());
      nodes[parent].children.push_back(idx);
      nodes.push_back(tail);
      SpringJoint tj = s.joints.back();
      tj.node = idx;
      joints.push_back(joint_json(tj, true));
    }
    js["joints"] = joints;
    (s.baked ? baked : springs).push_back(js);
  }
  if (!colliders.empty()) sb["colliders"] = colliders;
  if (!groups.empty()) sb["colliderGroups"] = groups;
  sb["springs"] = springs;
  if (!baked.empty()) sb["extras"] = {{"hairswing_baked_springs", baked}};
  return sb;
}

}  // namespace
}  // namespace io

namespace io {
namespace {

Json WriteAsset(const Avatar& av) {
  Json asset = ParseKept(av.asset_json);
  if (!asset.is_object()) asset = Json::object();
  asset["version"] = "2.0";
  asset["generator"] = "hairswing 0.1.0";
  asset.erase("minVersion");
  return asset;
}

// Root extensions: the ones we do not model, verbatim, then VRMC_springBone and VRMC_vrm. `nodes`
// may grow (VRM 0.x virtual tails become nodes).
Json WriteRootExtensions(const Avatar& av, std::vector<Node>& nodes, bool* uses_extended) {
  Json ext = Json::object();
  for (const auto& [name, json] : av.unknown_extensions) ext[name] = Json::parse(json);
  if (av.vrm.version == VrmVersion::kNone) return ext;
  if (!av.vrm.springs.empty() || !av.vrm.colliders.empty())
    ext["VRMC_springBone"] = WriteSpringBone(av, nodes, uses_extended);
  if (!av.vrm.humanoid.empty()) {
    Json vrm = ParseKept(av.vrm.vrmc_vrm_json);
    if (!vrm.is_object()) vrm = Json::object();
    vrm["specVersion"] = "1.0";
    Json bones = Json::object();
    for (const auto& [bone, node] : av.vrm.humanoid) bones[bone] = {{"node", node}};
    vrm["humanoid"] = {{"humanBones", bones}};
    Json meta = ParseKept(av.vrm.meta_json);
    if (!meta.is_object())
      meta = {{"name", "Untitled"},
              {"authors", {"Unknown"}},
              {"licenseUrl", "https://vrm.dev/licenses/1.0/"}};
    vrm["meta"] = meta;
    ext["VRMC_vrm"] = vrm;
  }
  return ext;
}

// Nodes with their kept extensions and the VRMC_node_constraint of each constrained node.
Json WriteNodes(const Avatar& av, const std::vector<Node>& nodes) {
  std::vector<Json> node_ext(nodes.size());
  for (size_t i = 0; i < av.nodes.size(); ++i) node_ext[i] = ParseKept(av.nodes[i].extensions_json);
  for (const auto& c : av.vrm.constraints) {
    Json body = {{"source", c.source}, {"weight", c.weight}};
    const char* kind = "rotation";
    if (c.kind == NodeConstraint::Kind::kAim) {
      kind = "aim";
      body["aimAxis"] = c.axis;
    }
    if (c.kind == NodeConstraint::Kind::kRoll) {
      kind = "roll";
      body["rollAxis"] = c.axis;
    }
    Json nc = ParseKept(c.extensions_json);
    if (!nc.is_object()) nc = Json::object();
    nc["specVersion"] = "1.0";
    nc["constraint"] = {{kind, body}};
    if (!node_ext[c.node].is_object()) node_ext[c.node] = Json::object();
    node_ext[c.node]["VRMC_node_constraint"] = nc;
  }
  Json jnodes = Json::array();
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& n = nodes[i];
    Json jn = Json::object();
    if (!n.name.empty()) jn["name"] = n.name;
    if (n.translation != glm::vec3(0)) jn["translation"] = Vec(n.translation);
    if (n.rotation != glm::quat(1, 0, 0, 0))
      jn["rotation"] = Json::array({n.rotation.x, n.rotation.y, n.rotation.z, n.rotation.w});
    if (n.scale != glm::vec3(1)) jn["scale"] = Vec(n.scale);
    if (!n.children.empty()) jn["children"] = n.children;
    if (n.mesh >= 0) jn["mesh"] = n.mesh;
    if (n.skin >= 0) jn["skin"] = n.skin;
    if (!n.morph_weights.empty()) jn["weights"] = n.morph_weights;
    if (i < node_ext.size() && node_ext[i].is_object() && !node_ext[i].empty())
      jn["extensions"] = node_ext[i];
    if (!n.extras_json.empty()) jn["extras"] = Json::parse(n.extras_json);
    jnodes.push_back(jn);
  }
  return jnodes;
}

Json WritePrimitive(const Primitive& p, BinWriter& bw) {
  const size_t nv = p.positions.size();
  Json attrs = Json::object();
  attrs["POSITION"] = bw.Accessor(p.positions.data(), nv, 3, kFloat, 34962, true);
  if (!p.normals.empty()) attrs["NORMAL"] = bw.Accessor(p.normals.data(), nv, 3, kFloat, 34962);
  if (!p.joints.empty()) attrs["JOINTS_0"] = bw.Accessor(p.joints.data(), nv, 4, kUShort, 34962);
  if (!p.weights.empty()) attrs["WEIGHTS_0"] = bw.Accessor(p.weights.data(), nv, 4, kFloat, 34962);
  for (const auto& [name, ea] : p.extra_attributes) {
    if (name.rfind("JOINTS_", 0) == 0) {  // joint indices must stay unsigned integers
      std::vector<uint16_t> u(ea.data.size());
      for (size_t k = 0; k < u.size(); ++k) u[k] = static_cast<uint16_t>(ea.data[k]);
      attrs[name] = bw.Accessor(u.data(), nv, ea.components, kUShort, 34962);
    } else {
      attrs[name] = bw.Accessor(ea.data.data(), nv, ea.components, kFloat, 34962);
    }
  }
  Json jp = {{"attributes", attrs}, {"mode", p.mode}};
  jp["indices"] = bw.Accessor(p.indices.data(), p.indices.size(), 1, kUInt, 34963);
  // The source accessors' extensions, on the accessors made for the same data.
  for (const auto& [name, ext] : p.accessor_extensions) {
    const Json& index = name == "indices" ? jp["indices"] : attrs.value(name, Json());
    if (index.is_number_integer())
      bw.accessors[index.get<size_t>()]["extensions"] = Json::parse(ext);
  }
  if (!p.extensions_json.empty()) jp["extensions"] = Json::parse(p.extensions_json);
  if (!p.extras_json.empty()) jp["extras"] = Json::parse(p.extras_json);
  if (p.material >= 0) jp["material"] = p.material;
  if (!p.targets.empty()) {
    Json targets = Json::array();
    for (const auto& t : p.targets) {
      Json jt = Json::object();
      if (!t.positions.empty())
        jt["POSITION"] = bw.Accessor(t.positions.data(), nv, 3, kFloat, 34962, true);
      if (!t.normals.empty()) jt["NORMAL"] = bw.Accessor(t.normals.data(), nv, 3, kFloat, 34962);
      if (!t.tangents.empty()) jt["TANGENT"] = bw.Accessor(t.tangents.data(), nv, 3, kFloat, 34962);
      targets.push_back(jt);
    }
    jp["targets"] = targets;
  }
  return jp;
}

Json WriteMeshes(const Avatar& av, BinWriter& bw) {
  Json meshes = Json::array();
  for (const auto& mesh : av.meshes) {
    Json jm = Json::object();
    if (!mesh.name.empty()) jm["name"] = mesh.name;
    Json prims = Json::array();
    for (const auto& p : mesh.primitives) prims.push_back(WritePrimitive(p, bw));
    jm["primitives"] = prims;
    if (!mesh.morph_weights.empty()) jm["weights"] = mesh.morph_weights;
    if (!mesh.extras_json.empty()) jm["extras"] = Json::parse(mesh.extras_json);
    if (!mesh.extensions_json.empty()) jm["extensions"] = Json::parse(mesh.extensions_json);
    meshes.push_back(jm);
  }
  return meshes;
}

Json WriteSkins(const Avatar& av, BinWriter& bw) {
  Json skins = Json::array();
  for (const auto& s : av.skins) {
    Json js = {{"joints", s.joints}};
    if (!s.name.empty()) js["name"] = s.name;
    if (s.skeleton >= 0) js["skeleton"] = s.skeleton;
    if (!s.joints.empty())
      js["inverseBindMatrices"] =
          bw.Accessor(s.inverse_bind.data(), s.inverse_bind.size(), 16, kFloat, 0);
    skins.push_back(js);
  }
  return skins;
}

Json WriteAnimations(const Avatar& av, BinWriter& bw) {
  Json anims = Json::array();
  for (const auto& a : av.animations) {
    Json samplers = Json::array(), channels = Json::array();
    for (const auto& ch : a.channels) {
      static const char* kPath[] = {"translation", "rotation", "scale", "weights"};
      static const char* kInterp[] = {"STEP", "LINEAR", "CUBICSPLINE"};
      int in = bw.Accessor(ch.times.data(), ch.times.size(), 1, kFloat, 0, true);
      bool weights = ch.path == AnimationChannel::Path::kWeights;
      int out = bw.Accessor(ch.values.data(),
                            weights ? ch.values.size() : ch.values.size() / ch.components,
                            weights ? 1 : ch.components, kFloat, 0);
      samplers.push_back({{"input", in},
                          {"output", out},
                          {"interpolation", kInterp[static_cast<int>(ch.interpolation)]}});
      channels.push_back(
          {{"sampler", samplers.size() - 1},
           {"target", {{"node", ch.node}, {"path", kPath[static_cast<int>(ch.path)]}}}});
    }
    Json ja = {{"samplers", samplers}, {"channels", channels}};
    if (!a.name.empty()) ja["name"] = a.name;
    anims.push_back(ja);
  }
  return anims;
}

// Materials, textures and samplers verbatim; images as bufferViews of their bytes (or their
// original URI when we could not load them).
void WritePassThrough(const Avatar& av, BinWriter& bw, Json& root) {
  Json mats = Json::array();
  for (const auto& m : av.materials) mats.push_back(Json::parse(m.json));
  if (!mats.empty()) root["materials"] = mats;
  Json texs = Json::array();
  for (const auto& t : av.textures_json) texs.push_back(Json::parse(t));
  if (!texs.empty()) root["textures"] = texs;
  Json samps = Json::array();
  for (const auto& s : av.samplers_json) samps.push_back(Json::parse(s));
  if (!samps.empty()) root["samplers"] = samps;
  Json images = Json::array();
  for (const auto& img : av.images) {
    Json ji = Json::object();
    if (!img.name.empty()) ji["name"] = img.name;
    if (!img.bytes.empty()) {
      ji["bufferView"] = bw.View(img.bytes.data(), img.bytes.size(), 0);
      ji["mimeType"] = img.mime_type.empty() ? "image/png" : img.mime_type;
    } else {
      ji["uri"] =
          img.uri.empty() ? "missing.png" : img.uri;  // keep the reference we could not load
    }
    images.push_back(ji);
  }
  if (!images.empty()) root["images"] = images;
}

// extensionsUsed from what the document contains; extensionsRequired as the source had them,
// minus the ones no longer used.
void WriteExtensionLists(const Avatar& av, bool uses_extended, Json& root) {
  std::vector<std::string> used;
  CollectExtensionNames(root, used);
  if (uses_extended) used.push_back("VRMC_springBone_extended_collider");
  std::set<std::string> used_set(used.begin(), used.end());
  if (!used_set.empty())
    root["extensionsUsed"] = std::vector<std::string>(used_set.begin(), used_set.end());
  std::vector<std::string> required;
  for (const auto& r : av.extensions_required)
    if (used_set.count(r)) required.push_back(r);
  if (!required.empty()) root["extensionsRequired"] = required;
}

// The GLB container: 12-byte header, the JSON chunk (space-padded), the BIN chunk if any.
std::vector<uint8_t> PackGlb(const Json& root, const std::vector<uint8_t>& bin) {
  std::string json = root.dump(-1, ' ', false, Json::error_handler_t::replace);
  while (json.size() % 4) json.push_back(' ');
  const bool has_bin = !bin.empty();
  uint32_t total = 12 + 8 + static_cast<uint32_t>(json.size()) +
                   (has_bin ? 8 + static_cast<uint32_t>(bin.size()) : 0);
  std::vector<uint8_t> out;
  out.reserve(total);
  auto put32 = [&](uint32_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
  };
  put32(0x46546C67u);  // "glTF"
  put32(2);
  put32(total);
  put32(static_cast<uint32_t>(json.size()));
  put32(0x4E4F534Au);  // "JSON"
  out.insert(out.end(), json.begin(), json.end());
  if (has_bin) {
    put32(static_cast<uint32_t>(bin.size()));
    put32(0x004E4942u);  // "BIN\0"
    out.insert(out.end(), bin.begin(), bin.end());
  }
  return out;
}

}  // namespace
}  // namespace io

namespace io {
namespace {

// VRM 0.x stores offsets and directions in Unity's axes; hairswing's are the file's glTF axes
// turned 180 degrees about Y (NormaliseVrm0Axes): (x, y, z) here is (-x, y, z) there.
Json Unity(const glm::vec3& v) { return {{"x", -v.x}, {"y", v.y}, {"z", v.z}}; }

// What a VRM 0.x bone group cannot hold, kept in its "extras" for hairswing's reader (other
// readers ignore it): each spring's per-joint parameters and angle limits, and whole-link checks,
// in the order the group reads back as springs. "group" repeats the values written to the group
// itself: a tool that edits the group and keeps the extras leaves them unequal, and the reader
// then takes the group's values. Null when the group's values say it all. A limit's rotation is
// written in the file's axes (the avatar is turned back on writing: q -> (w, -x, y, -z)).
Json Vrm0SpringExtras(const std::vector<const Spring*>& ss, const Json& group) {
  const SpringJoint& p = ss[0]->joints[0];
  bool needed = false;
  Json springs = Json::array();
  for (const Spring* o : ss) {
    Json joints = Json::array();
    for (const SpringJoint& j : o->joints) {
      Json jj = {{"node", j.node},
                 {"stiffness", j.stiffness},
                 {"gravityPower", j.gravity_power},
                 {"gravityDir", Unity(j.gravity_dir)},
                 {"dragForce", j.drag_force},
                 {"hitRadius", j.hit_radius}};
      needed = needed || j.stiffness != p.stiffness || j.gravity_power != p.gravity_power ||
               j.gravity_dir != p.gravity_dir || j.drag_force != p.drag_force ||
               j.hit_radius != p.hit_radius;
      if (j.limit.kind != JointLimit::Kind::kNone) {
        JointLimit file = j.limit;
        file.rotation = io::Vrm0TurnedRotation(j.limit.rotation);
        jj["VRMC_springBone_limit"] = LimitJson(file);
        needed = true;
      }
      joints.push_back(jj);
    }
    Json js = {{"joints", joints}};
    if (o->segment_checks) js["segmentChecks"] = needed = true;
    springs.push_back(js);
  }
  if (!needed) return nullptr;
  Json g = Json::object();
  for (const char* key : {"stiffiness", "gravityPower", "gravityDir", "dragForce", "hitRadius"})
    g[key] = group[key];
  return {{"hairswing_springs", {{"group", g}, {"springs", springs}}}};
}

// secondaryAnimation from the avatar's springs and colliders. VRM 0.x has sphere colliders on
// one node per group, and bone groups whose every descendant of a root swings with one set of
// parameters: a VRM 1.0 collider group becomes one 0.x group per node, a capsule a row of
// spheres, a spring read from 0.x goes back to its bone group, a spring of its own (fitted) gets
// a group with its first joint as root and its first joint's parameters.
Json WriteSecondaryAnimation(const Avatar& av, std::vector<std::string>* warnings) {
  auto warn = [&](const std::string& w) {
    if (warnings) warnings->push_back(w);
  };
  Json groups = Json::array();
  std::vector<std::vector<int>> v0_groups(av.vrm.collider_groups.size());
  for (size_t g = 0; g < av.vrm.collider_groups.size(); ++g) {
    std::map<int, Json> by_node;
    for (int ci : av.vrm.collider_groups[g].colliders) {
      const Collider& c = av.vrm.colliders[ci];
      Json& spheres = by_node[c.node]["colliders"];
      if (spheres.is_null()) spheres = Json::array();
      if (c.shape == ColliderShape::kSphere) {
        spheres.push_back({{"offset", Unity(c.offset)}, {"radius", c.radius}});
      } else if (c.shape == ColliderShape::kCapsule) {
        const float len = glm::length(c.tail - c.offset);
        const int n = std::max(2, static_cast<int>(std::ceil(len / std::max(c.radius, 1e-4f))) + 1);
        for (int i = 0; i < n; ++i)
          spheres.push_back({{"offset", Unity(c.offset + (c.tail - c.offset) *
                                                             (static_cast<float>(i) / (n - 1)))},
                             {"radius", c.radius}});
        warn("collider " + std::to_string(ci) + ": VRM 0.x has no capsules; written as " +
             std::to_string(n) + " spheres along it");
      } else {
        warn("collider " + std::to_string(ci) + " (" + ColliderShapeName(c.shape) +
             "): VRM 0.x has no such shape; left out");
      }
    }
    for (auto& [node, j] : by_node) {
      j["node"] = node;
      v0_groups[g].push_back(static_cast<int>(groups.size()));
      groups.push_back(j);
    }
  }
  // VRM 0.x holds colliders only inside collider groups.
  std::vector<bool> grouped(av.vrm.colliders.size(), false);
  for (const ColliderGroup& g : av.vrm.collider_groups)
    for (int ci : g.colliders)
      if (ci >= 0 && static_cast<size_t>(ci) < grouped.size()) grouped[ci] = true;
  for (size_t ci = 0; ci < grouped.size(); ++ci)
    if (!grouped[ci])
      warn("collider " + std::to_string(ci) + " on node \"" +
           av.nodes[av.vrm.colliders[ci].node].name +
           "\" is in no collider group: VRM 0.x holds colliders only in groups; left out");
  Json bone_groups = Json::array();
  auto emit = [&](const std::vector<const Spring*>& ss, const std::vector<int>& roots) {
    const Spring& s = *ss[0];
    const SpringJoint& p = s.joints[0];
    auto same = [&p](const SpringJoint& j) {
      return std::fabs(j.stiffness - p.stiffness) <= 1e-4f * std::max(1.0f, p.stiffness) &&
             std::fabs(j.drag_force - p.drag_force) <= 1e-4f &&
             std::fabs(j.gravity_power - p.gravity_power) <= 1e-4f &&
             std::fabs(j.hit_radius - p.hit_radius) <= 1e-6f;
    };
    for (const Spring* o : ss)
      if (!std::all_of(o->joints.begin(), o->joints.end(), same))
        warn("spring \"" + o->name + "\": VRM 0.x has one set of parameters per bone group; " +
             "its first joint's are written there (hairswing reads the others back from the " +
             "group's extras; other runtimes use the first joint's)");
    std::set<int> cgs;
    for (const Spring* o : ss)
      for (int g : o->collider_groups)
        if (g >= 0 && static_cast<size_t>(g) < v0_groups.size())
          cgs.insert(v0_groups[g].begin(), v0_groups[g].end());
    // The group's comment as the reader would rebuild the names from it: springs read from VRM
    // 0.x are named "COMMENT/NODE", or "NODE" when the group had no comment.
    std::string comment = s.name;
    auto node_name = [&](const Spring* o) { return av.nodes[o->joints[0].node].name; };
    if (std::all_of(ss.begin(), ss.end(),
                    [&](const Spring* o) { return o->name == node_name(o); })) {
      comment.clear();
    } else if (const std::string suffix = "/" + node_name(ss[0]);
               s.name.size() > suffix.size() &&
               s.name.compare(s.name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      const std::string c = s.name.substr(0, s.name.size() - suffix.size());
      if (std::all_of(ss.begin(), ss.end(),
                      [&](const Spring* o) { return o->name == c + "/" + node_name(o); }))
        comment = c;
    }
    Json bg = {{"comment", comment},
               {"stiffiness", p.stiffness},  // sic: the VRM 0.x field name
               {"gravityPower", p.gravity_power},
               {"gravityDir", Unity(p.gravity_dir)},
               {"dragForce", p.drag_force},
               {"center", s.center},
               {"hitRadius", p.hit_radius},
               {"bones", roots},
               {"colliderGroups", std::vector<int>(cgs.begin(), cgs.end())}};
    if (Json extras = Vrm0SpringExtras(ss, bg); !extras.is_null()) bg["extras"] = extras;
    bone_groups.push_back(bg);
  };
  // In the springs' order (a bone group where its first spring is), so that reading the file
  // back gives the springs in the same order.
  std::map<int, std::vector<const Spring*>> by_source;
  for (const Spring& s : av.vrm.springs)
    if (!s.joints.empty() && !s.baked && s.source_group >= 0)
      by_source[s.source_group].push_back(&s);
  std::set<int> emitted;
  std::vector<std::string> limited;  // springs whose angle limits VRM 0.x cannot hold
  for (const Spring& s : av.vrm.springs) {
    if (s.joints.empty()) {
      warn("spring \"" + s.name + "\" has no joints: VRM 0.x has no form for it; left out");
      continue;
    }
    if (s.baked) {
      warn("spring \"" + s.name + "\" is baked: VRM 0.x cannot mark it, so it is left out");
      continue;
    }
    if (std::any_of(s.joints.begin(), s.joints.end(),
                    [](const SpringJoint& j) { return j.limit.kind != JointLimit::Kind::kNone; }))
      limited.push_back(s.name);
    if (s.source_group < 0) {
      emit({&s}, {s.joints[0].node});
      continue;
    }
    if (!emitted.insert(s.source_group).second) continue;
    // The roots that read back as these springs: a spring is a chain its group's previous root
    // makes anyway (a branch), or a root of its own. A file that lists every bone of a chain as a
    // root (each makes a spring, as three-vrm reads it) keeps all of them.
    const std::vector<const Spring*>& ss = by_source[s.source_group];
    std::vector<int> roots;
    std::deque<int> branches;  // first joints of the chains the last root still makes
    for (const Spring* o : ss) {
      const int first = o->joints[0].node;
      if (!branches.empty() && branches.front() == first) {
        branches.pop_front();
        continue;
      }
      roots.push_back(first);
      branches.clear();
      for (const std::vector<int>& chain : io::Vrm0BoneGroupChains(av, first))
        branches.push_back(chain.front());
      if (!branches.empty()) branches.pop_front();  // the root's own chain: this spring
    }
    emit(ss, roots);
  }
  if (!limited.empty()) {  // one line, however many springs (a fitted haircut has dozens)
    std::string names;
    for (size_t i = 0; i < limited.size() && i < 4; ++i)
      names += (i ? ", \"" : "\"") + limited[i] + "\"";
    if (limited.size() > 4) names += ", ...";
    warn(std::to_string(limited.size()) + (limited.size() == 1 ? " spring (" : " springs (") +
         names +
         ") with angle limits: VRM 0.x has no angle limits; they are kept in the bone groups' "
         "extras, which hairswing reads back and other runtimes ignore (write VRM 1.0 for "
         "runtimes that apply VRMC_springBone_limit, such as UniVRM)");
  }
  return {{"colliderGroups", groups}, {"boneGroups", bone_groups}};
}

Result<std::vector<uint8_t>> Encode(const Avatar& av, bool as_vrm, const Json* vrm0) {
  try {
    if (as_vrm && av.vrm.humanoid.empty() && !vrm0)
      return Status(StatusCode::kUnsupported,
                    "cannot write .vrm: the avatar has no humanoid bones");
    BinWriter bw;
    Json root = Json::object();
    root["asset"] = WriteAsset(av);
    std::vector<Node> nodes = av.nodes;  // may grow (virtual tails become nodes)
    bool uses_extended = false;
    Json ext = WriteRootExtensions(av, nodes, &uses_extended);
    if (vrm0) ext["VRM"] = *vrm0;
    root["nodes"] = WriteNodes(av, nodes);
    root["scenes"] = Json::array({{{"nodes", av.scene_roots}}});
    root["scene"] = 0;
    if (Json meshes = WriteMeshes(av, bw); !meshes.empty()) root["meshes"] = meshes;
    if (Json skins = WriteSkins(av, bw); !skins.empty()) root["skins"] = skins;
    if (Json anims = WriteAnimations(av, bw); !anims.empty()) root["animations"] = anims;
    WritePassThrough(av, bw, root);
    if (!ext.empty()) root["extensions"] = ext;
    if (!bw.views.empty()) {
      root["bufferViews"] = bw.views;
      root["accessors"] = bw.accessors;
      while (bw.bin.size() % 4) bw.bin.push_back(0);
      root["buffers"] = Json::array({{{"byteLength", bw.bin.size()}}});
    }
    WriteExtensionLists(av, uses_extended, root);
    return PackGlb(root, bw.bin);
  } catch (const std::exception& e) {
    return Status(StatusCode::kInvalidInput, std::string("encode: ") + e.what());
  }
}

}  // namespace
}  // namespace io

Result<std::vector<uint8_t>> EncodeGlb(const Avatar& av, bool as_vrm, VrmOutput vrm,
                                       std::vector<std::string>* warnings) {
  using namespace io;
  const bool from0 = av.vrm.version == VrmVersion::kV0 && !av.vrm.vrm0_json.empty();
  if (vrm == VrmOutput::kVrm0 && !from0)
    return Status(StatusCode::kUnsupported,
                  "cannot write VRM 0.x: only avatars read from VRM 0.x files can be written "
                  "back as 0.x (VRM 1.0 -> 0.x is not supported)");
  if (vrm == VrmOutput::kVrm1 || !from0) return Encode(av, as_vrm, nullptr);
  // VRM 0.x: the file's own VRM extension with the springs as they are now, on the avatar
  // turned back to the file's axes and with its original materials.
  Json v0;
  try {
    v0 = Json::parse(av.vrm.vrm0_json);
    v0["secondaryAnimation"] = WriteSecondaryAnimation(av, warnings);
  } catch (const std::exception& e) {
    return Status(StatusCode::kInvalidInput, std::string("encode: ") + e.what());
  }
  Avatar out = av;
  NormaliseVrm0Axes(out);
  for (size_t i = 0; i < out.materials.size() && i < av.vrm.vrm0_materials_json.size(); ++i)
    out.materials[i].json = av.vrm.vrm0_materials_json[i];
  out.vrm = VrmData{};  // written as the VRM extension above, not as VRMC_*
  if (!av.vrm.constraints.empty() && warnings)
    warnings->push_back("VRMC_node_constraint has no VRM 0.x form: left out");
  return Encode(out, as_vrm, &v0);
}

Status SaveAvatar(const Avatar& avatar, const std::string& path, const SaveOptions& options) {
  namespace fs = std::filesystem;
  std::string ext = fs::path(path).extension().string();
  for (auto& ch : ext) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (ext != ".vrm" && ext != ".glb")
    return Status(StatusCode::kUnsupported, path + ": output must end in .vrm or .glb");
  std::error_code ec;
  if (fs::exists(path, ec) && !options.force) {
    bool same = !avatar.source_path.empty() && fs::equivalent(path, avatar.source_path, ec);
    return Status(StatusCode::kIoError, path + (same ? ": is the input file" : ": already exists") +
                                            "; pass --force to overwrite");
  }
  auto bytes = EncodeGlb(avatar, ext == ".vrm", options.vrm, options.warnings);
  if (!bytes.ok()) return Status(bytes.status().code(), path + ": " + bytes.status().message());
  // Never write a file we would refuse to read: the bytes are loaded back first (a few ms), so a
  // value that does not survive the round trip, or a record that edits broke, fails here with
  // the field named and nothing written.
  if (auto again = LoadAvatarFromMemory(bytes->data(), bytes->size(), path, "/nonexistent");
      !again.ok())
    return Status(
        StatusCode::kInvalidInput,
        path + ": not written, the result would not load again (" + again.status().message() + ")");
  // Atomic, exclusive temporary file, every write checked (include/hairswing/files.h).
  return WriteFileAtomic(path, bytes.value(), options.force);
}

}  // namespace hairswing
