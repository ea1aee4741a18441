// fit's root ramp chosen by measurement (root_ramp.h). A wider ramp lets the head carry more of
// the hair: the root bend is spread (less stretch in every runtime) but less of the hair moves.
// Each candidate is fitted on a copy of the avatar and measured in vrm mode (what any runtime
// does) and in arc's `follow` setting (hairswing's lively swing from the root, the user's whole
// path), the head-turn at 60 fps.
#include "root_ramp.h"

#include <cmath>
#include <cstdio>
#include <vector>

#include "hairswing/measure.h"
#include "hairswing/spring.h"

namespace hairswing::cli {

Result<RootRampChoice> ChooseRootRamp(const Avatar& av, const HairSelection& sel,
                                      const FitOptions& fit,
                                      const std::function<void(const std::string&)>& progress) {
  struct Candidate {
    float ramp;
    double mesh_swing_mm, excess_p99_pct, follow_mesh_swing_mm;
  };
  SpringConfig follow;
  ApplyArcSetting("follow", &follow);
  std::vector<Candidate> tried;
  char line[300];
  for (const float ramp : {1.0f, 1.25f, 1.5f, 1.75f, 2.0f}) {
    Avatar a = av;
    FitOptions opt = fit;
    opt.root_ramp_segments = ramp;
    auto fitted = FitHairChains(a, sel, opt);
    if (!fitted.ok()) return fitted.status();
    MeasureOptions mo;
    mo.solvers = {SolverMode::kVrm, SolverMode::kArc};
    mo.fps = {60};
    mo.arc_liveliness = follow.arc_liveliness;
    mo.arc_stiffness = follow.arc_stiffness;
    mo.arc_follow = follow.arc_follow;
    auto m = Measure(a, mo);
    if (!m.ok()) return m.status();
    const RunResult *vrm = nullptr, *arc = nullptr;
    for (const RunResult& r : m->results) (r.solver == SolverMode::kVrm ? vrm : arc) = &r;
    if (!vrm || !arc || !std::isfinite(vrm->swing_mesh_rms_mm) ||
        !std::isfinite(vrm->stretch_p99_excess_pct) || !std::isfinite(arc->swing_mesh_rms_mm))
      return Status(StatusCode::kInvalidInput, "the hair's motion could not be measured");
    tried.push_back(
        {ramp, vrm->swing_mesh_rms_mm, vrm->stretch_p99_excess_pct, arc->swing_mesh_rms_mm});
    if (progress) {
      std::snprintf(line, sizeof line,
                    "root ramp %.2f: mesh swing %.2f mm (arc's follow setting %.2f), excess "
                    "stretch p99 %.2f %% (vrm mode, head-turn at 60 fps)",
                    ramp, vrm->swing_mesh_rms_mm, arc->swing_mesh_rms_mm,
                    vrm->stretch_p99_excess_pct);
      progress(line);
    }
  }
  const double floor_mm = 0.8 * tried[0].mesh_swing_mm;
  const Candidate* best = &tried[0];
  for (const Candidate& c : tried)
    if (c.mesh_swing_mm >= floor_mm && c.follow_mesh_swing_mm >= floor_mm &&
        c.excess_p99_pct < best->excess_p99_pct)
      best = &c;
  RootRampChoice out;
  out.ramp = best->ramp;
  nlohmann::ordered_json list = nlohmann::json::array();
  for (const Candidate& c : tried)
    list.push_back({{"root_ramp", c.ramp},
                    {"mesh_swing_mm", c.mesh_swing_mm},
                    {"follow_mesh_swing_mm", c.follow_mesh_swing_mm},
                    {"excess_p99_pct", c.excess_p99_pct}});
  out.report = {{"tried", list}, {"chosen", best->ramp}};
  std::snprintf(line, sizeof line,
                "root ramp %.2f chosen: excess stretch p99 %.2f %% against %.2f %% with 1, the "
                "mesh swinging %.2f (arc's follow setting %.2f) of its %.2f mm (at least 0.8 "
                "kept)",
                best->ramp, best->excess_p99_pct, tried[0].excess_p99_pct,
                best->mesh_swing_mm / tried[0].mesh_swing_mm,
                best->follow_mesh_swing_mm / tried[0].mesh_swing_mm, tried[0].mesh_swing_mm);
  out.summary = line;
  return out;
}

}  // namespace hairswing::cli
