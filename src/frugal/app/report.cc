#include "frugal/app/report.h"

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
  options.burn_window = request.burn_window;
  return ledger::BuildReport(db, options);
}

}  // namespace frugal::app
