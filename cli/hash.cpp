// hairswing hash AVATAR [--solver arc|parent|vrm] [--fps N]: the determinism fingerprint.
#include <cstdio>

#include "commands.h"
#include "hairswing/anim.h"

namespace hairswing::cli {

void AddHash(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "hash",
      "Print the solver's state hash (16 hex digits, FNV-1a of every spring tail position and "
      "velocity) after the 12 s standard head-turn, driven clip-wise in caller frames of 1/FPS s. "
      "Fixed 1/120 s steps make it the same at every frame rate; the same code gives the same "
      "hash on every machine and build, so two builds (or the WebAssembly one) can be compared "
      "with it.");
  struct Opts {
    std::string in, solver = "arc";
    int fps = 60;
  };
  auto opts = std::make_shared<Opts>();
  cmd->add_option("AVATAR", opts->in, "avatar (.vrm/.glb/.gltf) with a humanoid head and springs")
      ->required();
  cmd->add_option("--solver", opts->solver, "arc (default), parent or vrm")
      ->check(CLI::IsMember({"arc", "parent", "vrm"}));
  cmd->add_option("--fps", opts->fps, "caller frames per second (the hash does not depend on it)")
      ->check(CLI::Range(10, 1000));
  cmd->callback([opts, &exit_code] {
    auto loaded = LoadOrReport(opts->in);
    if (!loaded) {
      exit_code = kExitBadInput;
      return;
    }
    SolverMode mode = SolverMode::kArc;
    ParseSolverMode(opts->solver, &mode);
    auto h = HeadTurnHash(loaded->avatar, mode, opts->fps);
    if (!h.ok()) {
      std::fprintf(stderr, "error: %s: %s\n", OneLine(opts->in).c_str(),
                   h.status().message().c_str());
      exit_code = kExitBadInput;
      return;
    }
    std::printf("%016llx\n", static_cast<unsigned long long>(*h));
  });
}

}  // namespace hairswing::cli
