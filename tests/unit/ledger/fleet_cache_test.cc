// FleetFactsCache against a full recomputation (LoadFleetFacts) while runs are added, closed,
// preempted, reopened and revised, on SQLite and on PostgreSQL: every scrape must read the
// same facts as summing the whole history again, and an unchanged history must not be summed.

#include "frugal/ledger/fleet_cache.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "backends.h"
#include "frugal/ledger/run_rows.h"

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
    lines.push_back(fmt::format("ended {}/{}/{} {} {} {}", g.team, g.project, g.tier,
                                g.spend.micros(), g.gpu_seconds, g.preemptions));
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
    lines.push_back(fmt::format("lost {} {}", tier, s));
  std::sort(lines.begin(), lines.end());
  std::string out = fmt::format("now {}\n", ToMillis(f.now));
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

template <typename B>
class FleetCacheSuite : public BackendTest<B> {
 protected:
  /// Loads through the cache and from scratch at `now`; they must agree. Returns whether the
  /// cache summed the history again.
  bool Scrape(Ledger& ledger, Timestamp now) {
    const int64_t before = cache_.full_loads();
    const Result<FleetFacts> cached = cache_.Load(ledger, now);
    const Result<FleetFacts> full = LoadFleetFacts(ledger, now);
    EXPECT_TRUE(cached && full);
    if (!cached || !full) return false;
    EXPECT_EQ(Describe(*cached), Describe(*full));
    return cache_.full_loads() > before;
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

  EXPECT_TRUE(this->Scrape(l, At(4)));
  // Nothing summed has changed: later scrapes reuse the sums, and the open segment's cost grows.
  EXPECT_FALSE(this->Scrape(l, At(5)));
  ASSERT_TRUE(l.Heartbeat(b, At(5)));
  const RunId c = l.BeginRun(MakeRun("c", "nlp")).value();
  ASSERT_TRUE(l.OpenSegment(c, Offer(3277, CapacityTier::kOnDemand), At(5)));
  ASSERT_TRUE(l.AddEvent(c, std::nullopt, EventType::kNote, At(5), {{"text", "hi"}}));
  EXPECT_FALSE(this->Scrape(l, At(5.5)));

  // A run finishes: its segment joins the sums.
  ASSERT_TRUE(l.FinishRun(b, RunStatus::kSucceeded, At(6)));
  EXPECT_TRUE(this->Scrape(l, At(6.5)));
  EXPECT_FALSE(this->Scrape(l, At(6.75)));

  // The preempted run is reopened and resumes on a new segment.
  ASSERT_TRUE(l.FinishRun(a, RunStatus::kPaused, At(3)));
  EXPECT_FALSE(this->Scrape(l, At(7)));
  ASSERT_TRUE(ReopenRun(l, a, At(7)));
  const SegmentId a2 = l.OpenSegment(a, Offer(1200, CapacityTier::kSpot), At(7)).value();
  EXPECT_FALSE(this->Scrape(l, At(7.5)));
  ASSERT_TRUE(l.AddEvent(a, a2, EventType::kResumed, At(7.1), {{"seconds_to_first_progress", 42}}));
  EXPECT_TRUE(this->Scrape(l, At(7.5)));
  // A later checkpoint of the preempted segment (caught up from its journal) shortens its lost
  // work; a revised end changes its cost.
  ASSERT_TRUE(l.AddEvent(a, a1, EventType::kCheckpointCommitted, At(2.75), {{"write_seconds", 3}}));
  EXPECT_TRUE(this->Scrape(l, At(8)));
  ASSERT_TRUE(l.ReviseSegmentEnd(a1, At(2.9), EndReason::kPreempted));
  EXPECT_TRUE(this->Scrape(l, At(8)));

  // A segment whose recorded end is still ahead is open until then, and summed after.
  ASSERT_TRUE(l.CloseSegment(a2, At(10), EndReason::kFinished));
  ASSERT_TRUE(l.FinishRun(a, RunStatus::kSucceeded, At(10)));
  EXPECT_TRUE(this->Scrape(l, At(9)));
  EXPECT_FALSE(this->Scrape(l, At(9.5)));
  EXPECT_TRUE(this->Scrape(l, At(10.5)));
  // A clock that went back is not served sums from later.
  EXPECT_TRUE(this->Scrape(l, At(9.5)));

  // A supervisor that died: swept lost, then heard from again.
  const std::vector<RunId> lost = l.SweepLost(At(12), FromHours(1)).value();
  EXPECT_EQ(lost, std::vector<RunId>{c});
  EXPECT_TRUE(this->Scrape(l, At(12)));
  ASSERT_TRUE(l.ExtendLost(c, At(11.5)));
  EXPECT_TRUE(this->Scrape(l, At(12)));
  EXPECT_FALSE(this->Scrape(l, At(13)));
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
  ASSERT_TRUE(l.AddEvent(a, s, EventType::kCheckpointCommitted, At(1), {{"write_seconds", 1}}));
  const int64_t v1 = version();
  EXPECT_GT(v1, v0);
  ASSERT_TRUE(l.CloseSegment(s, At(2), EndReason::kFinished));
  EXPECT_GT(version(), v1);
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
  EXPECT_TRUE(this->Scrape(*ledger, At(2)));
  ASSERT_TRUE(ledger->OpenSegment(b, Offer(410, CapacityTier::kOnDemand), At(2)));
  EXPECT_FALSE(this->Scrape(*ledger, At(3)));
  ASSERT_TRUE(ledger->FinishRun(b, RunStatus::kFailed, At(3)));
  EXPECT_TRUE(this->Scrape(*ledger, At(4)));
}

}  // namespace
}  // namespace frugal::ledger::testing
