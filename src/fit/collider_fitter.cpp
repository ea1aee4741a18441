// The collider fitter (include/hairswing/fit.h, FitColliders).
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "fit/body_scale.h"
#include "fit/undo_keys.h"
#include "hairswing/fit.h"
#include "hairswing/retarget.h"
#include "hairswing/rig.h"
#include "hairswing/stats.h"

namespace hairswing {
namespace {

using Json = nlohmann::json;
using fit::kColliderUndoKey;
// Share of the surrounding geometry a grown proxy covers. A round proxy cannot follow an
// elliptic body: covering every sample pushes hair far off the flatter sides, so the wide
// trunk takes a lower share than the limbs.
constexpr double kCoverQuantile = 0.9;
constexpr double kTrunkQuantile = 0.6;

struct Sample {
  glm::vec3 p;
  int joint;  // rig node with the largest weight (or the mesh's node when rigid)
};

bool MaterialHidden(const Avatar& av, int material) {
  if (material < 0) return false;
  const auto j = Json::parse(av.materials[material].json, nullptr, false);
  if (!j.is_object() || !j.contains("pbrMetallicRoughness")) return false;
  const auto& pbr = j["pbrMetallicRoughness"];
  if (!pbr.contains("baseColorFactor") || !pbr["baseColorFactor"].is_array() ||
      pbr["baseColorFactor"].size() < 4)
    return false;
  return j.value("alphaMode", "OPAQUE") != "OPAQUE" &&
         pbr["baseColorFactor"][3].get<double>() < 0.01;
}

float SegmentDistance(const glm::vec3& a, const glm::vec3& b, const glm::vec3& p) {
  const glm::vec3 d = b - a;
  const float l2 = glm::dot(d, d);
  const float t = l2 > 0 ? std::clamp(glm::dot(p - a, d) / l2, 0.0f, 1.0f) : 0.0f;
  return glm::length(p - (a + t * d));
}

// What one FitColliders call works with.
struct ColliderFitContext {
  ColliderFitContext(Avatar& a, const Rig& r, const HumanoidMap& h, const ColliderFitOptions& o,
                     ColliderFitResult& out)
      : av(a), rig(r), hm(h), opt(o), res(out) {}
  Avatar& av;
  const Rig& rig;
  const HumanoidMap& hm;
  const ColliderFitOptions& opt;
  ColliderFitResult& res;
  float unit = 1.0f;            // avatar scale, a 1.7 m person = 1
  std::vector<uint8_t> spring;  // per rig node: a spring joint
  std::vector<glm::mat4> pal = std::vector<glm::mat4>(1024);

