// The motion suite and the stiffness sweep of `hairswing measure --suite / --sweep`, and the
// article's before/after table that `hairswing demo` and the report open with (docs/measure.md).
#include <tbb/parallel_for.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <optional>

#include "commands.h"
#include "hairswing/anim.h"
#include "hairswing/io.h"
#include "hairswing/names.h"
#include "hairswing/retarget.h"
#include "report.h"

namespace hairswing::cli {

namespace {

using Json = nlohmann::ordered_json;

// A run's figures without its per-sample series (the suite keeps many runs).
RunResult Compact(RunResult r) {
  r.sample_times.clear();
  r.stretch_p99_series_pct.clear();
  r.tip_paths.clear();
  r.swing_series_mm.clear();
  r.frame_ms.clear();
  r.hashes.clear();
  return r;
}

double Median(std::vector<double> v) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::string Short(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Sets opt's motion to `clip` (a clip of rt's source) retargeted and looped.
// With `index` >= 0 the source's animation of that index, whatever its name.
std::string UseClip(const std::shared_ptr<Retargeter>& rt, const Avatar& source,
                    const Avatar& target, const std::string& clip_name, MeasureOptions* opt,
                    ClipSampler::Playback playback = ClipSampler::Playback::kLoop, int index = -1) {
  std::shared_ptr<Clip> clip;
  std::string wanted = clip_name;  // exact, or ignoring case when that picks one
  if (index >= 0) wanted = source.animations[index].name;
  if (!wanted.empty() && index < 0) {
    std::vector<std::string> names;
    for (const auto& a : source.animations) names.push_back(a.name);
    auto found = FindName(wanted, names, "clip");
    if (!found.ok()) return found.status().message() + " in " + source.source_path;
    wanted = names[*found];
  }
  for (size_t a = 0; a < source.animations.size() && !clip; ++a) {
    if (index >= 0 ? static_cast<int>(a) != index
                   : !wanted.empty() && source.animations[a].name != wanted)
      continue;
    auto source_clip = Clip::FromAvatar(source, rt->source_rig(), static_cast<int>(a));
    if (!source_clip.ok()) return source_clip.status().message();
    clip = std::make_shared<Clip>(rt->Retarget(source_clip.value()));
  }
  if (!clip) return "no clip named \"" + clip_name + "\" in " + source.source_path;
  auto cs = BuildConstraints(target, rt->target_rig());
  if (!cs.ok()) return cs.status().message();
  auto constraints = std::make_shared<std::vector<RigConstraint>>(std::move(cs).value());
  // A clip without a name (a VRM Animation has one clip, often unnamed) goes by its file.
  opt->motion_name = clip->name.empty() ? Short(source.source_path) : clip->name;
  opt->shape_until = -1.0;  // a clip moves all along: curl and flip over the whole run
  // The measurement builds its own Rig from the same avatar: identical node order.
  opt->motion = [clip, constraints, playback](const Rig& rig) -> std::unique_ptr<PoseSampler> {
    return std::make_unique<ClipSampler>(rig, *clip, *constraints, playback);
  };
  return "";
}

Result<std::shared_ptr<Retargeter>> MakeRetargeter(const Avatar& source, const Avatar& target) {
  auto r = Retargeter::Create(source, MatchHumanoid(source), target, MatchHumanoid(target));
  if (!r.ok()) return r.status();
  return std::make_shared<Retargeter>(std::move(r).value());
}

Json RowJson(const RunResult& r) {
  auto num = [](double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); };
  return Json{{"solver", SolverModeName(r.solver)},
              {"fps", r.fps},
              {"swing_rms_mm", num(r.swing_rms_mm)},
              {"swing_mesh_rms_mm", num(r.swing_mesh_rms_mm)},
              {"stretch_p99_welded_pct", num(r.stretch_p99_welded_pct)},
              {"stretch_p99_excess_pct", num(r.stretch_p99_excess_pct)},
              {"stretch_worst_excess_pct", num(r.stretch_worst_excess_pct)},
              {"shape_error_deg", num(r.shape_error_deg)},
              {"flip_deg", num(r.flip_deg)},
              {"stretch_p99_excess_per_chain_pct",
               [&] {
                 Json a = Json::array();
                 for (double v : r.stretch_p99_excess_per_chain_pct) a.push_back(num(v));
                 return a;
               }()},
              {"flip_per_chain_deg", [&] {
                 Json a = Json::array();
                 for (double v : r.flip_per_chain_deg) a.push_back(num(v));
                 return a;
               }()}};
}

struct SolverSummary {
  double median_excess = 0, median_swing = 0, median_mesh_swing = 0, median_curl = 0, max_flip = 0;
  int motions = 0;
};
std::map<std::string, SolverSummary> Summarise(const std::vector<SuiteRow>& rows) {
  std::map<std::string, std::vector<const RunResult*>> by;
  for (const SuiteRow& row : rows) by[SolverModeName(row.result.solver)].push_back(&row.result);
  std::map<std::string, SolverSummary> out;
  for (const auto& [solver, runs] : by) {
    std::vector<double> ex, sw, msw, cu;
    SolverSummary s;
    for (const RunResult* r : runs) {
      ex.push_back(r->stretch_p99_excess_pct);
      sw.push_back(r->swing_rms_mm);
      msw.push_back(r->swing_mesh_rms_mm);
      cu.push_back(r->shape_error_deg);
      s.max_flip = std::max(s.max_flip, r->flip_deg);
    }
    s.median_excess = Median(ex);
    s.median_swing = Median(sw);
    s.median_mesh_swing = Median(msw);
    s.median_curl = Median(cu);
    s.motions = static_cast<int>(runs.size());
    out[solver] = s;
  }
  return out;
}

// An inline SVG plot: one polyline with dots per solver.
std::string SvgCurves(const std::string& title, const std::string& xlabel,
                      const std::string& ylabel,
                      const std::map<std::string, std::vector<std::pair<double, double>>>& lines) {
  double x0 = 1e300, x1 = -1e300, y0 = 0, y1 = -1e300;
  for (const auto& [_, pts] : lines)
    for (const auto& [x, y] : pts) {
      if (!std::isfinite(x) || !std::isfinite(y)) continue;
      x0 = std::min(x0, x);
      x1 = std::max(x1, x);
      y1 = std::max(y1, y);
    }
  if (!(x1 > x0)) x1 = x0 + 1;
  if (!(y1 > y0)) y1 = y0 + 1;
  x0 = std::min(x0, 0.0);
  constexpr double W = 440, H = 260, L = 56, R = 12, T = 12, B = 40;
  auto px = [&](double x) { return L + (x - x0) / (x1 - x0) * (W - L - R); };
  auto py = [&](double y) { return H - B - (y - y0) / (y1 - y0) * (H - T - B); };
  const std::map<std::string, std::string> colors{
      {"arc", "#1f77b4"}, {"parent", "#d62728"}, {"vrm", "#2ca02c"}};
  char b[256];
  std::string svg = "<div class=\"plot\"><h3>" + HtmlEsc(title) +
                    "</h3><svg class=\"curve\" width=\"440\" height=\"260\" "
                    "xmlns=\"http://www.w3.org/2000/svg\" font-size=\"11\">";
  std::snprintf(
      b, sizeof b,
      "<rect x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\" fill=\"none\" stroke=\"#999\"/>", L, T,
      W - L - R, H - T - B);
  svg += b;
  for (int i = 0; i <= 4; ++i) {
    const double xv = x0 + (x1 - x0) * i / 4, yv = y0 + (y1 - y0) * i / 4;
    std::snprintf(b, sizeof b,
                  "<text x=\"%g\" y=\"%g\" text-anchor=\"middle\">%.3g</text>"
                  "<text x=\"%g\" y=\"%g\" text-anchor=\"end\">%.3g</text>",
                  px(xv), H - B + 14, xv, L - 4, py(yv) + 4, yv);
    svg += b;
  }
  std::snprintf(b, sizeof b,
                "<text x=\"%g\" y=\"%g\" text-anchor=\"middle\">%s</text>"
                "<text x=\"12\" y=\"%g\" transform=\"rotate(-90 12 %g)\" "
                "text-anchor=\"middle\">%s</text>",
                (L + W - R) / 2, H - 6, HtmlEsc(xlabel).c_str(), (T + H - B) / 2, (T + H - B) / 2,
                HtmlEsc(ylabel).c_str());
  svg += b;
  double legend_y = T + 14;
  for (const auto& [solver, pts] : lines) {
    const auto c = colors.count(solver) ? colors.at(solver) : std::string("#555");
    std::string path;
    for (const auto& [x, y] : pts) {
      if (!std::isfinite(x) || !std::isfinite(y)) continue;
      std::snprintf(b, sizeof b, "%s%.1f,%.1f", path.empty() ? "" : " ", px(x), py(y));
      path += b;
    }
    svg += "<polyline fill=\"none\" stroke=\"" + c + "\" stroke-width=\"1.5\" points=\"" + path +
           "\"/>";
    for (const auto& [x, y] : pts) {
      if (!std::isfinite(x) || !std::isfinite(y)) continue;
      std::snprintf(b, sizeof b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>", px(x),
                    py(y), c.c_str());
      svg += b;
    }
    std::snprintf(b, sizeof b, "<text x=\"%g\" y=\"%g\" fill=\"%s\">%s</text>", W - R - 60,
                  legend_y, c.c_str(), HtmlEsc(solver).c_str());
    svg += b;
    legend_y += 14;
  }
  return svg + "</svg></div>\n";
}

// The previous and the improved run of a report: parent and arc at the highest frame rate.
bool BeforeAfter(const MeasureReport& rep, const RunResult** before, const RunResult** after) {
  *before = *after = nullptr;
  for (const RunResult& r : rep.results) {
    if (r.solver == SolverMode::kParent && (!*before || r.fps > (*before)->fps)) *before = &r;
    if (r.solver == SolverMode::kArc && (!*after || r.fps > (*after)->fps)) *after = &r;
  }
  return *before && *after;
}

std::string Verdict(const RunResult& b, const RunResult& a) {
  char buf[400];
  std::snprintf(
      buf, sizeof buf,
      "improved %s (p99 %.1f vs %.1f %%, worst edge %.1f vs %.1f %%) and %s (%.2f vs "
      "%.2f deg), swinging %.2fx as far",
      a.stretch_p99_welded_pct <= b.stretch_p99_welded_pct ? "stretches less" : "STRETCHES MORE",
      a.stretch_p99_welded_pct, b.stretch_p99_welded_pct, a.stretch_worst_welded_pct,
      b.stretch_worst_welded_pct,
      a.shape_error_deg <= b.shape_error_deg ? "curls less" : "CURLS MORE", a.shape_error_deg,
      b.shape_error_deg, b.swing_rms_mm > 0 ? a.swing_rms_mm / b.swing_rms_mm : 0.0);
  return buf;
}

}  // namespace

