// hairswing tune --auto: per chain, the liveliest stiffness (and, when that is not enough, a root
// cone) whose excess stretch over the head-turn and the motion suite stays within a budget.
#pragma once

#include <string>
#include <vector>

#include "hairswing/avatar.h"
#include "hairswing/spring.h"
#include "hairswing/status.h"

namespace hairswing::cli {

struct AutoTuneOptions {
  double max_stretch_pct = 10;  ///< budget: p99 excess stretch per chain, worst motion, %
  float max_flip_deg = 0;       ///< > 0: cone limits from this flip budget first (tune --max-flip)
  SolverMode mode = SolverMode::kArc;
  /// arc: the named setting the hair will run with (ApplyArcSetting: "article", "lively",
  /// "follow"); the chains are tuned for it.
  std::string arc_setting = "article";
  std::string suite_file;      ///< clip library; "" = the default (head-turn only if absent)
  double suite_seconds = 6.0;  ///< length of each clip's run
  bool progress = false;       ///< a line per round on stderr
  // The search range of the stiffness factor (x the author's stiffness, every joint alike) and of
  // the root cone (degrees). Livelier than half the author's stiffness is not tried: the budget
  // decides how calm the hair must be, not how floppy it may get.
  float min_factor = 0.5f, max_factor = 4.0f;
  float min_cone_deg = 5.0f, max_cone_deg = 60.0f;
};

/// One setting tried for a spring, with what it measured.
struct AutoTrial {
  float factor = 1.0f;
  float root_cone_deg = 0;
  double excess_pct = 0;  ///< max over motions
  std::string worst_motion;
  double swing_mm = 0;
};

/// What was chosen for one spring, with the figures before and after (max over motions of the
/// chain's p99 excess stretch, the chain's largest flip, its swing rms averaged over motions).
struct AutoChoice {
  int spring = -1;
  std::string name;
  float factor = 1.0f;      ///< stiffness x this
  float root_cone_deg = 0;  ///< 0 = no root cone added
  double excess_before_pct = 0, excess_after_pct = 0;
  std::string worst_motion_before, worst_motion_after;
  double swing_before_mm = 0, swing_after_mm = 0;
  double flip_before_deg = 0, flip_after_deg = 0;
  bool measured = true;  ///< false: the chain moves no measured mesh (no stretch to budget)
  bool met = false;      ///< within the budget after tuning (from the final run)
  std::string why;       ///< one sentence: what was tried and why this was kept
  std::vector<AutoTrial> trials;  ///< every distinct setting measured, in the order tried
};

struct AutoTuneResult {
  std::vector<AutoChoice> choices;
  std::vector<std::string> motions;  ///< the motions measured
  std::string note;                  ///< why the motion suite was left out, or ""
  int rounds = 0;                    ///< measurement rounds run (each: every motion once)
  double seconds = 0;
};

/// Tunes `springs` of `avatar` in place (through TuneSprings, so `tune --undo` restores them).
Result<AutoTuneResult> AutoTune(Avatar& avatar, const std::vector<int>& springs,
                                const AutoTuneOptions& options);

}  // namespace hairswing::cli
