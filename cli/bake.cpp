// hairswing bake: hair motion baked into animation clips, one clip or all of a file's,
// cyclic or one-shot, in parallel over clips.
#include "hairswing/bake.h"

#include <tbb/parallel_for.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <nlohmann/json.hpp>

#include "clip_file.h"
#include "commands.h"
#include "hairswing/files.h"
#include "report.h"

namespace hairswing::cli {
using OJson = nlohmann::ordered_json;

namespace {
// JSON number, or null for a figure that does not apply (NaN).
OJson Num(double v) { return std::isfinite(v) ? OJson(v) : OJson(nullptr); }
std::string Fmt(float v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", static_cast<double>(v));
  return buf;
}
}  // namespace

bool LooksCyclic(const std::string& name) {
  std::string lower = name;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower.find("loop") != std::string::npos || lower.find("cycle") != std::string::npos;
}

void PutBakedClip(Avatar& av, const Clip& baked, const Rig& rig, bool keep_springs) {
  av.animations.erase(std::remove_if(av.animations.begin(), av.animations.end(),
                                     [&](const Animation& a) { return a.name == baked.name; }),
                      av.animations.end());
  av.animations.push_back(ClipToAnimation(baked, rig));
  // VRM 0.x cannot mark springs as baked: they are left out of the file (with a warning).
  if (!keep_springs)
    for (Spring& s : av.vrm.springs) s.baked = true;
}

OJson BakeReportJson(const BakeReport& b, const std::string& solver, bool with_seconds) {
  const double nan = std::nan("");
  OJson j = {{"clip", b.clip},
             {"mode", b.cyclic ? "cyclic" : "one-shot"},
             {"solver", solver},
             {"settle_before_s", Num(b.settle_before_s)},
             {"cycles_to_periodic", b.cyclic ? OJson(b.cycles_to_periodic) : OJson()},
             {"seam_position_mm", Num(b.cyclic ? b.seam_position_mm : nan)},
             {"body_seam_mm", Num(b.cyclic ? b.body_seam_mm : nan)},
             {"seam_velocity_ratio", Num(b.cyclic ? b.seam_velocity_ratio : nan)},
             {"interior_velocity_ratio", Num(b.interior_velocity_ratio)},
             {"median_step_mm", Num(b.median_step_mm)},
             {"frames", b.frames},
             {"keys_before", b.keys_before},
             {"keys_after", b.keys_after},
             {"reduction_error_deg", Num(b.reduction_error_deg)},
             {"reduction_error_mm", Num(b.reduction_error_mm)},
             {"key_drop_median_deg", Num(b.key_drop_median_deg)}};
  if (with_seconds) j["seconds"] = b.seconds;
  return j;
}

void AddBake(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "bake",
      "Bake the hair's motion into animation clips: retarget a body clip onto the avatar, run the "
      "solver, and write the avatar with the body clip plus a rotation track for every spring "
      "joint. Cyclic clips loop until the hair repeats itself, then one loop is baked with a "
      "continuous seam; one-shot clips run from rest (plus --settle). Hair keys are reduced "
      "within --max-error-deg per key and --max-error-mm per joint position. The baked springs "
      "are moved aside in the output (VRMC_springBone extras, see docs/bake.md) so that a runtime "
      "does not simulate them over the baked motion; --keep-springs keeps them live.");
  struct Opts {
    std::string avatar, motion, clip, solver = "arc", out, json, reference, vrm_version;
    bool all = false, cyclic = false, one_shot = false, force = false, keep_springs = false,
         keep_body_seam = false;
    int rate = 30;
    double max_error_deg = 0.1, max_error_mm = 0.3, settle = 0.0;
    SolverFlags solver_flags;  // arc's setting and the stiffness scale
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("AVATAR", o->avatar, "avatar with springs (.vrm/.glb/.gltf)")->required();
  cmd->add_option("--motion", o->motion, "clip file (glTF/GLB/VRMA/BVH), retargeted onto AVATAR")
      ->required();
  auto* clip_opt = cmd->add_option("--clip", o->clip, "the clip to bake (by name)");
  cmd->add_flag("--all-clips", o->all, "bake every clip of the file (in parallel)")
      ->excludes(clip_opt);
  auto* cyc = cmd->add_flag("--cyclic", o->cyclic,
                            "loop: bake one period of the hair's periodic state with a continuous "
                            "seam (default for clips named *loop* or *cycle*)");
  cmd->add_flag("--one-shot", o->one_shot, "from rest through the clip (default for other clips)")
      ->excludes(cyc);
  cmd->add_option("--solver", o->solver, "arc (default), parent or vrm")
      ->check(CLI::IsMember({"arc", "parent", "vrm"}));
  AddArcOptions(*cmd, o->solver_flags);
  cmd->add_option("--rate", o->rate, "hair keys per second before reduction: 30 (default) or 60")
      ->check(CLI::IsMember({30, 60}));
  cmd->add_option(
         "--max-error-deg", o->max_error_deg,
         "keyframe reduction: largest rotation error per key, degrees (0 = keep all); "
         "both bounds hold, so on vigorous clips (a jog) this one decides how many keys go")
      ->check(FiniteRange(0, 10));
  cmd->add_option("--max-error-mm", o->max_error_mm,
                  "keyframe reduction: largest joint position error, millimetres")
      ->check(FiniteRange(0.001, 100));
  cmd->add_option("--settle", o->settle, "one-shot: seconds after the clip, body holding still")
      ->check(FiniteRange(0, 600));
  cmd->add_option("-o,--output", o->out, "output .vrm or .glb")->required();
  cmd->add_option("--json", o->json, "write per-clip figures as JSON");
  cmd->add_option("--reference", o->reference,
                  "write the solver's own joint world positions per baked frame as JSON (for "
                  "playback checks)");
  cmd->add_flag("--keep-springs", o->keep_springs, "keep the baked springs live in the output");
  cmd->add_flag("--keep-body-seam", o->keep_body_seam,
                "cyclic: leave the body clip's own seam as it is (by default a clip whose end "
                "does not meet its start is closed, the mismatch spread over the loop)");
  cmd->add_flag("--force", o->force, "overwrite existing outputs");
  AddVrmVersion(cmd, o->vrm_version);
  cmd->callback([o, &exit_code] {
    if (!OutputsWritable({o->out, o->json, o->reference}, o->force)) {
      exit_code = kExitBadInput;
      return;
    }
    std::optional<Avatar> loaded = LoadAvatarOrExit(o->avatar, exit_code);
    if (!loaded) return;
    Avatar av = std::move(*loaded);
    ClipFile cf;
    if (!LoadClipFile(o->motion, &cf)) {
      exit_code = kExitBadInput;
      return;
    }
    std::vector<const Clip*> clips;
    std::string wanted = o->clip;  // by name: exact, or ignoring case when that picks one
    if (!o->all && !wanted.empty()) {
      if (auto found = ClipNamed(cf, wanted); found.ok()) {
        wanted = *found;
      } else {
        std::fprintf(stderr, "error: %s: %s\n", o->motion.c_str(),
                     found.status().message().c_str());
        exit_code = kExitBadInput;
        return;
      }
    }
    for (const Clip& c : cf.clips)
      if (o->all || wanted.empty() || c.name == wanted) clips.push_back(&c);
    if (clips.empty() || (!o->all && o->clip.empty() && clips.size() > 1)) {
      std::string names;
      for (size_t i = 0; i < cf.clips.size() && i < 12; ++i)
        names += (i ? ", " : "") + cf.clips[i].name;
      if (cf.clips.size() > 12) names += ", ...";
      std::fprintf(stderr, "error: %s: %s (clips: %s)\n", o->motion.c_str(),
                   clips.empty() ? ("no clip named \"" + o->clip + "\"").c_str()
                                 : "several clips: choose one with --clip or use --all-clips",
                   names.c_str());
      exit_code = kExitBadInput;
      return;
    }
    auto rt = RetargeterOrReport(cf, av, o->avatar);
    if (!rt) {
      exit_code = kExitBadInput;
      return;
    }
    const Rig& rig = rt->target_rig();
    auto constraints = BuildConstraints(av, rig);
    if (!constraints.ok()) {
      std::fprintf(stderr, "error: %s: %s\n", o->avatar.c_str(),
                   constraints.status().message().c_str());
      exit_code = kExitBadInput;
      return;
    }
    BakeOptions base;
    ParseSolverMode(o->solver, &base.spring.mode);
    o->solver_flags.ApplyTo(&base.spring);
    base.rate = o->rate;
    base.max_error_deg = static_cast<float>(o->max_error_deg);
    base.max_error_m = static_cast<float>(o->max_error_mm / 1000.0);
    base.settle_seconds = o->settle;
    base.close_body_loop = !o->keep_body_seam;

    const auto started = std::chrono::steady_clock::now();
    std::vector<Result<BakedClip>> results(clips.size(), Status(StatusCode::kInvalidInput, ""));
    std::atomic<size_t> done{0};
    std::mutex mu;
    const bool tty = isatty(STDERR_FILENO) && clips.size() > 1;
    tbb::parallel_for(size_t(0), clips.size(), [&](size_t i) {
      BakeOptions opt = base;
      opt.cyclic = o->cyclic || (!o->one_shot && LooksCyclic(clips[i]->name));
      const Clip& body = rt->Cached(*clips[i]);
      results[i] = BakeClip(rig, body, *constraints, opt);
      const size_t d = ++done;
      if (tty) {
        std::lock_guard<std::mutex> lock(mu);
        const int width = 30, filled = static_cast<int>(width * d / clips.size());
        std::fprintf(stderr, "\r  baking [%.*s%*s] %zu/%zu %-28.28s", filled,
                     "##############################", width - filled, "", d, clips.size(),
                     clips[i]->name.c_str());
      }
    });
    if (tty) std::fprintf(stderr, "\n");
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    int failed = 0;
    for (size_t i = 0; i < clips.size(); ++i)
      if (!results[i].ok()) {
        std::fprintf(stderr, "error: %s: clip \"%s\": %s\n", o->motion.c_str(),
                     clips[i]->name.c_str(), results[i].status().message().c_str());
        ++failed;
      }
    if (failed) {
      std::fprintf(stderr, "error: %d of %zu clips could not be baked; nothing written\n", failed,
                   clips.size());
      exit_code = kExitBadInput;
      return;
    }

    // The avatar with the baked clips (replacing its own clips of the same names).
    for (const auto& r : results) PutBakedClip(av, r->clip, rig, o->keep_springs);
    const bool written_v0 =
        o->vrm_version == "0" || (o->vrm_version.empty() && av.vrm.version == VrmVersion::kV0);
    if (Status st = SaveWithVersion(av, o->out, o->force, o->vrm_version); !st.ok()) {
      std::fprintf(stderr, "error: %s\n", st.message().c_str());
      exit_code = kExitBadInput;
      return;
    }

    std::printf("%-28s %-8s %6s %8s %8s %8s %9s %15s %8s %7s\n", "clip", "mode", "cycles",
                "seam mm", "body mm", "seam vel", "inner vel", "keys", "err deg", "err mm");
    OJson jclips = OJson::array(), jref = OJson::array();
    for (const auto& r : results) {
      const BakeReport& b = r->report;
      auto fig = [](bool on, double v) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.3f", v);
        return on ? std::string(buf) : std::string("-");
      };
      std::printf("%-28.28s %-8s %6s %8s %8s %8s %9s %7zu->%-7zu %8.3f %7.3f\n", b.clip.c_str(),
                  b.cyclic ? "cyclic" : "one-shot",
                  b.cyclic ? std::to_string(b.cycles_to_periodic).c_str() : "-",
                  fig(b.cyclic, b.seam_position_mm).c_str(), fig(b.cyclic, b.body_seam_mm).c_str(),
                  fig(b.cyclic, b.seam_velocity_ratio).c_str(),
                  fig(b.median_step_mm >= 0.01, b.interior_velocity_ratio).c_str(), b.keys_before,
                  b.keys_after, b.reduction_error_deg, b.reduction_error_mm);
      jclips.push_back(BakeReportJson(b, o->solver, true));
      if (!o->reference.empty()) {
        OJson joints = OJson::array(), pos = OJson::array();
        for (int n : rig.joint_node()) joints.push_back(rig.source_node()[n]);
        // In the written file's axes: VRM 0.x output is turned back by 180 degrees about Y.
        const float flip = written_v0 ? -1.0f : 1.0f;
        for (const glm::vec3& p : r->reference_positions)
          pos.push_back({flip * p.x, p.y, flip * p.z});
        jref.push_back({{"clip", b.clip},
                        {"times", r->reference_times},
                        {"joints", joints},
                        {"positions", pos}});
      }
    }
    // Why a clip kept (nearly) every key: the hair turns unevenly from key to key by more than
    // the angle bound, so no key can go (a jog, not a fault of the reduction).
    for (const auto& r : results) {
      const BakeReport& b = r->report;
      if (b.keys_before == 0 || 10 * b.keys_after < 9 * b.keys_before ||
          !(b.key_drop_median_deg > o->max_error_deg) || o->max_error_deg <= 0)
        continue;
      std::printf(
          "note: %s kept %zu of %zu keys: dropping one key alone would turn its joint by %.2f deg "
          "(median), more than --max-error-deg %.2f; a larger --max-error-deg (and "
          "--max-error-mm) reduces more\n",
          b.clip.c_str(), b.keys_after, b.keys_before, b.key_drop_median_deg, o->max_error_deg);
    }
    const SolverFlags& sf = o->solver_flags;
    const std::string arc = o->solver != "arc"
                                ? ""
                                : " (liveliness " + Fmt(sf.arc_liveliness) + ", stiffness x" +
                                      Fmt(sf.arc_stiffness) + ", follow " + Fmt(sf.arc_follow) +
                                      ", max lag " + Fmt(sf.arc_max_lag_deg) + " deg)";
    std::printf("%zu clip(s) baked in %.2f s with the %s solver%s; wrote %s\n", results.size(),
                seconds, o->solver.c_str(), arc.c_str(), o->out.c_str());
    auto write_json = [&](const std::string& path, const OJson& j) {
      if (path.empty()) return true;
      if (Status st = WriteFileAtomic(path, j.dump(1) + "\n", o->force); !st.ok()) {
        std::fprintf(stderr, "error: %s\n", st.message().c_str());
        return false;
      }
      return true;
    };
    const OJson summary = {{"avatar", o->avatar},
                           {"motion", o->motion},
                           {"solver", o->solver},
                           {"arc_liveliness", AsGiven(o->solver_flags.arc_liveliness)},
                           {"arc_stiffness", AsGiven(o->solver_flags.arc_stiffness)},
                           {"arc_follow", AsGiven(o->solver_flags.arc_follow)},
                           {"arc_max_lag_deg", AsGiven(o->solver_flags.arc_max_lag_deg)},
                           {"stiffness_scale", AsGiven(o->solver_flags.stiffness_scale)},
                           {"rate", o->rate},
                           {"max_error_deg", o->max_error_deg},
                           {"max_error_mm", o->max_error_mm},
                           {"seconds", seconds},
                           {"clips", jclips}};
    if (!write_json(o->json, summary) || !write_json(o->reference, OJson{{"clips", jref}}))
      exit_code = kExitBadInput;
  });
}

}  // namespace hairswing::cli
