// CatchUpFromJournal on both ledger backends (a SQLite file and the fixture's PostgreSQL). A
// ledger whose writes failed holds a prefix of what the supervisor recorded (LedgerRecorder
// retries in order), while the journal holds everything: each test writes the whole attempt to
// the journal and only its first N records to the ledger, then catches the ledger up.

#include "frugal/run/ledger_catch_up.h"

#include <gtest/gtest.h>

#include "backends.h"
#include "frugal/run/ledger_recorder.h"
#include "frugal/run/run_journal.h"

namespace frugal::run {
namespace {

using ledger::testing::BackendNames;
using ledger::testing::Backends;
using ledger::testing::BackendTest;
using std::chrono::milliseconds;

const WallTime kT0 = *ParseWallTime("2024-05-20T10:00:00.000Z");

ledger::Timestamp Ms(WallTime t) { return std::chrono::time_point_cast<milliseconds>(t); }

ledger::SegmentOffer Offer(int64_t cents_per_hour) {
  ledger::SegmentOffer o;
  o.cloud = "custom";
  o.gpu_count = 1;
  o.tier = CapacityTier::kOnDemand;
  o.price = Rate{Money::FromCents(cents_per_hour)};
  return o;
}

/// Passes the first `limit` records to `inner` and drops the rest: a ledger whose writes
/// started failing there and never recovered before the supervisor exited.
class CutRecorder : public RunRecorder {
 public:
  CutRecorder(RunRecorder& inner, int limit) : inner_(inner), left_(limit) {}
  void RunStarted(const RunStart& s) override {
    if (Pass()) inner_.RunStarted(s);
  }
  void SegmentOpened(const SegmentOpen& o) override {
    if (Pass()) inner_.SegmentOpened(o);
  }
  void SegmentClosed(const SegmentClose& c) override {
    if (Pass()) inner_.SegmentClosed(c);
  }
  void Event(const RunEvent& e) override {
    if (Pass()) inner_.Event(e);
  }
  void RecordSample(int segment, const monitor::Sample& s) override {
    if (Pass()) inner_.RecordSample(segment, s);
  }
  void RecordHeartbeat(const Heartbeat& h) override {
    if (Pass()) inner_.RecordHeartbeat(h);
  }
  void RunFinished(const RunFinish& f) override {
    if (Pass()) inner_.RunFinished(f);
  }

 private:
  bool Pass() { return left_-- > 0; }
  RunRecorder& inner_;
  int left_;
};

/// One attempt of run "C1" at $3.60/h: started at kT0, segment 1 from +10 ms to +2 s, which
/// ends `end`, then the attempt ends `outcome` at +2.1 s. Five records.
void RecordAttempt(RunRecorder& r, int attempt, WallTime t0, SegmentEnd end,
                   const std::string& outcome, int64_t cents_per_hour = 360,
                   std::optional<CapacityTier> tier = std::nullopt) {
  RunStart start;
  start.run_id = "C1";
  start.tier = tier;
  start.attempt = attempt;
  start.at = t0;
  start.command = {"train"};
  start.price = Rate{Money::FromCents(cents_per_hour)};
  start.gpus = 1;
  r.RunStarted(start);
  r.SegmentOpened({attempt, t0 + milliseconds(10), std::nullopt, 0});
  Heartbeat beat;
  beat.segment = attempt;
  beat.at = t0 + milliseconds(500);
  r.RecordHeartbeat(beat);
  SegmentClose close;
  close.segment = attempt;
  close.at = t0 + milliseconds(2000);
  close.end = end;
  r.SegmentClosed(close);
  RunFinish finish;
  finish.at = t0 + milliseconds(2100);
  finish.outcome = outcome;
  r.RunFinished(finish);
}

template <typename B>
class LedgerCatchUpTest : public BackendTest<B> {
 protected:
  std::filesystem::path Journal() { return dir_.path() / "journal.jsonl"; }

  /// The attempt in full in the journal, its first `limit` records in the ledger.
  void RecordCut(ledger::Ledger& db, int limit, int attempt = 1, WallTime t0 = kT0,
                 SegmentEnd end = SegmentEnd::kFailed, const std::string& outcome = "failed",
                 int64_t cents_per_hour = 360, std::optional<CapacityTier> tier = std::nullopt) {
    RunJournal journal(Journal());
    LedgerRecorder to_ledger(db, "C1", Offer(360));
    CutRecorder cut(to_ledger, limit);
    TeeRecorder both(journal, cut);
    RecordAttempt(both, attempt, t0, end, outcome, cents_per_hour, tier);
    ASSERT_TRUE(to_ledger.Flush());
  }

