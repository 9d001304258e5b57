#include "frugal/ledger/fleet_cache.h"

#include <fmt/format.h>

#include <set>

#include "frugal/ledger/history_triggers.h"

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

Result<std::optional<FleetFactsCache::Delta>> FleetFactsCache::ReadDelta(Ledger& ledger,
                                                                         int64_t version,
                                                                         Timestamp now) const {
  Connection& db = ledger.connection();
  const Kept& kept = *kept_;
  std::set<SegmentId> appended;  // segments that got their end since the kept version
  std::vector<int64_t> events;
  if (version > kept.version) {
    const std::vector<Row> changes = FRUGAL_TRY(
        db.Query("SELECT kind, segment_id, event_id FROM history_changes WHERE version > ? AND "
                 "version <= ? ORDER BY version",
                 std::vector<Value>{kept.version, version}));
    // One row per version: fewer means the triggers pruned some of them.
    if (static_cast<int64_t>(changes.size()) != version - kept.version) return std::nullopt;
    for (const Row& c : changes) {
      const std::string kind = AsText(c[0]);
      if (kind == kChangeEnded) {
        appended.insert(AsInt(c[1]));
      } else if (kind == kChangeTimed) {
        events.push_back(AsInt(c[2]));
      } else {
        return std::nullopt;
      }
    }
  }
  Delta d;
  std::vector<SegmentId> ids(appended.begin(), appended.end());
  for (const auto& [id, end_ms] : kept.ahead) {
    if (end_ms > ToMillis(now)) {
      d.ahead.emplace(id, end_ms);
    } else if (!appended.contains(id)) {
      ids.push_back(id);
    }
  }
  if (ids.empty() && events.empty()) return d;
  d.any = true;
  for (EndedSegment& s : FRUGAL_TRY(EndedSegmentsAmong(db, ids))) {
    if (s.end_ms > ToMillis(now)) {
      d.ahead.emplace(s.id, s.end_ms);
    } else {
      d.ended.push_back(std::move(s));
    }
  }
  // Lost work counts a preempted segment once it has an end, ahead of the clock or not (as
  // LoadFleetFacts does): for the segments that ended since, not the kept ones whose end came.
  if (!appended.empty()) {
    const std::vector<SegmentId> new_ids(appended.begin(), appended.end());
    FRUGAL_TRY(AddLostWork(db, fmt::format("s.id IN {}", IdList(new_ids)), d.added));
  }
  if (!events.empty()) {
    FRUGAL_TRY(AddTimedEvents(db, fmt::format("e.id IN {}", IdList(events)), d.added));
  }
  return d;
}

Result<FleetFacts> FleetFactsCache::LoadWhole(Ledger& ledger, int64_t version, Timestamp now) {
  Kept kept;
  kept.version = version;
  kept.at = now;
  FleetFacts facts = FRUGAL_TRY(ReadFleetFacts(ledger, now, kept.ended));
  kept.ahead = FRUGAL_TRY(EndsAfter(ledger.connection(), now));
  kept.history = facts;
  kept.history.ended.clear();
  kept.history.open.clear();
  kept_ = std::move(kept);
  ++full_loads_;
  return facts;
}

Result<FleetFacts> FleetFactsCache::LoadLocked(Ledger& ledger, Timestamp now) {
  const int64_t version = FRUGAL_TRY(HistoryVersion(ledger));
  if (!kept_ || now < kept_->at || version < kept_->version ||
      version - kept_->version > kHistoryChangesKept) {
    return LoadWhole(ledger, version, now);
  }
  std::optional<Delta> delta = FRUGAL_TRY(ReadDelta(ledger, version, now));
  if (!delta) return LoadWhole(ledger, version, now);
  FleetFacts open;
  open.open = FRUGAL_TRY(OpenSegments(ledger, now));
  Kept& kept = *kept_;
  for (const EndedSegment& s : delta->ended) kept.ended[s.group] += s.sums;
  kept.ahead = std::move(delta->ahead);
  FleetFacts& h = kept.history;
  const FleetFacts& add = delta->added;
  h.checkpoint_write_seconds.insert(h.checkpoint_write_seconds.end(),
                                    add.checkpoint_write_seconds.begin(),
                                    add.checkpoint_write_seconds.end());
  h.resume_seconds.insert(h.resume_seconds.end(), add.resume_seconds.begin(),
                          add.resume_seconds.end());
  h.lost_work_seconds.insert(h.lost_work_seconds.end(), add.lost_work_seconds.begin(),
                             add.lost_work_seconds.end());
  kept.version = version;
  kept.at = now;
  if (delta->any) ++merged_loads_;
  FleetFacts facts = h;
  facts.now = now;
  facts.ended = SpendGroups(kept.ended);
  facts.open = std::move(open.open);
  return facts;
}

Result<FleetFacts> FleetFactsCache::Load(Ledger& ledger, Timestamp now) {
  const std::lock_guard<std::mutex> lock(mu_);
  FleetFacts facts;
  // The version, the changes and the rows they name are read from one state of the ledger: a
  // change committed meanwhile is seen by the next scrape, neither missed nor added twice.
  const Result<void> done =
      Transact(ledger.connection(), TxnMode::kRead, [&](Connection& /*c*/) -> Result<void> {
        facts = FRUGAL_TRY(LoadLocked(ledger, now));
        return {};
      });
  if (!done) return Fail(done.error());
  return facts;
}

int64_t FleetFactsCache::full_loads() const {
  const std::lock_guard<std::mutex> lock(mu_);
  return full_loads_;
}

int64_t FleetFactsCache::merged_loads() const {
  const std::lock_guard<std::mutex> lock(mu_);
  return merged_loads_;
}

}  // namespace frugal::ledger
