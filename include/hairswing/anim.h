// Animation clips on a Rig and VRMC_node_constraint evaluation.
//
// A Clip holds per-node translation/rotation/scale tracks with step, linear or cubic-spline
// keys. ClipSampler turns a clip into a PoseSampler for the solver drivers: rest pose, then the
// clip, then node constraints, all at the same instant (body animation -> constraints -> hair).
#pragma once

#include <span>
#include <string>
#include <vector>

#include "hairswing/avatar.h"
#include "hairswing/pose_sampler.h"
#include "hairswing/rig.h"
#include "hairswing/spring.h"
#include "hairswing/status.h"

namespace hairswing {

struct Track {
  int node = -1;  ///< rig node
  AnimationChannel::Path path = AnimationChannel::Path::kRotation;
  AnimationChannel::Interp interpolation = AnimationChannel::Interp::kLinear;
  std::vector<float> times;  ///< seconds, non-decreasing
  std::vector<float>
      values;  ///< x,y,z (T/S) or x,y,z,w (R); cubic: in-tangent, value, out-tangent per key
};

class Clip {
 public:
  /// Converts Avatar::animations[index] (node targets mapped to rig nodes; morph weights dropped).
  static Result<Clip> FromAvatar(const Avatar& avatar, const Rig& rig, int index);

  std::string name;
  double duration = 0.0;  ///< seconds (the last key time)
  std::vector<Track> tracks;

  /// Overwrites the animated channels of `pose` with the clip's values at time t (clamped to
  /// [0, duration]). Other channels are left as they are.
  void Apply(double t, std::span<Transform> pose) const;
  /// Per rig node: 1 when some track animates it (for the solver's animation ownership).
  std::vector<uint8_t> AnimatedNodes(size_t node_count) const;
};

/// The inverse of Clip::FromAvatar: the clip's tracks as an Avatar animation on the rig's source
/// nodes (tracks on synthetic nodes are dropped), for writing files.
Animation ClipToAnimation(const Clip& clip, const Rig& rig);

/// Samples one track at time t into `out` (3 or 4 floats). Linear rotations use shortest-path
/// slerp; cubic splines use glTF's Hermite form and are normalised for rotations.
void SampleTrack(const Track& track, double t, float* out);

/// A VRMC_node_constraint on rig nodes, with its rest rotations captured at build time.
struct RigConstraint {
  NodeConstraint::Kind kind = NodeConstraint::Kind::kRotation;
  int node = -1;    ///< destination rig node
  int source = -1;  ///< source rig node
  float weight = 1.0f;
  glm::vec3 axis{1, 0, 0};  ///< aim axis or roll axis, in the destination's local frame
  glm::quat dst_rest{1, 0, 0, 0};
  glm::quat src_rest{1, 0, 0, 0};
};

/// Constraints in evaluation order (every source before the destinations that read it). Fails
/// on a dependency cycle, naming a node on it.
/// The most constraints BuildConstraints accepts (real avatars have tens).
constexpr size_t kMaxConstraints = 65536;
Result<std::vector<RigConstraint>> BuildConstraints(const Avatar& avatar, const Rig& rig);

/// Applies the constraints to `pose` (local transforms), in order; `world` is scratch of
/// rig.node_count() matrices (aim constraints need world positions). Allocation-free.
void ApplyConstraints(const Rig& rig, std::span<const RigConstraint> constraints,
                      std::span<Transform> pose, std::span<glm::mat4> world);

/// Rest pose -> clip at time t (looping or clamped) -> node constraints.
class ClipSampler : public PoseSampler {
 public:
  enum class Playback { kLoop, kOnce };
  /// Keeps pointers to `rig` and `clip`: both must outlive the sampler (temporaries do not
  /// compile).
  ClipSampler(const Rig& rig, const Clip& clip, std::vector<RigConstraint> constraints,
              Playback playback);
  ClipSampler(const Rig&& rig, const Clip& clip, std::vector<RigConstraint>, Playback) = delete;
  ClipSampler(const Rig& rig, const Clip&& clip, std::vector<RigConstraint>, Playback) = delete;
  void Sample(double t, std::span<Transform> pose) override;
  /// Restart the action: time `t` of the caller's clock becomes the clip's time 0.
  void Restart(double t) { start_ = t; }