  /// Catches run C1 up from the journal, as a relaunch on the $3.60/h offer would.
  Result<LedgerCatchUp> CatchUp(ledger::Ledger& db) {
    return CatchUpFromJournal(db, "C1", Journal(), Offer(360));
  }

  ledger::Run RunOf(ledger::Ledger& db) {
    Result<std::optional<ledger::Run>> run = FindRunByName(db, "C1");
    EXPECT_TRUE(run && *run);
    return run && *run ? **run : ledger::Run{};
  }

  frugal::testing::TempDir dir_;
};

TYPED_TEST_SUITE(LedgerCatchUpTest, Backends, BackendNames);

TYPED_TEST(LedgerCatchUpTest, WritesLostAtAnyPointAreReplayedToTheJournalsSegmentAndOutcome) {
  // Cut after the run's start (no segment), after the segment's start, after the heartbeat,
  // after the segment's end (no run end).
  for (int limit = 1; limit <= 4; ++limit) {
    SCOPED_TRACE(limit);
    this->location_ = this->NewLocation();
    std::filesystem::remove(this->Journal());
    auto db = this->Open();
    ASSERT_NE(db, nullptr);
    ASSERT_NO_FATAL_FAILURE(this->RecordCut(*db, limit));
    EXPECT_EQ(this->RunOf(*db).status, ledger::RunStatus::kRunning);

    Result<LedgerCatchUp> caught = this->CatchUp(*db);
    ASSERT_TRUE(caught.has_value()) << caught.error().message;
    EXPECT_TRUE(caught->Any());
    EXPECT_TRUE(caught->run_ended);
    EXPECT_EQ(caught->segments_added, limit == 1 ? 1 : 0);
    EXPECT_EQ(caught->segments_closed, limit == 2 || limit == 3 ? 1 : 0);

    const ledger::Run run = this->RunOf(*db);
    EXPECT_EQ(run.status, ledger::RunStatus::kFailed);
    EXPECT_EQ(run.end, Ms(kT0 + milliseconds(2100)));
    auto segments = db->SegmentsOf(run.id);
    ASSERT_TRUE(segments.has_value());
    ASSERT_EQ(segments->size(), 1u);
    const ledger::Segment& seg = segments->front();
    EXPECT_EQ(seg.start, Ms(kT0 + milliseconds(10)));
    EXPECT_EQ(seg.end, Ms(kT0 + milliseconds(2000)));
    EXPECT_EQ(seg.end_reason, ledger::EndReason::kFailed);
    EXPECT_EQ(seg.Cost(ledger::Now()), Rate{Money::FromCents(360)}.For(milliseconds(1990)));

    // Nothing more to do the second time.
    Result<LedgerCatchUp> again = this->CatchUp(*db);
    ASSERT_TRUE(again.has_value()) << again.error().message;
    EXPECT_FALSE(again->Any()) << again->Describe();
  }
}

TYPED_TEST(LedgerCatchUpTest, ARunTheSweepMarkedLostGetsTheJournalsEndAndOutcome) {
  auto db = this->Open();
  ASSERT_NE(db, nullptr);
  ASSERT_NO_FATAL_FAILURE(this->RecordCut(*db, 3));  // the last write that made it: the heartbeat
  auto swept = db->SweepLost(ledger::Now(), std::chrono::minutes(1));
  ASSERT_TRUE(swept.has_value());
  ASSERT_EQ(swept->size(), 1u);
  EXPECT_EQ(this->RunOf(*db).status, ledger::RunStatus::kLost);

  Result<LedgerCatchUp> caught = this->CatchUp(*db);
  ASSERT_TRUE(caught.has_value()) << caught.error().message;
  EXPECT_EQ(caught->segments_revised, 1);
  EXPECT_TRUE(caught->run_ended);
  const ledger::Run run = this->RunOf(*db);
  EXPECT_EQ(run.status, ledger::RunStatus::kFailed);
  EXPECT_EQ(run.end, Ms(kT0 + milliseconds(2100)));
  auto segments = db->SegmentsOf(run.id);
  ASSERT_TRUE(segments.has_value());
  ASSERT_EQ(segments->size(), 1u);
  EXPECT_EQ(segments->front().end, Ms(kT0 + milliseconds(2000)));
  EXPECT_EQ(segments->front().end_reason, ledger::EndReason::kFailed);
}

TYPED_TEST(LedgerCatchUpTest, ARequeuedAttemptsMissingSegmentIsAddedAtItsOwnPrice) {
  auto db = this->Open();
  ASSERT_NO_FATAL_FAILURE(
      this->RecordCut(*db, 5, 1, kT0, SegmentEnd::kPreempted, "preempted"));  // all recorded
  // The requeued attempt, on pricier capacity, reached the ledger with its start only.
  const WallTime t1 = kT0 + std::chrono::minutes(5);
  ASSERT_NO_FATAL_FAILURE(this->RecordCut(*db, 1, 2, t1, SegmentEnd::kFinished, "finished", 1000));
  Result<LedgerCatchUp> caught = this->CatchUp(*db);
  ASSERT_TRUE(caught.has_value()) << caught.error().message;
  EXPECT_EQ(caught->segments_added, 1);
  const ledger::Run run = this->RunOf(*db);
  EXPECT_EQ(run.status, ledger::RunStatus::kSucceeded);
  auto segments = db->SegmentsOf(run.id);
  ASSERT_TRUE(segments.has_value());
  ASSERT_EQ(segments->size(), 2u);
  EXPECT_EQ(segments->at(0).end_reason, ledger::EndReason::kPreempted);
  EXPECT_EQ(segments->at(1).end_reason, ledger::EndReason::kFinished);
  EXPECT_EQ(segments->at(1).offer.price.per_hour, Money::FromCents(1000));
  EXPECT_EQ(segments->at(1).start, Ms(t1 + milliseconds(10)));
}

TYPED_TEST(LedgerCatchUpTest, AMissingSegmentIsAddedOnTheJournalsTierAndABadTierNameIsRefused) {
  auto db = this->Open();
  ASSERT_NO_FATAL_FAILURE(this->RecordCut(*db, 5, 1, kT0, SegmentEnd::kPreempted, "preempted"));
  // Requeued at the same price but on spot; the ledger heard of its start only.
  const WallTime t1 = kT0 + std::chrono::minutes(5);
  ASSERT_NO_FATAL_FAILURE(
      this->RecordCut(*db, 1, 2, t1, SegmentEnd::kFinished, "finished", 360, CapacityTier::kSpot));
  const std::string journal = frugal::testing::ReadTestFile(this->Journal());
  const std::string named = R"("tier":"spot")";
  const size_t at = journal.find(named);
  ASSERT_NE(at, std::string::npos) << journal;

  std::string damaged = journal;
  damaged.replace(at, named.size(), R"("tier":"spott")");
  frugal::testing::WriteTestFile(this->Journal(), damaged);
  Result<LedgerCatchUp> refused = this->CatchUp(*db);
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().code, ErrorCode::kBadInput);
  EXPECT_NE(refused.error().message.find("unknown tier 'spott'"), std::string::npos)
      << refused.error().message;

