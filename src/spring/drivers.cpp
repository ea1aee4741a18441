// ClipDriver and FrameDriver: turning caller frames into fixed 1/120 s steps.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <utility>

#if HAIRSWING_SIMD && defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/det_math.h"
#include "core/math.h"
#include "hairswing/motion.h"

namespace hairswing {

Transform Interpolate(const Transform& a, const Transform& b, float t) {
  Transform out;
  out.translation = a.translation + (b.translation - a.translation) * t;
  out.scale = a.scale + (b.scale - a.scale) * t;
  glm::quat qb = b.rotation;
  if (glm::dot(a.rotation, qb) < 0.0f) qb = -qb;  // shortest path
  out.rotation = glm::normalize(det::Slerp(a.rotation, qb, t));
  return out;
}

bool HasGravity(const Rig& rig) {
  for (size_t j = 0; j < rig.joint_gravity_power().size(); ++j)
    if (rig.joint_gravity_power()[j] != 0.0f && rig.joint_gravity_dir()[j] != glm::vec3(0.0f))
      return true;
  return false;
}

double SettleUnderGravity(SpringWorld& world, PoseSampler& sampler, std::span<Transform> pose,
                          double max_seconds) {
  if (!HasGravity(world.rig())) return 0.0;
  constexpr int kWindow = 60;  // steps: 0.5 s
  std::vector<glm::vec3> before(world.tails().begin(), world.tails().end());
  int steps = 0;
  while (steps * SpringWorld::kStep < max_seconds - 1e-9) {
    for (int i = 0; i < kWindow; ++i) {
      sampler.Sample(0.0, pose);
      world.Step(pose);
    }
    steps += kWindow;
    float moved = 0.0f;
    for (size_t j = 0; j < before.size(); ++j) {
      moved = std::max(moved, glm::distance(before[j], world.tails()[j]));
      before[j] = world.tails()[j];
    }
    if (!(moved >= 1e-6f)) break;  // NaN stops too: nothing to wait for
  }
  return steps * SpringWorld::kStep;
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
  if (std::isnan(dt) || std::isinf(dt)) {
    rep.flags |= kStepRefusedNonFinite;
    return rep;
  }
  if (!(dt > 0.0)) {
    rep.flags |= kStepZeroDt;
    return rep;
  }
  // A frame longer than a day counts as a day: the step count below stays far inside its integer
  // types (before, a dt of about 1.8e7 s overflowed them and no step ran again).
  if (dt > SpringWorld::kMaxFrameDt) {
    dt = SpringWorld::kMaxFrameDt;
    rep.flags |= kStepStepsDropped;
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
    rep.Merge(world_->StepDeferred(pose_));
  }
  if (rep.steps_run > 0) world_->WriteBack(pose_);  // joint rotations once, after the last step
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

namespace {

// One caller frame of dt seconds: the steps fall at t0, t0 + h, ... seconds after the previous
// frame, `carry` seconds having passed since the last step. step_at(a) runs one step at the
// blend a in [0, 1] between the previous frame and this one. Returns the merged report and
// updates `carry`.
template <class StepAt>
StepReport RunFrame(double dt, int max_steps, double* carry, StepAt step_at) {
  StepReport rep;
  if (std::isnan(dt) || std::isinf(dt)) {
    rep.flags |= kStepRefusedNonFinite;
    return rep;
  }
  if (!(dt > 0.0)) {
    rep.flags |= kStepZeroDt;
    return rep;
  }
  // A frame longer than a day counts as a day (SpringWorld::kMaxFrameDt): the step count fits an
  // int (a dt of about 1.8e7 s overflowed it, and the carried time then stopped every later step).
  if (dt > SpringWorld::kMaxFrameDt) {
    dt = SpringWorld::kMaxFrameDt;
    rep.flags |= kStepStepsDropped;
  }
  const double h = SpringWorld::kStep;
  double t = h - *carry;
  int todo = static_cast<int>(std::floor((dt - t) / h + 1e-6)) + 1;
  if (t > dt + 1e-9) todo = 0;
  if (todo > max_steps) {
    rep.steps_dropped = todo - max_steps;
    rep.flags |= kStepStepsDropped;
    t += (todo - max_steps) * h;
    todo = max_steps;
  }
  for (int i = 0; i < todo; ++i, t += h)
    rep.Merge(step_at(static_cast<float>(std::min(t / dt, 1.0))));
  const double last = t - h;  // time of the last step run, relative to the previous frame
  *carry = todo > 0 ? dt - last : *carry + dt;
  return rep;
}

// A world matrix as translation, per-axis scale and rotation (for interpolating it).
Transform Split(const glm::mat4& m) {
  Transform out;
  out.translation = glm::vec3(m[3]);
  out.scale = glm::vec3(glm::length(glm::vec3(m[0])), glm::length(glm::vec3(m[1])),
                        glm::length(glm::vec3(m[2])));
  out.rotation = internal::RotationOf(m);
  return out;
}

// Whether a driver's rotation and scale columns are the same bits in two matrices: then Split
// gives the same rotation and scale for both (it reads nothing else of them).
bool SameColumns(const glm::mat4& a, const glm::mat4& b) {
#if HAIRSWING_SIMD && defined(__SSE2__)
  __m128i same = _mm_set1_epi32(-1);
  for (int c = 0; c < 3; ++c)
    same = _mm_and_si128(same, _mm_cmpeq_epi32(_mm_castps_si128(_mm_loadu_ps(&a[c][0])),
                                               _mm_castps_si128(_mm_loadu_ps(&b[c][0]))));
  return _mm_movemask_epi8(same) == 0xffff;
#else
  uint32_t x[12], y[12];  // (std::bit_cast is not in Emscripten 3.1.6's library)
  std::memcpy(x, &a[0][0], sizeof x);
  std::memcpy(y, &b[0][0], sizeof y);
  for (int i = 0; i < 12; ++i)
    if (x[i] != y[i]) return false;
  return true;
#endif
}

// Whether Interpolate between two transforms with this rotation and scale gives rotation
// normalize(q) and scale s at every blend, so that ToMatrix's rotation and scale columns do not
// depend on it: s + (s - s) t is s for a finite s, and det::Slerp of q with itself returns its
// blend q + t (q - q) = q exactly where cos_theta = dot(q, q) takes its nearly-equal branch.
bool StillBlend(const Transform& t) {
  const glm::quat& q = t.rotation;
  return std::isfinite(t.scale.x) && std::isfinite(t.scale.y) && std::isfinite(t.scale.z) &&
         std::isfinite(q.x) && std::isfinite(q.y) && std::isfinite(q.z) && std::isfinite(q.w) &&
         glm::dot(q, q) > 1.0f - std::numeric_limits<float>::epsilon();
}

}  // namespace

StepReport FrameDriver::Advance(std::span<const Transform> pose, double dt) {
  HS_ASSERT(pose.size() == prev_.size());
  const StepReport rep = RunFrame(dt, world_->config().max_steps_per_call, &carry_, [&](float a) {
    for (size_t n = 0; n < out_.size(); ++n) out_[n] = Interpolate(prev_[n], pose[n], a);
    return world_->StepDeferred(out_);
  });
  if (rep.steps_run > 0) world_->WriteBack(out_);  // joint rotations once, after the last step
  if (!(rep.flags & (kStepRefusedNonFinite | kStepZeroDt))) prev_.assign(pose.begin(), pose.end());
  return rep;
}

DrivenFrameDriver::DrivenFrameDriver(SpringWorld& world)
    : world_(&world),
      prev_(world.driver_nodes().size(), glm::mat4(1.0f)),
      cur_(world.driver_nodes().size(), glm::mat4(1.0f)),
      split_prev_(world.driver_nodes().size()),
      split_cur_(world.driver_nodes().size()),
      still_(world.driver_nodes().size(), glm::mat4(1.0f)),
      split_state_(world.driver_nodes().size(), 0) {}

void DrivenFrameDriver::Reset(std::span<const glm::mat4> driver_world) {
  HS_ASSERT(driver_world.size() == prev_.size());
  prev_.assign(driver_world.begin(), driver_world.end());
  std::fill(split_state_.begin(), split_state_.end(), 0);
  carry_ = 0.0;
  world_->ResetDriven(driver_world);
}

StepReport DrivenFrameDriver::Advance(std::span<const glm::mat4> driver_world, double dt,
                                      std::span<glm::quat> rotations) noexcept {
  HS_ASSERT(driver_world.size() == prev_.size());
  for (uint8_t& s : split_state_) s &= 1 | 4;  // this frame's transforms are not split yet
  const StepReport rep = RunFrame(dt, world_->config().max_steps_per_call, &carry_, [&](float a) {
    // Each driver between the previous frame's transform and this one: translation and per-axis
    // scale lerped, rotation slerped; a still driver, and the frame's last instant, exactly.
    for (size_t n = 0; n < cur_.size(); ++n) {
      const glm::mat4 &from = prev_[n], &to = driver_world[n];
      if (a >= 1.0f || from == to) {
        cur_[n] = to;
        continue;
      }
      uint8_t& state = split_state_[n];
      if (!(state & 1)) split_prev_[n] = Split(from), state = 1;
      // A driver that only moved: Split(to) would give split_prev_'s rotation and scale, and
      // Interpolate keeps them at every blend (StillBlend), so ToMatrix's columns for them are
      // made once (still_, kept over the frames it stays so) and only the translation blends,
      // as Interpolate blends it. The same bits as the general branch below.
      if (!(state & 2) && SameColumns(from, to) && StillBlend(split_prev_[n])) {
        if (!(state & 4))
          still_[n] = ToMatrix(
              {glm::vec3(0.0f), glm::normalize(split_prev_[n].rotation), split_prev_[n].scale});
        state |= 4 | 8;
        const glm::vec3 t0 = split_prev_[n].translation;
        cur_[n] = still_[n];
        cur_[n][3] = glm::vec4(t0 + (glm::vec3(to[3]) - t0) * a, 1.0f);
        continue;
      }
      if (!(state & 2)) split_cur_[n] = Split(to), state |= 2;  // (never with 8: same test)
      cur_[n] = ToMatrix(Interpolate(split_prev_[n], split_cur_[n], a));
    }
    return world_->StepDrivenDeferred(cur_, rotations);
  });
  if (rep.steps_run > 0) world_->WriteBackDriven(rotations);
  if (!(rep.flags & (kStepRefusedNonFinite | kStepZeroDt))) {
    prev_.assign(driver_world.begin(), driver_world.end());
    // This frame's split transforms are the next frame's old ones (a driver that only moved
    // keeps its rotation, scale and still_ columns).
    for (size_t n = 0; n < split_state_.size(); ++n) {
      uint8_t& state = split_state_[n];
      if (state & 2) {
        std::swap(split_prev_[n], split_cur_[n]);
        state = 1;
      } else if (state & 8) {
        split_prev_[n].translation = glm::vec3(driver_world[n][3]);
        state = 1 | 4;
      } else {
        state = 0;
      }
    }
  }
  return rep;
}

}  // namespace hairswing
