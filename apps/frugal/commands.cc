#include "commands.h"

namespace frugal::cli {

void RegisterCommands(CLI::App& app, GlobalOptions& global, Action& action) {
  RegisterTune(app, global, action);
}

}  // namespace frugal::cli
