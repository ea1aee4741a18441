// Per-chain spring tuning (include/hairswing/tune.h): select springs by name or glob, set or
// scale their parameters, add angle limits, and undo it all from a record kept in the file.
#include "hairswing/tune.h"

#include <fnmatch.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "fit/joint_record.h"
#include "hairswing/names.h"
#include "tune_presets_data.h"

namespace hairswing {

namespace {

constexpr const char* kTuneUndoKey = "HAIRSWING_tune_undo";
constexpr float kDegToRad = 3.14159265358979f / 180.0f;
using Json = nlohmann::json;

// Reads a number of degrees in [0, max] from the whole of `s`.
bool ParseDegrees(const std::string& s, float max, float* out) {
  try {
    size_t used = 0;
    const double d = std::stod(s, &used);
    if (used != s.size() || !std::isfinite(d) || d < 0.0 || d > max) return false;
    *out = static_cast<float>(d);
    return true;
  } catch (...) {
    return false;
  }
}

std::string Num(float v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

}  // namespace

size_t SwingingJoints(const Spring& s) {
  return s.has_virtual_tail || s.joints.empty() ? s.joints.size() : s.joints.size() - 1;
}

Result<std::vector<int>> SelectSprings(const Avatar& av, const std::vector<std::string>& patterns) {
  std::vector<std::string> names;
  for (const Spring& s : av.vrm.springs) names.push_back(s.name);
  std::vector<uint8_t> picked(names.size(), 0);
  for (const std::string& p : patterns) {
    bool any = false;
    for (size_t i = 0; i < names.size(); ++i)
      if (fnmatch(p.c_str(), names[i].c_str(), FNM_CASEFOLD) == 0) picked[i] = any = true;
    if (any) continue;
    // No glob match: the name lookup's message lists the closest names.
    auto found = FindName(p, names, "spring");
    if (!found.ok()) return found.status();
    picked[found.value()] = 1;
  }
  std::vector<int> out;
  for (size_t i = 0; i < picked.size(); ++i)
    if (picked[i]) out.push_back(static_cast<int>(i));
  return out;
}

Result<JointLimit> ParseLimit(const std::string& text) {
  const std::string t = ToLower(text);
  JointLimit l;
  auto bad = [&](const std::string& why) {
    return Status(StatusCode::kInvalidInput, "limit \"" + text + "\": " + why +
                                                 " (none, cone:DEG, hinge:DEG[:x|z|DEG] or "
                                                 "spherical:PITCH,YAW; degrees)");
  };
  if (t == "none") return l;
  const size_t colon = t.find(':');
  if (colon == std::string::npos) return bad("no angle");
  const std::string kind = t.substr(0, colon), rest = t.substr(colon + 1);
  if (kind == "cone" || kind == "hinge") {
    std::string angle = rest, axis;
    if (kind == "hinge")
      if (const size_t c2 = rest.find(':'); c2 != std::string::npos) {
        angle = rest.substr(0, c2);
        axis = rest.substr(c2 + 1);
      }
    float deg = 0;
    if (!ParseDegrees(angle, 180.0f, &deg)) return bad("the angle must be 0 to 180 degrees");
    l.kind = kind == "cone" ? JointLimit::Kind::kCone : JointLimit::Kind::kHinge;
    l.angle = deg * kDegToRad;
    if (!axis.empty() && axis != "x") {
      // The hinge turns about the limit frame's X; turning the frame about the bone (its +Y)
      // by 90 degrees makes that Z.
      float turn = 90.0f;
      if (axis != "z" && !ParseDegrees(axis, 360.0f, &turn))
        return bad("the hinge axis must be x, z or 0 to 360 degrees about the bone");
      const float half = 0.5f * turn * kDegToRad;
      l.rotation = glm::quat(std::cos(half), 0.0f, std::sin(half), 0.0f);
    }
    return l;
  }
  if (kind == "spherical") {
    const size_t comma = rest.find(',');
    float pitch = 0, yaw = 0;
    if (comma == std::string::npos || !ParseDegrees(rest.substr(0, comma), 180.0f, &pitch) ||
        !ParseDegrees(rest.substr(comma + 1), 90.0f, &yaw))
      return bad("spherical takes PITCH,YAW: 0 to 180 and 0 to 90 degrees");
    l.kind = JointLimit::Kind::kSpherical;
    l.angle = pitch * kDegToRad;
    l.yaw = yaw * kDegToRad;
    return l;
  }
  return bad("unknown kind \"" + kind + "\"");
}

std::string FormatLimit(const JointLimit& l) {
  auto deg = [](float r) { return Num(std::round(r / kDegToRad * 100.0f) / 100.0f); };
  switch (l.kind) {
    case JointLimit::Kind::kNone:
      return "none";
    case JointLimit::Kind::kCone:
      return "cone:" + deg(l.angle);
    case JointLimit::Kind::kHinge:
      return "hinge:" + deg(l.angle) +
             (l.rotation == glm::quat(1, 0, 0, 0)
                  ? ""
                  : ":" + deg(2.0f * std::atan2(l.rotation.y, l.rotation.w)));
    case JointLimit::Kind::kSpherical:
      return "spherical:" + deg(l.angle) + "," + deg(l.yaw);
  }
  return "?";
}

float FlipBudgetCone(int swinging_joints, float max_flip_deg) {
  return 0.85f * 2.0f * max_flip_deg * (3.14159265f / 180.0f) /
         static_cast<float>(std::max(swinging_joints, 1) + 1);
}

const std::vector<TunePreset>& BuiltinPresets() {
  // Parsed once from the JSON compiled in (data/presets); a preset that does not parse is a
  // build defect, which tests/tune_test.cpp catches (every file must come out here).
  static const std::vector<TunePreset> presets = [] {
    std::vector<TunePreset> out;
    for (const EmbeddedPreset& e : kTunePresets) {
      const Json j = Json::parse(e.json, nullptr, false);
      if (!j.is_object()) continue;
      try {
        TunePreset p;
        p.name = e.name;
        p.description = j.value("description", "");
        TuneSettings& s = p.settings;
        if (j.contains("stiffness")) s.stiffness = j["stiffness"].get<float>();
        if (j.contains("drag_force")) s.drag_force = j["drag_force"].get<float>();
        if (j.contains("gravity_power")) s.gravity_power = j["gravity_power"].get<float>();
        if (const auto g = j.find("gravity_dir"); g != j.end() && g->is_array() && g->size() == 3)
          s.gravity_dir =
              glm::vec3((*g)[0].get<float>(), (*g)[1].get<float>(), (*g)[2].get<float>());
        if (j.contains("max_flip_deg")) s.max_flip_deg = j["max_flip_deg"].get<float>();
        if (j.contains("limit")) {
          auto l = ParseLimit(j["limit"].get<std::string>());
          if (!l.ok()) continue;
          s.limit = l.value();
        }
        out.push_back(std::move(p));
      } catch (const Json::exception&) {  // a field of the wrong type: left out (tested)
      }
    }
    return out;
  }();
  return presets;
}

Result<TunePreset> FindPreset(const std::string& name) {
  std::vector<std::string> names;
  for (const TunePreset& p : BuiltinPresets()) names.push_back(p.name);
  auto found = FindName(name, names, "preset");
  if (!found.ok()) return found.status();
  return BuiltinPresets()[found.value()];
}

Result<TuneResult> TuneSprings(Avatar& av, const std::vector<int>& springs, const TuneSettings& s) {
  const int n = static_cast<int>(av.vrm.springs.size());
  for (int i : springs)
    if (i < 0 || i >= n) return Status(StatusCode::kInvalidInput, "spring index out of range");
  if (s.gravity_dir && !(glm::length(*s.gravity_dir) > 1e-6f))
    return Status(StatusCode::kInvalidInput, "gravity direction must not be zero");
  // The undo record: every spring's joints as they were before the first tune of this file.
  Json record = Json::object();
  if (auto it = av.unknown_extensions.find(kTuneUndoKey); it != av.unknown_extensions.end()) {
    record = Json::parse(it->second, nullptr, false);
    if (!record.is_object())
      return Status(StatusCode::kInvalidInput, std::string(kTuneUndoKey) + ": not valid JSON");
  }
  Json& recorded = record["springs"];
  if (!recorded.is_object()) recorded = Json::object();
  TuneResult result;
  for (int i : springs) {
    Spring& sp = av.vrm.springs[i];
    const std::string key = std::to_string(i);
    if (!recorded.contains(key)) {
      Json joints = Json::array();
      for (const SpringJoint& j : sp.joints) joints.push_back(fit::JointRecord(j));
      recorded[key] = {{"name", sp.name}, {"joints", joints}};
    }
    std::vector<std::string> what;
    auto apply = [&](const std::optional<float>& v, float SpringJoint::*field, const char* label,
                     float lo, float hi) {
      if (!v) return;
      for (SpringJoint& j : sp.joints)
        j.*field = std::clamp(s.multiply ? j.*field * *v : *v, lo, hi);
      what.push_back(std::string(label) + (s.multiply ? " x" : " ") + Num(*v));
    };
    apply(s.stiffness, &SpringJoint::stiffness, "stiffness", 0.0f, 1e6f);
    apply(s.drag_force, &SpringJoint::drag_force, "drag", 0.0f, 1.0f);
    apply(s.gravity_power, &SpringJoint::gravity_power, "gravity power", -1e6f, 1e6f);
    apply(s.hit_radius, &SpringJoint::hit_radius, "hit radius", 0.0f, 1e3f);
    if (s.gravity_dir) {
      const glm::vec3 d = glm::normalize(*s.gravity_dir);
      for (SpringJoint& j : sp.joints) j.gravity_dir = d;
      what.push_back("gravity direction (" + Num(d.x) + ", " + Num(d.y) + ", " + Num(d.z) + ")");
    }
    const size_t swinging = SwingingJoints(sp);  // never a limit on the tail joint
    if (s.max_flip_deg && !s.limit) {
      JointLimit cone;
      cone.kind = JointLimit::Kind::kCone;
      cone.angle = FlipBudgetCone(static_cast<int>(swinging), *s.max_flip_deg);
      for (size_t k = 0; k < sp.joints.size(); ++k)
        sp.joints[k].limit = k < swinging ? cone : JointLimit{};
      what.push_back("limit " + FormatLimit(cone) + " per joint (chord within " +
                     Num(*s.max_flip_deg) + " deg)");
    }
    if (s.limit) {
      for (size_t k = 0; k < sp.joints.size(); ++k)
        sp.joints[k].limit =
            k < swinging && (!s.limit_root_only || k == 0) ? *s.limit : JointLimit{};
      what.push_back("limit " + FormatLimit(*s.limit) +
                     (s.limit_root_only && s.limit->kind != JointLimit::Kind::kNone
                          ? " on the root joint"
                          : ""));
    }
    if (!what.empty()) {
      std::string line = "spring \"" + sp.name + "\":";
      for (size_t k = 0; k < what.size(); ++k) line += (k ? ", " : " ") + what[k];
      result.changes.push_back(line);
    }
  }
  av.unknown_extensions[kTuneUndoKey] = record.dump();
  return result;
}

Status UndoTune(Avatar& av) {
  auto it = av.unknown_extensions.find(kTuneUndoKey);
  if (it == av.unknown_extensions.end())
    return Status(StatusCode::kInvalidInput, "no tune to undo in this avatar");
  const Json record = Json::parse(it->second, nullptr, false);
  if (!record.is_object() || !record.contains("springs") || !record["springs"].is_object())
    return Status(StatusCode::kInvalidInput, std::string(kTuneUndoKey) + ": not a tune record");
  std::vector<Spring> springs = av.vrm.springs;  // replaced only when all of it succeeded
  try {
    for (const auto& [key, rec] : record["springs"].items()) {
      size_t used = 0;
      const long i = std::stol(key, &used);
      if (used != key.size() || i < 0 || i >= static_cast<long>(springs.size()))
        throw std::runtime_error("spring " + key + " is not in this avatar");
      Spring& sp = springs[i];
      const Json& records = rec.at("joints");
      if (!records.is_array()) throw std::runtime_error("joints: not an array");
      std::vector<SpringJoint> joints;
      for (const Json& r : records) joints.push_back(fit::JointFromRecord(r));
      // A VRM 0.x spring tuned and then written as VRM 1.0 gained one joint: its virtual tail,
      // made a node, with the last joint's settings (write_gltf.cpp). It gets them back too.
      const int last = sp.joints.empty() ? -1 : sp.joints.back().node;
      const bool gained_tail = !joints.empty() && joints.size() + 1 == sp.joints.size() &&
                               last >= 0 && static_cast<size_t>(last) < av.nodes.size() &&
                               av.nodes[last].parent == joints.back().node;
      if (joints.size() != sp.joints.size() && !gained_tail)
        throw std::runtime_error("spring \"" + sp.name + "\" has changed since it was tuned");
      for (size_t k = 0; k < joints.size(); ++k) {
        if (joints[k].node != sp.joints[k].node)
          throw std::runtime_error("spring \"" + sp.name + "\" has changed since it was tuned");
        sp.joints[k] = joints[k];
      }
      if (gained_tail) {
        const int tail_node = sp.joints.back().node;
        sp.joints.back() = sp.joints[joints.size() - 1];
        sp.joints.back().node = tail_node;
        sp.joints.back().limit = JointLimit{};
      }
    }
  } catch (const std::exception& e) {
    return Status(StatusCode::kInvalidInput, std::string(kTuneUndoKey) + ": " + e.what());
  }
  av.vrm.springs = std::move(springs);
  av.unknown_extensions.erase(it);
  return Status::Ok();
}

}  // namespace hairswing
