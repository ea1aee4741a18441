// hairswing demo: the main job. Makes both demo avatars, measures the head-turn with every solver
// and frame rate (and godette from ../shared/data when present), prints the comparison and
// writes one HTML report.
#include "hairswing/demo.h"

#include <cstdio>
#include <filesystem>

#include "commands.h"
#include "hairswing/io.h"
#include "report.h"

namespace hairswing::cli {

void AddDemo(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "demo",
      "The main job: write the built-in demo avatars (ponytail, layered), measure the standard "
      "head-turn on them with the arc, parent and vrm solvers at 30/60/120 fps (also on "
      "../shared/data/avatars/godette.vrm when present) and a stiffness sweep, print the "
      "article's before/after table (the usual solver vs arc: stretch with swing and curl beside "
      "it, and a verdict in words), then each avatar's full table, and write an HTML report with "
      "the same tables and plots.");
  struct Opts {
    std::string out = "out", shared = SharedDataDir();
    MeasureFlags flags;
  };
  auto o = std::make_shared<Opts>();
  o->flags.match_swing = true;  // the equal-swing comparison, and out/ is the demo's own folder
  o->flags.force = true;
  cmd->add_option("--out", o->out, "output folder")->capture_default_str();
  cmd->add_option("--shared-data", o->shared,
                  "folder holding avatars/godette.vrm (default: $HAIRSWING_DATA, else the "
                  "source tree's ../shared/data)")
      ->capture_default_str();
  AddArcOptions(*cmd, o->flags);
  cmd->callback([o, &exit_code] {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::create_directories(o->out, ec);
    std::vector<std::string> files;
    for (DemoVariant v : {DemoVariant::kPonytail, DemoVariant::kLayered}) {
      const std::string path = o->out + "/demo-" + DemoVariantName(v) + ".vrm";
      Status st = SaveAvatar(MakeDemoAvatar(v), path, {true});
      if (!st.ok()) {
        std::fprintf(stderr, "error: %s\n", st.message().c_str());
        exit_code = kExitFailure;
        return;
      }
      std::printf("wrote %s\n", path.c_str());
      files.push_back(path);
    }
    const std::string godette = o->shared + "/avatars/godette.vrm";
    if (fs::exists(godette))
      files.push_back(godette);
    else
      std::printf("note: %s not found; measuring the demo avatars only\n", godette.c_str());
    std::vector<MeasureReport> reports;
    std::vector<SuiteResults> sweeps;
    std::printf(
        "measuring the head-turn on %zu avatars (arc, parent, vrm at 30/60/120 fps, then "
        "a stiffness sweep)...\n",
        files.size());
    for (const auto& f : files) {
      MeasureReport rep;
      const std::string stem = fs::path(f).stem().string();
      // Demo avatars: also after collider fitting (the before/after occlusion).
      const bool demo_avatar = stem.rfind("demo-", 0) == 0;
      // With the stretch/swing/curl curve: every solver's stiffness scaled.
      MeasureFlags flags = o->flags;
      flags.sweep = {0.5f, 0.71f, 1.0f, 1.41f, 2.0f};
      SuiteResults sweep;
      int rc =
          RunMeasure(f, "arc,parent,vrm", "30,60,120", "", o->out + "/measure-" + stem + ".json",
                     "", true, &rep, "head-turn", "", 12.0, demo_avatar, flags, &sweep);
      if (rc != kExitOk) {
        exit_code = rc;
        return;
      }
      reports.push_back(std::move(rep));
      sweeps.push_back(std::move(sweep));
    }
    // The article's table first, then each avatar's full table.
    std::printf("\n%s", ArticleTableText(reports).c_str());
    for (const MeasureReport& rep : reports) {
      std::printf("\n");
      PrintMeasureTable(rep);
    }
    std::string intro = ArticleTableHtml(reports);
    for (size_t i = 0; i < reports.size(); ++i)
      if (!sweeps[i].sweep.empty())
        intro += SuiteHtml(sweeps[i], fs::path(reports[i].avatar).filename().string());
    const std::string report = o->out + "/report.html";
    Status st = WriteHtmlReport(reports, report, /*force=*/true, intro);  // out/demo is ours
    if (!st.ok()) {
      std::fprintf(stderr, "error: %s\n", st.message().c_str());
      exit_code = kExitFailure;
      return;
    }
    std::printf("\nreport: %s\n", fs::absolute(report).string().c_str());
  });
}

}  // namespace hairswing::cli
