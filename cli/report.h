// The self-contained HTML measurement report (uPlot from npm is embedded at build time).
#pragma once

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hairswing/measure.h"

namespace CLI {
class App;
}

namespace hairswing::cli {

/// Writes one page covering every report given (e.g. several avatars for `hairswing demo`).
/// An existing file is replaced only with `force` (WriteFileAtomic).
/// `intro_html` goes first, under the title (tables made by the caller: the article's table, the
/// motion suite, the stiffness sweep).
Status WriteHtmlReport(const std::vector<MeasureReport>& reports, const std::string& path,
                       bool force, const std::string& intro_html = "");

void PrintMeasureTable(const MeasureReport& rep);

/// HTML text with <, > and & escaped; a JSON number with `prec` decimals ("&ndash;" for null).
std::string HtmlEsc(const std::string& s);
std::string HtmlNum(const nlohmann::json& v, int prec);

/// Solver options of `measure` (docs/measure.md).
struct SuiteResults;  // below

/// A float option as the decimal it was written as (0.7, not 0.699999988079071), for JSON.
inline double AsGiven(float v) { return std::round(static_cast<double>(v) * 1e6) / 1e6; }

/// The solver's settings a command takes on its command line (AddArcOptions): arc's named
/// setting and its parts, and every solver's stiffness scale.
struct SolverFlags {
  float arc_liveliness = SpringConfig{}.arc_liveliness;    ///< SpringConfig::arc_liveliness
  float arc_stiffness = SpringConfig{}.arc_stiffness;      ///< SpringConfig::arc_stiffness
  float arc_follow = SpringConfig{}.arc_follow;            ///< SpringConfig::arc_follow
  float arc_max_lag_deg = SpringConfig{}.arc_max_lag_deg;  ///< SpringConfig::arc_max_lag_deg
  float stiffness_scale = 1.0f;                            ///< every solver's stiffness x this
  /// These settings in `config` (its mode and the rest left alone).
  void ApplyTo(SpringConfig* config) const {
    config->arc_liveliness = arc_liveliness;
    config->arc_stiffness = arc_stiffness;
    config->arc_follow = arc_follow;
    config->arc_max_lag_deg = arc_max_lag_deg;
    config->stiffness_scale = stiffness_scale;
  }
};

struct MeasureFlags : SolverFlags {
  bool match_swing = false;  ///< also the swing-matched comparison
  bool plain = false;        ///< plain VRM mapping for arc and parent
  bool force = false;        ///< --force: replace existing --json/--report files
  bool suite = false;        ///< also the motion suite (SuiteClips())
  std::string suite_file;    ///< the clip library of the suite (default: UAL in shared data)
  /// An avatar the library's clips cannot drive (a creature: no humanoid legs or arms) runs the
  /// suite's head-turn alone, said in SuiteResults::notes, instead of failing (tune --auto).
  bool suite_head_turn_if_undrivable = false;
  double suite_seconds = 6.0;  ///< length of each suite clip's run
  std::vector<float> sweep;    ///< stiffness scales of the sweep (empty = none)
  std::string intro_html;      ///< put at the top of the HTML report (hairswing demo)
};
/// `suite_out` (optional) receives the suite and sweep runs of flags.suite / flags.sweep.
int RunMeasure(const std::string& file, const std::string& solvers, const std::string& fps,
               const std::string& shirt, const std::string& json_path,
               const std::string& report_path, bool quiet, MeasureReport* out,
               const std::string& motion = "head-turn", const std::string& clip_name = "",
               double seconds = 12.0, bool fit_colliders = false, const MeasureFlags& flags = {},
               SuiteResults* suite_out = nullptr);

/// The motion suite and the stiffness sweep of `measure --suite` / `--sweep` (cli/suite.cpp).
struct SuiteRow {
  std::string motion;
  RunResult result;  ///< series dropped
};
struct SweepPoint {
  float scale = 1;
  RunResult result;  ///< series dropped
};
struct SuiteResults {
  std::vector<SuiteRow> suite;  ///< head-turn first, then the clips; every solver
  std::vector<SweepPoint> sweep;
  /// What the suite ran instead of the standard clips (a --suite-clips library without some or
  /// all of them; the head-turn alone on an avatar they cannot drive), for the table's heading
  /// and the JSON.
  std::vector<std::string> notes;
};
/// The clips of the suite, by name in the UAL library.
const std::vector<std::string>& SuiteClips();
/// The data folder of the defaults (godette, the UAL clip library): $HAIRSWING_DATA when set (an
/// installed hairswing on another machine), else ../shared/data beside the source tree this
/// binary was built from (HS_SHARED_DATA).
std::string SharedDataDir();
/// The suite's clip library: SharedDataDir()/animations/ual1/AnimationLibrary_Godot_Standard.gltf.
std::string DefaultSuiteFile();
/// The suite's clip library `file` loaded, or the error to show (naming --suite-clips).
Result<Avatar> LoadSuiteLibrary(const std::string& file);
/// Sets opt->motion (and motion_name, shape window) to `clip_name` of the loaded clip file
/// `source`, retargeted onto `target` and looped. Returns "" or an error message.
std::string SetClipMotion(const Avatar& source, const Avatar& target, const std::string& clip_name,
                          MeasureOptions* opt);
/// Runs the suite and/or the sweep with `base` (solvers, tuning); progress on stderr if `tty`.
/// Returns "" or an error message.
/// `head_turn`: a head-turn measurement of the same avatar and options already made (its runs
/// become the suite's head-turn rows), or null.
/// `library`: the suite's clip library already loaded (flags.suite_file), or null to load it.
std::string RunSuiteAndSweep(const Avatar& avatar, const MeasureOptions& base,
                             const MeasureFlags& flags, bool tty, SuiteResults* out,
                             const MeasureReport* head_turn = nullptr,
                             const Avatar* library = nullptr);
void PrintSuite(const SuiteResults& r);
/// JSON of the suite and sweep (keys "suite", "suite_summary", "sweep").
nlohmann::ordered_json SuiteJson(const SuiteResults& r);
/// HTML tables and the sweep's stretch/swing/curl plot for the report.
std::string SuiteHtml(const SuiteResults& r, const std::string& who = "");
/// The article's before/after table over several avatars' head-turns: previous (parent at the
/// author's settings) vs improved (arc as configured), p99 and worst edge, swing and curl beside,
/// with a verdict in words. As text (stdout) and as HTML.
std::string ArticleTableText(const std::vector<MeasureReport>& reports);
std::string ArticleTableHtml(const std::vector<MeasureReport>& reports);
/// --arc-setting, --arc-liveliness, --arc-stiffness and --stiffness-scale into `flags`.
void AddArcOptions(CLI::App& cmd, SolverFlags& flags);

}  // namespace hairswing::cli
