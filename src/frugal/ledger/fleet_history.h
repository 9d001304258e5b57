#pragma once
// The fleet's history (fleet.h) in the pieces that LoadFleetFacts reads whole and
// FleetFactsCache (fleet_cache.h) reads again only for what changed: one query per piece,
// under a condition, so that sums kept and extended equal sums taken at once. Each runs on the
// caller's connection, inside its read transaction.

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "frugal/ledger/fleet.h"

namespace frugal::ledger {

/// Ended segments of one group, in integers: sums added up later equal one taken at once.
struct EndedSums {
  int64_t spend_micros = 0;  ///< each segment's cost rounded as Segment::Cost rounds it
  int64_t gpu_millis = 0;    ///< GPU-milliseconds
  int64_t preemptions = 0;
  EndedSums& operator+=(const EndedSums& o);
};
using GroupOf = std::tuple<std::string, std::string, CapacityTier>;  ///< team, project, tier
using EndedGroups = std::map<GroupOf, EndedSums>;

/// What LoadFleetFacts returns, read on the ledger's connection (the caller's transaction);
/// the ended groups' integer sums go to `ended`.
[[nodiscard]] Result<FleetFacts> ReadFleetFacts(Ledger& ledger, Timestamp now, EndedGroups& ended);

/// The groups as FleetFacts::ended lists them.
[[nodiscard]] std::vector<SpendGroup> SpendGroups(const EndedGroups& groups);

/// One ended segment's share of the sums: what summing its group adds for it.
struct EndedSegment {
  SegmentId id = 0;
  int64_t end_ms = 0;
  GroupOf group;
  EndedSums sums;
};
/// The segments among `ids` that have an end (and a run), one by one.
[[nodiscard]] Result<std::vector<EndedSegment>> EndedSegmentsAmong(
    Connection& db, const std::vector<SegmentId>& ids);

/// The ended segments whose end is after `now` (id → end in UTC ms): open at `now`, summed
/// once it passes their end.
[[nodiscard]] Result<std::map<SegmentId, int64_t>> EndsAfter(Connection& db, Timestamp now);

/// Appends to `facts` the timings of the checkpoint_committed and resumed events `e` that
/// match `where` ("" = all).
[[nodiscard]] Result<void> AddTimedEvents(Connection& db, std::string_view where,
                                          FleetFacts& facts);

/// Appends to `facts` the lost work of each ended preempted segment `s` that matches `where`
/// ("" = all).
[[nodiscard]] Result<void> AddLostWork(Connection& db, std::string_view where, FleetFacts& facts);

/// "(1, 2, 3)": ids for an SQL `IN`; never empty ("(NULL)" matches nothing).
[[nodiscard]] std::string IdList(std::span<const int64_t> ids);

}  // namespace frugal::ledger