  glm::vec3 RestPosition(int avatar_node) const {
    return glm::vec3(rig.rest_world()[rig.node_to_rig()[avatar_node]][3]);
  }
};

void WarnUnsupportedScales(ColliderFitContext& cx) {
  for (const Node& node : cx.av.nodes) {
    const glm::vec3 s = node.scale;
    if (s.x < 0 || s.y < 0 || s.z < 0)
      cx.res.warnings.push_back("unsupported transform: negative scale on \"" + node.name + "\"");
    else if (std::fabs(s.x - s.y) > 1e-4f * std::max(s.x, 1e-6f) ||
             std::fabs(s.x - s.z) > 1e-4f * std::max(s.x, 1e-6f))
      cx.res.warnings.push_back("unsupported transform: non-uniform scale on \"" + node.name +
                                "\" (radii use the x scale)");
  }
}

// Visible body and clothing geometry at rest: not hair (no weight on a spring joint), in the
// scene, not scaled to nothing, not fully transparent; each vertex with the rig node holding its
// largest weight (or the mesh's node when rigid).
Status BodySamples(ColliderFitContext& cx, std::vector<Sample>* samples) {
  const Rig& rig = cx.rig;
  for (const MeshInstance& inst : rig.meshes()) {
    if (std::fabs(glm::determinant(glm::mat3(rig.rest_world()[inst.node]))) < 1e-12f &&
        inst.skin < 0)
      continue;
    for (const Primitive& prim : cx.av.meshes[inst.mesh].primitives) {
      if (prim.mode != 4 || MaterialHidden(cx.av, prim.material)) continue;
      bool hair = false;
      if (inst.skin >= 0)
        for (size_t v = 0; v < prim.joints.size() && !hair; ++v)
          for (int k = 0; k < 4; ++k)
            if (prim.weights[v][k] > 0 &&
                prim.joints[v][k] < rig.skins()[inst.skin].joints.size() &&
                cx.spring[rig.skins()[inst.skin].joints[prim.joints[v][k]]])
              hair = true;
      if (hair) continue;
      std::vector<glm::vec3> posed(prim.positions.size());
      if (inst.skin >= 0 && rig.skins()[inst.skin].joints.size() > cx.pal.size())
        cx.pal.resize(rig.skins()[inst.skin].joints.size());
      if (Status st = PosePrimitive(rig, inst, prim, rig.rest_world(), cx.pal, posed); !st.ok())
        return Status(st.code(), "mesh \"" + cx.av.meshes[inst.mesh].name + "\": " + st.message());
      // A hidden accessory scaled to nothing collapses to a point: skip degenerate geometry.
      glm::vec3 bmin(1e30f), bmax(-1e30f);
      for (const auto& p : posed) {
        bmin = glm::min(bmin, p);
        bmax = glm::max(bmax, p);
      }
      if (glm::length(bmax - bmin) < 1e-3f * cx.unit) continue;
      for (size_t v = 0; v < posed.size(); ++v) {
        int joint = inst.node;
        if (inst.skin >= 0 && !prim.joints.empty()) {
          int best = 0;
          for (int k = 1; k < 4; ++k)
            if (prim.weights[v][k] > prim.weights[v][best]) best = k;
          joint = rig.skins()[inst.skin].joints[prim.joints[v][best]];
        }
        samples->push_back({posed[v], joint});
      }
    }
  }
  return Status::Ok();
}

// Everything FitColliders may change, for UndoColliderFit.
Json UndoRecord(const Avatar& av) {
  Json undo = Json::object();
  Json cols = Json::array();
  for (const Collider& c : av.vrm.colliders)
    cols.push_back({c.radius, c.offset.x, c.offset.y, c.offset.z, c.tail.x, c.tail.y, c.tail.z});
  undo["colliders"] = cols;
  undo["colliders_before"] = av.vrm.colliders.size();
  undo["groups_before"] = av.vrm.collider_groups.size();
  Json groups = Json::array(), segs = Json::array();
  for (const auto& g : av.vrm.collider_groups) groups.push_back(g.colliders);
  for (const auto& s : av.vrm.springs) {
    std::vector<float> hits;
    hits.reserve(s.joints.size());
    for (const auto& j : s.joints) hits.push_back(j.hit_radius);
    segs.push_back({s.segment_checks, s.collider_groups, hits});
  }
  undo["groups"] = groups;
  undo["springs"] = segs;
  return undo;
}

// Each sphere and capsule grows to cover the geometry of its bone around it (never shrinks);
// colliders on a chain's attachment (usually the head) keep the creator's size.
void GrowColliders(ColliderFitContext& cx, const std::vector<Sample>& samples) {
  const Rig& rig = cx.rig;
  Avatar& av = cx.av;
  std::set<int> attach_nodes;
  for (const RigChain& ch : rig.chains())
    if (ch.attach >= 0 && rig.source_node()[ch.attach] >= 0)
      attach_nodes.insert(rig.source_node()[ch.attach]);
  const float max_radius = cx.opt.max_radius * cx.unit;
  for (size_t c = 0; c < av.vrm.colliders.size(); ++c) {
    Collider& col = av.vrm.colliders[c];
    if (col.shape != ColliderShape::kSphere && col.shape != ColliderShape::kCapsule) continue;
    const std::string where = "collider " + std::to_string(c) + " (" +
                              ColliderShapeName(col.shape) + " on \"" + av.nodes[col.node].name +
                              "\")";
    if (attach_nodes.count(col.node)) {
      cx.res.changes.push_back(where + ": kept (a chain hangs from this node)");
      continue;
    }
    const int rn = rig.node_to_rig()[col.node];
    const glm::mat4& w = rig.rest_world()[rn];
    const float scale = glm::length(glm::vec3(w[0]));
    const glm::vec3 a(w * glm::vec4(col.offset, 1)),
        b(w * glm::vec4(col.shape == ColliderShape::kCapsule ? col.tail : col.offset, 1));
    // The cross-section the proxy stands for: geometry of its bone that lies alongside the
    // capsule's axis (beyond the ends it belongs to neighbouring proxies), or all of it for a
    // sphere.
    std::vector<double> d;
    const glm::vec3 axis = b - a;
    const float axis2 = glm::dot(axis, axis);
    // For a lying capsule (arms, a chest bar), geometry straight above or below the axis
    // belongs to the proxies above and below it (shoulders, neck, belly): keep the samples
    // whose offset from the axis is within 45 degrees of horizontal.
    const bool lying =
        axis2 > 0 && std::fabs(glm::dot(axis, glm::vec3(0, 1, 0))) < 0.7f * std::sqrt(axis2);
    for (const Sample& s : samples) {
      if (s.joint != rn) continue;
      float t = 0.0f;
      if (axis2 > 0) {
        t = glm::dot(s.p - a, axis) / axis2;
        if (t < 0.0f || t > 1.0f) continue;
      }
      const glm::vec3 radial = s.p - (a + std::clamp(t, 0.0f, 1.0f) * axis);
      if (lying && std::fabs(radial.y) > glm::length(glm::vec2(radial.x, radial.z))) continue;
      d.push_back(glm::length(radial));
    }
    if (d.empty()) {
      cx.res.warnings.push_back(where + ": no visible geometry around it; kept");
      continue;
    }
    // Cover the surface around the proxy (kCoverQuantile of the distances, robust to a few stray
    // vertices), never shrinking, within the growth limits.
    const float want = static_cast<float>(Quantile(d, kCoverQuantile)) / scale;
    const float limit = std::min(col.radius * cx.opt.max_growth, max_radius / scale);
    const float r = std::min(std::max(col.radius, want), limit);
    if (r > col.radius * 1.0001f) {
      cx.res.changes.push_back(
          where + ": radius " + std::to_string(col.radius) + " -> " + std::to_string(r) +
          (want > limit ? " (limited; the geometry reaches " + std::to_string(want) + ")" : ""));
      col.radius = r;
      ++cx.res.grown;
    }
  }
}

// Trunk coverage: a capsule from the hips to the chest when no collider sits on the lower trunk.
void AddTrunkCapsule(ColliderFitContext& cx, const std::vector<Sample>& samples) {
  const Rig& rig = cx.rig;
  const HumanoidMap& hm = cx.hm;
  Avatar& av = cx.av;
  std::set<int> trunk;
  for (const char* bone : {"hips", "spine"})
    if (hm.bones.count(bone)) trunk.insert(hm.bones.at(bone));
  bool covered = false;
  for (const Collider& col : av.vrm.colliders) covered |= trunk.count(col.node) > 0;
  if (covered || !hm.bones.count("spine") || av.vrm.springs.empty()) return;
  const int spine = hm.bones.at("spine");
  const int top = hm.bones.count("chest") ? hm.bones.at("chest") : hm.bones.at("head");
  const glm::mat4& sw = rig.rest_world()[rig.node_to_rig()[spine]];
  const glm::vec3 a = cx.RestPosition(hm.bones.at("hips")), b = cx.RestPosition(top);
  std::vector<double> d;
  for (const Sample& s : samples)
    if (trunk.count(rig.source_node()[s.joint])) d.push_back(SegmentDistance(a, b, s.p));
  if (d.empty()) return;
  Collider cap;
  cap.node = spine;
  cap.shape = ColliderShape::kCapsule;
  const glm::mat4 inv = glm::inverse(sw);
  cap.offset = glm::vec3(inv * glm::vec4(a, 1));
  cap.tail = glm::vec3(inv * glm::vec4(b, 1));
  const float scale = glm::length(glm::vec3(sw[0]));
  cap.radius =
      std::min(static_cast<float>(Quantile(d, kTrunkQuantile)), cx.opt.max_radius * cx.unit) /
      scale;
  av.vrm.colliders.push_back(cap);
  av.vrm.collider_groups.push_back(
      {"hairswing_torso", {static_cast<int>(av.vrm.colliders.size()) - 1}});
  const int g = static_cast<int>(av.vrm.collider_groups.size()) - 1;
  for (Spring& s : av.vrm.springs) s.collider_groups.push_back(g);
  cx.res.changes.push_back("added a torso capsule on \"" + av.nodes[spine].name + "\" (radius " +
                           std::to_string(cap.radius) + "): no collider covered the trunk");
  ++cx.res.added;
}

// Hair vertices owned (largest weight) by each spring joint, at rest, per rig node.
Status OwnedHair(ColliderFitContext& cx, std::vector<std::vector<glm::vec3>>* owned) {
  const Rig& rig = cx.rig;
  owned->assign(rig.node_count(), {});
  for (const MeshInstance& inst : rig.meshes()) {
    if (inst.skin < 0) continue;
    const RigSkin& sk = rig.skins()[inst.skin];
    for (const Primitive& prim : cx.av.meshes[inst.mesh].primitives) {
      if (prim.joints.empty()) continue;
      std::vector<glm::vec3> posed(prim.positions.size());
      if (sk.joints.size() > cx.pal.size()) cx.pal.resize(sk.joints.size());
      if (Status st = PosePrimitive(rig, inst, prim, rig.rest_world(), cx.pal, posed); !st.ok())
        return Status(st.code(), "mesh \"" + cx.av.meshes[inst.mesh].name + "\": " + st.message());
      for (size_t v = 0; v < posed.size(); ++v) {
        int best = 0;
        for (int k = 1; k < 4; ++k)
          if (prim.weights[v][k] > prim.weights[v][best]) best = k;
        const int j = sk.joints[prim.joints[v][best]];
        if (cx.spring[j]) (*owned)[j].push_back(posed[v]);
      }
    }
  }
  return Status::Ok();
}

// Whole-link checks for chains that can sweep across the body's front: long enough (reach),
// reaching below the neck and hanging in front of the chest (position, along the facing
// direction from the legs). Their hit radius grows to cover the hair the joints own (skin-weight
// ownership), so a wide strand's edges stay out too. Short chains (bangs) and chains behind the
// body keep their settings: whole-link checks everywhere raised stretch.
Status EnableSegmentChecks(ColliderFitContext& cx) {
  const Rig& rig = cx.rig;
  const HumanoidMap& hm = cx.hm;
  const float unit = cx.unit;
  const glm::vec3 up(0, 1, 0);
  glm::vec3 right =
      cx.RestPosition(hm.bones.at("rightUpperLeg")) - cx.RestPosition(hm.bones.at("leftUpperLeg"));
  right.y = 0;
  const glm::vec3 forward =
      glm::length(right) > 0 ? glm::normalize(glm::cross(up, right)) : glm::vec3(0, 0, 1);
  const int chest_bone = hm.bones.count("chest") ? hm.bones.at("chest") : hm.bones.at("spine");
  const glm::vec3 chest = cx.RestPosition(chest_bone);
  const float neck_y =
      cx.RestPosition(hm.bones.count("neck") ? hm.bones.at("neck") : hm.bones.at("head")).y;
  std::vector<std::vector<glm::vec3>> owned;
  if (Status st = OwnedHair(cx, &owned); !st.ok()) return st;
  auto joint_pos = [&](int j) { return glm::vec3(rig.rest_world()[rig.joint_node()[j]][3]); };
  for (const RigChain& ch : rig.chains()) {
    float len = 0, lowest = 1e30f;
    const glm::vec3 tip = joint_pos(ch.joint_end - 1);
    for (int j = ch.joint_begin; j < ch.joint_end; ++j) {
      lowest = std::min(lowest, joint_pos(j).y);
      if (j + 1 < ch.joint_end) len += glm::length(joint_pos(j + 1) - joint_pos(j));
    }
    Spring& s = cx.av.vrm.springs[ch.source_spring];
    const bool want = len >= cx.opt.segment_min_length * unit && lowest < neck_y &&
                      glm::dot(tip - chest, forward) > 0.0f;
    if (!want || s.segment_checks) continue;
    s.segment_checks = true;
    ++cx.res.segment_chains;
    float widest = 0;
    for (int j = ch.joint_begin; j + 1 < ch.joint_end; ++j) {
      const glm::vec3 a = joint_pos(j), b = joint_pos(j + 1);
      std::vector<double> d;
      for (const glm::vec3& p : owned[rig.joint_node()[j]]) d.push_back(SegmentDistance(a, b, p));
      if (d.empty()) continue;
      const float r = static_cast<float>(Quantile(d, 0.9));
      const float scale = glm::length(glm::vec3(rig.rest_world()[rig.joint_node()[j]][0]));
      SpringJoint& jt = s.joints[j - ch.joint_begin];
      const float hit = std::min(r, 0.05f * unit) / scale;
      if (hit > jt.hit_radius) jt.hit_radius = hit;
      widest = std::max(widest, jt.hit_radius);
    }
    cx.res.changes.push_back("spring \"" + s.name + "\": whole-link collider checks (reach " +
                             std::to_string(len / unit) +
                             ", in front of the chest), hit radius up to " +
                             std::to_string(widest));
  }
  return Status::Ok();
}

}  // namespace

Result<ColliderFitResult> FitColliders(Avatar& av, const ColliderFitOptions& opt) {
  if (av.unknown_extensions.count(kColliderUndoKey))
    return Status(StatusCode::kUnsupported,
                  "colliders were already fitted (the avatar carries the fitter's undo record); "
                  "undo that fit first");
  auto rig_r = BuildRig(av);
  if (!rig_r.ok()) return rig_r.status();
  const Rig& rig = rig_r.value();
  const HumanoidMap hm = MatchHumanoid(av);
  ColliderFitResult res;
  if (!hm.missing_required.empty()) {
    // Without body roles there is nothing to fit against: keep the creator's settings.
    std::string list;
    for (const auto& b : hm.missing_required) list += (list.empty() ? "" : ", ") + b;
    res.warnings.push_back("humanoid roles missing (" + list +
                           "): creator's collider settings kept");
    return res;
  }
  ColliderFitContext cx(av, rig, hm, opt, res);
  cx.unit = internal::HumanoidUnit(hm, rig);
  cx.spring.assign(rig.node_count(), 0);
  for (int n : rig.joint_node()) cx.spring[n] = 1;
  WarnUnsupportedScales(cx);
  std::vector<Sample> samples;
  if (Status st = BodySamples(cx, &samples); !st.ok()) return st;
  const Json undo = UndoRecord(av);
  GrowColliders(cx, samples);
  AddTrunkCapsule(cx, samples);
  if (Status st = EnableSegmentChecks(cx); !st.ok()) return st;
  av.unknown_extensions[kColliderUndoKey] = undo.dump();
  // Colliders are for hair chains: say so when there are none (else the run looks like a fit).
  if (av.vrm.springs.empty())
    res.warnings.push_back(
        res.changes.empty()
            ? "nothing fitted: the avatar has no spring chains and no colliders to grow (fit "
              "chains to the hair first: --hair MESH, MESH/INDEX or material:NAME)"
            : "the avatar has no spring chains: no hair collides with these colliders until "
              "chains are added (--hair)");
  return res;
}

Status UndoColliderFit(Avatar& av) {
  auto it = av.unknown_extensions.find(kColliderUndoKey);
  if (it == av.unknown_extensions.end())
    return Status(StatusCode::kInvalidInput, "no collider fit to undo");
  const Json u = Json::parse(it->second, nullptr, false);
  // As in UndoFit: the record is untrusted, checked field by field, applied to a copy.
  VrmData out = av.vrm;
  auto fail = [](const std::string& what) { throw std::runtime_error(what); };
  try {
    const size_t cols_before = u.at("colliders_before").get<size_t>();
    const size_t groups_before = u.at("groups_before").get<size_t>();
    if (cols_before > out.colliders.size()) fail("colliders_before: more than the avatar has");
    if (groups_before > out.collider_groups.size()) fail("groups_before: more than the avatar has");
    out.colliders.resize(cols_before);
    out.collider_groups.resize(groups_before);
    const Json& cols = u.at("colliders");
    for (size_t c = 0; c < out.colliders.size(); ++c) {
      const auto row = cols.at(c).get<std::vector<float>>();
      if (row.size() != 7) fail("colliders: a row does not have 7 numbers");
      for (float v : row)
        if (!std::isfinite(v)) fail("colliders: a number is not finite");
      Collider& col = out.colliders[c];
      col.radius = row[0];
      col.offset = {row[1], row[2], row[3]};
      col.tail = {row[4], row[5], row[6]};
    }
    for (size_t g = 0; g < out.collider_groups.size(); ++g) {
      auto members = u.at("groups").at(g).get<std::vector<int>>();
      for (int m : members)
        if (m < 0 || static_cast<size_t>(m) >= cols_before) fail("groups: collider out of range");
      out.collider_groups[g].colliders = std::move(members);
    }
    const Json& springs = u.at("springs");
    for (size_t s = 0; s < out.springs.size() && s < springs.size(); ++s) {
      out.springs[s].segment_checks = springs[s].at(0).get<bool>();
      auto groups = springs[s].at(1).get<std::vector<int>>();
      for (int g : groups)
        if (g < 0 || static_cast<size_t>(g) >= groups_before) fail("springs: group out of range");
      out.springs[s].collider_groups = std::move(groups);
      const auto hits = springs[s].at(2).get<std::vector<float>>();
      for (size_t j = 0; j < hits.size() && j < out.springs[s].joints.size(); ++j) {
        if (!std::isfinite(hits[j]) || hits[j] < 0) fail("springs: hit radius not finite");
        out.springs[s].joints[j].hit_radius = hits[j];
      }
    }
  } catch (const std::exception& e) {
    return Status(StatusCode::kInvalidInput, std::string(kColliderUndoKey) + ": " + e.what());
  }
  av.vrm = std::move(out);
  av.unknown_extensions.erase(kColliderUndoKey);
  return Status::Ok();
}

}  // namespace hairswing
