// The honest part: what the hair does to the mesh under a standard motion, per solver
// and frame rate. Simulation at 120 Hz, mesh sampled at 30 Hz.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "hairswing/avatar.h"
#include "hairswing/motion.h"
#include "hairswing/rig.h"
#include "hairswing/spring.h"
#include "hairswing/stats.h"
#include "hairswing/status.h"

namespace hairswing {

// ---- metric building blocks (unit-tested on hand-made cases) -------------------------------

/// Unique undirected edges (a < b) of a triangle list.
std::vector<std::pair<uint32_t, uint32_t>> TriangleEdges(std::span<const uint32_t> indices);

/// Stretch summary from per-edge maxima m_e of |z_a - z_b| / rest: 100 (Q99 - 1) and 100 (max - 1).
struct StretchSummary {
  double p99_pct = 0;
  double worst_pct = 0;
  int worst_edge = -1;
};
StretchSummary SummariseStretch(std::span<const double> max_ratio_per_edge);

/// How deep a link a-b reaches into a capsule h0-h1 of `radius` (metres, > 0 = penetration).
float LinkPenetration(const glm::vec3& a, const glm::vec3& b, const glm::vec3& h0,
                      const glm::vec3& h1, float radius);

/// Largest distance between consecutive points of a path (metres).
double MaxStepMotion(std::span<const glm::vec3> path);

/// Angle between two vectors in degrees (0 when either is zero).
double AngleDeg(const glm::vec3& a, const glm::vec3& b);

/// The flip of a chain: the angle in degrees between its root-to-tip chord now and at rest, each
/// read in its attachment frame (the attachment's world rotation now and at rest).
double ChordFlipDeg(const glm::vec3& rest_chord, const glm::vec3& now_chord,
                    const glm::mat3& attach_rest, const glm::mat3& attach_now);

/// Ray caster over a triangle mesh (Embree): how far behind the surface a point is, seen from a
/// view direction. Build once, update the vertices per sample.
class OcclusionCaster {
 public:
  OcclusionCaster();
  ~OcclusionCaster();
  OcclusionCaster(const OcclusionCaster&) = delete;
  OcclusionCaster& operator=(const OcclusionCaster&) = delete;
  /// Sets the triangles (indices fixed after the first call, positions may change each call).
  void SetMesh(std::span<const glm::vec3> positions, std::span<const uint32_t> indices);
  /// Distance from `p` along `towards_viewer` to the first surface hit, or -1 if none.
  float DepthBehind(const glm::vec3& p, const glm::vec3& towards_viewer) const;
  /// The same, also giving the index of the triangle hit (-1 when none).
  float DepthBehind(const glm::vec3& p, const glm::vec3& towards_viewer, int* triangle) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// ---- the measurement -------------------------------------------------------------------------

struct MeasureOptions {
  std::vector<SolverMode> solvers{SolverMode::kArc, SolverMode::kParent, SolverMode::kVrm};
  /// Caller frame rates: each must divide 120 (the fixed step rate) and be a multiple of
  /// sample_hz, so with the default 30 Hz sampling: 30, 60 or 120.
  std::vector<int> fps{30, 60, 120};
  double duration = 12.0;                ///< seconds (the head-turn is 12 s)
  int sample_hz = 30;                    ///< mesh sampling rate
  float occlusion_threshold = 0.001f;    ///< metres behind the shirt that count as hidden
  float penetration_threshold = 0.001f;  ///< metres of link-in-capsule overlap that count
  int shirt_mesh = -1;                   ///< Avatar mesh index of the clothing layer, -1 = none
  bool tuned = true;                     ///< SpringConfig::tuned, the same for arc and parent
  float arc_liveliness = SpringConfig{}.arc_liveliness;    ///< SpringConfig::arc_liveliness
  float arc_stiffness = SpringConfig{}.arc_stiffness;      ///< SpringConfig::arc_stiffness
  float arc_follow = SpringConfig{}.arc_follow;            ///< SpringConfig::arc_follow
  float arc_max_lag_deg = SpringConfig{}.arc_max_lag_deg;  ///< SpringConfig::arc_max_lag_deg
  /// Every solver's stiffness x this in the runs (SpringConfig::stiffness_scale; the sweep of
  /// `measure --sweep` runs one measurement per scale).
  float stiffness_scale = 1.0f;
  /// The shape (curl) and flip figures are taken over samples with t <= shape_until seconds;
  /// < 0 = the whole run (clips). The head-turn's default is its moving part, 0-4 s.
  double shape_until = 4.0;
  /// Measure the stretch of every primitive's own edges (stretch_p99_pct, stretch_worst_pct) and
  /// keep its per-sample p99 series (stretch_p99_series_pct, for the report's plot). false =
  /// only the welded and excess stretch (the motion suite's figures; the other two read 0).
  bool series = true;
  /// Also compare at equal swing: each non-arc solver's stiffness is scaled by bisection until
  /// its tip lag rms equals arc's (needs arc among the solvers); see RunResult::matched.
  bool match_swing = false;
  double match_tolerance = 0.01;  ///< relative swing difference at which bisection stops
  /// Skin the mesh once per solver: a solver's other frame rates are first run without the mesh,
  /// and when their state hash equals the skinned run's at every sample (the fixed 1/120 s step
  /// makes them equal), they take that run's mesh figures (stretch, occlusion, roots,
  /// penetration, settle); their own update times are kept. A run whose state differs anywhere is
  /// skinned itself. false = skin every run (what the result must equal; the tests compare).
  bool share_identical_fps = true;
  std::vector<uint8_t> segment_checks;  ///< per rig chain, empty = none
  /// The body motion. Empty = the standard head-turn. Called once per run (and once more for the
  /// independent root check), so samplers may keep state.
  std::function<std::unique_ptr<PoseSampler>(const Rig&)> motion;
  std::string motion_name = "head-turn";
  /// Called with the fraction done (0..1) now and then.
  std::function<void(double)> progress;
};

struct RunResult {
  SolverMode solver = SolverMode::kArc;
  int fps = 120;
  double stretch_p99_pct = 0;
  double stretch_worst_pct = 0;
  double root_drift_mm = 0;
  double settle_mm = 0;  ///< max tip motion between samples in the last 2 s
  /// The tentacle as a number: mean over chains (of two or more segments), samples in 0-4 s and
  /// segments below the first of the angle between a segment and where the rest arc puts it when
  /// the whole chain swings rigidly with its first segment (attachment frame). A rigid swing
  /// reads 0; a chain that curls reads its curl.
  double shape_error_deg = 0;
  /// Mean over chains, samples in 0-4 s and segments of the angle between a segment and its rest
  /// arc direction in the attachment frame (swing and curl together; the former shape error).
  double arc_deviation_deg = 0;
  /// Swing: distance of each chain's tip, in its attachment frame (rotation and translation, no
  /// scale), from where it rests at the end of the run; rms over chains and 30 Hz samples of the
  /// whole run, and the largest value, in mm.
  double swing_rms_mm = 0;
  double swing_max_mm = 0;
  std::vector<double> swing_rms_per_chain_mm;
  /// Swing of the hair mesh itself, not of its joints: each hair vertex's distance (welded, with
  /// spring weight) from where the rigid baseline of the excess stretch puts it, in its chain's
  /// attachment frame, against that offset at the end of the run (as the tips' swing); rms over
  /// vertices and samples, mm.
  /// Skin weights that let the head carry more of the mesh lower it at the same joint motion.
  double swing_mesh_rms_mm = 0;
  /// Stretch on welded positions: vertices at the same rest position (UV seams, split normals)
  /// are one vertex and each edge counts once. Per chain: the edges whose vertices' largest
  /// spring weight lies on that chain (NaN, JSON null, for a chain that owns no edge).
  double stretch_p99_welded_pct = 0;
  double stretch_worst_welded_pct = 0;
  std::vector<double> stretch_p99_per_chain_pct;
  /// Excess stretch: what the hair solver adds to the mesh. A baseline pose holds every spring
  /// rigid in its attachment frame (the spring joints at their rest rotations, the body as in the
  /// run); per welded edge, the largest difference over samples between its length in the run and
  /// in the baseline at the same instant, over its rest length. Body skinning (a shoulder blend, a
  /// bad weight) stretches both alike and cancels. p99 and worst edge in %, and p99 per chain.
  double stretch_p99_excess_pct = 0;
  double stretch_worst_excess_pct = 0;
  std::vector<double> stretch_p99_excess_per_chain_pct;
  /// Flip: per chain, the largest angle (degrees) between its root-to-tip chord now and at rest,
  /// both in the attachment frame, over the samples of the shape window. Hair thrown over the head
  /// reads more than 90.
  double flip_deg = 0;
  std::vector<double> flip_per_chain_deg;
  /// Seconds the hair hung with the body still before the motion started (hair with gravity
  /// settles first; 0 without gravity). Curl and flip count from the shape it then hangs in.
  double settle_before_s = 0;
  /// With MeasureOptions::match_swing, for a non-arc solver: the same run with every joint's
  /// stiffness scaled so that swing_rms_mm equals arc's at the same frame rate.
  struct Matched {
    double stiffness_scale = 1;
    double target_swing_rms_mm = 0;
    double swing_rms_mm = 0;
    double stretch_p99_pct = 0;  ///< welded
    double stretch_p99_excess_pct = 0;
    double shape_error_deg = 0;
    int iterations = 0;
    bool reached = false;  ///< within match_tolerance of the target
  };
  std::optional<Matched> matched;
  std::optional<int> occlusion_hidden;  ///< max over samples of front-strand vertices hidden
  std::optional<double> occlusion_max_depth_mm;
  /// The same run after the collider fitter (hairswing measure --fit-colliders); unset otherwise.
  std::optional<int> after_fit_occlusion_hidden;
  std::optional<double> after_fit_occlusion_max_depth_mm;
  std::optional<double> after_fit_stretch_p99_pct;
  int penetration_samples = 0;
  double update_p50_ms = 0;
  double update_p95_ms = 0;
  /// The frame rate whose skinned run gave this run its mesh figures (its state was the same at
  /// every sample, see MeasureOptions::share_identical_fps); 0 = skinned itself.
  int mesh_from_fps = 0;
  // Series for plots.
  std::vector<double> sample_times;               ///< seconds
  std::vector<double> stretch_p99_series_pct;     ///< p99 of the edge ratio at each sample
  std::vector<std::vector<glm::vec3>> tip_paths;  ///< per chain, the tip at each sample
  std::vector<double> shape_error_per_chain_deg;
  std::vector<double> swing_series_mm;  ///< rms over chains of the tip lag at each sample
  std::vector<double> frame_ms;         ///< solver time of every caller frame
  std::vector<uint64_t> hashes;         ///< state hash at each 30 Hz sample
  StepReport steps;
};

struct MeasureReport {
  std::string avatar;
  std::string motion;
  int chains = 0;
  /// Vertices of skinned meshes with weight on a spring joint (HairVertexCount: the one
  /// definition check, inspect and measure share).
  int hair_vertices = 0;
  /// Vertices of the triangle primitives measured: every primitive holding a hair vertex, whole
  /// (a primitive that mixes hair and body counts all its vertices here).
  int measured_vertices = 0;
  int hair_edges = 0;
  int hair_edges_welded = 0;  ///< edges after merging vertices at the same rest position
  /// false when no skinned vertex follows a spring joint (hair rigidly parented, or skinned to
  /// other bones): stretch cannot be measured, and the JSON gives it as null ("n/a").
  bool skinned_hair = true;
  int front_strand_vertices = 0;  ///< hair vertices in front of the shirt at rest (0 = no shirt)
  /// Stretch is measured against edge lengths in the skinned rest pose (what a viewer shows before
  /// anything moves). Where the skin's bind pose differs from the rest pose (the mesh was bound
  /// in another pose, a common Blender export), the mesh's stored positions are not the rest
  /// shape: this counts the welded hair edges whose stored length differs from their rest length
  /// by more than 1 %.
  int bind_pose_edges_differ = 0;
  /// (hair link, sphere/capsule collider) pairs that overlap already in the rest pose (a
  /// collider holding the hair, e.g. a head sphere larger than the head): not counted in
  /// RunResult::penetration_samples, since no solver could keep the hair out of them.
  int penetration_rest_pairs = 0;
  bool fps_identical = true;  ///< every solver: same hashes at common times across fps
  /// The solvers' settings in these runs (MeasureOptions): tuned damping, arc's liveliness,
  /// stiffness and follow, and every solver's stiffness scale.
  struct Settings {
    bool tuned = true;
    float arc_liveliness = SpringConfig{}.arc_liveliness;
    float arc_stiffness = SpringConfig{}.arc_stiffness;
    float arc_follow = SpringConfig{}.arc_follow;
    float arc_max_lag_deg = SpringConfig{}.arc_max_lag_deg;
    float stiffness_scale = 1.0f;
  } settings;
  std::vector<std::string> chain_names;
  std::vector<RunResult> results;
};

/// Runs the standard head-turn on `avatar` for every solver x fps. Fails if the avatar has no
/// humanoid head or no spring chains.
Result<MeasureReport> Measure(const Avatar& avatar, const MeasureOptions& options);

/// The first figure of a run that is not finite, as "arc at 60 fps: swing_rms_mm", or "" when
/// every figure is a number. A non-finite figure means the simulation went wrong; `measure` fails
/// on it (exit 1) instead of printing -nan.
std::string FirstNonFiniteFigure(const MeasureReport& report);

/// The report as JSON text (keys as documented in docs/measure.md).
std::string MeasureReportJson(const MeasureReport& report, bool include_series);

}  // namespace hairswing
