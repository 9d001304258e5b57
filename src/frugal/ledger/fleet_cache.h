#pragma once
// The fleet's facts for a scraper that asks again and again (the server's /metrics): the ended
// history is summed once and kept; when the ledger's history version (schema.h: a counter its
// triggers bump on every change to what that history sums) moves, the change log the same
// triggers write (history_triggers.h) says what changed, and when all of it was appended (a
// segment that ended, a checkpoint or resume event) only those rows are read and added to the
// kept sums. Anything else (a rewrite, or a log that no longer reaches back) sums the whole
// history again. The segments open at each scrape are read fresh, through the index on their
// end. A scrape so reads the counter, the changes since the last one and the open few, not
// every segment.

#include <map>
#include <mutex>
#include <optional>

#include "frugal/ledger/fleet.h"
#include "frugal/ledger/fleet_history.h"

namespace frugal::ledger {

/// The ledger's history version: it changes whenever the ended segments, the checkpoint and
/// resume events or a run's team or project change (in the transaction that changes them).
[[nodiscard]] Result<int64_t> HistoryVersion(Ledger& ledger);

class FleetFactsCache {
 public:
  /// What LoadFleetFacts(ledger, now) returns, from the kept history and what was appended to
  /// it since, when that holds at `now`: the clock has not gone back before the kept sums and
  /// every change since is an append the log still holds. Read in one read transaction, so the
  /// version and the rows read with it are of one state. Errors come from the ledger.
  [[nodiscard]] Result<FleetFacts> Load(Ledger& ledger, Timestamp now);

  /// How many Loads summed the whole history.
  [[nodiscard]] int64_t full_loads() const;
  /// How many Loads added changes (appended rows, or segments whose end came) to the kept sums.
  [[nodiscard]] int64_t merged_loads() const;

 private:
  struct Kept {
    int64_t version = 0;
    Timestamp at{};  ///< the `now` the sums hold at: every segment ended by then is in them
    std::map<SegmentId, int64_t> ahead;  ///< ended segments whose end was after `at` (end ms)
    EndedGroups ended;
    FleetFacts history;  ///< the timed events and lost work; `ended` and `open` left empty
  };
  /// What changed from the kept sums to `version` at `now`: segments to add, the ones still
  /// ahead, the timed events and lost work to append.
  struct Delta {
    std::vector<EndedSegment> ended;
    std::map<SegmentId, int64_t> ahead;
    FleetFacts added;
    bool any = false;
  };
  /// The delta, or nothing when it cannot be had from the log (a rewrite, a pruned gap).
  Result<std::optional<Delta>> ReadDelta(Ledger& ledger, int64_t version, Timestamp now) const;
  Result<FleetFacts> LoadLocked(Ledger& ledger, Timestamp now);
  Result<FleetFacts> LoadWhole(Ledger& ledger, int64_t version, Timestamp now);

  mutable std::mutex mu_;     // held for a whole Load: scrapes take turns
  std::optional<Kept> kept_;  // GUARDED_BY(mu_)
  int64_t full_loads_ = 0;    // GUARDED_BY(mu_)
  int64_t merged_loads_ = 0;  // GUARDED_BY(mu_)
};

}  // namespace frugal::ledger
