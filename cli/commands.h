// Each subcommand registers itself on the CLI11 app and returns a callback result holder.
#pragma once

#include <CLI/CLI.hpp>

namespace hairswing::cli {

// Exit codes shared by every subcommand.
constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;   ///< the work ran but a check failed
constexpr int kExitBadInput = 2;  ///< unreadable or invalid input, bad arguments

void AddInspect(CLI::App& app, int& exit_code);
void AddConvert(CLI::App& app, int& exit_code);
void AddMakeDemoAvatar(CLI::App& app, int& exit_code);
void AddRender(CLI::App& app, int& exit_code);
void AddMeasure(CLI::App& app, int& exit_code);
void AddDemo(CLI::App& app, int& exit_code);
void AddValidateClips(CLI::App& app, int& exit_code);
void AddRetarget(CLI::App& app, int& exit_code);
void AddFit(CLI::App& app, int& exit_code);

}  // namespace hairswing::cli
