// The live queue's own parts, on real files and a real SQLite ledger: the queued job spec's
// checkpoint keys and warm_start, the request's stored form, what the spot policy decides after
// a preemption, seeding a run from another run's committed checkpoint, and the list view's ETA.

#include <gtest/gtest.h>

#include "frugal/ledger/ledger.h"
#include "frugal/queue/preemption.h"
#include "frugal/queue/queue_service.h"
#include "frugal/queue/queue_view.h"
#include "frugal/queue/warm_start.h"
#include "frugal/run/checkpoint_store.h"
#include "shipped_gpus.h"
#include "support/test_support.h"

namespace frugal::queue {
namespace {

using ledger::QueueJobState;

using frugal::testing::TempDir;
using frugal::testing::WriteTestFile;

const Seconds kNow = 1'795'996'800 + 10 * 3600;

Capacity SpotCapacity() {
  auto cap = ParseCapacity(
      "apiVersion: frugal/v1\nkind: Capacity\npools:\n"
      "  - {name: spot, tier: spot, gpu: T4, gpus_per_node: 1, price_per_gpu_hour: 0.2,\n"
      "     preemptions_per_hour: 0.1, changeover: 1m}\n"
      "  - {name: od, tier: on_demand, gpu: T4, gpus_per_node: 1, price_per_gpu_hour: 0.6,\n"
      "     changeover: 2m}\n"
      "  - {name: box, tier: owned, cpu_slots: 1}\n",
      "c.yaml", ShippedGpus());
  EXPECT_TRUE(cap) << cap.error().message;
  return *cap;
}

JobRequest SpotJob(Seconds deadline) {
  JobRequest j;
  j.name = "train";
  j.runtime_hours = 2;
  j.checkpoints = true;
  j.arrival = kNow;
  j.deadline = deadline;
  return j;
}

TEST(QueueJobSpec, ReadsTheCheckpointKeysAndWarmStart) {
  TempDir dir;
  const auto spec = dir / "job.yaml";
  WriteTestFile(spec,
                "apiVersion: frugal/v1\nkind: QueueJob\ngpus: 1\nruntime: 2h\n"
                "checkpoints: true\ncheckpoint_every: 10m\nrestart: 15m\n"
                "warm_start: base-run\n");
  auto job = LoadQueueJobSpec(spec, SpotCapacity(), kNow, nullptr);
  ASSERT_TRUE(job) << job.error().message;
  EXPECT_DOUBLE_EQ(job->checkpoint_every_hours, 10.0 / 60);
  EXPECT_DOUBLE_EQ(job->restart_hours, 0.25);
  EXPECT_EQ(job->warm_start, "base-run");
  EXPECT_NE(job->warm_start_where.find("job.yaml:8:13: field 'warm_start'"), std::string::npos)
      << job->warm_start_where;
  WriteTestFile(spec, "apiVersion: frugal/v1\nkind: QueueJob\ngpus: 1\nruntime: 2h\nrestart: 0s\n");
  job = LoadQueueJobSpec(spec, SpotCapacity(), kNow, nullptr);
  ASSERT_FALSE(job);
  EXPECT_EQ(job.error().code, ErrorCode::kBadInput);
  EXPECT_NE(job.error().message.find("job.yaml:5:10: field 'restart'"), std::string::npos)
      << job.error().message;
}

TEST(QueueJobSpec, TheShippedExamplesLoad) {
  const auto dir = frugal::testing::SourceDir() / "examples/queue";
  auto cap = LoadCapacity(dir / "capacity.yaml", ShippedGpus());
  ASSERT_TRUE(cap) << cap.error().message;
  for (const char* name : {"train-job.yaml", "retrain-job.yaml", "demo-job.yaml"}) {
    auto job = LoadQueueJobSpec(dir / name, *cap, kNow, nullptr);
    ASSERT_TRUE(job) << name << ": " << job.error().message;
  }
  auto retrain = LoadQueueJobSpec(dir / "retrain-job.yaml", *cap, kNow, nullptr);
  EXPECT_EQ(retrain->warm_start, "queue-1");
  EXPECT_DOUBLE_EQ(retrain->restart_hours, 0.05);
}

TEST(QueueRequestJson, SpotHistoryAndWarmStartRoundTripAndOldRequestsStillRead) {
  JobRequest j = SpotJob(kNow + 3600);
  j.warm_start = "base";
  j.spot.preemptions = 2;
  j.spot.spot_allowed = false;
  j.spot.first_start = kNow;
  j.spot.work_done_hours = 0.5;
  j.spot.spans = {{true, 600}, {false, 120}};
  j.steps = 5000;
  j.executor = "slurm";
  auto back = RequestFromJson(RequestToJson(j));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->warm_start, "base");
  EXPECT_EQ(back->steps, 5000);
  EXPECT_EQ(back->executor, "slurm");
  EXPECT_EQ(back->spot.preemptions, 2);
  EXPECT_FALSE(back->spot.spot_allowed);
  EXPECT_EQ(back->spot.spans, j.spot.spans);
  // A request stored before these keys existed.
  nlohmann::json old = nlohmann::json::parse(RequestToJson(SpotJob(kNever)));
  old.erase("warm_start");
  old.erase("spot");
  old.erase("steps");
  old.erase("executor");
  back = RequestFromJson(old.dump());
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_TRUE(back->warm_start.empty());
  EXPECT_EQ(back->steps, 0);
  EXPECT_TRUE(back->executor.empty());
  EXPECT_TRUE(back->spot.spot_allowed);
  EXPECT_EQ(back->spot.preemptions, 0);
}

TEST(QueueRequestCache, ParsesAgainOnlyWhenTheStoredTextChanged) {
  RequestCache cache;
  JobRequest j = SpotJob(kNever);
  const std::string first = RequestToJson(j);
  auto a = cache.Get(1, first);
  ASSERT_TRUE(a) << a.error().message;
  EXPECT_EQ(a->spot.preemptions, 0);
  j.spot.preemptions = 1;  // the queue stored what it learnt
  auto b = cache.Get(1, RequestToJson(j));
  ASSERT_TRUE(b);
  EXPECT_EQ(b->spot.preemptions, 1);
  EXPECT_EQ(cache.Get(2, first)->spot.preemptions, 0);  // by job id
  EXPECT_FALSE(cache.Get(3, "{not json"));
}

TEST(QueueRequestCache, KeepsRowsBetweenPassesAndReadsAgainEveryRowThatChanged) {
  TempDir dir;
  auto ledger = ledger::Ledger::Open((dir / "l.db").string());
  ASSERT_TRUE(ledger) << ledger.error().message;
  ledger::Connection& db = (*ledger)->connection();
  const Capacity cap = SpotCapacity();
  auto a = SubmitJob(db, cap, SpotJob(kNever), {"true"}, kNow);
  auto b = SubmitJob(db, cap, SpotJob(kNever), {"true"}, kNow);
  ASSERT_TRUE(a && b);
  RequestCache cache;
  ASSERT_TRUE(cache.Sync(db));
  ASSERT_EQ(cache.rows().size(), 2u);
  EXPECT_EQ(cache.Find(a->id)->row.state, QueueJobState::kWaiting);
  // Moved in the very millisecond it was submitted (two schedulers' clocks can agree): the
  // row's version still changes, so the kept copy is read again.
  const std::vector<QueueJobState> waiting = {QueueJobState::kWaiting};
  ledger::QueueJobRow f;
  f.reason = "held";
  ASSERT_TRUE(*ledger::MoveQueueJob(db, a->id, waiting, QueueJobState::kHeld, f, kNow * 1000));
  auto c = SubmitJob(db, cap, SpotJob(kNever), {"true"}, kNow);
  ASSERT_TRUE(c);
  ASSERT_TRUE(cache.Sync(db));
  ASSERT_EQ(cache.rows().size(), 3u);
  EXPECT_EQ(cache.Find(a->id)->row.state, QueueJobState::kHeld);
  EXPECT_EQ(cache.Find(a->id)->row.reason, "held");
  EXPECT_EQ(cache.Find(b->id)->row.state, QueueJobState::kWaiting);
  EXPECT_EQ(cache.Find(c->id)->request.name, "train");
  auto all = ledger::ListQueueJobs(db, {});
  ASSERT_TRUE(all);
  for (const ledger::QueueJobRow& r : *all) {
    ASSERT_NE(cache.Find(r.id), nullptr);
    EXPECT_EQ(cache.Find(r.id)->row.updated_ms, r.updated_ms);
    EXPECT_EQ(cache.Find(r.id)->row.request, r.request);
  }
}

TEST(QueuePreemption, OffSpotTheJobIsRequeuedWithItsWork) {
  const Capacity cap = SpotCapacity();
  JobRequest j = SpotJob(kNow + 6 * 3600);
  const auto d = AfterPreemption(cap, 7, j, *cap.FindPool("od"), kNow, kNow + 3600 + 120);
  EXPECT_EQ(d.verdict, "requeue");
  EXPECT_EQ(d.job_id, 7);
  EXPECT_TRUE(j.spot.spot_allowed);
  EXPECT_TRUE(j.spot.paid_allowed);
  EXPECT_TRUE(j.spot.spans.empty());  // not a spot history
  // An hour of a two-hour job ran after its 2-minute changeover: half is left.
  EXPECT_NEAR(WorkLeft(cap, j), 0.5, 1e-9);
}

TEST(QueuePreemption, AJobThatDoesNotCheckpointStartsOver) {
  const Capacity cap = SpotCapacity();
  JobRequest j = SpotJob(kNow + 6 * 3600);
  j.checkpoints = false;
  (void)AfterPreemption(cap, 1, j, *cap.FindPool("od"), kNow, kNow + 3600);
  EXPECT_EQ(WorkLeft(cap, j), 1.0);
}

TEST(QueuePreemption, WithoutADeadlineItWaitsForSpotForADayThenMoves) {
  const Capacity cap = SpotCapacity();
  JobRequest j = SpotJob(kNever);
  const auto d = AfterPreemption(cap, 1, j, *cap.FindPool("spot"), kNow, kNow + 1800);
  EXPECT_EQ(d.verdict, "wait_for_spot");
  EXPECT_FALSE(j.spot.paid_allowed);
  EXPECT_TRUE(j.spot.spot_allowed);
  EXPECT_EQ(j.spot.recheck_at, kNow + 1800 + 3600);
  EXPECT_EQ(j.spot.spans, (std::vector<std::pair<bool, Seconds>>{{true, 1800}}));
  EXPECT_FALSE(RecheckSpotWait(cap, 1, j, kNow + 1800 + 3600));
  const auto moved = RecheckSpotWait(cap, 1, j, kNow + 1800 + 86400);
  ASSERT_TRUE(moved);
  EXPECT_EQ(moved->verdict, "move_to_on_demand");
  EXPECT_FALSE(j.spot.spot_allowed);
  EXPECT_TRUE(j.spot.paid_allowed);
}

TEST(QueuePreemption, WithLittleTimeToSpareThePolicyMovesItToOnDemand) {
  const Capacity cap = SpotCapacity();
  // Two hours of work due 2h10m after its start, preempted at once: a restart (5m) and the
  // on-demand changeover (2m) leave nothing to wait for spot with.
  JobRequest j = SpotJob(kNow + 2 * 3600 + 10 * 60);
  const auto d = AfterPreemption(cap, 1, j, *cap.FindPool("spot"), kNow, kNow + 120);
  EXPECT_EQ(d.verdict, "move_to_on_demand") << d.reason;
  EXPECT_FALSE(j.spot.spot_allowed);
  EXPECT_NE(d.reason.find("preempted on spot (1 preemption)"), std::string::npos) << d.reason;
}

TEST(QueuePreemption, WithHoursToSpareItWaitsAndIsAskedAgainBeforeHalfOfThemAreGone) {
  const Capacity cap = SpotCapacity();
  JobRequest j = SpotJob(kNow + 8 * 3600);
  const auto d = AfterPreemption(cap, 1, j, *cap.FindPool("spot"), kNow, kNow + 120);
  EXPECT_EQ(d.verdict, "wait_for_spot") << d.reason;
  EXPECT_FALSE(j.spot.paid_allowed);
  EXPECT_GT(j.spot.recheck_at, kNow + 120);
  EXPECT_LE(j.spot.recheck_at, kNow + 120 + 3600);
}

TEST(QueuePreemption, TheWaitBeforeAStartIsPartOfTheSpotHistory) {
  const Capacity cap = SpotCapacity();
  JobRequest j = SpotJob(kNever);
  (void)AfterPreemption(cap, 1, j, *cap.FindPool("spot"), kNow, kNow + 600);
  (void)AfterPreemption(cap, 1, j, *cap.FindPool("spot"), kNow + 900, kNow + 2000);
  EXPECT_EQ(j.spot.preemptions, 2);
  EXPECT_EQ(j.spot.first_start, kNow);
  EXPECT_EQ(j.spot.spans,
            (std::vector<std::pair<bool, Seconds>>{{true, 600}, {false, 300}, {true, 1100}}));
}

/// Commits a checkpoint holding `text` at `step` into the store under `run_dir`.
void Commit(const std::filesystem::path& run_dir, int64_t step, const std::string& text) {
  run::CheckpointStore store(run_dir / "checkpoints", 3);
  ASSERT_TRUE(store.Prepare());
  const std::string name = "s" + std::to_string(step);
  WriteTestFile(store.staging_dir() / name / "state.txt", text);
  auto c = store.Commit({name, step, std::nullopt});
  ASSERT_TRUE(c) << c.error().message;
}

TEST(QueueWarmStart, SeedsARunOnceFromTheNewestCommittedCheckpoint) {
  TempDir dir;
  Commit(dir / "base", 3, "three");
  Commit(dir / "base", 7, "seven");
  auto warm = FindWarmStartOnDisk("base", dir / "base", "warm_start");
  ASSERT_TRUE(warm) << warm.error().message;
  EXPECT_EQ(warm->checkpoint.step, 7);
  auto seeded = SeedRunDir(*warm, dir / "job");
  ASSERT_TRUE(seeded) << seeded.error().message;
  EXPECT_TRUE(*seeded);
  const run::CheckpointStore mine(dir / "job" / "checkpoints", 3);
  const auto latest = mine.LatestValid(nullptr);
  ASSERT_TRUE(latest);
  EXPECT_EQ(latest->step, 7);
  EXPECT_EQ(testing::ReadTestFile(latest->resume_path / "state.txt"), "seven");
  // A run with checkpoints of its own (a requeued job) resumes from them: not seeded again.
  Commit(dir / "job", 9, "nine");
  seeded = SeedRunDir(*warm, dir / "job");
  ASSERT_TRUE(seeded);
  EXPECT_FALSE(*seeded);
  EXPECT_EQ(mine.LatestValid(nullptr)->step, 9);
}

TEST(QueueWarmStart, NoRunOrNoCommittedCheckpointIsBadInputNamingTheField) {
  TempDir dir;
  auto none = FindWarmStartOnDisk("empty", dir / "empty", "job.yaml:6:13: field 'warm_start'");
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().code, ErrorCode::kBadInput);
  EXPECT_NE(
      none.error().message.find("field 'warm_start': run 'empty' has no committed checkpoint"),
      std::string::npos)
      << none.error().message;
  auto ledger = ledger::Ledger::Open((dir / "l.db").string());
  ASSERT_TRUE(ledger) << ledger.error().message;
  auto missing = FindWarmStart((*ledger)->connection(), "nope", dir / "nope", "--warm-start");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ErrorCode::kBadInput);
  EXPECT_NE(missing.error().message.find("--warm-start: no run named 'nope'"), std::string::npos)
      << missing.error().message;
}

