#pragma once
// Spend reports over the ledger: money, GPU-hours, spot share and savings, cost per successful
// run and a month-end forecast, grouped by any of team, project, owner, gpu, tier, cloud.

#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "frugal/core/error.h"
#include "frugal/core/money.h"
#include "frugal/ledger/ledger.h"

namespace frugal::ledger {

/// kWorkload: a run's `workload` tag (serving, batch-inference, ...); runs without one are
/// "training".
enum class GroupKey { kTeam, kProject, kOwner, kGpu, kTier, kCloud, kWorkload };
[[nodiscard]] std::string_view GroupKeyName(GroupKey k);
/// "team,project" → keys; kBadInput names an unknown key (with a suggestion).
[[nodiscard]] Result<std::vector<GroupKey>> ParseGroupKeys(std::string_view text);

/// The burn window of a forecast unless told otherwise (the audit's `budget_burn_days` default).
inline constexpr Duration kDefaultBurnWindow = std::chrono::hours(24 * 7);

/// The one spend forecast, of the report's month and of the audit's budgets alike: `spent`
/// so far, plus `burned` (the spend of the last `burn_window`) carried on at that rate over
/// `left`. `left` at or below zero: `spent`.
[[nodiscard]] Money ForecastSpend(Money spent, Money burned, Duration burn_window, Duration left);

struct ReportOptions {
  std::vector<GroupKey> by;  ///< empty: one total row
  Timestamp since{};
  Timestamp until{};  ///< exclusive
  Timestamp now{};    ///< open segments are costed up to here; the forecast starts here
  Duration burn_window = kDefaultBurnWindow;  ///< the month forecast's burn rate is over this
};

struct ReportRow {
  std::vector<std::string> key;  ///< one value per group key ("-" where untagged)
  Money spend;                   ///< within [since, until)
  double gpu_hours = 0;
  Money spot_spend;
  Money spot_savings;  ///< on-demand reference minus what spot cost, where known
  int64_t runs = 0;    ///< runs with time in the window
  int64_t successful_runs = 0;
  std::optional<Money> cost_per_successful_run;
  std::optional<double> gpu_util;  ///< mean GPU utilization of its runs' samples, percent
  Money month_to_date;             ///< spend since the start of `now`'s month
  Money month_forecast;            ///< month_to_date + last-7-day burn rate × rest of month

  [[nodiscard]] double SpotShare() const {
    return spend.IsZero() ? 0.0 : spot_spend.RatioTo(spend);
  }
};

/// What imported FOCUS bills (billing_rows) charged in the window: apart from what frugal
/// measured, never added to it. A row linked to a frugal run (its x_RunId) bills the same
/// capacity the run's segments measured; `linked` says how much of `billed` that is.
struct BilledRow {
  std::vector<std::string> key;  ///< one value per group key ("-" where the bill does not say)
  Money billed;  ///< BilledCost, each row prorated to the part of its charge period in the window
  int64_t charges = 0;  ///< billing rows with time in the window
  Money linked;         ///< of `billed`, rows linked to a frugal run
};

struct Billed {
  std::vector<BilledRow> rows;  ///< sorted by billed, highest first
  BilledRow total;
};

struct Report {
  ReportOptions options;
  std::vector<ReportRow> rows;  ///< sorted by spend, highest first
  ReportRow total;
  Billed billed;  ///< imported bills in the same window, kept apart
};

/// Builds the report from the ledger's segments and hourly utilization rollups, and the
/// imported bills beside it (BuildBilled).
[[nodiscard]] Result<Report> BuildReport(Ledger& ledger, const ReportOptions& options);

/// The imported FOCUS rows of [since, until), grouped by `by`: team, project and owner from the
/// linked run's tags, else the row's Tags; tier from its PricingCategory (Standard on_demand,
/// Dynamic spot, Committed reserved); cloud from its ProviderName (AWS aws, Google Cloud gcp,
/// Microsoft azure); gpu is not in a bill ("-").
[[nodiscard]] Result<Billed> BuildBilled(Ledger& ledger, const ReportOptions& options);

void WriteReportTable(const Report& report, std::ostream& out);
/// The billed section of the table: nothing when no bill has time in the window.
void WriteBilledTable(const Report& report, std::ostream& out);
/// {"rows": [...], "total": {...}} with billed_usd/_micros, charges, linked_to_runs_usd/_micros.
[[nodiscard]] nlohmann::json BilledToJson(const Report& report);
void WriteReportCsv(const Report& report, std::ostream& out);
[[nodiscard]] nlohmann::json ReportToJson(const Report& report);

}  // namespace frugal::ledger
