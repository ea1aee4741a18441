// World-space retargeting (include/hairswing/retarget.h).
//
// For a mapped bone b with source world rotation S_b(t) and rest S_b0, the world-space change is
// D_b = S_b(t) S_b0^-1. Seen in the target's world frame (A = yaw that aligns the two
// skeletons' facing) it is A D_b A^-1, and the target bone's world rotation becomes
// T_b(t) = A D_b A^-1 T_b0. Local rotations follow from the target's own parents, processed
// parents first. The hips move by the source hips' displacement times the leg length ratio.
#include <algorithm>
#include <cmath>
#include <mutex>

#include "core/math.h"
#include "hairswing/retarget.h"

namespace hairswing {

struct Retargeter::Cache {
  std::mutex mu;
  std::map<std::string, std::unique_ptr<Clip>> clips;
};

const Clip& Retargeter::Cached(const Clip& clip) const {
  std::lock_guard<std::mutex> lock(cache_->mu);
  auto& slot = cache_->clips[clip.name];
  if (!slot) slot = std::make_unique<Clip>(Retarget(clip));
  return *slot;
}

namespace {

glm::vec3 Pos(const Rig& rig, const HumanoidMap& m, const char* bone) {
  auto it = m.bones.find(bone);
  if (it == m.bones.end()) return glm::vec3(0);
  return glm::vec3(rig.rest_world()[rig.node_to_rig()[it->second]][3]);
}

float LegLength(const Rig& rig, const HumanoidMap& m) {
  float l = 0;
  for (const char* side : {"left", "right"}) {
    const std::string s(side);
    l +=
        glm::length(Pos(rig, m, (s + "UpperLeg").c_str()) - Pos(rig, m, (s + "LowerLeg").c_str())) +
        glm::length(Pos(rig, m, (s + "LowerLeg").c_str()) - Pos(rig, m, (s + "Foot").c_str()));
  }
  return 0.5f * l;
}

// Yaw (radians about +Y) of the skeleton's right-hand direction, from the upper legs.
float RightYaw(const Rig& rig, const HumanoidMap& m) {
  glm::vec3 r = Pos(rig, m, "rightUpperLeg") - Pos(rig, m, "leftUpperLeg");
  r.y = 0;
  if (glm::length(r) < 1e-9f) return 0;
  return std::atan2(r.x, r.z);
}

}  // namespace

Result<Retargeter> Retargeter::Create(const Avatar& source, const HumanoidMap& smap,
                                      const Avatar& target, const HumanoidMap& tmap,
                                      RetargetOptions options) {
  for (const auto* m : {&smap, &tmap})
    if (!m->missing_required.empty()) {
      std::string list;
      for (const auto& b : m->missing_required) list += (list.empty() ? "" : ", ") + b;
      return Status(StatusCode::kInvalidInput,
                    std::string(m == &smap ? "source" : "target") +
                        " skeleton: required humanoid bones missing: " + list);
    }
  auto sr = BuildRig(source);
  if (!sr.ok()) return sr.status();
  auto tr = BuildRig(target);
  if (!tr.ok()) return tr.status();
  Retargeter r;
  r.cache_ = std::make_shared<Cache>();
  r.source_rig_ = std::move(sr).value();
  r.target_rig_ = std::move(tr).value();
  r.options_ = options;
  r.target_spring_.assign(r.target_rig_.node_count(), 0);
  for (int n : r.target_rig_.joint_node()) r.target_spring_[n] = 1;
  std::vector<std::pair<int, int>> pairs;  // (target rig node, source rig node)
  for (const auto& [bone, tnode] : tmap.bones) {
    auto s = smap.bones.find(bone);
    if (s == smap.bones.end()) continue;
    const int t = r.target_rig_.node_to_rig()[tnode];
    if (r.target_spring_[t]) continue;  // never write a hair joint
    pairs.emplace_back(t, r.source_rig_.node_to_rig()[s->second]);
  }
  std::sort(pairs.begin(), pairs.end());  // target rig order: parents first
  for (const auto& [t, s] : pairs) {
    r.target_nodes_.push_back(t);
    r.source_nodes_.push_back(s);
    r.target_rest_world_.push_back(internal::RotationOf(r.target_rig_.rest_world()[t]));
    r.source_rest_world_.push_back(internal::RotationOf(r.source_rig_.rest_world()[s]));
  }
  r.align_ = glm::angleAxis(RightYaw(r.target_rig_, tmap) - RightYaw(r.source_rig_, smap),
                            glm::vec3(0, 1, 0));
  r.source_hips_ = r.source_rig_.node_to_rig()[smap.bones.at("hips")];
  r.target_hips_ = r.target_rig_.node_to_rig()[tmap.bones.at("hips")];
  const float ls = LegLength(r.source_rig_, smap), lt = LegLength(r.target_rig_, tmap);
  r.hips_scale_ = ls > 1e-6f ? lt / ls : 1.0f;
  return r;
}

Clip Retargeter::Retarget(const Clip& clip) const {
  Clip out;
  out.name = clip.name;
  out.duration = clip.duration;
  const int keys =
      std::max(2, static_cast<int>(std::ceil(clip.duration * options_.sample_rate)) + 1);
  const size_t nb = target_nodes_.size();
  std::vector<Track> rot(nb);
  for (size_t b = 0; b < nb; ++b) {
    rot[b].node = target_nodes_[b];
    rot[b].path = AnimationChannel::Path::kRotation;
  }
  Track hips;
  hips.node = target_hips_;
  hips.path = AnimationChannel::Path::kTranslation;

  std::vector<Transform> sp(source_rig_.node_count()), tp(target_rig_.node_count());
  std::vector<glm::mat4> sw(source_rig_.node_count()), tw(target_rig_.node_count());
  const glm::quat align_inv = glm::inverse(align_);
  const glm::vec3 s_hips_rest(source_rig_.rest_world()[source_hips_][3]);
  const glm::vec3 t_hips_rest(target_rig_.rest_world()[target_hips_][3]);
  for (int k = 0; k < keys; ++k) {
    const double t = std::min(clip.duration, k / options_.sample_rate);
    std::copy(source_rig_.rest_local().begin(), source_rig_.rest_local().end(), sp.begin());
    clip.Apply(t, sp);
    ComputeWorld(source_rig_, sp, sw);
    std::copy(target_rig_.rest_local().begin(), target_rig_.rest_local().end(), tp.begin());
    // Target FK parents first; mapped bones get their retargeted rotation on the way.
    size_t b = 0;
    for (size_t n = 0; n < target_rig_.node_count(); ++n) {
      const int p = target_rig_.parent()[n];
      if (b < nb && target_nodes_[b] == static_cast<int>(n)) {
        const glm::quat delta =
            internal::RotationOf(sw[source_nodes_[b]]) * glm::inverse(source_rest_world_[b]);
        const glm::quat world_rot = align_ * delta * align_inv * target_rest_world_[b];
        const glm::quat parent_rot = p >= 0 ? internal::RotationOf(tw[p]) : glm::quat(1, 0, 0, 0);
        tp[n].rotation = glm::normalize(glm::inverse(parent_rot) * world_rot);
        if (static_cast<int>(n) == target_hips_) {
          glm::vec3 d = align_ * ((glm::vec3(sw[source_hips_][3]) - s_hips_rest) * hips_scale_);
          if (options_.remove_horizontal_root_motion) d.x = d.z = 0.0f;
          const glm::vec3 world_pos = t_hips_rest + d;
          tp[n].translation =
              p >= 0 ? glm::vec3(glm::inverse(tw[p]) * glm::vec4(world_pos, 1.0f)) : world_pos;
        }
        rot[b].times.push_back(static_cast<float>(t));
        const glm::quat q = tp[n].rotation;
        rot[b].values.insert(rot[b].values.end(), {q.x, q.y, q.z, q.w});
        ++b;
      }
      tw[n] = p >= 0 ? tw[p] * ToMatrix(tp[n]) : ToMatrix(tp[n]);
    }
    hips.times.push_back(static_cast<float>(t));
    const glm::vec3 ht = tp[target_hips_].translation;
    hips.values.insert(hips.values.end(), {ht.x, ht.y, ht.z});
  }
  for (auto& tr : rot) out.tracks.push_back(std::move(tr));
  out.tracks.push_back(std::move(hips));
  return out;
}

}  // namespace hairswing