const std::vector<std::string>& SuiteClips() {
  static const std::vector<std::string> clips{
      "Idle_Loop", "Walk_Loop", "Jog_Fwd_Loop", "Sprint_Loop", "Jump_Start", "Roll", "Dance_Loop"};
  return clips;
}

std::string SharedDataDir() {
  const char* env = std::getenv("HAIRSWING_DATA");
  return env && *env ? std::string(env) : std::string(HS_SHARED_DATA);
}

std::string DefaultSuiteFile() {
  return SharedDataDir() + "/animations/ual1/AnimationLibrary_Godot_Standard.gltf";
}

Result<Avatar> LoadSuiteLibrary(const std::string& file) {
  auto lib = LoadAvatar(file);
  if (!lib.ok())
    return Status(
        StatusCode::kInvalidInput,
        "--suite: the clip library " + file +
            " could not be loaded (give another with --suite-clips): " + lib.status().message());
  return std::move(lib->avatar);
}

std::string SetClipMotion(const Avatar& source, const Avatar& target, const std::string& clip_name,
                          MeasureOptions* opt) {
  auto rt = MakeRetargeter(source, target);
  if (!rt.ok()) return rt.status().message();
  return UseClip(rt.value(), source, target, clip_name, opt);
}

namespace {
// The suite's clips of the loaded clip library `src` (file `file`), retargeted onto `avatar` by
// `rt`, as runs with `common`'s options; what ran instead of the standard clips goes to `notes`.
// Returns "" or an error message.
std::string AddSuiteClips(const Avatar& src, const std::shared_ptr<Retargeter>& rt,
                          const Avatar& avatar, const std::string& file, const MeasureFlags& flags,
                          const MeasureOptions& common,
                          std::vector<std::pair<std::string, MeasureOptions>>* runs,
                          std::vector<std::string>* notes) {
  // The standard clips by name. A library of other clips (--suite-clips) runs those of them it
  // has, and one with none of them runs each of its own clips (at most kMaxOwnClips), so that
  // a studio's own motions can be the suite; the default library must have all of them.
  struct Pick {
    std::string label;
    int index;
    bool loop;
  };
  std::vector<Pick> picks;
  std::vector<std::string> missing;
  auto index_of = [&](const std::string& name) {
    for (size_t a = 0; a < src.animations.size(); ++a)
      if (src.animations[a].name == name) return static_cast<int>(a);
    return -1;
  };
  for (const std::string& name : SuiteClips()) {
    const int a = index_of(name);
    if (a < 0 && flags.suite_file.empty())
      return "--suite: the clip library " + file + " has no clip named \"" + name +
             "\" (give another library with --suite-clips)";
    // A one-shot clip (a jump, a roll) plays once and holds its last pose: looped, its end
    // would jump back to its start, a jerk no animation has.
    if (a >= 0)
      picks.push_back({name, a, name.size() > 5 && name.compare(name.size() - 5, 5, "_Loop") == 0});
    else
      missing.push_back(name);
  }
  constexpr size_t kMaxOwnClips = 16;
  if (picks.empty()) {
    const size_t n = std::min(src.animations.size(), kMaxOwnClips);
    if (n == 0) return "--suite: the clip library " + file + " has no animations";
    for (size_t a = 0; a < n; ++a) {
      const std::string& name = src.animations[a].name;
      // Looped when its name says so; otherwise played once, holding its last pose.
      const bool loop = ToLower(name).find("loop") != std::string::npos;
      picks.push_back({name.empty() ? "clip " + std::to_string(a) : name.substr(0, 40),
                       static_cast<int>(a), loop});
    }
    notes->push_back(Short(file) + " has none of the standard suite clips: its own " +
                     std::to_string(n) + " clip(s) ran" +
                     (src.animations.size() > n ? " (the first " + std::to_string(n) + " of " +
                                                      std::to_string(src.animations.size()) + ")"
                                                : std::string()));
  } else if (!missing.empty()) {
    std::string list;
    for (const std::string& m : missing) list += (list.empty() ? "" : ", ") + m;
    notes->push_back(Short(file) + " lacks " + list + ": the suite ran without them");
  }
  for (const Pick& pick : picks) {
    MeasureOptions o = common;
    o.duration = flags.suite_seconds;
    if (const std::string err = UseClip(
            rt, src, avatar, pick.label, &o,
            pick.loop ? ClipSampler::Playback::kLoop : ClipSampler::Playback::kOnce, pick.index);
        !err.empty())
      return "--suite: " + err;
    runs->emplace_back(pick.label, o);
  }
  return "";
}
}  // namespace

