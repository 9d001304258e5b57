#include "commands.h"

namespace frugal::cli {

void RegisterCommands(CLI::App& app, GlobalOptions& global, Action& action) {
  RegisterCatalog(app, global, action);
  RegisterRuns(app, global, action);
  RegisterReport(app, global, action);
  RegisterLedger(app, global, action);
  RegisterSimulate(app, global, action);
  RegisterEstimate(app, global, action);
  RegisterPlan(app, global, action);
  RegisterRun(app, global, action);
  RegisterTune(app, global, action);
  RegisterDrill(app, global, action);
  RegisterAudit(app, global, action);
  RegisterPolicy(app, global, action);
  RegisterTco(app, global, action);
  RegisterServe(app, global, action);
  RegisterCommit(app, global, action);
  RegisterProfile(app, global, action);
  RegisterQueue(app, global, action);
}

}  // namespace frugal::cli
