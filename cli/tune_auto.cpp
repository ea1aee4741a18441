// tune --auto (tune_auto.h). Chains do not act on each other (each hangs from the body and
// collides with the body's colliders only), so every chain's search runs in the same rounds: a
// round measures the avatar once over all motions with each chain at its own trial setting, and
// each chain reads its own figures (per-chain p99 excess stretch, flip, swing). The search is a
// grid, because the figures are not monotonic in the settings (measured on the layered demo: one
// chain's head-turn excess is 14.6 % at the author's stiffness and 38.5 % at x4, where it sweeps
// across the shoulder collider): stiffness factors half an octave apart, then root cones from
// wide to narrow for the chains no factor brought within the budget. The choice is read from the
// measurements; a last round measures it, and its figures are the ones reported.
#include "tune_auto.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "hairswing/measure.h"
#include "hairswing/rig.h"
#include "hairswing/tune.h"
#include "report.h"

namespace hairswing::cli {

namespace {

constexpr float kDegToRad = 3.14159265358979f / 180.0f;

struct Probe {
  float factor = 1.0f;
  float cone_deg = 0.0f;  ///< 0 = none added
};

struct Figures {
  double excess = 0;  ///< max over motions and the spring's chains of the p99 excess, %
  std::string worst;  ///< the motion where it is
  double swing = 0;   ///< mean over motions and chains of the tip swing rms, mm
  double flip = 0;    ///< max over motions and chains, degrees
  bool measured = false;
};

// `avatar` with each picked spring at its probe: stiffness x factor on every joint, and a root
// cone (the tighter of it and a cone already there).
Avatar WithProbes(const Avatar& avatar, const std::vector<int>& springs,
                  const std::vector<Probe>& probes) {
  Avatar av = avatar;
  for (size_t k = 0; k < springs.size(); ++k) {
    Spring& s = av.vrm.springs[springs[k]];
    for (SpringJoint& j : s.joints) j.stiffness *= probes[k].factor;
    if (probes[k].cone_deg > 0 && SwingingJoints(s) > 0) {
      JointLimit& l = s.joints[0].limit;
      const float a = probes[k].cone_deg * kDegToRad;
      if (l.kind == JointLimit::Kind::kCone) {
        l.angle = std::min(l.angle, a);
      } else {
        l = JointLimit{};
        l.kind = JointLimit::Kind::kCone;
        l.angle = a;
      }
    }
  }
  return av;
}

class Rounds {
 public:
  Rounds(const Avatar& avatar, const std::vector<int>& springs, const AutoTuneOptions& o)
      : avatar_(avatar), springs_(springs), o_(o) {}

  Status Init() {
    auto rig = BuildRig(avatar_);
    if (!rig.ok()) return rig.status();
    for (const RigChain& c : rig->chains()) chain_spring_.push_back(c.source_spring);
    const std::string file = o_.suite_file.empty() ? DefaultSuiteFile() : o_.suite_file;
    std::error_code ec;
    suite_ = !o_.suite_file.empty() || std::filesystem::exists(file, ec);
    flags_.suite_file = file;
    // The default library's clips are humanoid motions: on a creature wearing a hairstyle (a
    // head bone, no humanoid legs or arms) the head-turn is the measure, said in the notes. A
    // library the user named must drive the avatar (its error stops the tune).
    flags_.suite_head_turn_if_undrivable = o_.suite_file.empty();
    if (suite_) {  // once, not in every round
      auto lib = LoadSuiteLibrary(file);
      if (!lib.ok()) return lib.status();
      library_ = std::move(lib.value());
    }
    flags_.suite_seconds = o_.suite_seconds;
    flags_.suite = suite_;
    if (!suite_) flags_.sweep = {1.0f};  // the head-turn alone, as the sweep's one point
    base_.solvers = {o_.mode};
    base_.fps = {60};
    SpringConfig arc;
    if (!ApplyArcSetting(o_.arc_setting, &arc))
      return Status(StatusCode::kInvalidInput, "unknown arc setting \"" + o_.arc_setting + "\"");
    base_.arc_liveliness = arc.arc_liveliness;
    base_.arc_stiffness = arc.arc_stiffness;
    base_.arc_follow = arc.arc_follow;
    return Status::Ok();
  }

