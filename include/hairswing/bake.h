// Baking hair motion into animation clips: the solver runs under a body clip, and the
// spring joints' rotations become rotation tracks next to the body's, so a platform without a
// solver plays the hair as it swung here.
//
// Cyclic clips (loops): the loop runs until the hair repeats itself (every tail within
// periodic_tolerance_m of where it was one loop earlier, velocities likewise), then one more
// loop is recorded. What is left of the mismatch at the seam is spread over the loop as a
// rotation correction that grows linearly from nothing at the start to the whole mismatch at the
// end, so the written tracks close exactly. The body clip's own seam, if it does not close, is
// closed the same way first (close_body_loop). The loop is run as N = round(T * 120) fixed steps,
// i.e. the clip plays at T / (N / 120) of its speed while the hair is simulated (at most half a
// step, 1/240 s, per loop).
// One-shot clips: from rest through the clip, then settle_seconds with the body holding its last
// pose. Either way hair with gravity first settles with the body held at the clip's first pose
// (SettleUnderGravity), so the clip does not begin with the hair falling into place.
// Keyframe reduction: per joint, keys that slerp between their kept neighbours reproduces within
// max_error_deg are dropped; and per chain the bound is halved until every joint's world position
// stays within max_error_m of the unreduced tracks (angle errors add up along a chain).
#pragma once

#include <span>
#include <string>
#include <vector>

#include "hairswing/anim.h"
#include "hairswing/rig.h"
#include "hairswing/spring.h"
#include "hairswing/status.h"

namespace hairswing {

struct BakeOptions {
  /// The solver: its mode (arc by default), arc's setting (SpringConfig::arc_liveliness ...,
  /// ApplyArcSetting) and the stiffness scale, as a SpringWorld is created with.
  SpringConfig spring;
  bool cyclic = true;
  double rate = 30.0;           ///< hair keys per second (before reduction), 1..240
  float max_error_deg = 0.1f;   ///< keyframe reduction: rotation error per key; 0 = keep every key
  float max_error_m = 3e-4f;    ///< keyframe reduction: joint position error (0.3 mm)
  double settle_seconds = 0.0;  ///< one-shot: time after the clip, body holding its last pose
  int max_cycles = 40;          ///< cyclic: loops run before giving up on a periodic state
  float periodic_tolerance_m = 5e-5f;  ///< cyclic: tails this close to the previous loop's
  /// cyclic: close the body clip's own seam first (its end-to-start mismatch spread linearly
  /// over the loop, see body_seam_mm), so neither the body nor the hair jumps when it loops.
  bool close_body_loop = true;
};

struct BakeReport {
  std::string clip;
  bool cyclic = true;
  /// Seconds the hair hung with the body held at the clip's first pose before the clip started
  /// (SettleUnderGravity: hair with gravity hangs lower than the rest pose; 0 without gravity).
  double settle_before_s = 0.0;
  /// Cyclic: loops run before the hair repeated itself; -1 when it did not within max_cycles
  /// (the last loop is baked anyway and the seam figures say how far off it is).
  int cycles_to_periodic = 0;
  /// Cyclic: the simulation's own mismatch at the seam, the largest joint distance between the
  /// loop's start and where the hair was one loop later (mm, in the chain attachment's frame),
  /// before the correction.
  double seam_position_mm = 0.0;
  /// Cyclic: the body clip's own mismatch at the seam, the largest node distance between its last
  /// and first pose (mm, world), before close_body_loop closed it.
  double body_seam_mm = 0.0;
  /// Cyclic, on the written tracks: the largest change of a joint's frame-to-frame step across
  /// the seam in its chain attachment's frame (the hair's own velocity jump), over the median
  /// world frame-to-frame step of all joints (how far they visibly move per frame) ...
  /// (0 when nothing moves: median step below 0.01 mm)
  double seam_velocity_ratio = 0.0;
  /// ... and the same figure at the worst frame inside the clip, for comparison.
  double interior_velocity_ratio = 0.0;
  double median_step_mm = 0.0;  ///< median joint movement per frame (mm, world)
  int frames = 0;               ///< recorded hair frames (cyclic: one loop, plus the closing key)
  size_t keys_before = 0;       ///< hair rotation keys before reduction (all joints)
  size_t keys_after = 0;
  double reduction_error_deg = 0.0;  ///< largest rotation error of the reduction, measured
  double reduction_error_mm = 0.0;   ///< largest joint position error of the reduction, measured
  /// How unevenly the hair turns from key to key: over every hair key between two others, the
  /// angle between the key and the slerp of its two neighbours (the error if that key alone were
  /// dropped), median, degrees. Above max_error_deg few keys can go: on a jog the hair's swing
  /// turns around every few frames (fitted Quaternius casual, Jog_Fwd_Loop: 1.6 deg; Idle: 0).
  double key_drop_median_deg = 0.0;
  double seconds = 0.0;  ///< wall time of the bake
};

struct BakedClip {
  /// The body clip's tracks plus one linear rotation track per swinging spring joint.
  Clip clip;
  BakeReport report;
  /// The solver's own run, for playback checks: at each recorded frame time, the world position
  /// of every spring joint (rig.joint_node() order), from the unreduced, uncorrected rotations.
  std::vector<double> reference_times;
  std::vector<glm::vec3> reference_positions;  ///< frames x joints
};

/// Bakes `body` (a clip on `rig`, e.g. from Retargeter) with node constraints applied. Fails on
/// options out of range or, for a cyclic bake, a clip without duration.
Result<BakedClip> BakeClip(const Rig& rig, const Clip& body,
                           std::span<const RigConstraint> constraints, const BakeOptions& options);

}  // namespace hairswing
