#pragma once
// Every command of the CLI. Each lives in its own <name>_command.cc exposing Register.

#include <string_view>
#include <vector>

#include "app.h"

namespace frugal::cli {

/// A top-level command: its name and the function that adds it, its subcommands and options.
struct Command {
  std::string_view name;
  void (*add)(CLI::App& app, GlobalOptions& global, Action& action);
};
/// Every command, in the order `frugal --help` lists them.
const std::vector<Command>& Commands();

/// Adds the command named `word` alone when it names one (building the other commands' options
/// is start-up time spent for nothing, bench/startup); every command otherwise, so that help
/// lists them all and CLI11 names a word that is none of them.
void RegisterCommands(CLI::App& app, GlobalOptions& global, Action& action,
                      std::string_view word = {});

// One per command file.
void RegisterCatalog(CLI::App& app, GlobalOptions& global, Action& action);
void RegisterLedger(CLI::App& app, GlobalOptions& global, Action& action);
void RegisterReport(CLI::App& app, GlobalOptions& global, Action& action);
void RegisterRuns(CLI::App& app, GlobalOptions& global, Action& action);
void RegisterSimulate(CLI::App& app, GlobalOptions& global, Action& action);
void RegisterEstimate(CLI::App& app, GlobalOptions& global, Action& action);
void RegisterPlan(CLI::App& app, GlobalOptions& global, Action& action);
void RegisterRun(CLI::App& app, GlobalOptions& global, Action& action);
void RegisterTune(CLI::App& app, GlobalOptions& global, Action& action);
void RegisterDrill(CLI::App& app, GlobalOptions& global, Action& action);
void RegisterAudit(CLI::App& app, GlobalOptions& global, Action& action);
void RegisterPolicy(CLI::App& app, GlobalOptions& global, Action& action);
void RegisterTco(CLI::App& app, GlobalOptions& global, Action& action);
void RegisterServe(CLI::App& app, GlobalOptions& global, Action& action);
void RegisterCommit(CLI::App& app, GlobalOptions& global, Action& action);
void RegisterProfile(CLI::App& app, GlobalOptions& global, Action& action);
void RegisterQueue(CLI::App& app, GlobalOptions& global, Action& action);
/// The live queue's subcommands, under `queue` (queue_live_command.cc).
void RegisterQueueLive(CLI::App& queue_cmd, GlobalOptions& global, Action& action);

}  // namespace frugal::cli