std::string RunSuiteAndSweep(const Avatar& avatar, const MeasureOptions& base,
                             const MeasureFlags& flags, bool tty, SuiteResults* out,
                             const MeasureReport* head_turn, const Avatar* library) {
  MeasureOptions common = base;
  common.fps = {60};
  common.match_swing = false;
  common.shirt_mesh = -1;  // occlusion is the head-turn's figure; the suite is about the hair
  common.progress = nullptr;
  common.series = false;  // figures only: no plot of each suite run
  common.stiffness_scale = flags.stiffness_scale;
  std::vector<std::pair<std::string, MeasureOptions>> runs;
  // The head-turn's rows come from the run already made when there is one (every frame rate
  // gives the same hair; the suite's figures do not depend on the shirt).
  std::vector<SuiteRow> head_rows;
  if (flags.suite && head_turn && head_turn->motion == "head-turn")
    for (SolverMode m : base.solvers)
      for (const RunResult& r : head_turn->results)
        if (r.solver == m) {
          head_rows.push_back({"head-turn", Compact(r)});
          break;
        }
  if (head_rows.size() != base.solvers.size()) head_rows.clear();
  if (flags.suite && head_rows.empty()) {
    MeasureOptions head = common;
    head.motion = nullptr;
    head.motion_name = "head-turn";
    head.duration = HeadTurnMotion::kDuration;
    head.shape_until = HeadTurnMotion::kMoveEnd;
    runs.emplace_back("head-turn", head);
  }
  if (flags.suite) {
    const std::string file = flags.suite_file.empty() ? DefaultSuiteFile() : flags.suite_file;
    Result<Avatar> loaded = Avatar{};
    if (!library) {
      loaded = LoadSuiteLibrary(file);
      if (!loaded.ok()) return loaded.status().message();
      library = &loaded.value();
    }
    auto rt = MakeRetargeter(*library, avatar);
    if (rt.ok()) {
      if (std::string err =
              AddSuiteClips(*library, rt.value(), avatar, file, flags, common, &runs, &out->notes);
          !err.empty())
        return err;
    } else if (flags.suite_head_turn_if_undrivable) {
      out->notes.push_back("the motion suite's humanoid clips cannot drive this avatar (" +
                           rt.status().message() + "): head-turn only");
    } else {  // a creature, or a body without legs or arms: the clips are humanoid motions
      return "--suite: the suite's clips (humanoid motions from " + file +
             ") cannot be retargeted onto this avatar: " + rt.status().message() +
             ". Measure the head-turn alone (without --suite: it needs only the chains' "
             "attachment)";
    }
  }
  size_t suite_runs = runs.size();
  for (float scale : flags.sweep) {
    MeasureOptions o = common;
    o.motion = nullptr;
    o.motion_name = "head-turn";
    o.duration = HeadTurnMotion::kDuration;
    o.shape_until = HeadTurnMotion::kMoveEnd;
    o.stiffness_scale = scale;
    char b[48];
    std::snprintf(b, sizeof b, "sweep x%g", scale);
    runs.emplace_back(b, o);
  }
  // One run per motion and solver. The runs are independent (each Measure has its own rig, world
  // and buffers; the avatar and the clips are only read): over all cores, results kept in order.
  {
    std::vector<std::pair<std::string, MeasureOptions>> split;
    size_t split_suite = 0;
    for (size_t i = 0; i < runs.size(); ++i)
      for (SolverMode m : base.solvers) {
        split.push_back(runs[i]);
        split.back().second.solvers = {m};
        if (i < suite_runs) ++split_suite;
      }
    runs = std::move(split);
    suite_runs = split_suite;
  }
  std::vector<std::optional<Result<MeasureReport>>> reps(runs.size());
  std::atomic<int> done{0};
  std::mutex print;
  tbb::parallel_for(size_t{0}, runs.size(), [&](size_t i) {
    reps[i].emplace(Measure(avatar, runs[i].second));
    const int n = ++done;
    if (tty) {
      std::lock_guard<std::mutex> lock(print);
      std::fprintf(stderr, "  measured %s (%d/%zu)\n", runs[i].first.c_str(), n, runs.size());
    }
  });
  out->suite = std::move(head_rows);
  for (size_t i = 0; i < runs.size(); ++i) {
    const Result<MeasureReport>& rep = *reps[i];
    if (!rep.ok()) return runs[i].first + ": " + rep.status().message();
    if (const std::string bad = FirstNonFiniteFigure(rep.value()); !bad.empty())
      return runs[i].first + ": " + bad + " is not finite";
    for (const RunResult& r : rep->results) {
      if (i < suite_runs)
        out->suite.push_back({runs[i].first, Compact(r)});
      else
        out->sweep.push_back({runs[i].second.stiffness_scale, Compact(r)});
    }
  }
  return "";
}

