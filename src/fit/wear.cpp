// Wearing a separate hair file (same armature, joints matched by name).
#include <map>
#include <nlohmann/json.hpp>

#include "hairswing/fit.h"

namespace hairswing {

Result<std::vector<std::string>> WearHair(Avatar& body, const Avatar& hair,
                                          std::vector<std::string>* warnings) {
  std::map<std::string, int> by_name;
  for (size_t n = 0; n < body.nodes.size(); ++n)
    by_name.emplace(body.nodes[n].name, static_cast<int>(n));
  std::vector<std::string> added;
  std::map<int, int> material_map;
  bool dropped_textures = false;
  for (size_t n = 0; n < hair.nodes.size(); ++n) {
    const Node& hn = hair.nodes[n];
    if (hn.mesh < 0) continue;
    if (hn.skin < 0) {
      if (warnings) warnings->push_back("hair node \"" + hn.name + "\" is not skinned; not worn");
      continue;
    }
    const Skin& hs = hair.skins[hn.skin];
    Skin skin;
    skin.name = hs.name.empty() ? "Hair" : hs.name;
    for (size_t j = 0; j < hs.joints.size(); ++j) {
      const std::string& jn = hair.nodes[hs.joints[j]].name;
      auto it = by_name.find(jn);
      if (it == by_name.end())
        return Status(StatusCode::kInvalidInput,
                      "hair file: joint \"" + jn + "\" has no node of that name in the body");
      skin.joints.push_back(it->second);
      skin.inverse_bind.push_back(hs.inverse_bind[j]);
    }
    Mesh mesh = hair.meshes[hn.mesh];
    for (Primitive& p : mesh.primitives) {
      if (p.material < 0) continue;
      auto m = material_map.find(p.material);
      if (m == material_map.end()) {
        auto j = nlohmann::json::parse(hair.materials[p.material].json, nullptr, false);
        if (j.is_object()) {
          if (j.contains("pbrMetallicRoughness")) {
            auto& pbr = j["pbrMetallicRoughness"];
            dropped_textures |=
                pbr.contains("baseColorTexture") || pbr.contains("metallicRoughnessTexture");
            pbr.erase("baseColorTexture");
            pbr.erase("metallicRoughnessTexture");
          }
          for (const char* k : {"normalTexture", "occlusionTexture", "emissiveTexture"}) {
            dropped_textures |= j.contains(k);
            j.erase(k);
          }
          j.erase("extensions");
        }
        body.materials.push_back(
            {hair.materials[p.material].name, j.is_object() ? j.dump() : "{}"});
        m = material_map.emplace(p.material, static_cast<int>(body.materials.size()) - 1).first;
      }
      p.material = m->second;
    }
    body.meshes.push_back(std::move(mesh));
    body.skins.push_back(std::move(skin));
    Node node;
    node.name = hn.name;
    node.mesh = static_cast<int>(body.meshes.size()) - 1;
    node.skin = static_cast<int>(body.skins.size()) - 1;
    body.nodes.push_back(node);
    body.scene_roots.push_back(static_cast<int>(body.nodes.size()) - 1);
    added.push_back(body.meshes.back().name);
  }
  if (added.empty())
    return Status(StatusCode::kInvalidInput,
                  "hair file: no skinned mesh (this takes hair skinned to the body's own joints; "
                  "an unrigged hairstyle, or one from another character, is put on with "
                  "`hairswing wear`)");
  if (dropped_textures && warnings)
    warnings->push_back("hair file: its texture references were dropped (colours kept)");
  return added;
}

}  // namespace hairswing
