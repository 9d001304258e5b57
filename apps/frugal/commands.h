#pragma once
// Every command of the CLI. Each lives in its own <name>_command.cc exposing Register.

#include "app.h"

namespace frugal::cli {

void RegisterCommands(CLI::App& app, GlobalOptions& global, Action& action);

// One per command file.
void RegisterTune(CLI::App& app, GlobalOptions& global, Action& action);


}  // namespace frugal::cli
