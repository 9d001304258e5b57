// FleetFactsCache against a full recomputation (LoadFleetFacts) while runs are added, closed,
// preempted, reopened and revised, on SQLite and on PostgreSQL: every scrape must read the
// same facts as summing the whole history again; an unchanged history must not be read again,
// appended rows must be added to the kept sums, and only a rewrite (or a log pruned past the
// kept version) may sum the whole history again.

#include "frugal/ledger/fleet_cache.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <thread>

#include "backends.h"
#include "frugal/ledger/history_triggers.h"
#include "frugal/ledger/run_rows.h"
#include "frugal/ledger/schema.h"

namespace frugal::ledger::testing {
namespace {

const Timestamp kT0 = FromMillis(1'767'225'600'000);  // 2026-01-01T00:00:00Z

Timestamp At(double hours) { return kT0 + FromHours(hours); }

NewRun MakeRun(const std::string& name, const std::string& team) {
  NewRun run;
  run.name = name;
  run.command = "python train.py";
  run.spec = "apiVersion: frugal/v1\n";
  run.tags.team = team;
  run.tags.project = "llm";
  run.tags.owner = "alice";
  run.start = kT0;
  return run;
}

SegmentOffer Offer(int64_t cents_per_hour, CapacityTier tier) {
  return SegmentOffer{"aws",       "p4d.24xlarge",
                      "us-east-1", "",
                      "A100",      8,
                      tier,        Rate{Money::FromCents(cents_per_hour)},
                      std::nullopt};
}

/// The facts as sorted text, so two loads compare whole and a difference reads plainly.
std::string Describe(const FleetFacts& f) {
  std::vector<std::string> lines;
  for (const SpendGroup& g : f.ended) {
    lines.push_back(fmt::format("ended {}/{}/{} {} {} {}", g.team, g.project,
                                CapacityTierName(g.tier), g.spend.micros(), g.gpu_seconds,
                                g.preemptions));
  }
  for (const SegmentFact& s : f.open) {
    lines.push_back(
        fmt::format("open {} run {} {}/{} from {} to {} cost {}", s.segment.id, s.segment.run_id,
                    s.tags.team, CapacityTierName(s.segment.offer.tier), ToMillis(s.segment.start),
                    s.segment.end ? ToMillis(*s.segment.end) : -1, s.segment.Cost(f.now).micros()));
  }
  for (double v : f.checkpoint_write_seconds) lines.push_back(fmt::format("commit {}", v));
  for (double v : f.resume_seconds) lines.push_back(fmt::format("resume {}", v));
  for (const auto& [tier, s] : f.lost_work_seconds)
    lines.push_back(fmt::format("lost {} {}", CapacityTierName(tier), s));
  std::sort(lines.begin(), lines.end());
  std::string out = fmt::format("now {}\n", ToMillis(f.now));
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

/// How a scrape got its facts.
enum class Path { kKept, kMerged, kFull };

std::ostream& operator<<(std::ostream& os, Path p) {
  return os << (p == Path::kKept ? "kept" : p == Path::kMerged ? "merged" : "full");
}

/// The kind of the last change the ledger logged.
std::string LastChange(Ledger& l) {
  const std::vector<Row> rows =
      l.connection()
          .Query("SELECT kind FROM history_changes ORDER BY version DESC LIMIT 1")
          .value();
  return rows.empty() ? "none" : AsText(rows[0][0]);
}

template <typename B>
class FleetCacheSuite : public BackendTest<B> {
 protected:
  /// Loads through the cache and from scratch at `now`; they must agree. Returns how the cache
  /// got its facts.
  Path Scrape(Ledger& ledger, Timestamp now) {
    const int64_t full = cache_.full_loads();
    const int64_t merged = cache_.merged_loads();
    const Result<FleetFacts> cached = cache_.Load(ledger, now);
    const Result<FleetFacts> whole = LoadFleetFacts(ledger, now);
    EXPECT_TRUE(cached && whole);
    if (!cached || !whole) return Path::kFull;
    EXPECT_EQ(Describe(*cached), Describe(*whole));
    if (cache_.full_loads() > full) return Path::kFull;
    return cache_.merged_loads() > merged ? Path::kMerged : Path::kKept;
  }
  FleetFactsCache cache_;
};
TYPED_TEST_SUITE(FleetCacheSuite, Backends, BackendNames);

TYPED_TEST(FleetCacheSuite, AgreesWithAFullRecomputationAsRunsComeAndGo) {
  auto ledger = this->Open();
  ASSERT_TRUE(ledger);
  Ledger& l = *ledger;
  const RunId a = l.BeginRun(MakeRun("a", "nlp")).value();
  const SegmentId a1 = l.OpenSegment(a, Offer(1200, CapacityTier::kSpot), At(0)).value();
  ASSERT_TRUE(
      l.AddEvent(a, a1, EventType::kCheckpointCommitted, At(2.25), {{"write_seconds", 4.5}}));
  ASSERT_TRUE(l.CloseSegment(a1, At(3), EndReason::kPreempted));
  const RunId b = l.BeginRun(MakeRun("b", "vision")).value();
  ASSERT_TRUE(l.OpenSegment(b, Offer(410, CapacityTier::kOnDemand), At(1)));

  EXPECT_EQ(Path::kFull, this->Scrape(l, At(4)));
  // Nothing summed has changed: later scrapes reuse the sums, and the open segment's cost grows.
  EXPECT_EQ(Path::kKept, this->Scrape(l, At(5)));
  ASSERT_TRUE(l.Heartbeat(b, At(5)));
  const RunId c = l.BeginRun(MakeRun("c", "nlp")).value();
  ASSERT_TRUE(l.OpenSegment(c, Offer(3277, CapacityTier::kOnDemand), At(5)));
  ASSERT_TRUE(l.AddEvent(c, std::nullopt, EventType::kNote, At(5), {{"text", "hi"}}));
  EXPECT_EQ(Path::kKept, this->Scrape(l, At(5.5)));

  // A run finishes: its segment is added to the kept sums.
  ASSERT_TRUE(l.FinishRun(b, RunStatus::kSucceeded, At(6)));
  EXPECT_EQ(Path::kMerged, this->Scrape(l, At(6.5)));
  EXPECT_EQ(Path::kKept, this->Scrape(l, At(6.75)));

  // The preempted run is reopened and resumes on a new segment.
  ASSERT_TRUE(l.FinishRun(a, RunStatus::kPaused, At(3)));
  EXPECT_EQ(Path::kKept, this->Scrape(l, At(7)));
  ASSERT_TRUE(ReopenRun(l, a, At(7)));
  const SegmentId a2 = l.OpenSegment(a, Offer(1200, CapacityTier::kSpot), At(7)).value();
  EXPECT_EQ(Path::kKept, this->Scrape(l, At(7.5)));
  ASSERT_TRUE(l.AddEvent(a, a2, EventType::kResumed, At(7.1), {{"seconds_to_first_progress", 42}}));
  EXPECT_EQ(Path::kMerged, this->Scrape(l, At(7.5)));
  // A later checkpoint of the preempted segment (caught up from its journal) shortens its lost
  // work; a revised end changes its cost: rewrites, summed whole again.
  ASSERT_TRUE(l.AddEvent(a, a1, EventType::kCheckpointCommitted, At(2.75), {{"write_seconds", 3}}));
  EXPECT_EQ(Path::kFull, this->Scrape(l, At(8)));
  ASSERT_TRUE(l.ReviseSegmentEnd(a1, At(2.9), EndReason::kPreempted));
  EXPECT_EQ(Path::kFull, this->Scrape(l, At(8)));

  // A segment whose recorded end is still ahead is open until then, and added to the sums once
  // the clock passes it.
  ASSERT_TRUE(l.CloseSegment(a2, At(10), EndReason::kFinished));
  ASSERT_TRUE(l.FinishRun(a, RunStatus::kSucceeded, At(10)));
  EXPECT_EQ(Path::kMerged, this->Scrape(l, At(9)));
  EXPECT_EQ(Path::kKept, this->Scrape(l, At(9.5)));
  EXPECT_EQ(Path::kMerged, this->Scrape(l, At(10.5)));
  // A clock that went back is not served sums from later.
  EXPECT_EQ(Path::kFull, this->Scrape(l, At(9.5)));

  // A supervisor that died: swept lost, then heard from again.
  const std::vector<RunId> lost = l.SweepLost(At(12), FromHours(1)).value();
  EXPECT_EQ(lost, std::vector<RunId>{c});
  EXPECT_EQ(Path::kMerged, this->Scrape(l, At(12)));
  ASSERT_TRUE(l.ExtendLost(c, At(11.5)));
  EXPECT_EQ(Path::kFull, this->Scrape(l, At(12)));
  EXPECT_EQ(Path::kKept, this->Scrape(l, At(13)));
}

TYPED_TEST(FleetCacheSuite, TheHistoryVersionMovesOnlyWithWhatIsSummed) {
  auto ledger = this->Open();
  ASSERT_TRUE(ledger);
  Ledger& l = *ledger;
  const auto version = [&l] { return HistoryVersion(l).value(); };
  const int64_t v0 = version();
  const RunId a = l.BeginRun(MakeRun("a", "nlp")).value();
  const SegmentId s = l.OpenSegment(a, Offer(1200, CapacityTier::kSpot), At(0)).value();
  ASSERT_TRUE(l.Heartbeat(a, At(1)));
  ASSERT_TRUE(l.AddEvent(a, s, EventType::kNote, At(1), {{"text", "x"}}));
  Sample sample;
  sample.time = At(1);
  sample.gpu_util = 0.5;
  ASSERT_TRUE(l.AddSamples(a, std::vector<Sample>{sample}));
  EXPECT_EQ(version(), v0);  // the writes of a healthy run change nothing summed
  EXPECT_EQ(LastChange(l), "none");
  // Each change moves the version by one and is logged under it, by kind.
  ASSERT_TRUE(l.AddEvent(a, s, EventType::kCheckpointCommitted, At(1), {{"write_seconds", 1}}));
  EXPECT_EQ(version(), v0 + 1);
  EXPECT_EQ(LastChange(l), kChangeTimed);
  ASSERT_TRUE(l.CloseSegment(s, At(2), EndReason::kPreempted));
  EXPECT_EQ(version(), v0 + 2);
  EXPECT_EQ(LastChange(l), kChangeEnded);
  // A checkpoint of a segment that already ended preempted changes its lost work: a rewrite.
  ASSERT_TRUE(l.AddEvent(a, s, EventType::kCheckpointCommitted, At(1.5), {{"write_seconds", 1}}));
  EXPECT_EQ(LastChange(l), kChangeRewrite);
  ASSERT_TRUE(l.AddEvent(a, std::nullopt, EventType::kResumed, At(2), {{"seconds", 1}}));
  EXPECT_EQ(LastChange(l), kChangeTimed);
  ASSERT_TRUE(l.ReviseSegmentEnd(s, At(1.75), EndReason::kPreempted));
  EXPECT_EQ(LastChange(l), kChangeRewrite);
  EXPECT_EQ(version(), v0 + 5);
  const std::vector<Row> logged =
      l.connection()
          .Query("SELECT version, segment_id FROM history_changes ORDER BY version")
          .value();
  ASSERT_EQ(logged.size(), 5u);
  EXPECT_EQ(AsInt(logged[0][0]), v0 + 1);
  EXPECT_EQ(AsInt(logged[1][1]), s);  // the segment that ended
}

TYPED_TEST(FleetCacheSuite, AddsAppendsBetweenScrapesAndSumsAgainAfterARewrite) {
  auto ledger = this->Open();
  ASSERT_TRUE(ledger);
  Ledger& l = *ledger;
  Connection& db = l.connection();
  const RunId a = l.BeginRun(MakeRun("a", "nlp")).value();
  const RunId b = l.BeginRun(MakeRun("b", "vision")).value();
  const SegmentId a1 = l.OpenSegment(a, Offer(1200, CapacityTier::kSpot), At(0)).value();
  const SegmentId b1 = l.OpenSegment(b, Offer(410, CapacityTier::kOnDemand), At(0)).value();
  EXPECT_EQ(Path::kFull, this->Scrape(l, At(1)));

  // Several appends between two scrapes: two segments end (one preempted after a checkpoint),
  // a resume is timed, and a segment is written already ended (by hand, through SQL).
  ASSERT_TRUE(l.AddEvent(a, a1, EventType::kCheckpointCommitted, At(1.5), {{"write_seconds", 2}}));
  ASSERT_TRUE(l.CloseSegment(a1, At(2), EndReason::kPreempted));
  ASSERT_TRUE(l.AddEvent(b, b1, EventType::kCheckpointCommitted, At(1), {{"write_seconds", 7}}));
  ASSERT_TRUE(l.CloseSegment(b1, At(2.5), EndReason::kFinished));
  const SegmentId a2 = l.OpenSegment(a, Offer(1200, CapacityTier::kSpot), At(2)).value();
  ASSERT_TRUE(l.AddEvent(a, a2, EventType::kResumed, At(2.1), {{"seconds_to_first_progress", 30}}));
  const std::vector<Row> inserted =
      db.Query(
            "INSERT INTO segments (run_id, cloud, instance_type, region, gpu, gpu_count, tier, "
            "price_micros_per_hour, start_ms, end_ms, end_reason) VALUES (?, 'aws', "
            "'g5.xlarge', 'us-east-1', 'A10G', 1, 'spot', 1006000, ?, ?, 'preempted') "
            "RETURNING id",
            std::vector<Value>{b, ToMillis(At(2.5)), ToMillis(At(3))})
          .value();
  EXPECT_EQ(LastChange(l), kChangeEnded);
  EXPECT_EQ(Path::kMerged, this->Scrape(l, At(3.5)));
  EXPECT_EQ(Path::kKept, this->Scrape(l, At(3.75)));

  // An append, then a rewrite of it, before the next scrape: summed whole again.
  ASSERT_TRUE(l.CloseSegment(a2, At(4), EndReason::kPreempted));
  ASSERT_TRUE(l.ReviseSegmentEnd(a2, At(3.9), EndReason::kPreempted));
  EXPECT_EQ(Path::kFull, this->Scrape(l, At(5)));

  // A segment with an end ahead of the clock: open until then. Appends while it is ahead, then
  // its end passes with nothing else changed; a second one's end passes with an append.
  const SegmentId a3 = l.OpenSegment(a, Offer(1200, CapacityTier::kSpot), At(5)).value();
  ASSERT_TRUE(l.CloseSegment(a3, At(8), EndReason::kPreempted));
  const SegmentId b2 = l.OpenSegment(b, Offer(410, CapacityTier::kOnDemand), At(5)).value();
  ASSERT_TRUE(l.CloseSegment(b2, At(9), EndReason::kFinished));
  EXPECT_EQ(Path::kMerged, this->Scrape(l, At(6)));
  ASSERT_TRUE(l.AddEvent(b, std::nullopt, EventType::kCheckpointCommitted, At(6),
                         {{"write_seconds", 1.25}}));
  EXPECT_EQ(Path::kMerged, this->Scrape(l, At(7)));
  EXPECT_EQ(Path::kKept, this->Scrape(l, At(7.5)));
  EXPECT_EQ(Path::kMerged, this->Scrape(l, At(8)));  // an end at now is summed
  EXPECT_EQ(Path::kKept, this->Scrape(l, At(8.5)));
  const SegmentId b3 = l.OpenSegment(b, Offer(410, CapacityTier::kOnDemand), At(8.5)).value();
  ASSERT_TRUE(l.CloseSegment(b3, At(8.75), EndReason::kFinished));
  EXPECT_EQ(Path::kMerged, this->Scrape(l, At(9.5)));

  // A timed event without its figure is appended and counts nowhere, as in a full sum.
  ASSERT_TRUE(l.AddEvent(a, std::nullopt, EventType::kResumed, At(9.5), {{"note", "x"}}));
  EXPECT_EQ(Path::kMerged, this->Scrape(l, At(10)));
  // A run's team changed by hand, an ended segment deleted: rewrites.
  ASSERT_TRUE(
      db.Query("UPDATE runs SET team = 'speech' WHERE id = ?", std::vector<Value>{Value{b}}));
  EXPECT_EQ(LastChange(l), kChangeRewrite);
  EXPECT_EQ(Path::kFull, this->Scrape(l, At(10)));
  ASSERT_TRUE(db.Query("DELETE FROM segments WHERE id = ?", std::vector<Value>{inserted[0][0]}));
  EXPECT_EQ(LastChange(l), kChangeRewrite);
  EXPECT_EQ(Path::kFull, this->Scrape(l, At(10)));
  EXPECT_EQ(Path::kKept, this->Scrape(l, At(11)));
}

TYPED_TEST(FleetCacheSuite, ALogThatNoLongerReachesTheKeptVersionSumsAgain) {
  auto ledger = this->Open();
  ASSERT_TRUE(ledger);
  Ledger& l = *ledger;
  Connection& db = l.connection();
  const RunId a = l.BeginRun(MakeRun("a", "nlp")).value();
  EXPECT_EQ(Path::kFull, this->Scrape(l, At(1)));
  // More changes than the log keeps, in one transaction: the oldest are pruned.
  std::vector<Row> rows;
  for (int64_t i = 0; i < kHistoryChangesKept + 10; ++i) {
    rows.push_back({a, ToMillis(At(0)) + i, ToMillis(At(0)) + i + 60'000});
  }
  ASSERT_TRUE(Transact(db, TxnMode::kWrite, [&](Connection& c) {
    return c.ExecuteMany(
        "INSERT INTO segments (run_id, cloud, instance_type, region, gpu_count, tier, "
        "price_micros_per_hour, start_ms, end_ms, end_reason) VALUES (?, 'aws', 'm5.large', "
        "'us-east-1', 0, 'on_demand', 96000, ?, ?, 'finished')",
        rows);
  }));
  const std::vector<Row> kept = db.Query("SELECT COUNT(*) FROM history_changes").value();
  EXPECT_EQ(AsInt(kept[0][0]), kHistoryChangesKept);
  EXPECT_EQ(Path::kFull, this->Scrape(l, At(2)));
  // A log with a hole in it (rows deleted by hand) is not trusted either.
  const SegmentId s = l.OpenSegment(a, Offer(1200, CapacityTier::kSpot), At(2)).value();
  ASSERT_TRUE(l.CloseSegment(s, At(2.5), EndReason::kFinished));
  ASSERT_TRUE(l.AddEvent(a, s, EventType::kCheckpointCommitted, At(2.5), {{"write_seconds", 1}}));
  ASSERT_TRUE(
      db.Query("DELETE FROM history_changes WHERE segment_id = ?", std::vector<Value>{Value{s}}));
  EXPECT_EQ(Path::kFull, this->Scrape(l, At(3)));
  ASSERT_TRUE(l.AddEvent(a, s, EventType::kResumed, At(3), {{"seconds_to_first_progress", 2}}));
  EXPECT_EQ(Path::kMerged, this->Scrape(l, At(3.5)));
}

TYPED_TEST(FleetCacheSuite, ChangesCommittedWhileItScrapesAreNeitherMissedNorAddedTwice) {
  auto ledger = this->Open();
  ASSERT_TRUE(ledger);
  Ledger& l = *ledger;
  constexpr int kWriters = 3;
  constexpr int kEach = 25;
  std::vector<RunId> runs;
  runs.reserve(kWriters);
  for (int w = 0; w < kWriters; ++w) {
    runs.push_back(l.BeginRun(MakeRun(fmt::format("w{}", w), w % 2 ? "nlp" : "vision")).value());
  }
  EXPECT_EQ(Path::kFull, this->Scrape(l, At(100)));
  // Writers on their own connections commit segments that end and checkpoints while the cache
  // loads: every other scrape's clock is a little behind the last, so it sums the whole history,
  // and the next adds to that what it finds. Each change must be counted once, whichever
  // scrape sees it: the version, the log and the rows are read from one state.
  std::atomic<int> finished{0};
  std::vector<std::thread> writers;
  writers.reserve(kWriters);
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      auto mine = this->Open();
      for (int i = 0; mine && i < kEach; ++i) {
        const double at = 1 + w + i / 100.0;
        const Result<SegmentId> s = mine->OpenSegment(
            runs[static_cast<size_t>(w)], Offer(1200 + 100 * i, CapacityTier::kSpot), At(at));
        EXPECT_TRUE(s);
        if (!s) break;
        EXPECT_TRUE(mine->AddEvent(runs[static_cast<size_t>(w)], *s,
                                   EventType::kCheckpointCommitted, At(at + 0.001),
                                   {{"write_seconds", i}}));
        EXPECT_TRUE(mine->CloseSegment(*s, At(at + 0.005),
                                       i % 3 == 0 ? EndReason::kPreempted : EndReason::kFinished));
      }
      ++finished;
    });
  }
  int64_t scrapes = 0;
  while (finished.load() < kWriters) {
    EXPECT_TRUE(this->cache_.Load(l, scrapes % 2 == 0 ? At(100) : At(99)));
    ++scrapes;
  }
  for (std::thread& t : writers) t.join();
  // What the last full sum and the changes added after it come to equals summing it all again.
  EXPECT_NE(Path::kFull, this->Scrape(l, At(100))) << "after " << scrapes << " scrapes";
  EXPECT_GT(this->cache_.full_loads(), 1);
}

TYPED_TEST(FleetCacheSuite, ALedgerMigratedFromVersion8CountsItsChanges) {
  RunId b = 0;
  {
    OpenOptions old;
    old.schema_version = 8;
    auto ledger = this->Open(old);
    ASSERT_TRUE(ledger);
    const RunId a = ledger->BeginRun(MakeRun("a", "nlp")).value();
    const SegmentId s = ledger->OpenSegment(a, Offer(1200, CapacityTier::kSpot), At(0)).value();
    ASSERT_TRUE(ledger->CloseSegment(s, At(1), EndReason::kFinished));
    b = ledger->BeginRun(MakeRun("b", "nlp")).value();
  }
  auto ledger = this->Open();
  ASSERT_TRUE(ledger);
  EXPECT_EQ(Path::kFull, this->Scrape(*ledger, At(2)));
  ASSERT_TRUE(ledger->OpenSegment(b, Offer(410, CapacityTier::kOnDemand), At(2)));
  EXPECT_EQ(Path::kKept, this->Scrape(*ledger, At(3)));
  ASSERT_TRUE(ledger->FinishRun(b, RunStatus::kFailed, At(3)));
  EXPECT_EQ(Path::kMerged, this->Scrape(*ledger, At(4)));
}

TYPED_TEST(FleetCacheSuite, ALedgerMigratedFromVersion9LogsItsChanges) {
  RunId b = 0;
  SegmentId s = 0;
  int64_t v9 = 0;
  {
    OpenOptions old;
    old.schema_version = 9;
    auto ledger = this->Open(old);
    ASSERT_TRUE(ledger);
    const RunId a = ledger->BeginRun(MakeRun("a", "nlp")).value();
    s = ledger->OpenSegment(a, Offer(1200, CapacityTier::kSpot), At(0)).value();
    ASSERT_TRUE(ledger->CloseSegment(s, At(1), EndReason::kPreempted));
    b = ledger->BeginRun(MakeRun("b", "nlp")).value();
    v9 = HistoryVersion(*ledger).value();
    EXPECT_EQ(v9, 1);
  }
  auto ledger = this->Open();
  ASSERT_TRUE(ledger);
  EXPECT_EQ(SchemaVersion(ledger->connection()).value(), kSchemaVersion);
  EXPECT_EQ(HistoryVersion(*ledger).value(), v9);
  EXPECT_EQ(LastChange(*ledger), "none");
  EXPECT_EQ(Path::kFull, this->Scrape(*ledger, At(2)));
  ASSERT_TRUE(ledger->OpenSegment(b, Offer(410, CapacityTier::kOnDemand), At(2)));
  ASSERT_TRUE(ledger->FinishRun(b, RunStatus::kFailed, At(3)));
  // Version 9's triggers are gone: one change, one step of the version, one logged row.
  EXPECT_EQ(HistoryVersion(*ledger).value(), v9 + 1);
  EXPECT_EQ(LastChange(*ledger), kChangeEnded);
  EXPECT_EQ(Path::kMerged, this->Scrape(*ledger, At(4)));
  ASSERT_TRUE(ledger->ReviseSegmentEnd(s, At(0.5), EndReason::kPreempted));
  EXPECT_EQ(HistoryVersion(*ledger).value(), v9 + 2);
  EXPECT_EQ(Path::kFull, this->Scrape(*ledger, At(4)));
}

}  // namespace
}  // namespace frugal::ledger::testing
