// hairswing measure AVATAR: the head-turn measurement per solver x fps, as a table, JSON and an
// HTML report.
#include "hairswing/measure.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "commands.h"
#include "hairswing/anim.h"
#include "hairswing/files.h"
#include "hairswing/fit.h"
#include "hairswing/io.h"
#include "hairswing/retarget.h"
#include "report.h"

namespace hairswing::cli {

namespace {

std::vector<std::string> Split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

// The clothing layer: --shirt (mesh name or index), else a mesh whose name contains "shirt".
int FindShirt(const Avatar& av, const std::string& arg, std::string* err) {
  if (!arg.empty()) {
    for (size_t m = 0; m < av.meshes.size(); ++m)
      if (av.meshes[m].name == arg || std::to_string(m) == arg) return static_cast<int>(m);
    *err = "no mesh named \"" + arg + "\"";
    return -1;
  }
  for (size_t m = 0; m < av.meshes.size(); ++m) {
    std::string n = av.meshes[m].name;
    std::transform(n.begin(), n.end(), n.begin(), ::tolower);
    if (n.find("shirt") != std::string::npos) return static_cast<int>(m);
  }
  return -1;
}

std::string Opt(const std::optional<int>& v) { return v ? std::to_string(*v) : "-"; }
std::string Opt(const std::optional<double>& v) {
  if (!v) return "-";
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", *v);
  return b;
}

}  // namespace

void PrintMeasureTable(const MeasureReport& rep) {
  std::printf(
      "%s (%s): %d chains, %d hair vertices, %d hair edges (%d welded), %d front-strand vertices\n",
      rep.avatar.c_str(), rep.motion.c_str(), rep.chains, rep.hair_vertices, rep.hair_edges,
      rep.hair_edges_welded, rep.front_strand_vertices);
  if (rep.bind_pose_edges_differ > 0)
    std::printf(
        "note: the skin's bind pose differs from the rest pose (%d welded hair edges differ by "
        "more than 1 %%); stretch is measured against the skinned rest pose\n",
        rep.bind_pose_edges_differ);
  if (rep.penetration_rest_pairs > 0)
    std::printf(
        "note: %d (hair link, collider) pairs overlap already at rest (a collider holding the "
        "hair); \"pen.\" counts only pairs clear of each other at rest\n",
        rep.penetration_rest_pairs);
  double hung = 0.0;
  for (const RunResult& r : rep.results) hung = std::max(hung, r.settle_before_s);
  if (hung > 0.0)
    std::printf(
        "note: the springs have gravity: each run first holds the body still until the hair hangs "
        "still (up to %.1f s), then plays the motion; curl and flip count from the shape it hangs "
        "in\n",
        hung);
  std::printf("%-7s %4s %8s %8s %8s %8s %8s %8s %8s %8s %7s %6s %8s %8s %12s %8s %5s %7s %7s\n",
              "solver", "fps", "swing mm", "swng max", "mesh mm", "p99 %", "welded %", "worst %",
              "exc p99", "exc wrst", "curl", "flip", "root mm", "settle", "hidden(>1mm)",
              "depth mm", "pen.", "p50 ms", "p95 ms");
  // Stretch of hair that no skinned vertex follows cannot be measured: "n/a", not 0.00.
  auto pct = [&](double v) {
    if (!rep.skinned_hair) return std::string("n/a");
    char b[32];
    std::snprintf(b, sizeof b, "%.2f", v);
    return std::string(b);
  };
  if (!rep.skinned_hair)
    std::printf(
        "no skinned hair: no vertex is skinned to a spring joint (hair rigidly parented, or "
        "skinned to other "
        "bones), so stretch is n/a; swing and shape are the joints' own\n");
  for (const RunResult& r : rep.results)
    std::printf(
        "%-7s %4d %8.2f %8.2f %8.2f %8s %8s %8s %8s %8s %7.2f %6.1f %8.1e %8.1e %12s %8s %5d "
        "%7.3f %7.3f\n",
        SolverModeName(r.solver), r.fps, r.swing_rms_mm, r.swing_max_mm, r.swing_mesh_rms_mm,
        pct(r.stretch_p99_pct).c_str(), pct(r.stretch_p99_welded_pct).c_str(),
        pct(r.stretch_worst_pct).c_str(), pct(r.stretch_p99_excess_pct).c_str(),
        pct(r.stretch_worst_excess_pct).c_str(), r.shape_error_deg, r.flip_deg, r.root_drift_mm,
        r.settle_mm, Opt(r.occlusion_hidden).c_str(), Opt(r.occlusion_max_depth_mm).c_str(),
        r.penetration_samples, r.update_p50_ms, r.update_p95_ms);
  std::printf(
      "(swing = the chains' tips, in their attachment frames; mesh = the same for every hair "
      "vertex against hair held rigid, which skin weights change; welded = stretch on welded "
      "positions; exc = excess stretch, what the hair solver adds over hair held rigid; curl = "
      "shape error in deg; flip = largest chord angle in deg)\n");
  std::printf("frame-rate identity (30/60/120 fps, hashes at common times): %s\n",
              rep.fps_identical ? "identical" : "DIFFERENT");
  int shared = 0;
  for (const RunResult& r : rep.results) shared += r.mesh_from_fps ? 1 : 0;
  if (shared > 0)
    std::printf(
        "(%d of %zu runs reached their solver's state at every sample and share its skinned "
        "mesh figures; each keeps its own update time)\n",
        shared, rep.results.size());
  bool any_matched = false;
  for (const RunResult& r : rep.results) any_matched |= r.matched.has_value();
  if (any_matched) {
    std::printf(
        "at equal swing (stiffness scaled until the tip lag rms equals arc's; stretch on welded "
        "positions):\n");
    std::printf("%-7s %4s %11s %10s %10s %10s %10s\n", "solver", "fps", "stiffness x", "target mm",
                "swing mm", "welded %", "shape deg");
    for (const RunResult& r : rep.results) {
      if (r.solver == SolverMode::kArc) {
        std::printf("%-7s %4d %11.3f %10.2f %10.2f %10s %10.2f\n", "arc", r.fps, 1.0,
                    r.swing_rms_mm, r.swing_rms_mm, pct(r.stretch_p99_welded_pct).c_str(),
                    r.shape_error_deg);
        continue;
      }
      if (!r.matched) continue;
      const auto& m = *r.matched;
      std::printf("%-7s %4d %11.3f %10.2f %10.2f %10s %10.2f%s\n", SolverModeName(r.solver), r.fps,
                  m.stiffness_scale, m.target_swing_rms_mm, m.swing_rms_mm,
                  pct(m.stretch_p99_pct).c_str(), m.shape_error_deg,
                  m.reached ? "" : "  (target not reached)");
    }
  }
  bool any_after = false;
  for (const RunResult& r : rep.results) any_after |= r.after_fit_stretch_p99_pct.has_value();
  if (any_after) {
    std::printf("after collider fitting:\n%-7s %4s %12s %10s %10s\n", "solver", "fps",
                "hidden(>1mm)", "depth mm", "p99 str %");
    for (const RunResult& r : rep.results)
      std::printf("%-7s %4d %12s %10s %10s\n", SolverModeName(r.solver), r.fps,
                  Opt(r.after_fit_occlusion_hidden).c_str(),
                  Opt(r.after_fit_occlusion_max_depth_mm).c_str(),
                  pct(*r.after_fit_stretch_p99_pct).c_str());
  }
}

int RunMeasure(const std::string& file, const std::string& solvers, const std::string& fps,
               const std::string& shirt, const std::string& json_path,
               const std::string& report_path, bool quiet, MeasureReport* out,
               const std::string& motion, const std::string& clip_name, double seconds,
               bool fit_colliders, const MeasureFlags& flags, SuiteResults* suite_out) {
  // Outputs are checked before the (long) run, not found unwritable after it.
  if (!OutputsWritable({json_path, report_path}, flags.force)) return kExitBadInput;
  auto loaded = LoadOrReport(file);
  if (!loaded) return kExitBadInput;
  MeasureOptions opt;
  opt.duration = seconds;
  opt.match_swing = flags.match_swing;
  opt.tuned = !flags.plain;
  opt.arc_liveliness = flags.arc_liveliness;
  opt.arc_stiffness = flags.arc_stiffness;
  opt.arc_follow = flags.arc_follow;
  opt.arc_max_lag_deg = flags.arc_max_lag_deg;
  opt.stiffness_scale = flags.stiffness_scale;
  // A clip file as the motion: retarget the named clip (once) and loop it, with constraints.
  if (motion != "head-turn") {
    auto src = LoadAvatar(motion);
    if (!src.ok()) {
      std::fprintf(stderr, "error: --motion: %s\n", src.status().message().c_str());
      return kExitBadInput;
    }
    if (const std::string err = SetClipMotion(src->avatar, loaded->avatar, clip_name, &opt);
        !err.empty()) {
      std::fprintf(stderr, "error: --motion %s: %s\n", motion.c_str(), err.c_str());
      return kExitBadInput;
    }
  }
  opt.solvers.clear();
  for (const auto& s : Split(solvers)) {
    SolverMode m;
    if (!ParseSolverMode(s, &m)) {
      std::fprintf(stderr, "error: --solver: unknown solver \"%s\" (arc, parent, vrm)\n",
                   s.c_str());
      return kExitBadInput;
    }
    opt.solvers.push_back(m);
  }
  opt.fps.clear();
  for (const auto& f : Split(fps)) {
    try {
      opt.fps.push_back(std::stoi(f));
    } catch (...) {
      std::fprintf(stderr, "error: --fps: \"%s\" is not a number\n", f.c_str());
      return kExitBadInput;
    }
  }
  std::string err;
  opt.shirt_mesh = FindShirt(loaded->avatar, shirt, &err);
  if (!err.empty()) {
    std::fprintf(stderr, "error: --shirt: %s\n", err.c_str());
    return kExitBadInput;
  }
  const bool tty = !quiet && isatty(STDERR_FILENO);
  if (tty)
    opt.progress = [](double f) {
      static int last = -1;
      const int pct = static_cast<int>(f * 100);
      if (pct == last) return;
      last = pct;
      const int bar = pct * 30 / 100;
      std::fprintf(stderr, "\r  measuring [%.*s%*s] %3d%%", bar,
                   "==============================", 30 - bar, "", pct);
      if (pct >= 100) std::fprintf(stderr, "\n");
    };
  auto rep = Measure(loaded->avatar, opt);
  if (!rep.ok()) {
    std::fprintf(stderr, "error: %s: %s\n", file.c_str(), rep.status().message().c_str());
    return kExitBadInput;
  }
  // A non-finite figure is a failure, not a number to print as -nan and exit 0 with (issue 16:
  // gravityPower 1e30, scale 0 on the head, ...).
  if (const std::string bad = FirstNonFiniteFigure(rep.value()); !bad.empty()) {
    std::fprintf(stderr,
                 "error: %s: measure: %s is not finite (the simulation left finite numbers; check "
                 "the avatar's spring parameters and node transforms)\n",
                 file.c_str(), bad.c_str());
    return kExitFailure;
  }
  if (fit_colliders) {
    // Before/after: the same runs on a copy whose colliders went through the fitter.
    Avatar fitted = loaded->avatar;
    auto cf = FitColliders(fitted);
    if (!cf.ok()) {
      std::fprintf(stderr, "error: %s: collider fit: %s\n", file.c_str(),
                   cf.status().message().c_str());
      return kExitBadInput;
    }
    if (!quiet)
      for (const auto& c : cf->changes) std::printf("  collider fit: %s\n", OneLine(c).c_str());
    MeasureOptions after_opt = opt;
    after_opt.progress = nullptr;
    auto after = Measure(fitted, after_opt);
    if (!after.ok()) {
      std::fprintf(stderr, "error: %s: %s\n", file.c_str(), after.status().message().c_str());
      return kExitBadInput;
    }
    for (size_t i = 0; i < rep->results.size() && i < after->results.size(); ++i) {
      rep->results[i].after_fit_occlusion_hidden = after->results[i].occlusion_hidden;
      rep->results[i].after_fit_occlusion_max_depth_mm = after->results[i].occlusion_max_depth_mm;
      rep->results[i].after_fit_stretch_p99_pct = after->results[i].stretch_p99_pct;
    }
  }
  if (!quiet) PrintMeasureTable(rep.value());
  // The motion suite and the stiffness sweep, after the main run.
  SuiteResults suite;
  if (flags.suite || !flags.sweep.empty()) {
    if (const std::string err =
            RunSuiteAndSweep(loaded->avatar, opt, flags, tty, &suite, &rep.value());
        !err.empty()) {
      std::fprintf(stderr, "error: %s: %s\n", file.c_str(), err.c_str());
      return kExitBadInput;
    }
    if (!quiet) PrintSuite(suite);
  }
  if (!json_path.empty()) {
    std::string text = MeasureReportJson(rep.value(), false);
    if (flags.suite || !flags.sweep.empty()) {
      auto j = nlohmann::ordered_json::parse(text);
      const nlohmann::ordered_json extra = SuiteJson(suite);
      for (const auto& [k, v] : extra.items()) j[k] = v;
      text = j.dump(2);
    }
    Status st = WriteFileAtomic(json_path, text + "\n", flags.force);
    if (!st.ok()) {
      std::fprintf(stderr, "error: %s\n", st.message().c_str());
      return kExitBadInput;
    }
    if (!quiet) std::printf("JSON written to %s\n", json_path.c_str());
  }
  if (!report_path.empty()) {
    Status st =
        WriteHtmlReport({rep.value()}, report_path, flags.force,
                        flags.intro_html + ArticleTableHtml({rep.value()}) + SuiteHtml(suite));
    if (!st.ok()) {
      std::fprintf(stderr, "error: %s\n", st.message().c_str());
      return kExitBadInput;
    }
    if (!quiet) std::printf("report written to %s\n", report_path.c_str());
  }
  if (out) *out = std::move(rep.value());
  if (suite_out) *suite_out = std::move(suite);
  return kExitOk;
}

void AddMeasure(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "measure",
      "Run the standard head-turn (12 s: 4 s of head yaw/pitch with hip sway, 8 s still) on an "
      "avatar for each solver and caller frame rate, simulating at 120 Hz and sampling the mesh at "
      "30 Hz. Reports hair mesh stretch (p99 and worst edge, against the skinned rest pose; and "
      "the excess the hair adds over hair held rigid), swing, curl, flip, root drift, settle, "
      "clothing occlusion from the front, link-in-capsule penetration, frame-rate identity and "
      "update time. The mesh is skinned once per solver: its other frame rates, when their "
      "state is the same at every sample, share those figures (the JSON's mesh_from_fps). "
      "--suite adds seven UAL clips, --sweep the stretch/swing/curl curve.");
  struct Opts {
    std::string file, motion = "head-turn", clip, solvers = "arc,parent,vrm", fps = "30,60,120",
                      json, report, shirt;
    double seconds = 12.0;
    bool fit_colliders = false;
    MeasureFlags flags;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("AVATAR", o->file,
                  "a .vrm, .glb or .gltf file with spring chains and a humanoid head")
      ->required();
  cmd->add_option("--motion", o->motion,
                  "head-turn, or a clip file (glTF/GLB/VRMA/BVH) whose clip is retargeted "
                  "onto the avatar and looped")
      ->capture_default_str();
  cmd->add_option("--clip", o->clip, "clip name in the --motion file (default: the first)");
  cmd->add_option("--seconds", o->seconds,
                  "length of the run; settle is measured over its last 2 s")
      ->check(FiniteRange(2.0, 600.0))
      ->capture_default_str();
  cmd->add_option("--solver", o->solvers, "comma-separated: arc, parent, vrm")
      ->capture_default_str();
  cmd->add_option("--fps", o->fps,
                  "comma-separated caller frame rates (each divides 120, multiple of 30)")
      ->capture_default_str();
  cmd->add_option("--shirt", o->shirt,
                  "clothing mesh (name or index) for the occlusion metric; default: a mesh "
                  "whose name contains 'shirt', else none");
  cmd->add_flag("--fit-colliders", o->fit_colliders,
                "also measure after the collider fitter (before/after occlusion)");
  cmd->add_flag("--match-swing", o->flags.match_swing,
                "also compare at equal swing: scale each other solver's stiffness (bisection) "
                "until its tip lag "
                "rms equals arc's, and report its stretch and shape there");
  cmd->add_flag("--plain", o->flags.plain,
                "arc and parent use the plain VRM mapping (no added relative damping); default: "
                "tuned, the same "
                "for both");
  AddArcOptions(*cmd, o->flags);
  cmd->add_flag("--suite", o->flags.suite,
                "also run the motion suite: the head-turn at 60 fps and the UAL clips "
                "Idle_Loop, Walk_Loop, Jog_Fwd_Loop, Sprint_Loop, Jump_Start, Roll and Dance_Loop "
                "retargeted onto the avatar, every solver; per clip and overall (median over "
                "motions): excess stretch, swing, curl and flip");
  cmd->add_option("--suite-clips", o->flags.suite_file,
                  "the clip library of --suite (default: " + DefaultSuiteFile() +
                      "); one without some of the clips above runs the ones it has, one with "
                      "none of them runs its own clips (up to 16), and the table says which");
  cmd->add_option("--suite-seconds", o->flags.suite_seconds,
                  "length of each suite clip's run (clips named *_Loop, or *loop* in another "
                  "library, loop; the others play once and hold their last pose)")
      ->check(FiniteRange(2.0, 60.0))
      ->capture_default_str();
  cmd->add_option("--sweep", o->flags.sweep,
                  "also run the head-turn at 60 fps with every solver's stiffness x each of these "
                  "scales (e.g. --sweep 0.35,0.5,0.71,1,1.41,2,2.83,5.66): the stretch/swing/curl "
                  "curve per solver, as a table and a plot in the report")
      ->delimiter(',')
      ->check(FiniteRange(0.01, 100.0));
  cmd->add_option("--json", o->json, "write the results as JSON");
  cmd->add_option("--report", o->report, "write a self-contained HTML report with plots");
  cmd->add_flag("--force", o->flags.force, "replace existing --json/--report files");
  cmd->callback([o, &exit_code] {
    exit_code = RunMeasure(o->file, o->solvers, o->fps, o->shirt, o->json, o->report, false,
                           nullptr, o->motion, o->clip, o->seconds, o->fit_colliders, o->flags);
  });
}

}  // namespace hairswing::cli