  bool has_suite() const { return suite_; }
  /// What the last round's suite ran instead of the standard clips (SuiteResults::notes).
  const std::vector<std::string>& notes() const { return notes_; }
  int count() const { return count_; }
  const std::vector<std::string>& motions() const { return motions_; }

  struct Trial {
    Probe probe;
    Figures figures;
  };
  /// Every probe tried for picked spring k, with its figures.
  const std::vector<Trial>& tried(size_t k) const { return tried_[k]; }

  // One round: every motion once with each spring at its probe; figures per picked spring.
  Result<std::vector<Figures>> Run(const std::vector<Probe>& probes, const char* what) {
    ++count_;
    if (o_.progress) std::fprintf(stderr, "  auto-tune round %d: %s\n", count_, what);
    const Avatar av = WithProbes(avatar_, springs_, probes);
    SuiteResults res;
    if (const std::string err =
            RunSuiteAndSweep(av, base_, flags_, false, &res, nullptr, suite_ ? &library_ : nullptr);
        !err.empty())
      return Status(StatusCode::kInvalidInput, err);
    std::vector<SuiteRow> rows = res.suite;
    for (const SweepPoint& p : res.sweep) rows.push_back({"head-turn", p.result});
    notes_ = res.notes;
    motions_.clear();
    for (const SuiteRow& r : rows) motions_.push_back(r.motion);
    std::vector<Figures> out(springs_.size());
    for (size_t k = 0; k < springs_.size(); ++k) {
      Figures& f = out[k];
      double swing_sum = 0;
      int swing_n = 0;
      for (const SuiteRow& row : rows) {
        const RunResult& r = row.result;
        for (size_t c = 0; c < chain_spring_.size(); ++c) {
          if (chain_spring_[c] != springs_[k]) continue;
          if (c < r.stretch_p99_excess_per_chain_pct.size()) {
            const double e = r.stretch_p99_excess_per_chain_pct[c];
            if (std::isfinite(e)) {
              if (!f.measured || e > f.excess) {
                f.excess = e;
                f.worst = row.motion;
              }
              f.measured = true;
            }
          }
          if (c < r.flip_per_chain_deg.size()) f.flip = std::max(f.flip, r.flip_per_chain_deg[c]);
          if (c < r.swing_rms_per_chain_mm.size()) {
            swing_sum += r.swing_rms_per_chain_mm[c];
            ++swing_n;
          }
        }
      }
      f.swing = swing_n ? swing_sum / swing_n : 0;
      tried_[k].push_back({probes[k], f});
    }
    return out;
  }