void PrintSuite(const SuiteResults& res) {
  if (!res.suite.empty()) {
    std::printf(
        "\nmotion suite (60 fps; excess = the stretch the hair adds over hair held rigid, p99 and "
        "worst welded edge %%; curl = shape error deg; flip = largest chord angle deg):\n");
    for (const std::string& n : res.notes) std::printf("note: %s\n", n.c_str());
    std::printf("%-13s %-7s %9s %9s %9s %9s %8s %8s\n", "motion", "solver", "swing mm", "exc p99",
                "exc worst", "p99 %", "curl", "flip");
    for (const SuiteRow& row : res.suite) {
      const RunResult& r = row.result;
      std::printf("%-13s %-7s %9.2f %9.2f %9.2f %9.2f %8.2f %8.1f\n", row.motion.c_str(),
                  SolverModeName(r.solver), r.swing_rms_mm, r.stretch_p99_excess_pct,
                  r.stretch_worst_excess_pct, r.stretch_p99_welded_pct, r.shape_error_deg,
                  r.flip_deg);
    }
    const auto summary = Summarise(res.suite);
    std::printf("overall (median over %zu motions):\n%-7s %12s %12s %10s %10s\n",
                res.suite.size() / std::max<size_t>(1, summary.size()), "solver", "exc p99 %",
                "swing mm", "curl deg", "max flip");
    for (const auto& [solver, s] : summary)
      std::printf("%-7s %12.2f %12.2f %10.2f %10.1f\n", solver.c_str(), s.median_excess,
                  s.median_swing, s.median_curl, s.max_flip);
  }
  if (!res.sweep.empty()) {
    std::printf("\nstiffness sweep (head-turn, 60 fps; every solver's stiffness x scale):\n");
    std::printf("%-7s %7s %9s %9s %9s %8s %8s\n", "solver", "scale", "swing mm", "exc p99", "p99 %",
                "curl", "flip");
    for (const SweepPoint& p : res.sweep)
      std::printf("%-7s %7.3g %9.2f %9.2f %9.2f %8.2f %8.1f\n", SolverModeName(p.result.solver),
                  p.scale, p.result.swing_rms_mm, p.result.stretch_p99_excess_pct,
                  p.result.stretch_p99_welded_pct, p.result.shape_error_deg, p.result.flip_deg);
  }
}

