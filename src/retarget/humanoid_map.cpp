// Humanoid maps: the avatar's VRM humanoid, or a built-in skeleton family matched by node names.
#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

#include "hairswing/humanoid.h"
#include "hairswing/retarget.h"
#include "humanoid_maps_data.h"

namespace hairswing {
namespace {

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

void FillMissing(HumanoidMap& m) {
  m.missing_required.clear();
  for (std::string_view b : RequiredHumanBoneNames())
    if (!m.bones.count(std::string(b))) m.missing_required.emplace_back(b);
}

// Resolves a name map against the avatar's nodes: exact names first, then case-insensitive, then
// without a namespace prefix (FBX and Mixamo write "mixamorig:Hips", "mixamorig1:Hips").
HumanoidMap Resolve(const Avatar& av, const std::string& family, const nlohmann::json& bones) {
  // A name held by a bone (a skin's joint) and by another node (a mesh node "Head") is the bone's.
  std::vector<uint8_t> joint(av.nodes.size(), 0);
  for (const Skin& s : av.skins)
    for (int j : s.joints)
      if (j >= 0 && j < static_cast<int>(av.nodes.size())) joint[j] = 1;
  std::map<std::string, int> exact, lower, unprefixed;
  auto put = [&](std::map<std::string, int>& m, const std::string& key, int n) {
    auto [it, added] = m.emplace(key, n);
    if (!added && !joint[it->second] && joint[n]) it->second = n;
  };
  for (size_t n = 0; n < av.nodes.size(); ++n) {
    const std::string& name = av.nodes[n].name;
    const int i = static_cast<int>(n);
    put(exact, name, i);
    put(lower, Lower(name), i);
    if (const size_t colon = name.rfind(':'); colon != std::string::npos)
      put(unprefixed, Lower(name.substr(colon + 1)), i);
  }
  HumanoidMap m;
  m.family = family;
  int total = 0, found = 0;
  for (auto it = bones.begin(); it != bones.end(); ++it) {
    if (!it.value().is_string()) continue;
    ++total;
    const std::string name = it.value().get<std::string>();
    // The first level with a match; a bone there over another node at an earlier level.
    int node = -1;
    for (const auto* level : {&exact, &lower, &unprefixed}) {
      auto it = level->find(level == &exact ? name : Lower(name));
      if (it == level->end()) continue;
      if (node < 0 || (!joint[node] && joint[it->second])) node = it->second;
      if (joint[node]) break;
    }
    if (node < 0) continue;
    m.bones[it.key()] = node;
    ++found;
  }
  m.confidence = total ? static_cast<double>(found) / total : 0.0;
  FillMissing(m);
  return m;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> BuiltinHumanoidMaps() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& m : kHumanoidMaps) out.emplace_back(m.name, m.json);
  return out;
}

HumanoidMap MatchHumanoid(const Avatar& av) {
  // A VRM Animation (.vrma) names its humanoid bones in VRMC_vrm_animation.
  if (auto it = av.unknown_extensions.find("VRMC_vrm_animation");
      it != av.unknown_extensions.end()) {
    const auto j = nlohmann::json::parse(it->second, nullptr, false);
    if (j.is_object() && j.contains("humanoid") && j["humanoid"].contains("humanBones") &&
        j["humanoid"]["humanBones"].is_object()) {
      HumanoidMap m;
      m.family = "vrma";
      for (auto b = j["humanoid"]["humanBones"].begin(); b != j["humanoid"]["humanBones"].end();
           ++b)
        if (b.value().contains("node") && b.value()["node"].is_number_integer()) {
          const int node = b.value()["node"].get<int>();
          if (node >= 0 && node < static_cast<int>(av.nodes.size())) m.bones[b.key()] = node;
        }
      m.confidence = 1.0;
      FillMissing(m);
      return m;
    }
  }
  if (!av.vrm.humanoid.empty()) {
    HumanoidMap m;
    m.family = "vrm";
    m.bones = av.vrm.humanoid;
    m.confidence = 1.0;
    FillMissing(m);
    return m;
  }
  HumanoidMap best;
  for (const auto& [name, text] : BuiltinHumanoidMaps()) {
    const auto j = nlohmann::json::parse(text);
    HumanoidMap m = Resolve(av, j.value("family", name), j["bones"]);
    // Prefer more required bones found, then more bones found (a family that names more of
    // the skeleton: mixamo's Spine2 and fingers over cmu-bvh's subset of the same names), then
    // the higher share of the family's own bones.
    const auto key = [](const HumanoidMap& h) {
      return std::make_tuple(-static_cast<int>(h.missing_required.size()), h.bones.size(),
                             h.confidence);
    };
    if (best.family.empty() || key(m) > key(best)) best = std::move(m);
  }
  return best;
}

Result<HumanoidMap> ApplyHumanoidMapJson(const Avatar& av, const std::string& text) {
  const auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("bones") || !j["bones"].is_object())
    return Status(StatusCode::kInvalidInput,
                  "humanoid map: expected {\"bones\": {\"hips\": \"NodeName\", ...}}");
  std::set<std::string> known;
  for (std::string_view b : HumanBoneNames()) known.emplace(b);
  for (auto it = j["bones"].begin(); it != j["bones"].end(); ++it)
    if (!known.count(it.key()))
      return Status(StatusCode::kInvalidInput,
                    "humanoid map: unknown VRM bone \"" + it.key() + "\"");
  return Resolve(av, j.value("family", std::string("custom")), j["bones"]);
}

}  // namespace hairswing
