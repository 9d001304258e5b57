#include "commands.h"

#include <algorithm>

namespace frugal::cli {

const std::vector<Command>& Commands() {
  // In the order `frugal --help` lists them.
  static const std::vector<Command> kCommands = {
      {"catalog", RegisterCatalog}, {"runs", RegisterRuns},         {"report", RegisterReport},
      {"ledger", RegisterLedger},   {"simulate", RegisterSimulate}, {"estimate", RegisterEstimate},
      {"plan", RegisterPlan},       {"run", RegisterRun},           {"tune", RegisterTune},
      {"drill", RegisterDrill},     {"audit", RegisterAudit},       {"policy", RegisterPolicy},
      {"tco", RegisterTco},         {"serve", RegisterServe},       {"commit", RegisterCommit},
      {"profile", RegisterProfile}, {"queue", RegisterQueue},
  };
  return kCommands;
}

void RegisterCommands(CLI::App& app, GlobalOptions& global, Action& action, std::string_view word) {
  const std::vector<Command>& commands = Commands();
  const auto named = std::find_if(commands.begin(), commands.end(),
                                  [&](const Command& c) { return c.name == word; });
  if (named != commands.end()) {
    named->add(app, global, action);
    return;
  }
  for (const Command& c : commands) c.add(app, global, action);
}

}  // namespace frugal::cli
