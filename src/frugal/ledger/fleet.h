#pragma once
// What the fleet is doing and has cost, for the server's /metrics and the dashboard's spend
// chart: every segment with its run's tags, checkpoint and resume timings, and the work lost
// to each preemption; and spend per UTC day by one group key.

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "frugal/core/error.h"
#include "frugal/ledger/ledger.h"
#include "frugal/ledger/report.h"

namespace frugal::ledger {

/// Ended segments of one team, project and tier, summed.
struct SpendGroup {
  std::string team;  ///< "" where untagged
  std::string project;
  CapacityTier tier = CapacityTier::kOnDemand;
  Money spend;  ///< each segment's cost rounded as Segment::Cost rounds it
  double gpu_seconds = 0;
  int64_t preemptions = 0;  ///< segments that ended preempted
};

struct FleetFacts {
  Timestamp now{};
  std::vector<SpendGroup> ended;  ///< every ended segment, grouped (summed by the database)
  std::vector<SegmentFact> open;  ///< the segments open at now, one by one
  std::vector<double> checkpoint_write_seconds;  ///< one per committed checkpoint that timed it
  std::vector<double> resume_seconds;            ///< one per resume that timed it
  /// Per preempted segment, by tier: the seconds from its last committed checkpoint (or its
  /// start, when it committed none) to the preemption: the work that had to be redone.
  std::vector<std::pair<CapacityTier, double>> lost_work_seconds;
};

/// Reads the facts in four queries (ended segments summed by group, open segments, timed
/// events, preempted segments with their last checkpoint: fleet_history.h), in one read
/// transaction, so a scrape never loads the whole history row by row. Errors come from the
/// ledger.
[[nodiscard]] Result<FleetFacts> LoadFleetFacts(Ledger& ledger, Timestamp now);

/// The segments open at `now` (and any whose recorded end is still ahead of it), through the
/// index on their end. FleetFactsCache (fleet_cache.h) keeps the rest
/// of the facts between scrapes.
[[nodiscard]] Result<std::vector<SegmentFact>> OpenSegments(Ledger& ledger, Timestamp now);

/// What segments of runs tagged `team` and `project` ("" = any) cost within [from, to), open
/// ones up to `to`; summed by the database, each segment rounded as Segment::Cost rounds.
[[nodiscard]] Result<Money> SpendBetween(Ledger& ledger, const std::string& team,
                                         const std::string& project, Timestamp from, Timestamp to);

/// Spend per UTC day in [since, until) by one group key; open segments are costed up to
/// `until`.
struct DailySpend {
  GroupKey key = GroupKey::kTeam;
  std::vector<std::string> days;                    ///< YYYY-MM-DD, oldest first
  std::map<std::string, std::vector<Money>> spend;  ///< key value → one amount per day
};
[[nodiscard]] Result<DailySpend> LoadDailySpend(Ledger& ledger, GroupKey key, Timestamp since,
                                                Timestamp until);

/// {"by": "team", "days": [...], "series": [{"key": "nlp", "spend_usd": ["1.50", ...],
/// "total_usd": "..."}]}, series sorted by total spend, highest first.
[[nodiscard]] nlohmann::json DailySpendToJson(const DailySpend& d);

/// The value of `key` for one segment ("-" where the tag is empty).
[[nodiscard]] std::string GroupValue(const SegmentFact& f, GroupKey key);

}  // namespace frugal::ledger