nlohmann::ordered_json SuiteJson(const SuiteResults& res) {
  Json j;
  if (!res.suite.empty()) {
    Json rows = Json::array();
    for (const SuiteRow& row : res.suite) {
      Json o = RowJson(row.result);
      o["motion"] = row.motion;
      rows.push_back(o);
    }
    j["suite"] = rows;
    Json sum;
    for (const auto& [solver, s] : Summarise(res.suite))
      sum[solver] = {{"motions", s.motions},
                     {"median_stretch_p99_excess_pct", s.median_excess},
                     {"median_swing_rms_mm", s.median_swing},
                     {"median_swing_mesh_rms_mm", s.median_mesh_swing},
                     {"median_shape_error_deg", s.median_curl},
                     {"max_flip_deg", s.max_flip}};
    j["suite_summary"] = sum;
    j["suite_notes"] = res.notes;
  }
  if (!res.sweep.empty()) {
    Json pts = Json::array();
    for (const SweepPoint& p : res.sweep) {
      Json o = RowJson(p.result);
      o["stiffness_scale"] = p.scale;
      pts.push_back(o);
    }
    j["sweep"] = pts;
  }
  return j;
}

std::string SuiteHtml(const SuiteResults& res, const std::string& who) {
  std::string html;
  const std::string of = who.empty() ? "" : ": " + HtmlEsc(who);
  char b[512];
  if (!res.suite.empty()) {
    html +=
        "<h2>Motion suite" + of +
        "</h2><p class=\"note\">The head-turn and UAL clips retargeted onto the "
        "avatar, 60 fps. Excess stretch is what the hair solver adds over hair held rigid in its "
        "attachment frame; flip is the largest angle of a chain's root-to-tip chord from rest "
        "(over "
        "90&deg; = thrown over the head).</p>";
    for (const std::string& n : res.notes) html += "<p class=\"note\">" + HtmlEsc(n) + "</p>";
    html +=
        "<table><tr><th>motion</th><th>solver</th><th>swing "
        "rms mm</th><th>excess p99 %</th><th>excess worst %</th><th>p99 welded %</th><th>curl "
        "&deg;</th><th>flip &deg;</th></tr>\n";
    for (const SuiteRow& row : res.suite) {
      const RunResult& r = row.result;
      std::snprintf(b, sizeof b,
                    "<tr><td>%s</td><td>%s</td><td>%.2f</td><td>%.2f</td><td>%.2f</td><td>%.2f</"
                    "td><td>%.2f</td><td>%.1f</td></tr>\n",
                    HtmlEsc(row.motion).c_str(), SolverModeName(r.solver), r.swing_rms_mm,
                    r.stretch_p99_excess_pct, r.stretch_worst_excess_pct, r.stretch_p99_welded_pct,
                    r.shape_error_deg, r.flip_deg);
      html += b;
    }
    html +=
        "</table><table><tr><th>solver (median over motions)</th><th>excess p99 %</th><th>swing "
        "mm</th><th>curl &deg;</th><th>max flip &deg;</th></tr>\n";
    for (const auto& [solver, s] : Summarise(res.suite)) {
      std::snprintf(b, sizeof b,
                    "<tr><td>%s</td><td>%.2f</td><td>%.2f</td><td>%.2f</td><td>%.1f</td></tr>\n",
                    solver.c_str(), s.median_excess, s.median_swing, s.median_curl, s.max_flip);
      html += b;
    }
    html += "</table>\n";
  }
  if (!res.sweep.empty()) {
    std::map<std::string, std::vector<std::pair<double, double>>> stretch, curl;
    for (const SweepPoint& p : res.sweep) {
      stretch[SolverModeName(p.result.solver)].emplace_back(p.result.swing_rms_mm,
                                                            p.result.stretch_p99_excess_pct);
      curl[SolverModeName(p.result.solver)].emplace_back(p.result.swing_rms_mm,
                                                         p.result.shape_error_deg);
    }
    html +=
        "<h2>Stiffness sweep" + of +
        "</h2><p class=\"note\">The head-turn with every solver's stiffness "
        "scaled: each point is one scale. Left of a curve is stiffer hair. Compare the curves at "
        "the same swing.</p>\n";
    html += SvgCurves("excess stretch vs swing", "swing rms (mm)", "excess p99 (%)", stretch);
    html += SvgCurves("curl vs swing", "swing rms (mm)", "curl (deg)", curl);
  }
  return html;
}