TEST(QueueView, WaitingJobsHaveTheirPlacementsEtaAndLateOnesAreFlagged) {
  TempDir dir;
  auto ledger = ledger::Ledger::Open((dir / "l.db").string());
  ASSERT_TRUE(ledger) << ledger.error().message;
  const Capacity cap = SpotCapacity();
  JobRequest ok = SpotJob(kNow + 6 * 3600);
  ok.checkpoints = false;  // on-demand: 2 min changeover + 2 h
  JobRequest late = SpotJob(kNow + 3600);
  late.name = "late";
  late.checkpoints = false;
  ASSERT_TRUE(SubmitJob((*ledger)->connection(), cap, ok, {"true"}, kNow));
  ASSERT_TRUE(SubmitJob((*ledger)->connection(), cap, late, {"true"}, kNow));
  auto jobs = ListJobs(**ledger, {}, kNow + 60);
  ASSERT_TRUE(jobs) << jobs.error().message;
  ASSERT_EQ(jobs->size(), 2u);
  const JobView& a = (*jobs)[0];
  ASSERT_TRUE(a.eta);
  EXPECT_EQ(*a.eta, kNow + 120 + 7200);
  EXPECT_EQ(a.eta_basis, "placement");
  EXPECT_EQ(*a.deadline_slack_seconds, 6 * 3600 - 7320);
  EXPECT_FALSE(a.will_miss);
  EXPECT_EQ(a.spend, Money());
  const JobView& b = (*jobs)[1];
  EXPECT_TRUE(b.will_miss);
  EXPECT_EQ(*b.deadline_slack_seconds, 3600 - 7320);
  const nlohmann::json j = JobViewJson(b);
  EXPECT_EQ(j["will_miss"], true);
  EXPECT_EQ(j["deadline_slack_seconds"], 3600 - 7320);
  EXPECT_EQ(j["spend_usd"], 0.0);
  EXPECT_TRUE(j.contains("eta"));
  // A job that does not exist.
  auto missing = ShowJob(**ledger, 99, kNow);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ErrorCode::kBadInput);
}

}  // namespace
}  // namespace frugal::queue
