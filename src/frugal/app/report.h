#pragma once
// Report over a window: spend by group, spot share, cost per successful run and the month's
// forecast, whose burn rate is over the thresholds' `budget_burn_days`
// (audit::Thresholds::BudgetBurnWindow: the audit's budgets forecast the same way). `frugal report`
// and `GET /api/v1/report` call it with what the user gave, as text, and print the same document.

#include <string>

#include "frugal/ledger/ledger.h"
#include "frugal/ledger/report.h"

namespace frugal::app {

struct ReportRequest {
  std::string by;             ///< group keys, a comma list ("" for one total row)
  std::string since = "30d";  ///< a duration back or a date
  std::string until;          ///< exclusive; "" for now
  std::string prefix;         ///< how errors name the fields: "--" for flags, "" for parameters
  ledger::Timestamp now{};
  Duration burn_window = ledger::kDefaultBurnWindow;  ///< the forecast's burn rate is over this
};

/// kBadInput naming the field for a bad group key or window; else the ledger's errors.
[[nodiscard]] Result<ledger::Report> BuildReport(ledger::Ledger& db, const ReportRequest& request);

}  // namespace frugal::app
