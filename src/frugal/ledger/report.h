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

struct ReportOptions {
  std::vector<GroupKey> by;  ///< empty: one total row
  Timestamp since{};
  Timestamp until{};  ///< exclusive
  Timestamp now{};    ///< open segments are costed up to here; the forecast starts here
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

struct Report {
  ReportOptions options;
  std::vector<ReportRow> rows;  ///< sorted by spend, highest first
  ReportRow total;
};

/// Builds the report from the ledger's segments and hourly utilization rollups.
[[nodiscard]] Result<Report> BuildReport(Ledger& ledger, const ReportOptions& options);

void WriteReportTable(const Report& report, std::ostream& out);
void WriteReportCsv(const Report& report, std::ostream& out);
[[nodiscard]] nlohmann::json ReportToJson(const Report& report);

}  // namespace frugal::ledger
