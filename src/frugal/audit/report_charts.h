#pragma once
// The charts of the audit report, as data (computed with the findings) and as SVG (drawn for
// the Markdown and HTML reports): spend over time by team and by tier, the distribution of
// GPU utilization over run-hours, and the saving per month by rule.

#include <array>
#include <string>
#include <vector>

#include "frugal/core/duration.h"
#include "frugal/core/money.h"
#include "frugal/ledger/types.h"

namespace frugal::audit {

struct SpendSeries {
  std::string name;
  std::vector<Money> per_bucket;  ///< one value per ReportCharts::buckets entry
  [[nodiscard]] Money Total() const;
};

struct ReportCharts {
  std::vector<ledger::Timestamp> buckets;  ///< start of each time bucket
  Duration bucket_length{};
  std::vector<SpendSeries> spend_by_team;  ///< largest first; the tail folded into "other"
  std::vector<SpendSeries> spend_by_tier;
  /// Run-hours (clock hours a run held GPUs, plus inventory history) by mean GPU utilization:
  /// [0, 10%), [10, 20%), ..., [90, 100%].
  std::array<double, 10> util_hours{};
  std::vector<std::pair<std::string, Money>> savings_by_rule;  ///< largest first
};

struct AuditResult;

/// One chart drawn: its title and a self-contained <svg> element (no scripts, no links).
struct RenderedChart {
  std::string title;
  std::string svg;
};

/// The report's charts, each drawn when it has something to show.
[[nodiscard]] std::vector<RenderedChart> RenderCharts(const AuditResult& result);

}  // namespace frugal::audit
