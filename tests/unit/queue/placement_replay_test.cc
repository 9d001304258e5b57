// The live loop and `queue simulate` place jobs by one rule: one workload replayed through
// both, pass by pass, gets the same decision for every job at every pass.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "frugal/ledger/ledger.h"
#include "frugal/queue/queue_service.h"
#include "frugal/queue/simulation.h"
#include "shipped_gpus.h"
#include "support/test_support.h"

namespace frugal::queue {
namespace {

using ledger::QueueJobState;

using frugal::testing::TempDir;

const Seconds kMonday = 1'795'996'800;  // 2026-11-30T00:00:00Z
constexpr int kStep = 600;

/// Runs each job for its expected time on the simulated clock: the changeover of its pool,
/// then its runtime there, as the simulator does.
class ClockExecutor final : public Executor {
 public:
  explicit ClockExecutor(const Seconds& now) : now_(now) {}
  Result<int64_t> Start(const ledger::QueueJobRow& row, const Pool& pool, const std::string&,
                        Seconds) override {
    const JobRequest request = FRUGAL_TRY(RequestFromJson(row.request));
    const double hours = ToHours(pool.changeover) + request.RuntimeOn(pool).value_or(1.0);
    ends_[row.id] = now_ + static_cast<Seconds>(std::ceil(hours * 3600));
    return 1000 + row.id;
  }
  Result<JobStatus> Status(const ledger::QueueJobRow& row) override {
    JobStatus status;
    const auto it = ends_.find(row.id);
    if (it == ends_.end()) return status;
    status.handle = 1000 + row.id;
    status.phase = now_ >= it->second ? JobPhase::kEnded : JobPhase::kRunning;
    if (status.phase == JobPhase::kEnded) status.exit_status = 0;
    return status;
  }
  void Stop(const ledger::QueueJobRow&) override {}

