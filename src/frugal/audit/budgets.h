#pragma once
// Team and project budgets the audit forecasts spend against. Declared in the audit
// settings file (thresholds.h) under `budgets:`, one entry per budget:
//
//   budgets:
//     - {team: nlp, amount: 12000, period: month}
//     - {team: nlp, project: assistant, amount: 30000, period: quarter}
//
// `team` and/or `project` select the spend (ledger runs and imported bills carrying those
// tags); `period` is a calendar month, quarter or year in UTC (default month).

#include <string>
#include <vector>

#include "frugal/core/error.h"
#include "frugal/core/money.h"
#include "frugal/core/timestamp.h"
#include "frugal/core/yaml.h"
#include "frugal/ledger/types.h"

namespace frugal::audit {

/// Budgets here are kept by month, quarter or year (core's calendar periods).
using BudgetPeriod = CalendarPeriod;
[[nodiscard]] inline std::string_view BudgetPeriodName(BudgetPeriod p) {
  return CalendarPeriodName(p);
}

struct Budget {
  std::string team;     ///< empty: any team
  std::string project;  ///< empty: any project
  Money amount;
  BudgetPeriod period = BudgetPeriod::kMonth;

  /// "team nlp", "project assistant", "team nlp / project assistant".
  [[nodiscard]] std::string Label() const;
  /// Whether spend with these tags counts against this budget.
  [[nodiscard]] bool Covers(std::string_view team_tag, std::string_view project_tag) const;
};

using frugal::PeriodAround;
using frugal::PeriodBounds;

/// Where a budget stands at the audit's `now`.
struct BudgetStatus {
  Budget budget;
  PeriodBounds period;
  Money spent;         ///< in [period.start, now)
  Money burn_per_day;  ///< spend of the last burn_days / burn_days
  double burn_days = 0;
  Money forecast;  ///< spent + burn_per_day × days left in the period
};

/// Reads the `budgets` list of `map` (absent: none). kBadInput at the offending entry for
/// unknown keys, a missing or non-positive amount, an unknown period, or an entry naming
/// neither team nor project.
[[nodiscard]] Result<std::vector<Budget>> ReadBudgets(const YamlDoc& doc, const YAML::Node& map);

}  // namespace frugal::audit
