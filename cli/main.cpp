// hairswing: command-line front end over the library. One file per subcommand.
#include <algorithm>
#include <cstdio>
#include <new>
#include <string>
#include <vector>

#include "commands.h"
#include "hairswing/names.h"

namespace {

// The closest of `names` to `typed`, if it is close enough to be a typo ("" otherwise).
std::string Nearest(const std::string& typed, const std::vector<std::string>& names) {
  std::string best;
  size_t best_d = std::max<size_t>(2, typed.size() / 3) + 1;
  for (const std::string& n : names)
    if (const size_t d = hairswing::EditDistance(typed, n); d < best_d) best = n, best_d = d;
  return best;
}

// CLI11's own argument errors as one `error:` line naming what was typed, with the nearest
// command or option when the word looks like a typo of one.
std::string ArgumentError(const CLI::App& app, const CLI::ParseError& e, int argc, char** argv) {
  std::string msg = hairswing::OneLine(e.what());
  const CLI::App* cmd = &app;
  for (const CLI::App* sub : app.get_subcommands()) cmd = sub;
  std::vector<std::string> names;
  std::string typed;
  if (cmd == &app) {  // no command recognised: the first word is the mistyped command
    for (const CLI::App* sub : app.get_subcommands({})) names.push_back(sub->get_name());
    if (argc > 1 && argv[1][0] != '-') {
      typed = argv[1];
      msg = "unknown command '" + typed + "'";
    }
  } else {
    for (const CLI::Option* opt : cmd->get_options())
      for (const std::string& n : opt->get_lnames()) names.push_back("--" + n);
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      if (a.rfind("--", 0) == 0 && msg.find(a.substr(0, a.find('='))) != std::string::npos) {
        typed = a.substr(0, a.find('='));
        break;
      }
    }
  }
  if (cmd != &app && !typed.empty() && msg.find("not expected") != std::string::npos)
    msg = "unknown option '" + typed + "' for '" + cmd->get_name() + "'";
  if (!typed.empty())
    if (const std::string near = Nearest(typed, names); !near.empty() && near != typed)
      msg += "; did you mean '" + near + "'?";
  const std::string help =
      cmd == &app ? std::string("hairswing --help") : "hairswing " + cmd->get_name() + " --help";
  return "error: " + msg + " (see " + help + ")";
}

}  // namespace

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
  hairswing::cli::AddTune(app, exit_code);
  hairswing::cli::AddCheck(app, exit_code);
  hairswing::cli::AddHash(app, exit_code);
  hairswing::cli::AddBake(app, exit_code);
  hairswing::cli::AddBatch(app, exit_code);
  hairswing::cli::AddView(app, exit_code);
  hairswing::cli::AddWear(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "%s\n", ArgumentError(app, e, argc, argv).c_str());
    return hairswing::cli::kExitBadInput;
  } catch (const std::bad_alloc&) {
    // Anywhere in a command (a file that claims gigabytes, a huge request): one line, exit 2.
    std::fprintf(stderr, "error: out of memory (the input asks for more than this machine has)\n");
    return hairswing::cli::kExitBadInput;
  } catch (const std::length_error& e) {
    std::fprintf(stderr, "error: out of memory (%s)\n", e.what());
    return hairswing::cli::kExitBadInput;
  }
  return exit_code;
}
