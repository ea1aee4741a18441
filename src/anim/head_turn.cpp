// The standard head-turn test motion, as a procedural pose sampler.
#include <cmath>
#include <glm/gtc/quaternion.hpp>
#include <utility>

#include "core/det_math.h"
#include "core/math.h"
#include "hairswing/anim.h"
#include "hairswing/motion.h"

namespace hairswing {

glm::vec3 AvatarRight(const Avatar& avatar, const Rig& rig) {
  const glm::vec3 fallback(-1, 0, 0);
  for (const auto& [right, left] :
       {std::pair{"rightUpperLeg", "leftUpperLeg"}, std::pair{"rightUpperArm", "leftUpperArm"},
        std::pair{"rightShoulder", "leftShoulder"}}) {
    const int r = HumanoidRigNode(avatar, rig, right), l = HumanoidRigNode(avatar, rig, left);
    if (r < 0 || l < 0) continue;
    glm::vec3 d = glm::vec3(rig.rest_world()[r][3]) - glm::vec3(rig.rest_world()[l][3]);
    d.y = 0.0f;
    const float len = glm::length(d);
    if (!(len > 1e-6f) || !std::isfinite(len)) continue;
    d /= len;
    // Snapped to an axis within 0.5 degrees (cos 0.5 deg = 0.99996).
    for (const glm::vec3& axis :
         {glm::vec3(1, 0, 0), glm::vec3(-1, 0, 0), glm::vec3(0, 0, 1), glm::vec3(0, 0, -1)})
      if (glm::dot(d, axis) > 0.99996f) return axis;
    return d;
  }
  return fallback;
}

HeadTurnMotion::HeadTurnMotion(const Rig& rig, int head, int hips, glm::vec3 right)
    : rig_(&rig), head_(head), hips_(hips), right_(right) {
  HS_ASSERT(head >= 0 && head < static_cast<int>(rig.node_count()));
  const int hp = rig.parent()[head];
  const glm::quat parent_rest =
      hp >= 0 ? internal::RotationOf(rig.rest_world()[hp]) : glm::quat(1, 0, 0, 0);
  head_parent_rest_inv_ = glm::inverse(parent_rest);
  head_world_rest_ = internal::RotationOf(rig.rest_world()[head]);
  hips_parent_inv_ = glm::mat3(1.0f);
  if (hips_ >= 0 && rig.parent()[hips_] >= 0)
    hips_parent_inv_ = glm::inverse(glm::mat3(rig.rest_world()[rig.parent()[hips_]]));
}

void HeadTurnMotion::Angles(double t, double* yaw, double* pitch, double* sway) {
  constexpr double kPi = 3.14159265358979323846;
  double w = 0.0;
  if (t >= 0.0 && t <= kMoveEnd) {
    const double s = det::Sin(kPi * t / 4.0);
    w = s * s;
  }
  *yaw = 50.0 * kPi / 180.0 * w * det::Sin(2.0 * kPi * t / 2.0);
  *pitch = 15.0 * kPi / 180.0 * w * det::Sin(2.0 * kPi * t / 1.3);
  *sway = 0.03 * w * det::Sin(2.0 * kPi * t / 2.0);
}

void HeadTurnMotion::Sample(double t, std::span<Transform> pose) {
  const Rig& rig = *rig_;
  std::copy(rig.rest_local().begin(), rig.rest_local().end(), pose.begin());
  double yaw, pitch, sway;
  Angles(t, &yaw, &pitch, &sway);
  // Up is +Y; right_ is the avatar's right (-X for a VRM 1.0 avatar, which faces +Z). Positive
  // yaw turns the face towards the avatar's left; positive pitch about the right axis lifts the
  // chin; the hips sway along the right axis.
  const glm::quat r_up = det::AngleAxis(static_cast<float>(yaw), glm::vec3(0, 1, 0));
  const glm::quat r_right = det::AngleAxis(static_cast<float>(pitch), right_);
  // The hips only translate, so the head's parent keeps its rest world rotation.
  const glm::quat head_world = r_up * r_right * head_world_rest_;
  pose[head_].rotation = glm::normalize(head_parent_rest_inv_ * head_world);
  if (hips_ >= 0) {
    const glm::vec3 delta_world = right_ * static_cast<float>(sway);
    pose[hips_].translation = rig.rest_local()[hips_].translation + hips_parent_inv_ * delta_world;
  }
}

Result<uint64_t> HeadTurnHash(const Avatar& avatar, SolverMode mode, int fps) {
  SpringConfig cfg;
  cfg.mode = mode;
  return HeadTurnHash(avatar, cfg, fps);
}

Result<uint64_t> HeadTurnHash(const Avatar& avatar, const SpringConfig& config, int fps) {
  // Below 10 fps a frame needs more than max_steps_per_call steps and time would be dropped.
  if (!(fps >= 10 && fps <= 1000))
    return Status(StatusCode::kInvalidInput, "fps must be in [10, 1000]");
  auto rig = BuildRig(avatar);
  if (!rig.ok()) return rig.status();
  if (rig->chains().empty()) return Status(StatusCode::kInvalidInput, "the avatar has no springs");
  const int head = HumanoidRigNode(avatar, *rig, "head");
  if (head < 0) return Status(StatusCode::kInvalidInput, "the avatar has no humanoid head to turn");
  auto world = SpringWorld::Create(*rig, config);
  if (!world.ok()) return world.status();
  HeadTurnMotion motion(*rig, head, HumanoidRigNode(avatar, *rig, "hips"),
                        AvatarRight(avatar, *rig));
  ClipDriver driver(*world, motion);
  driver.Reset();
  // Integer frame count: 12 s at 30/60/120 fps all end on the same step (1440).
  const long frames = std::lround(HeadTurnMotion::kDuration * fps);
  for (long f = 0; f < frames; ++f) driver.Advance(1.0 / fps);
  return world->StateHash();
}

}  // namespace hairswing
