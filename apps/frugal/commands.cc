#include "commands.h"

namespace frugal::cli {

void RegisterCommands(CLI::App& app, GlobalOptions& global, Action& action) {
  (void)app;
  (void)global;
  (void)action;
}

}  // namespace frugal::cli
