#pragma once
// The JSON documents of one run and of a list of runs: what `frugal runs list|show --json`
// print and what the server's /api/v1/runs returns, built once here.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "frugal/core/error.h"
#include "frugal/ledger/ledger.h"

namespace frugal::ledger {

/// One run of a list: id, name, status, tags, times, cost, GPU-hours, latest GPU and tier.
[[nodiscard]] nlohmann::json RunSummaryJson(const RunSummary& r);

/// A list of runs: {"runs": [...]}.
[[nodiscard]] nlohmann::json RunListJson(const std::vector<RunSummary>& runs);

/// One run with its command, budget, segments (costed up to `now` while open), events and
/// average utilization.
[[nodiscard]] nlohmann::json RunDetailJson(const RunDetail& d, Timestamp now);

/// The filters of a run list as text (flags or query parameters).
struct RunFilterText {
  std::string since;              ///< a duration back (7d) or a date; "" = any
  std::string until;              ///< as since; "" = any
  std::string status;             ///< a run status name; "" = any
  std::vector<std::string> tags;  ///< key=value, all must match
  int64_t limit = 0;              ///< 0: all
};

/// Parses the filters; errors are kBadInput, prefixed with `prefix` and the field's name
/// ("--since: ..." for prefix "--").
[[nodiscard]] Result<RunFilter> ParseRunFilter(const RunFilterText& text, Timestamp now,
                                               std::string_view prefix);

}  // namespace frugal::ledger
