#include "frugal/app/report.h"

#include <chrono>

#include "frugal/ledger/window.h"

namespace frugal::app {

Result<ledger::Report> BuildReport(ledger::Ledger& db, const ReportRequest& request) {
  ledger::ReportOptions options;
  options.now = request.now;
  options.by = FRUGAL_TRY(ledger::ParseGroupKeys(request.by));
  const ledger::TimeWindow window =
      FRUGAL_TRY(ledger::ParseWindow(request.since, request.until, request.now, request.prefix));
  options.since = window.since;
  options.until = window.until;
  options.burn_window = std::chrono::duration_cast<Duration>(
      std::chrono::duration<double, std::ratio<86400>>(request.thresholds.budget_burn_days));
  return ledger::BuildReport(db, options);
}

}  // namespace frugal::app
