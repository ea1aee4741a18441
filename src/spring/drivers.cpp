// ClipDriver and FrameDriver: turning caller frames into fixed 1/120 s steps.
#include <cmath>

#include "hairswing/motion.h"

namespace hairswing {

Transform Interpolate(const Transform& a, const Transform& b, float t) {
  Transform out;
  out.translation = a.translation + (b.translation - a.translation) * t;
  out.scale = a.scale + (b.scale - a.scale) * t;
  glm::quat qb = b.rotation;
  if (glm::dot(a.rotation, qb) < 0.0f) qb = -qb;  // shortest path
  out.rotation = glm::normalize(glm::slerp(a.rotation, qb, t));
  return out;
}

ClipDriver::ClipDriver(SpringWorld& world, PoseSampler& sampler)
    : world_(&world),
      sampler_(&sampler),
      pose_(world.rig().rest_local().begin(), world.rig().rest_local().end()) {}

void ClipDriver::Reset() {
  steps_ = 0;
  requested_ = 0.0;
  sampler_->Sample(0.0, pose_);
  world_->Reset(pose_);
}

StepReport ClipDriver::Advance(double dt) {
  StepReport rep;
  if (!(dt > 0.0)) {
    rep.flags |= kStepZeroDt;
    return rep;
  }
  requested_ += dt;
  // Steps due by now. The small epsilon absorbs the rounding of sums like 30 x (1/30).
  const auto due = static_cast<long long>(std::floor(requested_ / SpringWorld::kStep + 1e-6));
  long long todo = due - steps_;
  const int max_steps = world_->config().max_steps_per_call;
  if (todo > max_steps) {
    rep.steps_dropped = static_cast<int>(todo - max_steps);
    rep.flags |= kStepStepsDropped;
    steps_ += todo - max_steps;  // skip the oldest time; the clock stays with the caller
    todo = max_steps;
  }
  for (long long i = 0; i < todo; ++i) {
    ++steps_;
    sampler_->Sample(static_cast<double>(steps_) * SpringWorld::kStep, pose_);
    rep.Merge(world_->Step(pose_));
  }
  return rep;
}

FrameDriver::FrameDriver(SpringWorld& world)
    : world_(&world),
      prev_(world.rig().rest_local().begin(), world.rig().rest_local().end()),
      out_(world.rig().rest_local().begin(), world.rig().rest_local().end()) {}

void FrameDriver::Reset(std::span<const Transform> pose) {
  prev_.assign(pose.begin(), pose.end());
  out_.assign(pose.begin(), pose.end());
  carry_ = 0.0;
  world_->Reset(pose);
}

StepReport FrameDriver::Advance(std::span<const Transform> pose, double dt) {
  StepReport rep;
  HS_ASSERT(pose.size() == prev_.size());
  if (!(dt > 0.0)) {
    rep.flags |= kStepZeroDt;
    return rep;
  }
  const double h = SpringWorld::kStep;
  // Steps fall at times carry_+h, carry_+2h, ... after the previous frame, up to dt.
  double t = h - carry_;
  int todo = static_cast<int>(std::floor((dt - t) / h + 1e-6)) + 1;
  if (t > dt + 1e-9) todo = 0;
  const int max_steps = world_->config().max_steps_per_call;
  if (todo > max_steps) {
    rep.steps_dropped = todo - max_steps;
    rep.flags |= kStepStepsDropped;
    t += (todo - max_steps) * h;
    todo = max_steps;
  }
  for (int i = 0; i < todo; ++i, t += h) {
    const float a = static_cast<float>(std::min(t / dt, 1.0));
    for (size_t n = 0; n < out_.size(); ++n) out_[n] = Interpolate(prev_[n], pose[n], a);
    rep.Merge(world_->Step(out_));
  }
  const double last = t - h;  // time of the last step run, relative to the previous frame
  carry_ = todo > 0 ? dt - last : carry_ + dt;
  if (rep.flags & kStepRefusedNonFinite) return rep;
  prev_.assign(pose.begin(), pose.end());
  return rep;
}

}  // namespace hairswing