 private:
  const Rig* rig_;
  const Clip* clip_;
  std::vector<RigConstraint> constraints_;
  Playback playback_;
  double start_ = 0.0;
  std::vector<glm::mat4> world_;
};

/// The standard head-turn test motion for any humanoid rig: 12 s; for t in [0,4]
/// w(t) = sin^2(pi t / 4), 0 after; head yaw 50 deg * w * sin(2 pi t / 2.0) about the model's up
/// axis (+Y) and pitch 15 deg * w * sin(2 pi t / 1.3) about its right axis (-X), applied as
/// q = R_up(yaw) R_right(pitch) q_rest in the model frame; hips moved 0.03 m * w * sin(2 pi t / 2)
/// along the right axis. Everything else stays at rest.
class HeadTurnMotion : public PoseSampler {
 public:
  static constexpr double kDuration = 12.0;  ///< seconds
  static constexpr double kMoveEnd = 4.0;    ///< seconds of motion before the still part

  /// `head` and `hips` are rig nodes (hips may be -1 for a rig without one); `right` is the
  /// avatar's right in world space, horizontal and unit (AvatarRight): the head nods about it
  /// and the hips sway along it, so an avatar that faces -Z or +X makes the same motion as one
  /// that faces +Z. The default is the right of an avatar facing +Z (VRM 1.0).
  HeadTurnMotion(const Rig& rig, int head, int hips, glm::vec3 right = glm::vec3(-1, 0, 0));
  HeadTurnMotion(const Rig&& rig, int head, int hips,
                 glm::vec3 right = glm::vec3(-1, 0, 0)) = delete;  ///< the rig must outlive it
  void Sample(double t, std::span<Transform> pose) override;

  /// Head yaw and pitch in radians and hips offset in metres at time t (for tests and reports).
  static void Angles(double t, double* yaw, double* pitch, double* sway);

 private:
  const Rig* rig_;
  int head_, hips_;
  glm::vec3 right_;
  glm::quat head_parent_rest_inv_;  // world rotation of the head's parent at rest, inverted
  glm::quat head_world_rest_;
  glm::mat3 hips_parent_inv_;  // world -> hips-parent-local for translations
};

/// The avatar's right at rest, in world space (horizontal, unit): from the rest positions of its
/// humanoid's upper legs (else upper arms, else shoulders), right minus left. A glTF avatar may
/// face any way (+Z is VRM 1.0's convention, many exporters write -Z). Within 0.5 degrees of
/// +-X or +-Z it is that axis exactly, so an avatar built along the axes gets exact axes (the
/// head-turn's bits do not hang on the last digit of a leg position). (-1, 0, 0), the right of
/// an avatar facing +Z, when the humanoid does not tell.
glm::vec3 AvatarRight(const Avatar& avatar, const Rig& rig);

/// The determinism fingerprint (`hairswing hash`): SpringWorld::StateHash after the 12 s
/// head-turn, clip-driven (ClipDriver) at `fps` caller frames per second, default config in
/// `mode`. The same for every fps in [10, 1000] (fixed 1/120 s steps), the same on every build of
/// the same code (-ffp-contract=off); tests/determinism_test.cpp pins the values. Fails on an
/// avatar without a humanoid head or without springs.
Result<uint64_t> HeadTurnHash(const Avatar& avatar, SolverMode mode, int fps);
/// The same with a whole config (e.g. SpringConfig::flat_path = false for the general path).
Result<uint64_t> HeadTurnHash(const Avatar& avatar, const SpringConfig& config, int fps);

}  // namespace hairswing
