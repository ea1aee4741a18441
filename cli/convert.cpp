// hairswing convert IN -o OUT.vrm|OUT.glb: load and write back; VRM 0.x becomes VRM 1.0.
#include <cstdio>

#include "commands.h"
#include "hairswing/io.h"

namespace hairswing::cli {

void AddConvert(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "convert",
      "Load an avatar and write it as VRM 1.0 (.vrm) or binary glTF (.glb). VRM 0.x input is "
      "converted: axes turned to face +Z, springs and colliders rewritten as VRMC_springBone "
      "(virtual 7 cm tails become end nodes). The write is atomic; an existing output (or the "
      "input itself) is only replaced with --force.");
  struct Opts {
    std::string in, out;
    bool force = false;
  };
  auto opts = std::make_shared<Opts>();
  cmd->add_option("IN", opts->in, "input .vrm, .glb or .gltf")->required();
  cmd->add_option("-o,--output", opts->out, "output file ending in .vrm or .glb")->required();
  cmd->add_flag("--force", opts->force, "overwrite an existing output file");
  cmd->callback([opts, &exit_code] {
    auto loaded = LoadOrReport(opts->in);
    if (!loaded) {
      exit_code = kExitBadInput;
      return;
    }
    for (const auto& w : loaded->warnings)
      std::fprintf(stderr, "warning: %s\n", OneLine(w).c_str());
    Status st = SaveAvatar(loaded->avatar, opts->out, {opts->force});
    if (!st.ok()) {
      std::fprintf(stderr, "error: %s\n", st.message().c_str());
      exit_code = kExitBadInput;
      return;
    }
    std::printf("wrote %s\n", opts->out.c_str());
  });
}

}  // namespace hairswing::cli
