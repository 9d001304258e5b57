#include "commands.h"

namespace frugal::cli {

void RegisterCommands(CLI::App& app, GlobalOptions& global, Action& action) {
  RegisterCatalog(app, global, action);
  RegisterRun(app, global, action);
}

}  // namespace frugal::cli
