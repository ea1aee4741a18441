// Driving the solver through time: body poses come from a sampler (clip-driven) or from the
// caller's successive frames (frame-driven). Either way the caller's frame time only decides how
// many fixed 1/120 s steps run; each step sees the pose at its own time.
#pragma once

#include <span>
#include <vector>

#include "hairswing/pose_sampler.h"
#include "hairswing/rig.h"
#include "hairswing/spring.h"

namespace hairswing {

/// Whether any spring joint of the rig has gravity (gravityPower and a direction).
bool HasGravity(const Rig& rig);

/// Hair with gravity hangs lower than the file's rest pose. Holds the body at `sampler`'s pose at
/// time 0 and steps `world` (fixed 1/120 s steps) until no tail moves more than 0.001 mm in
/// 0.5 s, checked every 0.5 s, for at most `max_seconds`; returns the seconds held. Without
/// gravity nothing runs (the rest pose is where the hair hangs) and it returns 0. `pose` is
/// scratch of rig.node_count() transforms. Used after a Reset, before a motion starts
/// (measure, bake), so the motion does not begin with the hair falling into place.
double SettleUnderGravity(SpringWorld& world, PoseSampler& sampler, std::span<Transform> pose,
                          double max_seconds = 20.0);

/// Clip-driven stepping: at each fixed step n the sampler is asked for time n*h, then the hair
/// is solved on that pose. Results at common times are bitwise identical whatever the caller's
/// frame rate, because step times are integers times h and nothing depends on the frame size.
class ClipDriver {
 public:
  ClipDriver(SpringWorld& world, PoseSampler& sampler);
  /// Sample t = 0 and put the hair on its rest arc there.
  void Reset();
  /// Advances the clock by dt seconds and runs the steps it covers (at most
  /// config.max_steps_per_call; the rest is dropped and reported, the clock still advances).
  StepReport Advance(double dt);
  /// Pose after the last step (spring joints solved), and the clock.
  std::span<const Transform> pose() const { return pose_; }
  double time() const { return static_cast<double>(steps_) * SpringWorld::kStep; }

 private:
  SpringWorld* world_;
  PoseSampler* sampler_;
  std::vector<Transform> pose_;
  long long steps_ = 0;     // steps accounted for (run or dropped)
  double requested_ = 0.0;  // total time asked for, seconds
};

/// Frame-driven stepping: the caller only knows whole frame poses. Between the previous frame and
/// this one, every node's transform is interpolated (lerp translation and scale, slerp rotation)
/// at each step's time, so attachments and colliders move smoothly under the fixed steps.
class FrameDriver {
 public:
  explicit FrameDriver(SpringWorld& world);
  /// Starts from `pose` at rest.
  void Reset(std::span<const Transform> pose);
  /// The new frame `pose` is `dt` seconds after the previous one.
  StepReport Advance(std::span<const Transform> pose, double dt);
  std::span<const Transform> pose() const { return out_; }

 private:
  SpringWorld* world_;
  std::vector<Transform> prev_, out_;
  double carry_ = 0.0;  // time since the last step, seconds
};

/// Frame-driven stepping through the engine-facing input (SpringWorld::StepDriven): the caller
/// hands over only the world transforms of SpringWorld::driver_nodes() each frame and gets the
/// spring joints' local rotations back. Between frames each driver transform is interpolated
/// (translation and per-axis scale lerped, rotation slerped) at each step's time.
class DrivenFrameDriver {
 public:
  explicit DrivenFrameDriver(SpringWorld& world);
  /// Starts at rest under these driver transforms (one per driver node).
  void Reset(std::span<const glm::mat4> driver_world);
  /// The new frame, `dt` seconds after the previous one. `rotations` (one per flat joint index)
  /// receives the spring joints' local rotations after the last step run; a call that runs no
  /// step leaves it as it was. Allocates nothing and never throws (as SpringWorld::Step).
  StepReport Advance(std::span<const glm::mat4> driver_world, double dt,
                     std::span<glm::quat> rotations) noexcept;

 private:
  SpringWorld* world_;
  std::vector<glm::mat4> prev_, cur_;
  // Each moving driver transform is split into translation, rotation and scale once per frame
  // and reused by the frame's steps and, as the old transform, by the next frame.
  std::vector<Transform> split_prev_, split_cur_;
  // A driver that only moves (its rotation and scale columns unchanged, e.g. everything but the
  // head while the hips sway): its interpolated rotation and scale columns, the same at every
  // step (Advance).
  std::vector<glm::mat4> still_;
  // Per driver: 1 = split_prev_ holds prev_'s, 2 = split_cur_ this frame's, 4 = still_ holds the
  // columns of split_prev_'s rotation and scale, 8 = this frame only moves it.
  std::vector<uint8_t> split_state_;
  double carry_ = 0.0;
};

/// Blends two transforms: lerp translation and scale, shortest-path slerp rotation.
Transform Interpolate(const Transform& a, const Transform& b, float t);

}  // namespace hairswing
