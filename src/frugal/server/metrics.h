#pragma once
// The Prometheus exposition of the ledger (text format 0.0.4), named by Prometheus's
// conventions: base units (seconds, dollars, ratios), `_total` on counters, the unit in the
// name. Families (labels in braces):
//
//   frugal_spend_dollars_total{team,project,tier}          counter  every segment, to now
//   frugal_gpu_seconds_total{team,project,tier}             counter  GPU-seconds rented
//   frugal_burn_rate_dollars_per_hour{team,tier}            gauge    price of open segments
//   frugal_runs_running{tier}                               gauge    runs with an open segment
//   frugal_gpus_running{tier}                               gauge    GPUs of open segments
//   frugal_budget_dollars{budget,period}                    gauge    declared amount
//   frugal_budget_spent_dollars{budget,period}              gauge    ledger spend this period
//   frugal_budget_used_ratio{budget,period}                 gauge    spent ÷ amount
//   frugal_preemptions_total{tier}                          counter  segments ended preempted
//   frugal_lost_work_seconds_total{tier}                    counter  work redone after them
//   frugal_checkpoint_commit_duration_seconds               histogram
//   frugal_checkpoint_resume_duration_seconds               histogram (resume to progress)
//   frugal_ledger_scrape_duration_seconds                   gauge    time to read the ledger

#include <string>
#include <vector>

#include "frugal/audit/budgets.h"
#include "frugal/ledger/fleet.h"

namespace frugal::server {

/// A budget and the ledger spend it covers since its current period began.
struct BudgetSpend {
  audit::Budget budget;
  Money spent;
};

/// The spend of each budget in its period around `now` (ledger::SpendBetween).
[[nodiscard]] Result<std::vector<BudgetSpend>> LoadBudgetSpend(
    ledger::Ledger& ledger, const std::vector<audit::Budget>& budgets, ledger::Timestamp now);

/// Renders the exposition.
[[nodiscard]] std::string RenderMetrics(const ledger::FleetFacts& facts,
                                        const std::vector<BudgetSpend>& budgets,
                                        double scrape_seconds);

/// A label value escaped for the exposition (backslash, double quote, newline).
[[nodiscard]] std::string EscapeLabel(std::string_view value);

}  // namespace frugal::server
