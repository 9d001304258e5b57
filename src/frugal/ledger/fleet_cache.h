#pragma once
// The fleet's facts for a scraper that asks again and again (the server's /metrics): the ended
// history is summed once and kept while the ledger's history version (schema.h: a counter its
// triggers bump on every change to what that history sums) stays the same; the segments open
// at each scrape are read fresh, through the index on their end. A scrape of an unchanged
// history so reads one row and the open few, not every segment.

#include <mutex>
#include <optional>

#include "frugal/ledger/fleet.h"

namespace frugal::ledger {

/// The ledger's history version: it changes whenever the ended segments, the checkpoint and
/// resume events or a run's team or project change (in the transaction that changes them).
[[nodiscard]] Result<int64_t> HistoryVersion(Ledger& ledger);

class FleetFactsCache {
 public:
  /// What LoadFleetFacts(ledger, now) returns, from the kept history when it still holds at
  /// `now`: the version is the same, the clock has not gone back before the kept sums, and no
  /// segment whose end was still ahead then has ended since. Errors come from the ledger.
  [[nodiscard]] Result<FleetFacts> Load(Ledger& ledger, Timestamp now);

  /// How many Loads summed the whole history (the rest reused it).
  [[nodiscard]] int64_t full_loads() const;

 private:
  struct Kept {
    int64_t version = 0;
    Timestamp summed_at{};
    std::optional<Timestamp> valid_until;  ///< the earliest end still ahead at summed_at
    FleetFacts history;                    ///< `open` left empty
  };
  /// The kept history at `now`, or nothing when it does not hold there.
  std::optional<FleetFacts> Reuse(int64_t version, Timestamp now) const;

  mutable std::mutex mu_;
  std::optional<Kept> kept_;  // GUARDED_BY(mu_)
  int64_t full_loads_ = 0;    // GUARDED_BY(mu_)
};

}  // namespace frugal::ledger
