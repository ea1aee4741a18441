// hairswing convert IN -o OUT.vrm|OUT.glb: load and write back; VRM 0.x becomes VRM 1.0 (unless
// --vrm-version 0).
#include <cstdio>

#include "commands.h"
#include "hairswing/io.h"

namespace hairswing::cli {

void AddConvert(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "convert",
      "Load an avatar and write it as VRM 1.0 (.vrm) or binary glTF (.glb). VRM 0.x input is "
      "converted: axes turned to face +Z, springs and colliders rewritten as VRMC_springBone "
      "(virtual 7 cm tails become end nodes), blend shapes as expressions, firstPerson as lookAt "
      "and first-person annotations, MToon 0.x as VRMC_materials_mtoon 1.0, meta and licence "
      "fields mapped (docs/compat.md). A plain glTF character written as .vrm takes its VRM "
      "humanoid from its bone names (Quaternius, UAL/Rigify, Mixamo, Ready Player Me, UE "
      "mannequin, VRoid; docs/animation.md) when they name every required bone, and says so; "
      "otherwise the error names the missing bones (.glb needs none). --vrm-version 0 writes VRM "
      "0.x input back as VRM 0.x. The write is atomic; an existing output (or the input itself) "
      "is only replaced with --force.");
  struct Opts {
    std::string in, out, vrm_version = "1";
    bool force = false;
  };
  auto opts = std::make_shared<Opts>();
  cmd->add_option("IN", opts->in, "input .vrm, .glb or .gltf")->required();
  cmd->add_option("-o,--output", opts->out, "output file ending in .vrm or .glb")->required();
  cmd->add_flag("--force", opts->force, "overwrite an existing output file");
  cmd->add_option("--vrm-version", opts->vrm_version,
                  "1 (default): VRM 1.0; 0: VRM 0.x, only for VRM 0.x input")
      ->check(CLI::IsMember({"0", "1"}));
  cmd->callback([opts, &exit_code] {
    auto loaded = LoadOrReport(opts->in);
    if (!loaded) {
      exit_code = kExitBadInput;
      return;
    }
    for (const auto& w : loaded->warnings)
      std::fprintf(stderr, "warning: %s\n", OneLine(w).c_str());
    Status st = SaveWithVersion(loaded->avatar, opts->out, opts->force, opts->vrm_version);
    if (!st.ok()) {
      std::fprintf(stderr, "error: %s\n", st.message().c_str());
      exit_code = kExitBadInput;
      return;
    }
    std::printf("wrote %s\n", opts->out.c_str());
  });
}

}  // namespace hairswing::cli