  frugal::testing::WriteTestFile(this->Journal(), journal);
  Result<LedgerCatchUp> caught = this->CatchUp(*db);
  ASSERT_TRUE(caught.has_value()) << caught.error().message;
  EXPECT_EQ(caught->segments_added, 1);
  auto segments = db->SegmentsOf(this->RunOf(*db).id);
  ASSERT_TRUE(segments.has_value());
  ASSERT_EQ(segments->size(), 2u);
  EXPECT_EQ(segments->at(0).offer.tier, CapacityTier::kOnDemand);
  EXPECT_EQ(segments->at(1).offer.tier, CapacityTier::kSpot);
  EXPECT_EQ(segments->at(1).offer.cloud, "custom");  // not the on-demand offer it relaunched on
}

TYPED_TEST(LedgerCatchUpTest, AJournalTheLedgerHasNoRunForIsLeftAlone) {
  auto db = this->Open();
  ASSERT_NO_FATAL_FAILURE(this->RecordCut(*db, 0));
  Result<LedgerCatchUp> caught = this->CatchUp(*db);
  ASSERT_TRUE(caught.has_value()) << caught.error().message;
  EXPECT_FALSE(caught->Any());
  auto runs = db->CountRows("runs");
  ASSERT_TRUE(runs.has_value());
  EXPECT_EQ(*runs, 0);
}

TYPED_TEST(LedgerCatchUpTest, EventsAndSamplesTheLedgerMissedAreAddedOnce) {
  auto db = this->Open();
  ASSERT_NE(db, nullptr);
  {
    RunJournal journal(this->Journal());
    LedgerRecorder to_ledger(*db, "C1", Offer(360));
    // Start, segment, the first checkpoint and sample reach the ledger; nothing after them.
    CutRecorder cut(to_ledger, 4);
    TeeRecorder both(journal, cut);
    RunStart start;
    start.run_id = "C1";
    start.attempt = 1;
    start.at = kT0;
    start.command = {"train"};
    start.price = Rate{Money::FromCents(360)};
    start.gpus = 1;
    both.RunStarted(start);
    both.SegmentOpened({1, kT0 + milliseconds(10), std::nullopt, 0});
    for (int i = 1; i <= 3; ++i) {
      RunEvent committed;
      committed.kind = EventKind::kCheckpointCommitted;
      committed.segment = 1;
      committed.at = kT0 + milliseconds(1000 * i);
      committed.detail = "ckpt-00000" + std::to_string(i);
      committed.step = 10 * i;
      committed.bytes = 1000u * static_cast<uint64_t>(i);
      committed.duration = milliseconds(40);
      both.Event(committed);
      monitor::Sample sample;
      sample.at = kT0 + milliseconds(1000 * i + 500);
      sample.processes = 2;
      sample.cpu_cores = 0.5 * i;
      sample.rss_bytes = 1u << 20;
      sample.gpu_util_percent = 30.0 * i;
      both.RecordSample(1, sample);
    }
    RunEvent stop;
    stop.kind = EventKind::kBudgetStop;
    stop.segment = 1;
    stop.at = kT0 + milliseconds(3900);
    stop.detail = "overshoot $0.0001";
    stop.cap = CapKind::kDollars;
    both.Event(stop);
    SegmentClose close;
    close.segment = 1;
    close.at = kT0 + milliseconds(4000);
    close.end = SegmentEnd::kBudgetStop;
    both.SegmentClosed(close);
    RunFinish finish;
    finish.at = kT0 + milliseconds(4100);
    finish.outcome = "budget_stop";
    both.RunFinished(finish);
    ASSERT_TRUE(to_ledger.Flush());
  }
  const ledger::RunId id = this->RunOf(*db).id;
  ASSERT_EQ(db->GetRunDetail(id, ledger::Now())->events.size(), 1u);
  ASSERT_EQ(db->SamplesOf(id)->size(), 1u);

  Result<LedgerCatchUp> caught = this->CatchUp(*db);
  ASSERT_TRUE(caught.has_value()) << caught.error().message;
  EXPECT_EQ(caught->events_added, 3);
  EXPECT_EQ(caught->samples_added, 2);
  EXPECT_NE(caught->Describe().find("added 3 events, added 2 utilization samples"),
            std::string::npos)
      << caught->Describe();

  const ledger::RunDetail detail = *db->GetRunDetail(id, ledger::Now());
  ASSERT_EQ(detail.events.size(), 4u);
  const ledger::Event& last = detail.events.back();
  EXPECT_EQ(last.type, ledger::EventType::kBudgetStop);
  EXPECT_EQ(last.time, Ms(kT0 + milliseconds(3900)));
  EXPECT_EQ(last.payload["cap"], "dollars");
  EXPECT_EQ(last.payload["detail"], "overshoot $0.0001");
  ASSERT_TRUE(last.segment_id.has_value());
  EXPECT_EQ(*last.segment_id, db->SegmentsOf(id)->front().id);
  // The replayed checkpoint events carry what the supervisor recorded.
  EXPECT_EQ(detail.events[2].payload["step"], 30);
  EXPECT_EQ(detail.events[2].payload["bytes"], 3000);
  EXPECT_DOUBLE_EQ(detail.events[2].payload["write_seconds"].get<double>(), 0.04);
  const std::vector<ledger::Sample> samples = *db->SamplesOf(id);
  ASSERT_EQ(samples.size(), 3u);
  EXPECT_EQ(samples.back().time, Ms(kT0 + milliseconds(3500)));
  EXPECT_DOUBLE_EQ(samples.back().gpu_util.value_or(0), 90.0);
  EXPECT_DOUBLE_EQ(samples.back().cpu_util.value_or(0), 150.0);

  Result<LedgerCatchUp> again = this->CatchUp(*db);
  ASSERT_TRUE(again.has_value()) << again.error().message;
  EXPECT_FALSE(again->Any()) << again->Describe();
}

TYPED_TEST(LedgerCatchUpTest, SamplesTheLedgerDownsampledAreNotAddedAgain) {
  auto db = this->Open();
  ASSERT_NE(db, nullptr);
  {
    RunJournal journal(this->Journal());
    LedgerRecorder to_ledger(*db, "C1", Offer(360));
    TeeRecorder both(journal, to_ledger);
    RecordAttempt(both, 1, kT0, SegmentEnd::kFinished, "finished");
    for (int i = 1; i <= 3; ++i) {
      monitor::Sample sample;
      sample.at = kT0 + milliseconds(500 * i);
      sample.cpu_cores = 1;
      both.RecordSample(1, sample);
    }
    ASSERT_TRUE(to_ledger.Flush());
  }
  const ledger::RunId id = this->RunOf(*db).id;
  // The three raw samples become one hourly row stamped at the hour's start, before them.
  ASSERT_TRUE(db->Downsample(ledger::Now(), std::chrono::hours(1)).has_value());
  ASSERT_EQ(db->SamplesOf(id)->size(), 1u);

  Result<LedgerCatchUp> caught = this->CatchUp(*db);
  ASSERT_TRUE(caught.has_value()) << caught.error().message;
  EXPECT_EQ(caught->samples_added, 0) << caught->Describe();
  EXPECT_EQ(db->SamplesOf(id)->size(), 1u);
}

/// Run C1's attempt whose supervisor is killed 1.6 s in: started at kT0, segment 1 open from
/// +10 ms, one heartbeat at +500 ms, its last record a sample at +1500 ms; every record reached
/// both the journal and the ledger, and nothing closes the segment.
void RecordKilledAttempt(RunRecorder& r) {
  RunStart start;
  start.run_id = "C1";
  start.attempt = 1;
  start.at = kT0;
  start.command = {"train"};
  start.price = Rate{Money::FromCents(360)};
  start.gpus = 1;
  r.RunStarted(start);
  r.SegmentOpened({1, kT0 + milliseconds(10), std::nullopt, 0});
  Heartbeat beat;
  beat.segment = 1;
  beat.at = kT0 + milliseconds(500);
  r.RecordHeartbeat(beat);
  monitor::Sample sample;
  sample.at = kT0 + milliseconds(1500);
  r.RecordSample(1, sample);
}

TYPED_TEST(LedgerCatchUpTest, ASweptKilledAttemptIsCostedToTheJournalsLastRecordAsARestartWould) {
  auto db = this->Open();
  ASSERT_NE(db, nullptr);
  {
    RunJournal journal(this->Journal());
    LedgerRecorder to_ledger(*db, "C1", Offer(360));
    TeeRecorder both(journal, to_ledger);
    RecordKilledAttempt(both);
    ASSERT_TRUE(to_ledger.Flush());
  }
  // The sweep ends the attempt at the ledger's last heartbeat, a second before the journal's
  // last record.
  ASSERT_TRUE(db->SweepLost(ledger::Now(), std::chrono::minutes(1)).has_value());
  const ledger::RunId id = this->RunOf(*db).id;
  ASSERT_EQ(this->RunOf(*db).end, Ms(kT0 + milliseconds(500)));

  Result<LedgerCatchUp> caught = this->CatchUp(*db);
  ASSERT_TRUE(caught.has_value()) << caught.error().message;
  EXPECT_TRUE(caught->lost_extended) << caught->Describe();
  ledger::Run run = this->RunOf(*db);
  EXPECT_EQ(run.status, ledger::RunStatus::kLost);
  EXPECT_EQ(run.end, Ms(kT0 + milliseconds(1500)));
  auto segments = db->SegmentsOf(id);
  ASSERT_TRUE(segments.has_value());
  ASSERT_EQ(segments->size(), 1u);
  EXPECT_EQ(segments->front().end, Ms(kT0 + milliseconds(1500)));
  EXPECT_EQ(segments->front().end_reason, ledger::EndReason::kLost);
  const Money swept_cost = segments->front().Cost(ledger::Now());
  EXPECT_EQ(swept_cost, Rate{Money::FromCents(360)}.For(milliseconds(1490)));
  EXPECT_FALSE(this->CatchUp(*db)->Any());

  // The next supervisor of the run closes the attempt where the journal last heard from it:
  // the ledger keeps the same figure.
  {
    RunJournal journal(this->Journal());
    LedgerRecorder to_ledger(*db, "C1", Offer(360));
    TeeRecorder both(journal, to_ledger);
    const JournalHistory history = ReadJournalHistory(this->Journal());
    ASSERT_TRUE(history.unfinished_attempt);
    CloseLostAttempt(history, *history.last_seen, both);
    ASSERT_TRUE(to_ledger.Flush());
  }
  EXPECT_EQ(db->SegmentsOf(id)->front().Cost(ledger::Now()), swept_cost);
  EXPECT_EQ(this->RunOf(*db).end, Ms(kT0 + milliseconds(1500)));
}

}  // namespace
}  // namespace frugal::run
