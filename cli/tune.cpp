// hairswing tune AVATAR: list the springs with their settings, or set / scale them per chain,
// add angle limits, and undo it.
#include "hairswing/tune.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "tune_auto.h"

namespace hairswing::cli {

namespace {

// "0.5" when every joint has the same value, else "0.2-0.8".
std::string Range(const Spring& s, float SpringJoint::*field, size_t count) {
  float lo = s.joints[0].*field, hi = lo;
  for (size_t k = 0; k < count; ++k) {
    lo = std::min(lo, s.joints[k].*field);
    hi = std::max(hi, s.joints[k].*field);
  }
  char buf[64];
  if (lo == hi)
    std::snprintf(buf, sizeof buf, "%.4g", lo);
  else
    std::snprintf(buf, sizeof buf, "%.4g-%.4g", lo, hi);
  return buf;
}

// The joints whose settings the table shows: the swinging ones (at least the first).
size_t Shown(const Spring& s) { return std::max<size_t>(1, SwingingJoints(s)); }

std::string Limits(const Spring& s) {
  std::string out;
  size_t k = 0, n = Shown(s);
  while (k < n) {  // runs of equal limits: "cone:30" or "cone:30 x1, none x3"
    size_t e = k;
    while (e < n && s.joints[e].limit == s.joints[k].limit) ++e;
    if (!out.empty()) out += ", ";
    out += FormatLimit(s.joints[k].limit);
    if (e - k != n) out += " x" + std::to_string(e - k);
    k = e;
  }
  return out;
}

nlohmann::ordered_json SpringJson(const Avatar& av, int i) {
  const Spring& s = av.vrm.springs[i];
  nlohmann::ordered_json joints = nlohmann::json::array();
  for (const SpringJoint& j : s.joints)
    joints.push_back(
        {{"node", av.nodes[j.node].name},
         {"stiffness", Decimal(j.stiffness)},
         {"drag_force", Decimal(j.drag_force)},
         {"gravity_power", Decimal(j.gravity_power)},
         {"gravity_dir",
          {Decimal(j.gravity_dir.x), Decimal(j.gravity_dir.y), Decimal(j.gravity_dir.z)}},
         {"hit_radius_m", Decimal(j.hit_radius)},
         {"limit", FormatLimit(j.limit)}});
  return {{"index", i}, {"name", s.name}, {"baked", s.baked}, {"joints", joints}};
}

void PrintTable(const Avatar& av, const std::vector<int>& springs) {
  std::printf("%-28s %6s %10s %10s %10s %14s %10s  %s\n", "spring", "joints", "stiffness", "drag",
              "gravity", "gravity dir", "hit r (m)", "limit");
  for (int i : springs) {
    const Spring& s = av.vrm.springs[i];
    if (s.joints.empty()) continue;
    const size_t n = Shown(s);
    const glm::vec3 g = s.joints[0].gravity_dir;
    char dir[48];
    std::snprintf(dir, sizeof dir, "%.2g,%.2g,%.2g", g.x + 0.0f, g.y + 0.0f, g.z + 0.0f);
    std::printf("%-28s %6zu %10s %10s %10s %14s %10s  %s%s\n", OneLine(s.name).c_str(),
                s.joints.size(), Range(s, &SpringJoint::stiffness, n).c_str(),
                Range(s, &SpringJoint::drag_force, n).c_str(),
                Range(s, &SpringJoint::gravity_power, n).c_str(), dir,
                Range(s, &SpringJoint::hit_radius, n).c_str(), Limits(s).c_str(),
                s.baked ? " (baked)" : "");
  }
}

}  // namespace

void AddTune(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "tune",
      "List the springs (hair chains) with their settings, or change them per chain: stiffness, "
      "drag, gravity, hit radius and angle limits. Values are written into the file's "
      "VRMC_springBone (secondaryAnimation for VRM 0.x output), so every runtime gets them. "
      "--auto --max-stretch PCT finds per chain the liveliest stiffness (and, if needed, a root "
      "cone) whose excess stretch stays within PCT over the head-turn and the motion suite. "
      "--undo restores the file from before the first tune, bit for bit.");
  struct Opts {
    std::string avatar, out, vrm_version, limit, report, preset;
    std::vector<std::string> chains;
    std::vector<float> gravity_dir;
    std::optional<float> stiffness, drag, gravity_power, hit_radius, max_flip;
    std::optional<double> max_stretch;
    std::string solver = "arc", suite_clips, arc_setting;
    double suite_seconds = 6.0;
    bool all = false, scale = false, list = false, json = false, undo = false, force = false,
         root_only = false, presets = false, automatic = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("AVATAR", o->avatar, "avatar (.vrm/.glb/.gltf)");
  cmd->add_option("--preset", o->preset,
                  "start from a named set of settings for a kind of hair (--presets lists them; "
                  "options given beside it win)");
  cmd->add_flag("--presets", o->presets, "list the presets with what each is for, and exit");
  cmd->add_option("-o,--output", o->out, "output .vrm or .glb");
  cmd->add_option("--chain", o->chains,
                  "spring name or glob pattern (\"*bang*\"), ignoring case; repeatable");
  cmd->add_flag("--all", o->all, "every spring");
  cmd->add_option("--stiffness", o->stiffness, "stiffness (VRM units, pull back per second)")
      ->check(FiniteRange(0.0, 1e6));
  cmd->add_option("--drag", o->drag, "drag force, 0 to 1 (how quickly motion dies)")
      ->check(FiniteRange(0.0, 1e6));
  cmd->add_option("--gravity-power", o->gravity_power, "gravity power (VRM units)")
      ->check(FiniteRange(-1e6, 1e6));
  cmd->add_option("--gravity-dir", o->gravity_dir, "gravity direction X,Y,Z (normalised)")
      ->delimiter(',')
      ->expected(3)
      ->check(FiniteRange(-1e6, 1e6));
  cmd->add_option("--hit-radius", o->hit_radius, "collision radius of each joint, metres")
      ->check(FiniteRange(0.0, 1e3));
  cmd->add_flag("--scale", o->scale,
                "multiply stiffness, drag, gravity power and hit radius by the values given "
                "instead of setting them (drag stays within 0-1)");
  cmd->add_option("--limit", o->limit,
                  "angle limit per joint (VRMC_springBone_limit): none, cone:DEG, "
                  "hinge:DEG[:x|z|DEG] (swing about one axis of the bone; z or a turn about the "
                  "bone picks another), spherical:PITCH,YAW");
  cmd->add_option("--max-flip", o->max_flip,
                  "instead of --limit: cone limits sized per chain so its root-to-tip chord turns "
                  "at most DEG degrees from rest (short chains get wider cones than long ones)")
      ->check(FiniteRange(1.0, 180.0));
  cmd->add_flag("--limit-root-only", o->root_only,
                "put the limit on each chain's first joint only (the others get none)");
  cmd->add_flag("--auto", o->automatic,
                "find the settings by measurement: per chain (--chain, default every spring) the "
                "liveliest stiffness between x0.5 and x4 the author's, and if even x4 is not "
                "enough a root cone, whose p99 excess stretch (what the hair adds over hair held "
                "rigid) stays within --max-stretch in the head-turn and every clip of the motion "
                "suite; with --max-flip, cone limits from that flip budget come first. Prints "
                "what it chose and why (docs/tune.md)");
  cmd->add_option("--max-stretch", o->max_stretch,
                  "--auto's budget: largest p99 excess stretch per chain, percent")
      ->check(FiniteRange(0.1, 1000.0));
  cmd->add_option("--solver", o->solver,
                  "--auto measures with this solver: arc (default), parent, or vrm (three-vrm's "
                  "and UniVRM's: tunes a file for runtimes without hairswing)")
      ->check(CLI::IsMember({"arc", "parent", "vrm"}))
      ->capture_default_str();
  cmd->add_option("--arc-setting", o->arc_setting,
                  "--auto with the arc solver: tune for this named setting of arc, the one the "
                  "hair will run with ('article', the default; 'lively'; 'follow': see measure "
                  "--help)")
      ->check(CLI::IsMember(ArcSettingNames()));
  cmd->add_option("--suite-clips", o->suite_clips,
                  "--auto's clip library (default: the UAL library in $HAIRSWING_DATA, else "
                  "../shared/data; without it "
                  "the head-turn alone)");
  cmd->add_option("--suite-seconds", o->suite_seconds, "length of each suite clip's run")
      ->check(FiniteRange(2.0, 60.0))
      ->capture_default_str();
  cmd->add_flag("--list", o->list, "print the springs and their settings, change nothing");
  cmd->add_flag("--json", o->json, "print the list or the changes as JSON");
  cmd->add_option("--report", o->report, "also write the changes as JSON to this file");
  cmd->add_flag("--undo", o->undo, "restore every spring as it was before the first tune");
  cmd->add_flag("--force", o->force, "overwrite an existing output");
  AddVrmVersion(cmd, o->vrm_version);
  cmd->callback([o, &exit_code] {
    auto fail = [&](const std::string& m) {
      std::fprintf(stderr, "error: %s\n", OneLine(m).c_str());
      exit_code = kExitBadInput;
    };
    if (o->presets) {
      for (const TunePreset& p : BuiltinPresets()) {
        const TuneSettings& s = p.settings;
        const std::string limit =
            s.max_flip_deg
                ? "chord within " + std::to_string(static_cast<int>(*s.max_flip_deg)) + " deg"
            : s.limit ? FormatLimit(*s.limit)
                      : "none";
        std::printf("%-18s stiffness %g, drag %g, gravity %g, limits: %s\n%18s %s\n",
                    p.name.c_str(), s.stiffness.value_or(0), s.drag_force.value_or(0),
                    s.gravity_power.value_or(0), limit.c_str(), "", p.description.c_str());
      }
      return;
    }
    if (o->avatar.empty()) return fail("AVATAR is required (or --presets)");
    if (!o->list && o->out.empty()) return fail("-o OUT is required (or --list)");
    if (!o->list && !OutputsWritable({o->out, o->report}, o->force)) {
      exit_code = kExitBadInput;
      return;
    }
    std::optional<Avatar> loaded = LoadAvatarOrExit(o->avatar, exit_code);
    if (!loaded) return;
    Avatar av = std::move(*loaded);
    if (av.vrm.springs.empty()) return fail(o->avatar + ": has no springs to tune");
    std::vector<int> picked;
    if (o->automatic && o->chains.empty()) o->all = true;
    if (o->all || (o->list && o->chains.empty())) {
      for (size_t i = 0; i < av.vrm.springs.size(); ++i) picked.push_back(static_cast<int>(i));
    } else if (!o->chains.empty()) {
      auto sel = SelectSprings(av, o->chains);
      if (!sel.ok()) return fail(o->avatar + ": --chain: " + sel.status().message());
      picked = sel.value();
    }
    if (o->list) {
      if (o->json) {
        nlohmann::ordered_json out = nlohmann::json::array();
        for (int i : picked) out.push_back(SpringJson(av, i));
        std::printf("%s\n", out.dump(2).c_str());
      } else {
        PrintTable(av, picked);
      }
      return;
    }
    nlohmann::ordered_json rep = {{"avatar", o->avatar}, {"output", o->out}};
    std::vector<std::string> changes;
    if (o->max_stretch && !o->automatic)
      return fail("--max-stretch is --auto's budget: add --auto");
    if (!o->arc_setting.empty() && !o->automatic)
      return fail("--arc-setting is the setting --auto tunes for: add --auto");
    if (o->undo) {
      if (Status st = UndoTune(av); !st.ok()) return fail(o->avatar + ": " + st.message());
      changes.push_back("restored every spring from before the first tune");
    } else if (o->automatic) {
      if (!o->max_stretch) return fail("--auto needs a budget: --max-stretch PCT");
      if (o->stiffness || o->drag || o->gravity_power || o->hit_radius || !o->gravity_dir.empty() ||
          !o->limit.empty() || !o->preset.empty() || o->scale)
        return fail(
            "--auto chooses stiffness and root cones itself; only --chain, --max-flip, "
            "--solver and --arc-setting combine with it");
      AutoTuneOptions ao;
      ao.max_stretch_pct = *o->max_stretch;
      ao.max_flip_deg = o->max_flip.value_or(0.0f);
      SolverMode mode;
      ParseSolverMode(o->solver, &mode);
      ao.mode = mode;
      if (!o->arc_setting.empty()) {
        if (mode != SolverMode::kArc)
          return fail("--arc-setting is a setting of the arc solver: drop it or use --solver arc");
        ao.arc_setting = o->arc_setting;
      }
      ao.suite_file = o->suite_clips;
      ao.suite_seconds = o->suite_seconds;
      ao.progress = !o->json && isatty(2);
      auto r = AutoTune(av, picked, ao);
      if (!r.ok()) return fail(o->avatar + ": --auto: " + r.status().message());
      nlohmann::ordered_json rows = nlohmann::json::array();
      for (const AutoChoice& c : r->choices) {
        rows.push_back({{"spring", c.name},
                        {"stiffness_factor", Decimal(c.factor)},
                        {"root_cone_deg", Decimal(c.root_cone_deg)},
                        {"excess_p99_before_pct", Decimal(static_cast<float>(c.excess_before_pct))},
                        {"excess_p99_after_pct", Decimal(static_cast<float>(c.excess_after_pct))},
                        {"worst_motion_before", c.worst_motion_before},
                        {"worst_motion_after", c.worst_motion_after},
                        {"swing_rms_before_mm", Decimal(static_cast<float>(c.swing_before_mm))},
                        {"swing_rms_after_mm", Decimal(static_cast<float>(c.swing_after_mm))},
                        {"flip_before_deg", Decimal(static_cast<float>(c.flip_before_deg))},
                        {"flip_after_deg", Decimal(static_cast<float>(c.flip_after_deg))},
                        {"measured", c.measured},
                        {"met", c.met},
                        {"why", c.why},
                        {"trials", [&] {
                           nlohmann::ordered_json t = nlohmann::json::array();
                           for (const AutoTrial& x : c.trials)
                             t.push_back(
                                 {{"stiffness_factor", Decimal(x.factor)},
                                  {"root_cone_deg", Decimal(x.root_cone_deg)},
                                  {"excess_p99_pct", Decimal(static_cast<float>(x.excess_pct))},
                                  {"worst_motion", x.worst_motion},
                                  {"swing_rms_mm", Decimal(static_cast<float>(x.swing_mm))}});
                           return t;
                         }()}});
        changes.push_back(c.name + ": " + c.why);
      }
      rep["auto"] = {{"solver", o->solver},
                     {"arc_setting", mode == SolverMode::kArc ? ao.arc_setting : ""},
                     {"max_stretch_pct", *o->max_stretch},
                     {"motions", r->motions},
                     {"note", r->note},
                     {"rounds", r->rounds},
                     {"seconds", Decimal(static_cast<float>(r->seconds))},
                     {"all_met", std::all_of(r->choices.begin(), r->choices.end(),
                                             [](const AutoChoice& c) { return c.met; })},
                     {"chains", rows}};
      if (!o->json) {
        std::printf(
            "auto-tune (%s solver, budget %.3g %% p99 excess per chain; %d rounds over %zu "
            "motions, %.1f s)\n",
            o->solver.c_str(), *o->max_stretch, r->rounds, r->motions.size(), r->seconds);
        if (!r->note.empty()) std::printf("note: %s\n", r->note.c_str());
        std::printf("%-24s %8s %6s %17s %17s %13s  %s\n", "spring", "stiff x", "cone",
                    "excess % before", "after", "swing mm", "flip deg");
        for (const AutoChoice& c : r->choices)
          std::printf("%-24s %8.3g %6s %17.1f %17.1f %6.1f->%-6.1f %5.0f->%-5.0f%s\n",
                      OneLine(c.name).c_str(), c.factor,
                      c.root_cone_deg > 0
                          ? (std::to_string(static_cast<int>(c.root_cone_deg + 0.5f)) + "d").c_str()
                          : "-",
                      c.excess_before_pct, c.excess_after_pct, c.swing_before_mm, c.swing_after_mm,
                      c.flip_before_deg, c.flip_after_deg, c.met ? "" : "  NOT MET");
      }
    } else {
      if (picked.empty()) return fail("name the springs to change: --chain NAME or --all");
      TuneSettings s;
      if (!o->preset.empty()) {
        auto p = FindPreset(o->preset);
        if (!p.ok()) return fail("--preset: " + p.status().message());
        if (o->scale) return fail("--scale does not combine with --preset (it sets values)");
        s = p->settings;
        changes.push_back("preset " + p->name + ": " + p->description);
      }
      if (o->stiffness) s.stiffness = o->stiffness;
      if (o->drag) s.drag_force = o->drag;
      if (o->gravity_power) s.gravity_power = o->gravity_power;
      if (o->hit_radius) s.hit_radius = o->hit_radius;
      if (o->max_flip) {
        s.max_flip_deg = o->max_flip;
        s.limit.reset();
      }
      s.multiply = o->scale;
      s.limit_root_only = o->root_only;
      if (!o->gravity_dir.empty())
        s.gravity_dir = glm::vec3(o->gravity_dir[0], o->gravity_dir[1], o->gravity_dir[2]);
      if (!o->limit.empty()) {
        if (o->max_flip) return fail("give --limit or --max-flip, not both");
        auto l = ParseLimit(o->limit);
        if (!l.ok()) return fail("--limit: " + l.status().message());
        s.limit = l.value();
        s.max_flip_deg.reset();
      }
      if (!s.stiffness && !s.drag_force && !s.gravity_power && !s.hit_radius && !s.gravity_dir &&
          !s.limit && !s.max_flip_deg)
        return fail(
            "nothing to change: give --preset, --stiffness, --drag, --gravity-power, "
            "--gravity-dir, --hit-radius or --limit (or --list to see the settings)");
      if (s.multiply && s.gravity_dir) return fail("--scale does not apply to --gravity-dir");
      auto r = TuneSprings(av, picked, s);
      if (!r.ok()) return fail(o->avatar + ": " + r.status().message());
      changes.insert(changes.end(), r->changes.begin(), r->changes.end());
    }
    Status st = SaveWithVersion(av, o->out, o->force, o->vrm_version);
    if (!st.ok()) return fail(st.message());
    rep["changes"] = changes;
    nlohmann::ordered_json springs = nlohmann::json::array();
    for (int i : picked) springs.push_back(SpringJson(av, i));
    rep["springs"] = springs;
    if (!o->report.empty())
      if (Status rs = WriteFileAtomic(o->report, rep.dump(2) + "\n", o->force); !rs.ok())
        return fail(rs.message());
    if (o->json) {
      std::printf("%s\n", rep.dump(2).c_str());
    } else {
      for (const std::string& c : changes) std::printf("  %s\n", OneLine(c).c_str());
      std::printf("wrote %s\n", o->out.c_str());
    }
    // --auto that could not bring every chain within the budget: the file is written (the best
    // found), and the exit code says the check failed.
    if (rep.contains("auto") && !rep["auto"]["all_met"].get<bool>()) exit_code = kExitFailure;
  });
}

}  // namespace hairswing::cli