 private:
  const Avatar& avatar_;
  const std::vector<int>& springs_;
  const AutoTuneOptions& o_;
  std::vector<int> chain_spring_;
  MeasureOptions base_;
  MeasureFlags flags_;
  bool suite_ = false;
  Avatar library_;  // the suite's clip library, loaded once (when suite_)
  int count_ = 0;
  std::vector<std::string> motions_;
  std::vector<std::string> notes_;
  std::vector<std::vector<Trial>> tried_ = std::vector<std::vector<Trial>>(springs_.size());
};

std::string Fmt(const char* f, double a, double b = 0, double c = 0) {
  char buf[512];
  std::snprintf(buf, sizeof buf, f, a, b, c);
  return buf;
}

}  // namespace

Result<AutoTuneResult> AutoTune(Avatar& avatar, const std::vector<int>& springs,
                                const AutoTuneOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  if (!(o.max_stretch_pct > 0) || !std::isfinite(o.max_stretch_pct))
    return Status(StatusCode::kInvalidInput, "--max-stretch must be a positive percentage");
  if (springs.empty()) return Status(StatusCode::kInvalidInput, "no springs to tune");
  // Flip cones first (they are part of the settings the stretch is measured with).
  if (o.max_flip_deg > 0) {
    TuneSettings flip;
    flip.max_flip_deg = o.max_flip_deg;
    if (auto r = TuneSprings(avatar, springs, flip); !r.ok()) return r.status();
  }
  Rounds rounds(avatar, springs, o);
  if (Status st = rounds.Init(); !st.ok()) return st;
  const size_t n = springs.size();
  const double budget = o.max_stretch_pct;
  auto within = [&](const Figures& f) { return !f.measured || f.excess <= budget; };
  // The best trial of spring k so far: within the budget, the one that swings most; when none
  // is, the one with the least excess. The figures need not be monotonic in the settings (a
  // stiff chain can sweep across a collider, a narrow cone can fight one), so the search is a
  // grid and the choice is read from the measurements.
  auto best_of = [&](size_t k) {
    const Rounds::Trial* best = nullptr;
    for (const auto& x : rounds.tried(k)) {
      if (!best) {
        best = &x;
        continue;
      }
      const bool a = within(x.figures), b = within(best->figures);
      if (a != b ? a
          : a    ? x.figures.swing > best->figures.swing
                 : x.figures.excess < best->figures.excess)
        best = &x;
    }
    return best;
  };

  // Stiffness: the author's setting first, then factors from the livelier to the stiffer end, a
  // half octave apart; every chain at the same factor in a round.
  std::vector<float> factors{1.0f};
  for (float f = o.min_factor; f <= o.max_factor * 1.0001f; f *= std::sqrt(2.0f))
    if (std::fabs(f - 1.0f) > 1e-3f) factors.push_back(std::min(f, o.max_factor));
  std::vector<Probe> probe(n);
  std::vector<Figures> before;
  for (size_t i = 0; i < factors.size(); ++i) {
    for (Probe& p : probe) p.factor = factors[i];
    char what[64];
    std::snprintf(what, sizeof what, "stiffness x%.3g (%zu of %zu)", factors[i], i + 1,
                  factors.size());
    auto r = rounds.Run(probe, i == 0 ? "the author's settings" : what);
    if (!r.ok()) return r.status();
    if (i == 0) before = std::move(r).value();
  }
  // Root cones, widest first, for the chains no factor brought within the budget, at the factor
  // that gave them the least excess; a chain stops at the first cone that does.
  std::vector<bool> needs_cone(n), holding(n);
  for (size_t k = 0; k < n; ++k) {
    const Rounds::Trial* b = best_of(k);
    probe[k] = b->probe;
    needs_cone[k] = holding[k] = !within(b->figures);
    if (needs_cone[k]) {
      double least = 1e300;
      for (const auto& t : rounds.tried(k))
        if (t.figures.excess < least) {
          least = t.figures.excess;
          probe[k].factor = t.probe.factor;
        }
    }
  }
  for (float cone = o.max_cone_deg; cone >= o.min_cone_deg * 0.999f; cone /= 1.5f) {
    if (std::none_of(holding.begin(), holding.end(), [](bool h) { return h; })) break;
    for (size_t k = 0; k < n; ++k)
      if (holding[k]) probe[k].cone_deg = std::max(cone, o.min_cone_deg);
    char what[64];
    std::snprintf(what, sizeof what, "a root cone of %.0f deg", std::max(cone, o.min_cone_deg));
    auto r = rounds.Run(probe, what);
    if (!r.ok()) return r.status();
    for (size_t k = 0; k < n; ++k)
      if (holding[k] && within((*r)[k])) holding[k] = false;
  }
  for (size_t k = 0; k < n; ++k) probe[k] = best_of(k)->probe;

  auto after = rounds.Run(probe, "what was chosen");
  if (!after.ok()) return after.status();

  // Into the avatar through TuneSprings (the undo record), each spring with its own factor.
  AutoTuneResult out;
  for (size_t k = 0; k < n; ++k) {
    TuneSettings s;
    s.stiffness = probe[k].factor;
    s.multiply = true;
    if (auto r = TuneSprings(avatar, {springs[k]}, s); !r.ok()) return r.status();
  }
  avatar = WithProbes(avatar, springs, [&] {
    std::vector<Probe> cones(n);
    for (size_t k = 0; k < n; ++k) cones[k].cone_deg = probe[k].cone_deg;
    return cones;
  }());

  for (size_t k = 0; k < n; ++k) {
    const Figures& b = before[k];
    const Figures& a = (*after)[k];
    AutoChoice c;
    c.spring = springs[k];
    c.name = avatar.vrm.springs[springs[k]].name;
    c.factor = probe[k].factor;
    c.root_cone_deg = probe[k].cone_deg;
    c.excess_before_pct = b.excess;
    c.excess_after_pct = a.excess;
    c.worst_motion_before = b.worst;
    c.worst_motion_after = a.worst;
    c.swing_before_mm = b.swing;
    c.swing_after_mm = a.swing;
    c.flip_before_deg = b.flip;
    c.flip_after_deg = a.flip;
    c.measured = a.measured;
    c.met = !a.measured || a.excess <= budget;
    const bool was_within = !b.measured || b.excess <= budget;
    if (!a.measured) {
      c.why =
          "moves no measured mesh (no stretch to keep within the budget): the setting that "
          "swings most, stiffness x" +
          Fmt("%.3g", c.factor);
    } else if (was_within) {
      c.why = Fmt("within the budget at the author's setting (%.1f %% in ", b.excess) + b.worst +
              "); " +
              (c.factor < 1.0f   ? Fmt("livelier: stiffness x%.3g swings most within it", c.factor)
               : c.factor > 1.0f ? Fmt("stiffness x%.3g swings most within it", c.factor)
                                 : std::string("the author's setting swings most within it"));
    } else if (c.root_cone_deg == 0) {
      c.why = Fmt("over the budget at the author's setting (%.1f %% in ", b.excess) + b.worst +
              "); " +
              (c.met ? Fmt("stiffness x%.3g brings it within", c.factor)
                     : Fmt("stiffness x%.3g gives the least", c.factor));
    } else {
      c.why = Fmt("over the budget at the author's setting (%.1f %% in ", b.excess) + b.worst +
              ") and at every stiffness tried; " +
              Fmt(c.met ? "stiffness x%.3g with a root cone of %.0f deg brings it within"
                        : "the least with stiffness x%.3g and a root cone of %.0f deg",
                  c.factor, c.root_cone_deg);
    }
    // Every distinct setting tried, in order (the report's evidence for the choice).
    for (const auto& t : rounds.tried(k)) {
      const bool seen = std::any_of(c.trials.begin(), c.trials.end(), [&](const AutoTrial& x) {
        return x.factor == t.probe.factor && x.root_cone_deg == t.probe.cone_deg;
      });
      if (!seen)
        c.trials.push_back(
            {t.probe.factor, t.probe.cone_deg, t.figures.excess, t.figures.worst, t.figures.swing});
    }
    if (!c.met) {
      c.why += Fmt("; not met: %.1f %% (in ", a.excess) + a.worst + ")";
      // The stiff end reads the same with and without a cone: what is left is not the swing.
      double lo = 1e300, hi = 0;
      for (const AutoTrial& t : c.trials)
        if (t.factor == c.factor) {
          lo = std::min(lo, t.excess_pct);
          hi = std::max(hi, t.excess_pct);
        }
      if (c.root_cone_deg > 0 && hi > 0 && hi - lo < 0.05 * hi)
        c.why +=
            "; root cones do not change it: it does not come from the root's swing (a "
            "collider pushing the chain, or the skin weights; docs/tune.md)";
    }
    out.choices.push_back(std::move(c));
  }
  out.motions = rounds.motions();
  out.rounds = rounds.count();
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!rounds.has_suite()) out.note = "the motion suite's clip library is absent: head-turn only";
  for (const std::string& n : rounds.notes()) out.note += (out.note.empty() ? "" : "; ") + n;
  return out;
}

}  // namespace hairswing::cli
