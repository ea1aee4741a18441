// hairswing inspect FILE [--json]: what a file holds, as a table or as JSON.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>

#include "commands.h"
#include "hairswing/humanoid.h"
#include "hairswing/io.h"
#include "hairswing/rig.h"

namespace hairswing::cli {
namespace {

using Json = nlohmann::ordered_json;

Json V3(const glm::vec3& v) { return Json::array({Decimal(v.x), Decimal(v.y), Decimal(v.z)}); }

std::string NodeName(const Avatar& av, int n) {
  if (n < 0 || n >= static_cast<int>(av.nodes.size())) return "";
  return av.nodes[n].name.empty() ? "node" + std::to_string(n) : av.nodes[n].name;
}

Json BuildReport(const Avatar& av, const Warnings& load_warnings) {
  Json r;
  r["file"] = av.source_path;
  r["format"] = av.source_format;
  switch (av.vrm.version) {
    case VrmVersion::kNone:
      r["vrm_version"] = nullptr;
      break;
    case VrmVersion::kV0:
      r["vrm_version"] = "0.x";
      break;
    case VrmVersion::kV1:
      r["vrm_version"] = "1.0";
      break;
  }
  r["vrm_spec_version"] = av.vrm.source_spec_version;
  r["nodes"] = av.nodes.size();

  Json hum;
  hum["bones"] = av.vrm.humanoid.size();
  hum["of"] = HumanBoneNames().size();
  Json missing = Json::array();
  if (!av.vrm.humanoid.empty() || !av.vrm.meta_json.empty())
    for (auto b : RequiredHumanBoneNames())
      if (!av.vrm.humanoid.count(std::string(b))) missing.push_back(std::string(b));
  hum["missing_required"] = missing;
  Json bones = Json::object();
  for (const auto& [bone, node] : av.vrm.humanoid) bones[bone] = NodeName(av, node);
  hum["map"] = bones;
  r["humanoid"] = hum;

  Json meshes = Json::array();
  for (size_t m = 0; m < av.meshes.size(); ++m) {
    const Mesh& mesh = av.meshes[m];
    bool skinned = false;
    for (const auto& n : av.nodes)
      if (n.mesh == static_cast<int>(m) && n.skin >= 0) skinned = true;
    Json prims = Json::array();
    size_t nv = 0, nt = 0;
    for (const auto& p : mesh.primitives) {
      size_t tris = p.mode == 4 ? p.indices.size() / 3 : 0;
      nv += p.positions.size();
      nt += tris;
      std::string mat = p.material >= 0 ? av.materials[p.material].name : "";
      prims.push_back({{"vertices", p.positions.size()},
                       {"triangles", tris},
                       {"material", mat},
                       {"morph_targets", p.targets.size()},
                       {"has_weights", !p.weights.empty()}});
    }
    meshes.push_back({{"name", mesh.name},
                      {"vertices", nv},
                      {"triangles", nt},
                      {"skinned", skinned},
                      {"primitives", prims}});
  }
  r["meshes"] = meshes;
  Json skins = Json::array();
  for (const auto& s : av.skins) skins.push_back({{"name", s.name}, {"joints", s.joints.size()}});
  r["skins"] = skins;

  Json springs = Json::array();
  size_t total_joints = 0;
  for (const auto& s : av.vrm.springs) {
    Json joints = Json::array();
    for (size_t j = 0; j < s.joints.size(); ++j) {
      const SpringJoint& jt = s.joints[j];
      bool tip = j + 1 == s.joints.size();
      joints.push_back({{"node", jt.node},
                        {"name", NodeName(av, jt.node)},
                        {"tip", tip},
                        {"hit_radius", jt.hit_radius},
                        {"stiffness", jt.stiffness},
                        {"gravity_power", jt.gravity_power},
                        {"gravity_dir", V3(jt.gravity_dir)},
                        {"drag_force", jt.drag_force}});
    }
    total_joints += s.joints.size();
    Json js = {{"name", s.name},
               {"joints", joints},
               {"collider_groups", s.collider_groups},
               {"center", s.center >= 0 ? Json(NodeName(av, s.center)) : Json(nullptr)}};
    js["virtual_tail"] = s.has_virtual_tail ? Json{{"offset", V3(s.virtual_tail)},
                                                   {"length_m", glm::length(s.virtual_tail)}}
                                            : Json(nullptr);
    springs.push_back(js);
  }
  r["springs"] = springs;
  r["spring_joint_count"] = total_joints;
  // Vertices with weight on a spring joint: the same count as check and measure.
  auto rig = BuildRig(av);
  r["hair_vertices"] = rig.ok() ? HairVertexCount(av, rig.value()) : 0;

  Json colliders = Json::array();
  for (const auto& c : av.vrm.colliders) {
    Json jc = {{"shape", ColliderShapeName(c.shape)},
               {"node", c.node},
               {"node_name", NodeName(av, c.node)},
               {"offset", V3(c.offset)}};
    if (c.shape != ColliderShape::kPlane) jc["radius"] = Decimal(c.radius);
    if (c.shape == ColliderShape::kCapsule || c.shape == ColliderShape::kInsideCapsule)
      jc["tail"] = V3(c.tail);
    if (c.shape == ColliderShape::kPlane) jc["normal"] = V3(c.normal);
    colliders.push_back(jc);
  }
  r["colliders"] = colliders;
  Json groups = Json::array();
  for (const auto& g : av.vrm.collider_groups)
    groups.push_back({{"name", g.name}, {"colliders", g.colliders}});
  r["collider_groups"] = groups;

  Json cons = Json::array();
  for (const auto& c : av.vrm.constraints) {
    static const char* kKind[] = {"aim", "roll", "rotation"};
    cons.push_back({{"kind", kKind[static_cast<int>(c.kind)]},
                    {"node", NodeName(av, c.node)},
                    {"source", NodeName(av, c.source)},
                    {"weight", c.weight},
                    {"axis", c.axis}});
  }
  r["constraints"] = cons;

  Json anims = Json::array();
  for (const auto& a : av.animations) {
    float dur = 0;
    for (const auto& ch : a.channels)
      if (!ch.times.empty()) dur = std::max(dur, ch.times.back());
    anims.push_back({{"name", a.name}, {"channels", a.channels.size()}, {"duration_s", dur}});
  }
  r["animations"] = anims;
  r["images"] = av.images.size();
  Json ext = Json::array();
  for (const auto& [name, _] : av.unknown_extensions) ext.push_back(name);
  r["preserved_extensions"] = ext;

  Json warnings = Json::array();
  for (const auto& w : load_warnings) warnings.push_back(w);
  for (const auto& w : CheckAvatar(av)) warnings.push_back(w);
  for (const auto& w : SpringsWithoutMesh(av)) warnings.push_back(w);
  r["warnings"] = warnings;
  return r;
}

void PrintText(const Json& r) {
  // Strings come from the file: names with line breaks or terminal escapes are shown escaped.
  auto s = [](const Json& j) { return OneLine(j.is_string() ? j.get<std::string>() : j.dump()); };
  std::printf("%s\n", s(r["file"]).c_str());
  std::printf("  format       %s%s\n", s(r["format"]).c_str(),
              r["vrm_version"].is_null()
                  ? " (no VRM data)"
                  : (", VRM " + s(r["vrm_version"]) +
                     (r["vrm_version"] == "0.x" ? " (normalised to VRM 1.0 axes)" : ""))
                        .c_str());
  std::printf("  humanoid     %s of %s bones%s\n", s(r["humanoid"]["bones"]).c_str(),
              s(r["humanoid"]["of"]).c_str(),
              r["humanoid"]["missing_required"].empty()
                  ? ""
                  : (", missing required: " + r["humanoid"]["missing_required"].dump()).c_str());
  std::printf("  nodes        %s, skins %zu\n", s(r["nodes"]).c_str(), r["skins"].size());
  std::printf("  meshes       %zu\n", r["meshes"].size());
  for (const auto& m : r["meshes"]) {
    std::printf("    %-28s %7s v %7s tri  %s, %zu primitive(s)\n", s(m["name"]).c_str(),
                s(m["vertices"]).c_str(), s(m["triangles"]).c_str(),
                m["skinned"].get<bool>() ? "skinned" : "rigid", m["primitives"].size());
    // Each primitive with its material: what `fit --hair MESH/INDEX` or `material:NAME` names.
    for (size_t i = 0; i < m["primitives"].size(); ++i) {
      const Json& p = m["primitives"][i];
      const std::string mat = s(p["material"]);
      std::printf("      /%-26zu %7s v %7s tri  material %s\n", i, s(p["vertices"]).c_str(),
                  s(p["triangles"]).c_str(), mat.empty() ? "(none)" : mat.c_str());
    }
  }
  std::printf("  springs      %zu chains, %s joints (tips included), %s hair vertices\n",
              r["springs"].size(), s(r["spring_joint_count"]).c_str(),
              s(r["hair_vertices"]).c_str());
  for (const auto& sp : r["springs"]) {
    if (sp["joints"].empty()) {
      std::printf("    %-28s no joints\n", s(sp["name"]).c_str());
      continue;
    }
    const auto& j0 = sp["joints"][0];
    std::printf(
        "    %-28s %zu joints%s  stiffness %.3g drag %.3g gravity %.3g hitRadius %.3g  groups %s\n",
        s(sp["name"]).c_str(), sp["joints"].size(),
        sp["virtual_tail"].is_null() ? "" : " + 7 cm virtual tail", j0["stiffness"].get<double>(),
        j0["drag_force"].get<double>(), j0["gravity_power"].get<double>(),
        j0["hit_radius"].get<double>(), sp["collider_groups"].dump().c_str());
  }
  std::printf("  colliders    %zu in %zu group(s)\n", r["colliders"].size(),
              r["collider_groups"].size());
  // Lengths in metres to 0.1 mm in the table (the JSON keeps the file's values).
  auto metres = [](const Json& v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.4f", v.get<double>() == 0.0 ? 0.0 : v.get<double>());
    return std::string(std::strcmp(text, "-0.0000") == 0 ? "0.0000" : text);
  };
  for (const auto& c : r["colliders"]) {
    const Json& o = c["offset"];
    const std::string offset = "[" + metres(o[0]) + ", " + metres(o[1]) + ", " + metres(o[2]) + "]";
    std::printf("    %-14s on %-24s offset %s m%s\n", s(c["shape"]).c_str(),
                s(c["node_name"]).c_str(), offset.c_str(),
                c.contains("radius") ? (" radius " + metres(c["radius"]) + " m").c_str() : "");
  }
  std::printf("  constraints  %zu\n", r["constraints"].size());
  std::printf("  animations   %zu\n", r["animations"].size());
  for (const auto& a : r["animations"])
    std::printf("    %-28s %s channels, %.2f s\n", s(a["name"]).c_str(), s(a["channels"]).c_str(),
                a["duration_s"].get<double>());
  if (!r["preserved_extensions"].empty())
    std::printf("  kept as-is   %s\n", r["preserved_extensions"].dump().c_str());
  std::printf("  warnings     %zu\n", r["warnings"].size());
  for (const auto& w : r["warnings"]) std::printf("    - %s\n", s(w).c_str());
}

}  // namespace

// Spring joints that no skinned vertex follows: a spring that moves no mesh at all, or joints
// without vertices between joints with vertices (the mesh skips them). The tail of a chain is only
// an end point, and unweighted joints at the end of a chain (end bones, usual in VRM 0.x exports)
// only swing nothing beyond the mesh, so neither is reported.
std::vector<std::string> SpringsWithoutMesh(const Avatar& av) {
  std::vector<std::string> out;
  auto rig = BuildRig(av);
  if (!rig.ok()) return out;
  const std::vector<int> counts = SpringJointVertexCounts(av, rig.value());
  for (const RigChain& ch : rig->chains()) {
    int last_weighted = -1;
    for (int j = ch.joint_begin; j + 1 < ch.joint_end; ++j)
      if (counts[j] > 0) last_weighted = j;
    std::vector<std::string> idle;
    int swinging = 0;
    for (int j = ch.joint_begin; j + 1 < ch.joint_end; ++j, ++swinging)
      if (counts[j] == 0 && (last_weighted < 0 || j < last_weighted))
        idle.push_back(NodeName(av, rig->source_node()[rig->joint_node()[j]]));
    if (idle.empty()) continue;
    const std::string name = "spring \"" + av.vrm.springs[ch.source_spring].name + "\"";
    if (static_cast<int>(idle.size()) == swinging) {
      out.push_back(
          name +
          " moves no mesh: no skinned vertex has weight on its joints (hair rigidly parented, or "
          "skinned to other bones)");
    } else {
      std::string list;
      for (const auto& n : idle) list += (list.empty() ? "" : ", ") + n;
      out.push_back(name + ": " + std::to_string(idle.size()) + " of its " +
                    std::to_string(swinging) +
                    " joints own no vertex although joints below them do (" + list +
                    "): the mesh does not follow them");
    }
  }
  return out;
}

void AddInspect(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("inspect",
                                 "Show what an avatar file holds: format, humanoid, meshes, "
                                 "springs, colliders, constraints, animations and warnings.");
  struct Opts {
    std::string file;
    bool json = false;
  };
  auto opts = std::make_shared<Opts>();
  cmd->add_option("FILE", opts->file, "a .vrm, .glb or .gltf file")->required();
  cmd->add_flag("--json", opts->json, "print a JSON object instead of the table");
  cmd->callback([opts, &exit_code] {
    auto loaded = LoadOrReport(opts->file);
    if (!loaded) {
      exit_code = kExitBadInput;
      return;
    }
    Json report = BuildReport(loaded->avatar, loaded->warnings);
    if (opts->json)
      std::cout << report.dump(2) << "\n";
    else
      PrintText(report);
  });
}

}  // namespace hairswing::cli