std::string ArticleTableText(const std::vector<MeasureReport>& reports) {
  std::string s =
      "The article's table, head-turn: previous = the usual solver (parent) at the author's "
      "settings, improved = arc as configured; p99 and worst edge on welded hair edges.\n";
  char b[512];
  std::snprintf(b, sizeof b, "%-22s %19s %19s %17s %15s %15s\n", "avatar", "p99 % prev > impr",
                "worst % prev > impr", "excess p99 % p>i", "swing mm p>i", "curl deg p>i");
  s += b;
  std::string verdicts;
  for (const MeasureReport& rep : reports) {
    const RunResult *p, *a;
    if (!BeforeAfter(rep, &p, &a)) continue;
    std::snprintf(b, sizeof b,
                  "%-22s %8.1f > %8.1f %8.1f > %8.1f %7.1f > %7.1f %6.1f > %6.1f %6.2f > %6.2f\n",
                  Short(rep.avatar).c_str(), p->stretch_p99_welded_pct, a->stretch_p99_welded_pct,
                  p->stretch_worst_welded_pct, a->stretch_worst_welded_pct,
                  p->stretch_p99_excess_pct, a->stretch_p99_excess_pct, p->swing_rms_mm,
                  a->swing_rms_mm, p->shape_error_deg, a->shape_error_deg);
    s += b;
    verdicts += "  " + Short(rep.avatar) + ": " + Verdict(*p, *a) + "\n";
  }
  return s + "In words:\n" + verdicts;
}

