// hairswing: command-line front end over the library. One file per subcommand.
#include <cstdio>

#include "commands.h"

int main(int argc, char** argv) {
  CLI::App app{
      "hairswing - hair that swings and settles, for VRM and glTF avatars.\n"
      "Reads .vrm (0.x and 1.0), .glb and .gltf; writes VRM 1.0 / GLB.\n"
      "Exit codes: 0 success, 1 a check failed, 2 bad input or arguments."};
  app.require_subcommand(1);
  app.set_version_flag("--version", "hairswing 0.1.0");
  int exit_code = hairswing::cli::kExitOk;
  hairswing::cli::AddInspect(app, exit_code);
  hairswing::cli::AddConvert(app, exit_code);
  hairswing::cli::AddMakeDemoAvatar(app, exit_code);
  hairswing::cli::AddRender(app, exit_code);
  hairswing::cli::AddMeasure(app, exit_code);
  hairswing::cli::AddDemo(app, exit_code);
  hairswing::cli::AddRetarget(app, exit_code);
  hairswing::cli::AddValidateClips(app, exit_code);
  hairswing::cli::AddFit(app, exit_code);
  hairswing::cli::AddCheck(app, exit_code);
  hairswing::cli::AddHash(app, exit_code);
  hairswing::cli::AddBake(app, exit_code);
  hairswing::cli::AddBatch(app, exit_code);
  hairswing::cli::AddView(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return hairswing::cli::kExitBadInput;
  }
  return exit_code;
}
