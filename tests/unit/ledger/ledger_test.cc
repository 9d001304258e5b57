// The ledger's behaviour, one suite run against SQLite and against a real PostgreSQL server.

#include "frugal/ledger/ledger.h"

#include <gtest/gtest.h>

#include "backends.h"
#include "frugal/ledger/schema.h"

namespace frugal::ledger::testing {
namespace {

constexpr int64_t kHourMs = 3'600'000;
const Timestamp kT0 = FromMillis(1'767'225'600'000);  // 2026-01-01T00:00:00Z

Timestamp At(double hours) { return kT0 + FromHours(hours); }

NewRun MakeRun(const std::string& name, const std::string& team = "nlp") {
  NewRun run;
  run.name = name;
  run.command = "python train.py --epochs 3";
  run.spec = "apiVersion: frugal/v1\n";
  run.tags.team = team;
  run.tags.project = "llm";
  run.tags.owner = "alice";
  run.tags.extra["cost_center"] = "cc-42";
  run.budget = Money::FromCents(10'000);
  run.gpu_hours_cap = 20;
  run.start = kT0;
  return run;
}

SegmentOffer Offer(int64_t cents_per_hour, CapacityTier tier = CapacityTier::kOnDemand) {
  SegmentOffer o{"aws",       "g5.xlarge", "us-east-1", "",
                 "A10G",      1,           tier,        Rate{Money::FromCents(cents_per_hour)},
                 std::nullopt};
  return o;
}

template <typename B>
class LedgerSuite : public BackendTest<B> {};
TYPED_TEST_SUITE(LedgerSuite, Backends, BackendNames);

TYPED_TEST(LedgerSuite, CreatesSchemaOnFirstOpenAndReopens) {
  {
    auto ledger = this->Open();
    ASSERT_TRUE(ledger);
    EXPECT_EQ(SchemaVersion(ledger->connection()).value(), kSchemaVersion);
    ASSERT_TRUE(ledger->BeginRun(MakeRun("a")).has_value());
  }
  auto again = this->Open();
  ASSERT_TRUE(again);
  EXPECT_EQ(again->CountRows("runs").value(), 1);
}

TYPED_TEST(LedgerSuite, ReadingADatabaseWithNoLedgerLaysNoSchema) {
  // An empty database: a SQLite file with a header but no tables, a fresh PostgreSQL schema.
  {
    auto raw = Connect(this->location_, CreateMode::kCreateIfMissing);
    ASSERT_TRUE(raw) << raw.error().message;
  }
  OpenOptions read;
  read.create = CreateMode::kMustExist;
  auto refused = Ledger::Open(this->location_, read);
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().code, ErrorCode::kBadInput);
  EXPECT_NE(refused.error().message.find("no ledger there yet"), std::string::npos)
      << refused.error().message;
  {
    auto raw = Connect(this->location_, CreateMode::kMustExist);
    ASSERT_TRUE(raw) << raw.error().message;
    EXPECT_EQ(SchemaVersion(**raw).value(), 0);
  }
  // A writer lays the schema down; a reader then opens it.
  ASSERT_TRUE(this->Open());
  EXPECT_TRUE(Ledger::Open(this->location_, read).has_value());
}

TYPED_TEST(LedgerSuite, CostsSegmentsExactlyAtTheirOwnPrice) {
  auto ledger = this->Open();
  ASSERT_TRUE(ledger);
  const RunId run = ledger->BeginRun(MakeRun("train")).value();
  // $1.40/h for 2.2 h = $3.08, then $4.00/h for 1 h = $4.00.
  const SegmentId first = ledger->OpenSegment(run, Offer(140, CapacityTier::kSpot), At(0)).value();
  ASSERT_TRUE(ledger->CloseSegment(first, At(2.2), EndReason::kPreempted).has_value());
  ASSERT_TRUE(ledger->OpenSegment(run, Offer(400), At(2.5)).has_value());
  ASSERT_TRUE(ledger->FinishRun(run, RunStatus::kSucceeded, At(3.5)).has_value());

  RunDetail detail = ledger->GetRunDetail(run, At(100)).value();
  EXPECT_EQ(detail.summary.cost, Money::FromCents(708));
  EXPECT_DOUBLE_EQ(detail.summary.gpu_hours, 3.2);
  EXPECT_EQ(detail.summary.run.status, RunStatus::kSucceeded);
  ASSERT_EQ(detail.segments.size(), 2u);
  EXPECT_EQ(detail.segments[0].end_reason, EndReason::kPreempted);
  EXPECT_EQ(detail.segments[0].offer.tier, CapacityTier::kSpot);
  EXPECT_EQ(detail.segments[1].end_reason, EndReason::kFinished);
  EXPECT_EQ(detail.summary.run.tags.Get("cost_center"), "cc-42");
  EXPECT_EQ(detail.summary.run.budget, Money::FromCents(10'000));
  EXPECT_EQ(ledger->TotalCost(At(100)).value(), Money::FromCents(708));
}

TYPED_TEST(LedgerSuite, RefusesInconsistentSegmentChanges) {
  auto ledger = this->Open();
  ASSERT_TRUE(ledger);
  const RunId run = ledger->BeginRun(MakeRun("r")).value();
  const SegmentId seg = ledger->OpenSegment(run, Offer(100), At(0)).value();
  EXPECT_EQ(ledger->OpenSegment(run, Offer(100), At(1)).error().code, ErrorCode::kBadInput);
  ASSERT_TRUE(ledger->CloseSegment(seg, At(1), EndReason::kPaused).has_value());
  EXPECT_EQ(ledger->CloseSegment(seg, At(2), EndReason::kPaused).error().code,
            ErrorCode::kBadInput);
  EXPECT_EQ(ledger->FinishRun(run, RunStatus::kRunning, At(1)).error().code, ErrorCode::kBadInput);
  ASSERT_TRUE(ledger->FinishRun(run, RunStatus::kFailed, At(1)).has_value());
  EXPECT_FALSE(ledger->FinishRun(run, RunStatus::kFailed, At(1)).has_value());
  EXPECT_FALSE(ledger->OpenSegment(run, Offer(100), At(2)).has_value());
  EXPECT_FALSE(ledger->GetRun(run + 1000).has_value());
}

TYPED_TEST(LedgerSuite, ASegmentStoredOnATierThatIsNoneIsAnErrorNamingIt) {
  auto ledger = this->Open();
  ASSERT_TRUE(ledger);
  const RunId run = ledger->BeginRun(MakeRun("r")).value();
  const SegmentId seg = ledger->OpenSegment(run, Offer(100, CapacityTier::kOwned), At(0)).value();
  auto detail = ledger->GetRunDetail(run, At(1));
  ASSERT_TRUE(detail) << detail.error().message;
  ASSERT_EQ(detail->segments.size(), 1u);
  EXPECT_EQ(detail->segments[0].offer.tier, CapacityTier::kOwned);
  EXPECT_EQ(detail->summary.tier, CapacityTier::kOwned);
  // Written by something else: read back as an error, never as a segment on another tier.
  ASSERT_TRUE(ledger->connection().Query("UPDATE segments SET tier = 'gold'").has_value());
  auto bad = ledger->GetRunDetail(run, At(1));
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message.find("segment " + std::to_string(seg) + ": unknown tier 'gold'"),
            std::string::npos)
      << bad.error().message;
}

TYPED_TEST(LedgerSuite, KeepsEventTypesAndPayloads) {
  auto ledger = this->Open();
  ASSERT_TRUE(ledger);
  const RunId run = ledger->BeginRun(MakeRun("e")).value();
  const SegmentId seg = ledger->OpenSegment(run, Offer(100, CapacityTier::kSpot), At(0)).value();
  ASSERT_TRUE(ledger
                  ->AddEvent(run, seg, EventType::kCheckpointCommitted, At(0.5),
                             {{"bytes", 123456789}, {"write_seconds", 4.5}})
                  .has_value());
  ASSERT_TRUE(
      ledger->AddEvent(run, std::nullopt, EventType::kBudgetWarning, At(0.7), {}).has_value());
  RunDetail detail = ledger->GetRunDetail(run, At(1)).value();
  ASSERT_EQ(detail.events.size(), 2u);
  EXPECT_EQ(detail.events[0].type, EventType::kCheckpointCommitted);
  EXPECT_EQ(detail.events[0].segment_id, seg);
  EXPECT_EQ(detail.events[0].payload["bytes"], 123456789);
  EXPECT_EQ(detail.events[1].type, EventType::kBudgetWarning);
  EXPECT_FALSE(detail.events[1].segment_id.has_value());
}

TYPED_TEST(LedgerSuite, SamplesRollUpAndDownsampleKeepsAverages) {
  auto ledger = this->Open();
  ASSERT_TRUE(ledger);
  const RunId run = ledger->BeginRun(MakeRun("s")).value();
  std::vector<Sample> samples;
  for (int i = 0; i < 120; ++i) {  // two hours, one sample a minute
    Sample s;
    s.time = kT0 + std::chrono::minutes(i);
    s.gpu_util = i < 60 ? 20.0 : 80.0;
    s.cpu_util = 100.0;
    if (i % 2 == 0) s.power_watts = 300.0;
    s.sm_active = 70.0;
    s.tensor_active = i < 60 ? 10.0 : 35.0;
    samples.push_back(s);
  }
  ASSERT_TRUE(ledger->AddSamples(run, samples).has_value());
  Utilization u = ledger->UtilizationOf(run).value();
  EXPECT_EQ(u.samples, 120);
  EXPECT_DOUBLE_EQ(*u.gpu_util, 50.0);
  EXPECT_DOUBLE_EQ(*u.power_watts, 300.0);
  EXPECT_FALSE(u.io_wait.has_value());

  // Old data becomes one row per 10 minutes; averages per bucket are kept.
  const int64_t removed = ledger->Downsample(At(1), std::chrono::minutes(10)).value();
  EXPECT_EQ(removed, 60);
  std::vector<Sample> after = ledger->SamplesOf(run).value();
  ASSERT_EQ(after.size(), 66u);
  EXPECT_DOUBLE_EQ(*after[0].gpu_util, 20.0);
  EXPECT_DOUBLE_EQ(*after[0].sm_active, 70.0);
  EXPECT_DOUBLE_EQ(*after[0].tensor_active, 10.0);
  EXPECT_DOUBLE_EQ(*after.back().tensor_active, 35.0);  // a raw row, read back as written
  EXPECT_EQ(after[1].time, kT0 + std::chrono::minutes(10));
  EXPECT_EQ(ledger->UtilizationOf(run).value().samples, 120);
  // Downsampling again changes nothing.
  EXPECT_EQ(ledger->Downsample(At(1), std::chrono::minutes(10)).value(), 0);
}

TYPED_TEST(LedgerSuite, SweepMarksDeadSupervisorsLostCostedToLastHeartbeat) {
  auto ledger = this->Open();
  ASSERT_TRUE(ledger);
  const RunId dead = ledger->BeginRun(MakeRun("dead")).value();
  const RunId alive = ledger->BeginRun(MakeRun("alive")).value();
  ASSERT_TRUE(ledger->OpenSegment(dead, Offer(300), At(0)).has_value());
  ASSERT_TRUE(ledger->OpenSegment(alive, Offer(300), At(0)).has_value());
  ASSERT_TRUE(ledger->Heartbeat(dead, At(1.5)).has_value());
  ASSERT_TRUE(ledger->Heartbeat(alive, At(9.9)).has_value());

  std::vector<RunId> lost = ledger->SweepLost(At(10), std::chrono::minutes(10)).value();
  ASSERT_EQ(lost, std::vector<RunId>{dead});
  RunDetail detail = ledger->GetRunDetail(dead, At(10)).value();
  EXPECT_EQ(detail.summary.run.status, RunStatus::kLost);
  EXPECT_EQ(detail.summary.cost, Money::FromCents(450));  // $3/h × 1.5 h
  EXPECT_EQ(detail.segments[0].end_reason, EndReason::kLost);
  EXPECT_EQ(ledger->GetRun(alive).value().status, RunStatus::kRunning);
  EXPECT_TRUE(ledger->SweepLost(At(10), std::chrono::minutes(10)).value().empty());

  // The dead run's journal heard from it until 2 h: its end moves there, never back, and a run
  // that is not lost is left alone.
  ASSERT_TRUE(ledger->ExtendLost(dead, At(2)).has_value());
  ASSERT_TRUE(ledger->ExtendLost(dead, At(1)).has_value());
  ASSERT_TRUE(ledger->ExtendLost(alive, At(20)).has_value());
  detail = ledger->GetRunDetail(dead, At(10)).value();
  EXPECT_EQ(detail.summary.cost, Money::FromCents(600));  // $3/h × 2 h
  EXPECT_EQ(detail.segments[0].end, At(2));
  EXPECT_EQ(detail.summary.run.end, At(2));
  EXPECT_EQ(ledger->GetRun(alive).value().status, RunStatus::kRunning);
  EXPECT_FALSE(ledger->GetRun(alive).value().end.has_value());
}

TYPED_TEST(LedgerSuite, ListsRunsByTagStatusAndTime) {
  auto ledger = this->Open();
  ASSERT_TRUE(ledger);
  NewRun old_run = MakeRun("old", "vision");
  old_run.start = At(-100);
  const RunId old_id = ledger->BeginRun(old_run).value();
  ASSERT_TRUE(ledger->FinishRun(old_id, RunStatus::kSucceeded, At(-99)).has_value());
  ASSERT_TRUE(ledger->BeginRun(MakeRun("a", "nlp")).has_value());
  ASSERT_TRUE(ledger->BeginRun(MakeRun("b", "vision")).has_value());

  EXPECT_EQ(ledger->ListRuns({}, At(1)).value().size(), 3u);
  RunFilter by_team;
  by_team.tags = {{"team", "vision"}};
  EXPECT_EQ(ledger->ListRuns(by_team, At(1)).value().size(), 2u);
  RunFilter by_extra;
  by_extra.tags = {{"cost_center", "cc-42"}, {"team", "nlp"}};
  auto nlp = ledger->ListRuns(by_extra, At(1)).value();
  ASSERT_EQ(nlp.size(), 1u);
  EXPECT_EQ(nlp[0].run.name, "a");
  RunFilter recent;
  recent.since = At(-1);
  EXPECT_EQ(ledger->ListRuns(recent, At(1)).value().size(), 2u);
  RunFilter running;
  running.status = RunStatus::kRunning;
  EXPECT_EQ(ledger->ListRuns(running, At(1)).value().size(), 2u);
}

TYPED_TEST(LedgerSuite, RecordsStudiesTrialsAndRungs) {
  auto ledger = this->Open();
  ASSERT_TRUE(ledger);
  NewStudy def{"lr-sweep", "space: {}", "val_loss", "minimize", Money::FromCents(10'000), kT0};
  const StudyId study = ledger->CreateStudy(def).value();
  EXPECT_EQ(ledger->CreateStudy(def).error().code, ErrorCode::kBadInput);
  const TrialId t0 = ledger->AddTrial(study, {{"lr", 0.001}}, kT0).value();
  const TrialId t1 = ledger->AddTrial(study, {{"lr", 0.1}}, kT0).value();
  ASSERT_TRUE(ledger->RecordRung(t0, 0, 3, 0.9, At(1)).has_value());
  ASSERT_TRUE(ledger->RecordRung(t0, 0, 3, 0.8, At(1)).has_value());
  ASSERT_TRUE(ledger->RecordRung(t1, 0, 3, 1.7, At(1)).has_value());
  ASSERT_TRUE(
      ledger->UpdateTrial(t1, TrialState::kPruned, Money::FromCents(150), 7, At(1)).has_value());
  ASSERT_TRUE(
      ledger->UpdateTrial(t1, TrialState::kPruned, Money::FromCents(25), std::nullopt, At(1))
          .has_value());
  ASSERT_TRUE(ledger->SetStudyState(study, StudyState::kFinished).has_value());

  std::optional<Study> found = ledger->FindStudy("lr-sweep").value();
  ASSERT_TRUE(found);
  EXPECT_EQ(found->state, StudyState::kFinished);
  EXPECT_EQ(found->definition.budget, Money::FromCents(10'000));
  std::vector<Trial> trials = ledger->TrialsOf(study).value();
  ASSERT_EQ(trials.size(), 2u);
  EXPECT_EQ(trials[0].number, 0);
  EXPECT_DOUBLE_EQ(trials[0].rungs.at(0).second, 0.8);
  EXPECT_EQ(trials[1].state, TrialState::kPruned);
  EXPECT_EQ(trials[1].cost, Money::FromCents(175));
  EXPECT_EQ(trials[1].run_id, 7);
  EXPECT_EQ(trials[1].config["lr"], 0.1);
}

TYPED_TEST(LedgerSuite, MigratesAVersionOneLedgerForwardKeepingItsData) {
  {
    OpenOptions v1;
    v1.schema_version = 1;
    auto old = this->Open(v1);
    ASSERT_TRUE(old);
    EXPECT_EQ(SchemaVersion(old->connection()).value(), 1);
    const RunId run = old->BeginRun(MakeRun("legacy")).value();
    // Version 1 had no rollups; write samples the way a version-1 binary did.
    for (int i = 0; i < 4; ++i) {
      ASSERT_TRUE(
          old->connection()
              .Query("INSERT INTO samples (run_id, time_ms, resolution_ms, gpu_util) "
                     "VALUES (?, ?, 0, ?)",
                     std::vector<Value>{run, ToMillis(kT0) + i * kHourMs / 2, double(10 * i)})
              .has_value());
    }
  }
  auto ledger = this->Open();
  ASSERT_TRUE(ledger);
  EXPECT_EQ(SchemaVersion(ledger->connection()).value(), kSchemaVersion);
  const RunId run = ledger->ListRuns({}, kT0).value().at(0).run.id;
  Utilization u = ledger->UtilizationOf(run).value();
  EXPECT_EQ(u.samples, 4);
  EXPECT_DOUBLE_EQ(*u.gpu_util, 15.0);
}

TYPED_TEST(LedgerSuite, RecordsLinksAndListsPolicyOverrides) {
  auto ledger = this->Open();
  ASSERT_TRUE(ledger);
  NewOverride o;
  o.time = At(1);
  o.command = "run";
  o.subject = "run r-1 (job llama)";
  o.rules = {"gpu-model", "required-tags"};
  o.reason = "INC-42: the only capacity left tonight";
  o.user_name = "alice";
  o.team = "nlp";
  o.project = "llm";
  o.policy_source = "ml-platform v3 (policy.yaml)";
  const OverrideId first = ledger->RecordOverride(o).value();
  o.time = At(3);
  o.command = "tune";
  o.rules = {"budget-approval"};
  const OverrideId second = ledger->RecordOverride(o).value();
  EXPECT_NE(first, second);

  const RunId run = ledger->BeginRun(MakeRun("r-1")).value();
  ASSERT_TRUE(ledger->LinkOverride(first, run, std::nullopt).has_value());
  const StudyId study = ledger->CreateStudy({"s", "spec", "loss", "minimize", {}, At(3)}).value();
  ASSERT_TRUE(ledger->LinkOverride(second, std::nullopt, study).has_value());
  auto missing = ledger->LinkOverride(second + 100, run, std::nullopt);
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().code, ErrorCode::kBadInput);

  const std::vector<PolicyOverride> all = ledger->ListOverrides({}).value();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].id, second);  // newest first
  EXPECT_EQ(all[0].record.study_id, study);
  EXPECT_FALSE(all[0].record.run_id.has_value());
  const NewOverride& back = all[1].record;
  EXPECT_EQ(back.time, At(1));
  EXPECT_EQ(back.command, "run");
  EXPECT_EQ(back.rules, (std::vector<std::string>{"gpu-model", "required-tags"}));
  EXPECT_EQ(back.reason, "INC-42: the only capacity left tonight");
  EXPECT_EQ(back.user_name, "alice");
  EXPECT_EQ(back.team, "nlp");
  EXPECT_EQ(back.project, "llm");
  EXPECT_EQ(back.policy_source, "ml-platform v3 (policy.yaml)");
  EXPECT_EQ(back.run_id, run);
  EXPECT_FALSE(back.study_id.has_value());

  // Spend: the run's segments (2 h at $1.50/h), the study's trials; nothing for an unlinked one.
  const SegmentId seg = ledger->OpenSegment(run, Offer(150), At(1)).value();
  ASSERT_TRUE(ledger->CloseSegment(seg, At(3), EndReason::kFinished).has_value());
  EXPECT_EQ(ledger->SpendOf(all[1], At(5)).value(), Money::FromCents(300));
  const TrialId trial = ledger->AddTrial(study, {{"lr", 0.1}}, At(3)).value();
  ASSERT_TRUE(ledger->UpdateTrial(trial, TrialState::kCompleted, Money::FromCents(75), {}, At(4))
                  .has_value());
  EXPECT_EQ(ledger->SpendOf(all[0], At(5)).value(), Money::FromCents(75));
  PolicyOverride unlinked = all[0];
  unlinked.record.study_id.reset();
  EXPECT_FALSE(ledger->SpendOf(unlinked, At(5)).value().has_value());

  const auto window = ledger->ListOverrides({At(2), At(4)}).value();
  ASSERT_EQ(window.size(), 1u);
  EXPECT_EQ(window[0].id, second);
  EXPECT_TRUE(ledger->ListOverrides({At(0), At(1)}).value().empty());  // until is exclusive

  NewOverride no_reason = o;
  no_reason.reason.clear();
  auto refused = ledger->RecordOverride(no_reason);
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().code, ErrorCode::kBadInput);
  NewOverride no_rules = o;
  no_rules.rules.clear();
  EXPECT_FALSE(ledger->RecordOverride(no_rules).has_value());
  EXPECT_EQ(ledger->CountRows("policy_overrides").value(), 2);
}

TYPED_TEST(LedgerSuite, RefusesASchemaNewerThanItKnows) {
  {
    auto ledger = this->Open();
    ASSERT_TRUE(ledger);
    ASSERT_TRUE(ledger->connection()
                    .Query("UPDATE frugal_meta SET value = '99' WHERE key = 'schema_version'")
                    .has_value());
  }
  auto refused = Ledger::Open(this->location_);
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().code, ErrorCode::kUnavailable);
  EXPECT_NE(refused.error().message.find("newer"), std::string::npos);
}

TYPED_TEST(LedgerSuite, RefusesAForeignDatabase) {
  {
    auto raw = Connect(this->location_, CreateMode::kCreateIfMissing).value();
    ASSERT_TRUE(raw->ExecuteScript("CREATE TABLE invoices (id INTEGER, total INTEGER)"));
  }
  auto refused = Ledger::Open(this->location_);
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().code, ErrorCode::kBadInput);
  EXPECT_NE(refused.error().message.find("not a frugal ledger"), std::string::npos);
}

}  // namespace
}  // namespace frugal::ledger::testing
