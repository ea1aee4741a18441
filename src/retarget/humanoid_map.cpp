// Humanoid maps: the avatar's VRM humanoid, or a built-in skeleton family matched by node names.
#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <set>

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

// Resolves a name map against the avatar's nodes: exact names first, then case-insensitive.
HumanoidMap Resolve(const Avatar& av, const std::string& family, const nlohmann::json& bones) {
  std::map<std::string, int> exact, lower;
  for (size_t n = 0; n < av.nodes.size(); ++n) {
    exact.emplace(av.nodes[n].name, static_cast<int>(n));
    lower.emplace(Lower(av.nodes[n].name), static_cast<int>(n));
  }
  HumanoidMap m;
  m.family = family;
  int total = 0, found = 0;
  for (auto it = bones.begin(); it != bones.end(); ++it) {
    if (!it.value().is_string()) continue;
    ++total;
    const std::string name = it.value().get<std::string>();
    int node = -1;
    if (auto e = exact.find(name); e != exact.end())
      node = e->second;
    else if (auto l = lower.find(Lower(name)); l != lower.end())
      node = l->second;
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
    // Prefer more required bones found, then higher confidence.
    const auto key = [](const HumanoidMap& h) {
      return std::make_pair(-static_cast<int>(h.missing_required.size()), h.confidence);
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
