// The live queue's state in the ledger, on SQLite and on the real PostgreSQL server the
// fixture starts: submission, budgets, and two schedulers never starting one job twice.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <thread>

#include "backends.h"
#include "frugal/ledger/queue_jobs.h"
#include "frugal/queue/preemption.h"
#include "frugal/queue/queue_service.h"
#include "shipped_gpus.h"

namespace frugal::queue {
namespace {

using ledger::QueueJobState;

using ledger::testing::BackendNames;
using ledger::testing::Backends;
using ledger::testing::BackendTest;

const Seconds kNow = 1'795'996'800 + 10 * 3600;

Capacity TestCapacity() {
  auto cap = ParseCapacity(
      "apiVersion: frugal/v1\nkind: Capacity\npools:\n"
      "  - {name: box, tier: owned, gpu: T4, gpus_per_node: 4, changeover: 1s}\n"
      "budgets:\n  - {tag: team=nlp, period: month, limit: 10}\n",
      "c.yaml", ShippedGpus());
  EXPECT_TRUE(cap) << cap.error().message;
  return *cap;
}

/// Records the jobs it is asked to start (the seam; real processes are in the e2e tests).
class RecordingExecutor final : public Executor {
 public:
  Result<int64_t> Start(const ledger::QueueJobRow& row, const Pool&, const std::string&,
                        Seconds) override {
    std::lock_guard<std::mutex> lock(mu);
    started.push_back(row.id);
    return 100000 + row.id;
  }
  Result<JobStatus> Status(const ledger::QueueJobRow& row) override {
    std::lock_guard<std::mutex> lock(mu);
    JobStatus status;
    for (int64_t id : started) {
      if (id == row.id) {
        status.phase = JobPhase::kRunning;
        status.handle = 100000 + id;
      }
    }
    return status;
  }
  void Stop(const ledger::QueueJobRow&) override {}
  std::mutex mu;
  std::vector<int64_t> started;
};

JobRequest Job(const std::string& name, int gpus) {
  JobRequest j;
  j.name = name;
  j.units = gpus;
  j.runtime_hours = 1;
  j.arrival = kNow;
  j.not_before = kNow;
  j.tags["team"] = "nlp";
  return j;
}

template <typename B>
class QueueStore : public BackendTest<B> {};
TYPED_TEST_SUITE(QueueStore, Backends, BackendNames);

TYPED_TEST(QueueStore, SubmittedJobsRoundTripWithTheirDecision) {
  auto ledger = this->Open();
  ASSERT_TRUE(ledger);
  const Capacity cap = TestCapacity();
  JobRequest job = Job("train", 2);
  job.deadline = kNow + 7200;
  job.window = cap.FindWindow("nights").value();
  job.window_name = "nights";
  auto sub = SubmitJob(ledger->connection(), cap, job, {"python3", "train.py"}, kNow);
  ASSERT_TRUE(sub) << sub.error().message;
  auto row = ledger::GetQueueJob(ledger->connection(), sub->id);
  ASSERT_TRUE(row && *row);
  EXPECT_EQ((*row)->state, QueueJobState::kWaiting);
  EXPECT_EQ((*row)->command, R"(["python3","train.py"])");
  auto back = RequestFromJson((*row)->request);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->deadline, job.deadline);
  EXPECT_EQ(back->window, job.window);
  EXPECT_EQ(back->tags, job.tags);
  auto decisions = ledger::ListQueueDecisions(ledger->connection(), sub->id);
  ASSERT_TRUE(decisions);
  ASSERT_EQ(decisions->size(), 1u);
  // The window opens at 22:00, after the deadline: flagged late at once.
  EXPECT_EQ(decisions->front().verdict, "late");
}

TYPED_TEST(QueueStore, OnlyOneMoveOutOfWaitingWins) {
  auto ledger = this->Open();
  ASSERT_TRUE(ledger);
  const Capacity cap = TestCapacity();
  auto sub = SubmitJob(ledger->connection(), cap, Job("a", 1), {"true"}, kNow);
  ASSERT_TRUE(sub);
  const std::vector<QueueJobState> from = {QueueJobState::kWaiting};
  ledger::QueueJobRow f;
  EXPECT_TRUE(
      *ledger::MoveQueueJob(ledger->connection(), sub->id, from, QueueJobState::kStarting, f, 1));
  EXPECT_FALSE(
      *ledger::MoveQueueJob(ledger->connection(), sub->id, from, QueueJobState::kStarting, f, 2));
}

TYPED_TEST(QueueStore, EveryJobStateIsStoredByItsNameAndAnUnknownOneIsAnError) {
  auto ledger = this->Open();
  ASSERT_TRUE(ledger);
  const Capacity cap = TestCapacity();
  auto sub = SubmitJob(ledger->connection(), cap, Job("a", 1), {"true"}, kNow);
  ASSERT_TRUE(sub) << sub.error().message;
  QueueJobState at = QueueJobState::kWaiting;
  for (const QueueJobState to :
       {QueueJobState::kHeld, QueueJobState::kStarting, QueueJobState::kRunning,
        QueueJobState::kSucceeded, QueueJobState::kFailed, QueueJobState::kCancelled,
        QueueJobState::kWaiting}) {
    const std::vector<QueueJobState> from = {at};
    ASSERT_TRUE(*ledger::MoveQueueJob(ledger->connection(), sub->id, from, to, {}, kNow * 1000));
    auto rows = ledger::ListQueueJobs(ledger->connection(), std::vector<QueueJobState>{to});
    ASSERT_TRUE(rows) << rows.error().message;
    ASSERT_EQ(rows->size(), 1u) << ledger::QueueJobStateName(to);
    EXPECT_EQ(rows->front().state, to);
    const std::string name(ledger::QueueJobStateName(to));
    EXPECT_EQ(ledger::ParseQueueJobState(name).value_or(QueueJobState::kHeld), to) << name;
    at = to;
  }
  const auto typo = ledger::ParseQueueJobState("runing");
  ASSERT_FALSE(typo);
  EXPECT_NE(typo.error().message.find("unknown job state 'runing' (did you mean 'running'?)"),
            std::string::npos)
      << typo.error().message;
  // A state the queue does not know, written by something else: an error naming the job.
  ASSERT_TRUE(ledger->connection().Query("UPDATE queue_jobs SET state = 'paused'").has_value());
  auto bad = ledger::GetQueueJob(ledger->connection(), sub->id);
  ASSERT_FALSE(bad);
  EXPECT_NE(
      bad.error().message.find(fmt::format("queue job {}: unknown job state 'paused'", sub->id)),
      std::string::npos)
      << bad.error().message;
}

TYPED_TEST(QueueStore, TwoSchedulersOnOneLedgerStartEachJobOnce) {
  auto first = this->Open();
  ASSERT_TRUE(first);
  const Capacity cap = TestCapacity();
  for (int i = 0; i < 8; ++i) {
    ASSERT_TRUE(
        SubmitJob(first->connection(), cap, Job("j" + std::to_string(i), 1), {"true"}, kNow));
  }
  RecordingExecutor executor;
  std::atomic<int> failures{0};
  auto scheduler = [&] {
    auto ledger = this->Open();
    if (!ledger) {
      ++failures;
      return;
    }
    for (int pass = 0; pass < 5; ++pass) {
      if (!RunPass(ledger->connection(), cap, executor, kNow + pass)) ++failures;
    }
  };
  std::thread a(scheduler);
  std::thread b(scheduler);
  a.join();
  b.join();
  EXPECT_EQ(failures.load(), 0);
  // Four GPUs: four jobs start, each once, whichever scheduler started it.
  std::set<int64_t> unique(executor.started.begin(), executor.started.end());
  EXPECT_EQ(unique.size(), executor.started.size());
  EXPECT_EQ(executor.started.size(), 4u);
}

TYPED_TEST(QueueStore, APreemptedJobWaitsAgainWithItsSpotHistoryAndItsNewestDecisionListed) {
  auto ledger = this->Open();
  ASSERT_TRUE(ledger);
  auto cap = ParseCapacity(
      "apiVersion: frugal/v1\nkind: Capacity\npools:\n"
      "  - {name: spot, tier: spot, gpu: T4, gpus_per_node: 1, price_per_gpu_hour: 0.2,\n"
      "     preemptions_per_hour: 0.01, changeover: 1m}\n"
      "  - {name: od, tier: on_demand, gpu: T4, gpus_per_node: 1, price_per_gpu_hour: 0.6}\n",
      "c.yaml", ShippedGpus());
  ASSERT_TRUE(cap) << cap.error().message;
  JobRequest job = Job("train", 1);
  job.checkpoints = true;
  auto sub = SubmitJob(ledger->connection(), *cap, job, {"true"}, kNow);
  ASSERT_TRUE(sub) << sub.error().message;
  RecordingExecutor executor;
  ASSERT_TRUE(RunPass(ledger->connection(), *cap, executor, kNow));
  auto row = *ledger::GetQueueJob(ledger->connection(), sub->id);
  ASSERT_TRUE(row);
  ASSERT_EQ(row->state, QueueJobState::kRunning);
  ASSERT_EQ(row->pool, "spot");
  JobRequest request = *RequestFromJson(row->request);
  ledger::QueueJobRow seen_running = *row;
  auto line = RecordPreemption(ledger->connection(), *cap, *row, request, kNow + 1800);
  ASSERT_TRUE(line && *line) << (line ? "moved by another" : line.error().message);
  row = *ledger::GetQueueJob(ledger->connection(), sub->id);
  EXPECT_EQ(row->state, QueueJobState::kWaiting);
  const JobRequest stored = *RequestFromJson(row->request);
  EXPECT_EQ(stored.spot.preemptions, 1);
  EXPECT_FALSE(stored.spot.paid_allowed);  // no deadline: it waits for spot
  auto latest = ledger::ListLatestQueueDecisions(ledger->connection());
  ASSERT_TRUE(latest) << latest.error().message;
  ASSERT_EQ(latest->size(), 1u);
  EXPECT_EQ(latest->front().verdict, "wait_for_spot");
  // A second scheduler that saw it running too does not move it again.
  auto again = RecordPreemption(ledger->connection(), *cap, seen_running, request, kNow + 1801);
  ASSERT_TRUE(again);
  EXPECT_FALSE(*again);
  // Preempted on a pool the capacity file no longer has: it waits again, the pass goes on.
  ASSERT_TRUE(ledger::MoveQueueJob(ledger->connection(), sub->id,
                                   std::vector<QueueJobState>{QueueJobState::kWaiting},
                                   QueueJobState::kRunning, ledger::QueueJobRow{}, 1));
  auto without_spot = ParseCapacity(
      "apiVersion: frugal/v1\nkind: Capacity\npools:\n"
      "  - {name: od, tier: on_demand, gpu: T4, gpus_per_node: 1, price_per_gpu_hour: 0.6}\n",
      "c.yaml", ShippedGpus());
  ASSERT_TRUE(without_spot);
  auto gone =
      RecordPreemption(ledger->connection(), *without_spot, seen_running, request, kNow + 1900);
  ASSERT_TRUE(gone) << gone.error().message;
  ASSERT_TRUE(*gone);
  EXPECT_NE((*gone)->find("requeue: preempted on spot ("), std::string::npos) << **gone;
}

}  // namespace
}  // namespace frugal::queue
