#include "frugal/ledger/fleet_cache.h"

namespace frugal::ledger {

Result<int64_t> HistoryVersion(Ledger& ledger) {
  const std::vector<Row> rows =
      FRUGAL_TRY(ledger.connection().Query("SELECT version FROM history_version"));
  if (rows.size() != 1) {
    return Fail(ErrorCode::kFailed, ledger.connection().where() +
                                        ": history_version must hold one row, it holds " +
                                        std::to_string(rows.size()));
  }
  return AsInt(rows[0][0]);
}

std::optional<FleetFacts> FleetFactsCache::Reuse(int64_t version, Timestamp now) const {
  const std::lock_guard<std::mutex> lock(mu_);
  if (!kept_ || kept_->version != version || now < kept_->summed_at) return std::nullopt;
  if (kept_->valid_until && now >= *kept_->valid_until) return std::nullopt;
  FleetFacts facts = kept_->history;
  facts.now = now;
  return facts;
}

Result<FleetFacts> FleetFactsCache::Load(Ledger& ledger, Timestamp now) {
  // Read before the sums: a change committed in between is summed and still seen as a change.
  const int64_t version = FRUGAL_TRY(HistoryVersion(ledger));
  if (std::optional<FleetFacts> facts = Reuse(version, now)) {
    facts->open = FRUGAL_TRY(OpenSegments(ledger, now));
    return std::move(*facts);
  }
  FleetFacts facts = FRUGAL_TRY(LoadFleetFacts(ledger, now));
  Kept kept{version, now, std::nullopt, facts};
  kept.history.open.clear();
  for (const SegmentFact& f : facts.open) {
    // Open at `now` yet ended: its end is ahead, and once passed it belongs to the sums.
    const std::optional<Timestamp>& end = f.segment.end;
    if (end && (!kept.valid_until || *end < *kept.valid_until)) kept.valid_until = *end;
  }
  const std::lock_guard<std::mutex> lock(mu_);
  kept_ = std::move(kept);
  ++full_loads_;
  return facts;
}

int64_t FleetFactsCache::full_loads() const {
  const std::lock_guard<std::mutex> lock(mu_);
  return full_loads_;
}

}  // namespace frugal::ledger