std::string ArticleTableHtml(const std::vector<MeasureReport>& reports) {
  std::string rows, verdicts;
  char b[768];
  for (const MeasureReport& rep : reports) {
    const RunResult *p, *a;
    if (!BeforeAfter(rep, &p, &a)) continue;
    std::snprintf(b, sizeof b,
                  "<tr><td>%s</td><td>%.1f</td><td><b>%.1f</b></td><td>%.1f</td><td><b>%.1f</b></"
                  "td><td>%.1f</td><td><b>%.1f</b></td><td>%.1f</td><td>%.1f</td><td>%.2f</"
                  "td><td>%.2f</td></tr>\n",
                  HtmlEsc(Short(rep.avatar)).c_str(), p->stretch_p99_welded_pct,
                  a->stretch_p99_welded_pct, p->stretch_worst_welded_pct,
                  a->stretch_worst_welded_pct, p->stretch_p99_excess_pct, a->stretch_p99_excess_pct,
                  p->swing_rms_mm, a->swing_rms_mm, p->shape_error_deg, a->shape_error_deg);
    rows += b;
    verdicts += "<li>" + HtmlEsc(Short(rep.avatar) + ": " + Verdict(*p, *a)) + "</li>";
  }
  if (rows.empty()) return "";
  return "<h2>Before and after (the article's table)</h2><p class=\"note\">Head-turn. "
         "<b>previous</b> = the usual solver (parent) at the author's settings; <b>improved</b> = "
         "arc as configured. p99 and worst edge on welded hair edges; excess = what the hair adds "
         "over hair held rigid. Swing and curl beside them, so the trade is visible: less motion "
         "always means less stretch.</p><table><tr><th>avatar</th><th>p99 % previous</th><th>p99 "
         "% improved</th><th>worst % previous</th><th>worst % improved</th><th>excess p99 % "
         "previous</th><th>excess p99 % improved</th><th>swing mm previous</th><th>swing mm "
         "improved</th><th>curl &deg; previous</th><th>curl &deg; improved</th></tr>\n" +
         rows + "</table><ul class=\"note\">" + verdicts + "</ul>\n";
}

