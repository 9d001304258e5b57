#pragma once
// Every command of the CLI. Each lives in its own <name>_command.cc exposing Register.

#include "app.h"

namespace frugal::cli {

void RegisterCommands(CLI::App& app, GlobalOptions& global, Action& action);

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