 private:
  const Seconds& now_;
  std::map<int64_t, Seconds> ends_;
};

JobRequest Job(const std::string& name, int gpus, double hours, Seconds at, double deadline_hours) {
  JobRequest j;
  j.name = name;
  j.units = gpus;
  j.runtime_hours = hours;
  j.arrival = kMonday + at;
  j.not_before = j.arrival;
  if (deadline_hours > 0) j.deadline = j.arrival + static_cast<Seconds>(deadline_hours * 3600);
  return j;
}

Result<Capacity> ReplayCapacity() {
  return ParseCapacity(
      "apiVersion: frugal/v1\nkind: Capacity\npools:\n"
      "  - {name: box, tier: owned, gpu: T4, gpus_per_node: 2, changeover: 10m}\n"
      "  - {name: od, tier: on_demand, gpu: T4, gpus_per_node: 4, price_per_gpu_hour: 0.5,\n"
      "     changeover: 10m}\n",
      "c.yaml", ShippedGpus());
}

Workload ReplayWorkload() {
  Workload w;
  w.name = "replay";
  w.start = kMonday + 9 * 3600;
  w.horizon_end = w.start + 6 * 3600;
  // The owned box for the first; the second is late (its deadline inside the margin on any
  // pool) and starts at once where it finishes soonest; the third waits for the box; the
  // fourth is late with the box busy and takes on-demand now.
  w.jobs = {Job("first", 2, 1, 9 * 3600, 4), Job("tight", 1, 1, 9 * 3600, 1.3),
            Job("patient", 1, 0.5, 9 * 3600 + 600, 0), Job("urgent", 1, 2, 9 * 3600 + 1200, 2.3),
            Job("later", 2, 1, 9 * 3600 + 5400, 5)};
  return w;
}

TEST(PlacementReplay, TheLiveLoopAndTheSimulatorDecideAlikeAtEveryPass) {
  auto cap = ReplayCapacity();
  ASSERT_TRUE(cap) << cap.error().message;
  const Workload w = ReplayWorkload();
  std::vector<SimulatedPlacement> simulated;
  SimulationConfig config;
  config.step_seconds = kStep;
  config.policies = {"frugal"};
  config.placements = &simulated;
  auto sim = SimulateWorkload(w, *cap, config);
  ASSERT_TRUE(sim) << sim.error().message;
  ASSERT_EQ(sim->front().jobs_completed, 5);
  std::map<Seconds, std::vector<const SimulatedPlacement*>> by_time;
  for (const SimulatedPlacement& p : simulated) by_time[p.time].push_back(&p);

  TempDir dir;
  auto ledger = ledger::Ledger::Open((dir / "l.db").string());
  ASSERT_TRUE(ledger) << ledger.error().message;
  ledger::Connection& db = (*ledger)->connection();
  Seconds now = w.start;
  ClockExecutor executor(now);
  std::map<std::string, int64_t> ids;
  size_t next = 0;
  int compared = 0;
  int late_starts = 0;
  for (; now < w.start + 6 * 3600; now += kStep) {
    for (; next < w.jobs.size() && w.jobs[next].arrival <= now; ++next) {
      auto sub = SubmitJob(db, *cap, w.jobs[next], {"true"}, now);
      ASSERT_TRUE(sub) << sub.error().message;
      ids[w.jobs[next].name] = sub->id;
    }
    auto pass = RunPass(db, *cap, executor, now);
    ASSERT_TRUE(pass) << pass.error().message;
    for (const SimulatedPlacement* p : by_time[now]) {
      auto row = ledger::GetQueueJob(db, ids.at(p->job));
      ASSERT_TRUE(row && *row);
      const Placement& pl = p->placement;
      const std::string at = p->job + " at " + FormatUtcTime(now);
      // The same verdict, pool, times and cost give the same reason, word for word.
      EXPECT_EQ((*row)->reason, std::string(VerdictName(pl.verdict)) + ": " + pl.reason) << at;
      const bool started = pl.action == Action::kStartNow;
      EXPECT_EQ((*row)->state, started ? QueueJobState::kRunning : QueueJobState::kWaiting) << at;
      if (started) {
        EXPECT_EQ((*row)->pool, cap->pools[static_cast<size_t>(pl.pool)].name) << at;
        if (pl.verdict == Verdict::kLate) ++late_starts;
      }
      ++compared;
    }
  }
  EXPECT_GE(compared, 8);
  EXPECT_EQ(late_starts, 2);  // "tight" and "urgent" started, not left waiting
  auto rows = ledger::ListQueueJobs(db, {});
  ASSERT_TRUE(rows);
  for (const ledger::QueueJobRow& r : *rows)
    EXPECT_EQ(r.state, QueueJobState::kSucceeded) << r.name;
}

/// Every row of a ledger's queue and every decision, as text, for comparing two ledgers.
std::string QueueState(ledger::Connection& db) {
  std::string out;
  auto rows = ledger::ListQueueJobs(db, {});
  if (!rows) return "cannot list: " + rows.error().message;
  for (const ledger::QueueJobRow& r : *rows) {
    out += fmt::format("{} {} {} pool={} devices={} pid={} reason={} request={}\n", r.id, r.name,
                       ledger::QueueJobStateName(r.state), r.pool, r.devices, r.pid.value_or(-1),
                       r.reason, r.request);
    auto decisions = ledger::ListQueueDecisions(db, r.id);
    if (!decisions) return "cannot list: " + decisions.error().message;
    for (const ledger::QueueDecisionRow& d : *decisions) {
      out += fmt::format("  {} {} {} {} {}\n", d.time_ms, d.verdict, d.pool,
                         d.cost_micros.value_or(-1), d.reason);
    }
  }
  return out;
}

TEST(PlacementReplay, ALoopThatKeepsRowsBetweenPassesDecidesAsOneThatReadsThemAll) {
  auto cap = ReplayCapacity();
  ASSERT_TRUE(cap) << cap.error().message;
  const Workload w = ReplayWorkload();
  TempDir dir;
  auto plain = ledger::Ledger::Open((dir / "plain.db").string());
  auto kept = ledger::Ledger::Open((dir / "kept.db").string());
  ASSERT_TRUE(plain && kept);
  Seconds now = w.start;
  ClockExecutor plain_executor(now);
  ClockExecutor kept_executor(now);
  RequestCache cache;
  size_t next = 0;
  int changed_passes = 0;
  std::string before;
  for (; now < w.start + 6 * 3600; now += kStep) {
    for (; next < w.jobs.size() && w.jobs[next].arrival <= now; ++next) {
      ASSERT_TRUE(SubmitJob((*plain)->connection(), *cap, w.jobs[next], {"true"}, now));
      ASSERT_TRUE(SubmitJob((*kept)->connection(), *cap, w.jobs[next], {"true"}, now));
    }
    auto a = RunPass((*plain)->connection(), *cap, plain_executor, now);
    auto b = RunPass((*kept)->connection(), *cap, kept_executor, now, &cache);
    ASSERT_TRUE(a && b);
    EXPECT_EQ(a->lines, b->lines) << FormatUtcTime(now);
    const std::string state = QueueState((*plain)->connection());
    ASSERT_EQ(state, QueueState((*kept)->connection())) << FormatUtcTime(now);
    // Kept rows are the ledger's after the pass.
    auto rows = ledger::ListQueueJobs((*kept)->connection(), {});
    ASSERT_TRUE(rows);
    ASSERT_TRUE(cache.Sync((*kept)->connection()));
    ASSERT_EQ(cache.rows().size(), rows->size());
    for (const ledger::QueueJobRow& r : *rows) {
      ASSERT_NE(cache.Find(r.id), nullptr);
      EXPECT_EQ(cache.Find(r.id)->row.state, r.state);
      EXPECT_EQ(cache.Find(r.id)->row.reason, r.reason);
    }
    if (state != before) ++changed_passes;
    before = state;
  }
  EXPECT_GE(changed_passes, 8);  // starts, ends and new decisions, not one quiet loop
}

}  // namespace
}  // namespace frugal::queue