void AddArcOptions(CLI::App& cmd, SolverFlags& flags) {
  cmd.add_option_function<std::string>(
         "--arc-setting",
         [&flags](const std::string& name) {
           SpringConfig c;
           ApplyArcSetting(name, &c);
           flags.arc_liveliness = c.arc_liveliness;
           flags.arc_stiffness = c.arc_stiffness;
           flags.arc_follow = c.arc_follow;
           flags.arc_max_lag_deg = c.arc_max_lag_deg;
         },
         "arc's named setting: 'article' (default: the article's improved solver, the author's "
         "drag per segment with stiffness x1.6; the hair hangs calmly and stretches least), "
         "'lively' (liveliness 1, the author's stiffness: swings about as far as the VRM "
         "reference, as a rigid swing; more stretch at the root) or 'follow' (lively with "
         "--arc-follow 0.7: the first segment carries the swing and the ones below turn with "
         "it; lively's swing with a third to two thirds of its curl, more bend at the root: "
         "re-weight the roots "
         "with fit --reweight-roots). --arc-liveliness, "
         "--arc-stiffness and --arc-follow override it (docs/solver.md)")
      ->check(CLI::IsMember(ArcSettingNames()));
  cmd.add_option("--arc-liveliness", flags.arc_liveliness,
                 "arc: how much of the author's liveliness to keep, 0..1: 1 = its chains swing "
                 "about as far as the VRM reference's (drag raised per chain), 0 = the author's "
                 "drag per segment")
      ->check(FiniteRange(0.0, 1.0))
      ->capture_default_str();
  cmd.add_option("--arc-follow", flags.arc_follow,
                 "arc: how far the segments below a chain's first turn with its swing, 0..1; "
                 "above 0 the liveliness goes mostly to the first segment (0 = the original arc)")
      ->check(FiniteRange(0.0, 1.0))
      ->capture_default_str();
  cmd.add_option("--arc-max-lag", flags.arc_max_lag_deg,
                 "arc: degrees a segment may lag behind the direction it is pulled towards (its "
                 "rest target, tipped by gravity) before it is held there, as by an angle limit. "
                 "A segment a collider holds is left to the collider unless its chain is thrown "
                 "(its root-to-tip chord past the same angle from its rest chord); contacts still "
                 "win. 180 = off")
      ->check(FiniteRange(1.0, 180.0))
      ->capture_default_str();
  cmd.add_option("--arc-stiffness", flags.arc_stiffness,
                 "arc: every joint's stiffness x this (the article's firmer tuning is 1.6; 1 = the "
                 "author's)")
      ->check(FiniteRange(0.01, 100.0))
      ->capture_default_str();
  cmd.add_option("--stiffness-scale", flags.stiffness_scale,
                 "every solver's stiffness x this (arc's --arc-stiffness comes on top)")
      ->check(FiniteRange(0.01, 100.0))
      ->capture_default_str();
}

}  // namespace hairswing::cli
