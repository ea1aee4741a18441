// Driving the solver through time: body poses come from a sampler (clip-driven) or from the
// caller's successive frames (frame-driven). Either way the caller's frame time only decides how
// many fixed 1/120 s steps run; each step sees the pose at its own time.
#pragma once

#include <span>
#include <vector>

#include "hairswing/rig.h"
#include "hairswing/spring.h"

namespace hairswing {

/// Anything that can produce the body pose (rig local transforms) at time t seconds: an
/// animation clip, node constraints on top of it, the procedural head-turn test motion.
class PoseSampler {
 public:
  virtual ~PoseSampler() = default;
  /// Writes rig.node_count() local transforms for time `t`. Must not allocate.
  virtual void Sample(double t, std::span<Transform> pose) = 0;
};

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
  long long steps_ = 0;       // steps accounted for (run or dropped)
  double requested_ = 0.0;    // total time asked for, seconds
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

/// Blends two transforms: lerp translation and scale, shortest-path slerp rotation.
Transform Interpolate(const Transform& a, const Transform& b, float t);

/// The standard head-turn test motion of SPEC M7 for any humanoid rig: 12 s; for t in [0,4]
/// w(t) = sin^2(pi t / 4), 0 after; head yaw 50 deg * w * sin(2 pi t / 2.0) about the model's up
/// axis (+Y) and pitch 15 deg * w * sin(2 pi t / 1.3) about its right axis (-X), applied as
/// q = R_up(yaw) R_right(pitch) q_rest in the model frame; hips moved 0.03 m * w * sin(2 pi t / 2)
/// along the right axis. Everything else stays at rest.
class HeadTurnMotion : public PoseSampler {
 public:
  static constexpr double kDuration = 12.0;  ///< seconds
  static constexpr double kMoveEnd = 4.0;    ///< seconds of motion before the still part

  /// `head` and `hips` are rig nodes (hips may be -1 for a rig without one).
  HeadTurnMotion(const Rig& rig, int head, int hips);
  void Sample(double t, std::span<Transform> pose) override;

  /// Head yaw and pitch in radians and hips offset in metres at time t (for tests and reports).
  static void Angles(double t, double* yaw, double* pitch, double* sway);

 private:
  const Rig* rig_;
  int head_, hips_;
  glm::quat head_parent_rest_inv_;  // world rotation of the head's parent at rest, inverted
  glm::quat head_world_rest_;
  glm::mat3 hips_parent_inv_;       // world -> hips-parent-local for translations
};

/// The rig node of a VRM humanoid bone ("head", "hips"), or -1.
int HumanoidRigNode(const Avatar& avatar, const Rig& rig, const char* bone);

}  // namespace hairswing
