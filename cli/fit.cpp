// hairswing fit AVATAR --hair SELECTOR -o OUT.vrm: the selected-clump hair-chain fitter.
#include "hairswing/fit.h"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "hairswing/files.h"
#include "hairswing/io.h"
#include "root_ramp.h"

namespace hairswing::cli {

void AddFit(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "fit",
      "Fit spring chains to selected hair: erase its skin weights, find where it meets the head, "
      "walk "
      "the connected hair surface outward, place N joints along its centre line, skin it smoothly "
      "with a pinned band at the root, and add a VRM 1.0 spring per clump. Pieces that cannot hang "
      "(a "
      "bun, a scalp cap: reaching less than --min-hang from the head, or whose centre line would "
      "leave "
      "them) stay rigid on the head and are reported. --colliders also fits the colliders. --undo "
      "restores a fitted file exactly.");
  struct Opts {
    std::string avatar, hair, wear, out, attach = "head", report, vrm_version, root_ramp = "1";
    int joints = 6;
    FitOptions fit;
    bool undo = false, force = false, colliders = false, reweight = false;
    float reweight_segments = 1.0f;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("AVATAR", o->avatar, "avatar (.vrm/.glb/.gltf)")->required();
  cmd->add_option("--hair", o->hair, "MESH, MESH/INDEX or material:NAME");
  cmd->add_option("--wear", o->wear,
                  "a separate hair file skinned to the same armature (joints matched by name) to "
                  "put on first; an unrigged hairstyle or one from another character: hairswing "
                  "wear");
  cmd->add_option("--joints", o->joints, "joints per chain at most, tip included")
      ->check(CLI::Range(2, 64))
      ->capture_default_str();
  cmd->add_option("--segment-length", o->fit.segment_length,
                  "metres per segment at human scale (1.7 m): a clump gets length / this + 1 "
                  "joints, 3 to --joints")
      ->check(FiniteRange(0.01, 1.0))
      ->capture_default_str();
  cmd->add_option("--root-ramp", o->root_ramp,
                  "segments over which the head's weight fades after the pinned band; wider "
                  "spreads the root bend (less stretch in every runtime) and lets the head carry "
                  "more of the hair (less of it swings). auto: fit with 1, 1.25, 1.5, 1.75 and 2, "
                  "measure each (the head-turn at 60 fps) and keep the one with the least excess "
                  "stretch in vrm mode whose mesh swings at least 0.8x as far as with 1, in vrm "
                  "mode and in arc's follow setting")
      ->check(CLI::IsMember({"auto"}) | FiniteRange(0.25, 4.0))
      ->capture_default_str();
  cmd->add_option("--min-hang", o->fit.min_hang_length,
                  "metres at human scale: a clump that reaches less far from where it meets the "
                  "head stays rigid")
      ->check(FiniteRange(0.0, 1.0))
      ->capture_default_str();
  cmd->add_option("--max-flip", o->fit.max_flip_deg,
                  "degrees: cone angle limits on each new chain's joints keep its root-to-tip "
                  "chord within this of its rest direction (hair cannot be thrown over the head); "
                  "0 = no limits")
      ->check(FiniteRange(0.0, 180.0))
      ->capture_default_str();
  cmd->add_option("--attach", o->attach, "humanoid bone the hair hangs from")
      ->capture_default_str();
  cmd->add_option("-o,--output", o->out, "output .vrm or .glb")->required();
  cmd->add_option("--report", o->report, "write the list of changes as JSON");
  cmd->add_flag("--colliders", o->colliders,
                "also run the collider fitter (grow proxies to the visible body and "
                "clothing, add a torso capsule if the trunk is uncovered, whole-link checks "
                "for long front chains)");
  cmd->add_flag("--reweight-roots", o->reweight,
                "widen each chain's head-to-first-joint skin blend that is narrower than its first "
                "segment to one segment (--reweight-segments), reported per chain (after --hair "
                "when both are given); "
                "spreads the root bend so every runtime stretches the mesh less there; the head "
                "then carries part of the hair, which swings less (the report gives that share "
                "per chain); undone bit for bit by --undo");
  cmd->add_option("--reweight-segments", o->reweight_segments,
                  "with --reweight-roots: the blend's width in first-segment lengths")
      ->check(CLI::Range(0.25f, 4.0f))
      ->capture_default_str();
  cmd->add_flag("--undo", o->undo, "restore what an earlier fit changed in AVATAR");
  cmd->add_flag("--force", o->force, "overwrite an existing output");
  AddVrmVersion(cmd, o->vrm_version);
  cmd->callback([o, &exit_code] {
    // Both outputs are checked before any work, so a refused --report leaves no avatar behind.
    if (!OutputsWritable({o->out, o->report}, o->force)) {
      exit_code = kExitBadInput;
      return;
    }
    std::optional<Avatar> loaded = LoadAvatarOrExit(o->avatar, exit_code);
    if (!loaded) return;
    Avatar av = std::move(*loaded);
    nlohmann::ordered_json rep = {{"avatar", o->avatar},
                                  {"changes", nlohmann::json::array()},
                                  {"warnings", nlohmann::json::array()}};
    auto fail = [&](const std::string& m) {
      std::fprintf(stderr, "error: %s: %s\n", o->avatar.c_str(), m.c_str());
      exit_code = kExitBadInput;
    };
    if (o->undo) {
      Status st = UndoFit(av);
      if (!st.ok()) return fail(st.message());
      rep["changes"].push_back("restored the settings from before the fit");
    } else {
      if (o->hair.empty() && !o->colliders && !o->reweight)
        return fail(
            "--hair (MESH, MESH/INDEX or material:NAME), --colliders or --reweight-roots is "
            "required");
      if (!o->wear.empty()) {
        auto hair = LoadAvatar(o->wear);
        if (!hair.ok()) return fail(hair.status().message());
        std::vector<std::string> warnings;
        auto added = WearHair(av, hair->avatar, &warnings);
        if (!added.ok()) return fail("--wear " + o->wear + ": " + added.status().message());
        for (const auto& w : warnings) rep["warnings"].push_back(w);
        for (const auto& m : added.value())
          rep["changes"].push_back("wore mesh \"" + m + "\" from " + o->wear);
      }
      const bool auto_ramp = o->root_ramp == "auto";
      if (auto_ramp && o->hair.empty()) return fail("--root-ramp auto needs --hair");
      if (!auto_ramp) o->fit.root_ramp_segments = std::stof(o->root_ramp);
      if (!o->hair.empty()) {
        auto sel = SelectHair(av, o->hair);
        if (!sel.ok()) return fail("--hair: " + sel.status().message());
        FitOptions opt = o->fit;
        opt.joints = o->joints;
        opt.attach = o->attach;
        if (auto_ramp) {
          auto chosen = ChooseRootRamp(av, sel.value(), opt, [](const std::string& line) {
            std::printf("  %s\n", line.c_str());
            std::fflush(stdout);
          });
          if (!chosen.ok()) return fail("--root-ramp auto: " + chosen.status().message());
          opt.root_ramp_segments = chosen->ramp;
          rep["root_ramp_auto"] = chosen->report;
          rep["changes"].push_back(chosen->summary);
        }
        auto fit = FitHairChains(av, sel.value(), opt);
        if (!fit.ok())
          return fail(fit.status().message() +
                      (fit.status().message().find("undo that fit") != std::string::npos
                           ? " (hairswing fit --undo)"
                           : ""));
        for (const auto& c : fit->changes) rep["changes"].push_back(c);
        for (const auto& c : fit->rigid) rep["changes"].push_back(c);
        for (const auto& w : fit->warnings) rep["warnings"].push_back(w);
        rep["chains"] = fit->chains;
        rep["rigid_clumps"] = fit->rigid.size();
      }
      if (o->reweight) {
        ReweightOptions ro;
        ro.blend_segments = o->reweight_segments;
        auto rw = ReweightRoots(av, ro);
        if (!rw.ok()) return fail(rw.status().message());
        for (const auto& c : rw->changes) rep["changes"].push_back("re-weight " + c);
        nlohmann::ordered_json chains = nlohmann::json::array();
        for (const auto& c : rw->chains)
          chains.push_back({{"chain", c.name},
                            {"blend_mm", 1000.0 * c.blend_m},
                            {"target_mm", 1000.0 * c.target_m},
                            {"vertices", c.vertices},
                            {"skipped", c.skipped},
                            {"root_cost_pct_per_deg_before", c.cost_before},
                            {"root_cost_pct_per_deg_after", c.cost_after},
                            {"joint_cost_pct_per_deg", c.joint_cost},
                            {"head_share_before", c.head_share_before},
                            {"head_share_after", c.head_share_after}});
        rep["reweight"] = chains;
      }
      if (o->colliders) {
        auto cf = FitColliders(av);
        if (!cf.ok())
          return fail(cf.status().message() +
                      (cf.status().message().find("undo that fit") != std::string::npos
                           ? " (hairswing fit --undo)"
                           : ""));
        for (const auto& c : cf->changes) rep["changes"].push_back(c);
        for (const auto& w : cf->warnings) rep["warnings"].push_back(w);
      }
    }
    Status st = SaveWithVersion(av, o->out, o->force, o->vrm_version);
    if (!st.ok()) return fail(st.message());
    for (const auto& c : rep["changes"])
      std::printf("  %s\n", OneLine(c.get<std::string>()).c_str());
    for (const auto& w : rep["warnings"])
      std::printf("  warning: %s\n", OneLine(w.get<std::string>()).c_str());
    if (!o->report.empty())
      if (Status rs = WriteFileAtomic(o->report, rep.dump(2) + "\n", o->force); !rs.ok()) {
        std::fprintf(stderr, "error: %s\n", rs.message().c_str());
        exit_code = kExitBadInput;
        return;
      }
    // A .vrm must face +Z (VRM 1.0) to show the right way round in other VRM apps; a glTF
    // exported facing -Z keeps its axes here (nothing is turned behind the user's back).
    if (const float deg = AvatarFacingDeg(av);
        WritesAsVrm(av) && std::isfinite(deg) && std::fabs(deg) > 1.0f)
      std::printf(
          "  note: the avatar faces %.0f degrees off +Z (from its upper legs); VRM 1.0 avatars "
          "face +Z, so other VRM apps show it turned (hairswing takes its facing from the "
          "humanoid)\n",
          std::fabs(deg));
    std::printf("wrote %s\n", o->out.c_str());
  });
}

}  // namespace hairswing::cli
