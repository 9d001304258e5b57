// One scheduling pass of the queue over FRUGAL_BENCH_JOBS waiting jobs (default 10,000) and
// FRUGAL_BENCH_POOLS pools (default 100): a third owned, a third on-demand (half of them with
// a night price schedule, so deferral is searched), a third spot; each pool 4 nodes of 8 GPUs
// with half its GPUs busy. Jobs of 1-8 GPUs, 1-7 h, deadlines 4-53 h, half checkpointing.
//
// BM_LivePass is the same pass as `frugal queue run` makes it, on a SQLite ledger (in
// FRUGAL_BENCH_DIR) holding the jobs as submitted: load and parse them, catch up with the
// executor, place them, record every decision (a first pass changes every job's), claim and
// launch what starts now (an executor that starts nothing real); and the steady pass of a
// loop after that, where nothing changed. The ledger is copied fresh before each, outside
// the timing.

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <chrono>
#include <deque>
#include <filesystem>
#include <set>
#include <string>

#include "bench_env.h"
#include "frugal/catalog/catalog.h"
#include "frugal/ledger/ledger.h"
#include "frugal/ledger/queue_jobs.h"
#include "frugal/queue/queue_service.h"
#include "frugal/queue/scheduler.h"

namespace {

using frugal::queue::Capacity;
using frugal::queue::JobRequest;
using frugal::queue::Seconds;

Capacity MakeCapacity(int pools) {
  std::string yaml = "apiVersion: frugal/v1\nkind: Capacity\npools:\n";
  for (int p = 0; p < pools; ++p) {
    const int kind = p % 3;
    yaml += "  - {name: p" + std::to_string(p) + ", gpu: A100-80GB, gpus_per_node: 8, nodes: 4";
    if (kind == 0) yaml += ", tier: owned";
    if (kind == 1) {
      yaml += ", tier: on_demand, price_per_gpu_hour: " + std::to_string(3 + p % 4);
      if (p % 2 == 1) {
        yaml += ", price_schedule: [{days: daily, hours: 22-06, price_per_gpu_hour: 1.5}]";
      }
    }
    if (kind == 2) yaml += ", tier: spot, price_per_gpu_hour: 1.1, preemptions_per_hour: 0.1";
    yaml += "}\n";
  }
  // Pools are checked against the shipped catalog's GPU names, as `frugal queue` checks them.
  const auto catalog = frugal::catalog::Catalog::LoadFrom(FRUGAL_SOURCE_DIR "/data");
  return *frugal::queue::ParseCapacity(yaml, "bench", catalog->gpu_names());
}

constexpr Seconds kNow = 1'795'996'800 + 10 * 3600;

std::deque<JobRequest> MakeJobs(int jobs, Seconds now) {
  std::deque<JobRequest> requests;
  for (int i = 0; i < jobs; ++i) {
    JobRequest& r = requests.emplace_back();
    r.name = fmt::format("j{}", i);
    r.units = 1 + i % 8;
    r.runtime_hours = 1 + i % 7;
    r.checkpoints = i % 2 == 0;
    r.arrival = now - i;
    r.deadline = now + (4 + i % 50) * 3600;
    r.tags["team"] = fmt::format("t{}", i % 5);
  }
  return requests;
}

void BM_SchedulePass(benchmark::State& state) {
  const int jobs = static_cast<int>(frugal::bench::EnvCount("FRUGAL_BENCH_JOBS", 10000));
  const int pools = static_cast<int>(frugal::bench::EnvCount("FRUGAL_BENCH_POOLS", 100));
  const Capacity cap = MakeCapacity(pools);
  const Seconds now = kNow;
  const std::deque<JobRequest> requests = MakeJobs(jobs, now);
  frugal::queue::ScheduleInput base;
  base.now = now;
  base.capacity = &cap;
  base.pools.resize(cap.pools.size());
  for (size_t p = 0; p < base.pools.size(); ++p) {
    for (int u = 0; u < 16; ++u) base.pools[p].busy_until.push_back(now + (1 + u % 5) * 3600);
    for (int j = 0; j < 4; ++j) base.pools[p].jobs_until.push_back(now + (1 + j) * 3600);
  }
  for (const JobRequest& r : requests) base.jobs.push_back({&r});
  size_t placed = 0;
  for (auto _ : state) {
    frugal::queue::ScheduleInput in = base;
    const auto pls = frugal::queue::Schedule(in);
    placed = pls.size();
    benchmark::DoNotOptimize(placed);
  }
  state.counters["jobs"] = static_cast<double>(placed);
}
BENCHMARK(BM_SchedulePass)->Unit(benchmark::kMillisecond);

/// Starts nothing: every start "succeeds" with a made-up process id that stays running.
class NullExecutor final : public frugal::queue::Executor {
 public:
  frugal::Result<int64_t> Start(const frugal::ledger::QueueJobRow& row,
                                const frugal::queue::Pool& /*pool*/, const std::string& /*devices*/,
                                frugal::queue::Seconds /*delay_seconds*/) override {
    started_.insert(row.id);
    return 1'000'000 + row.id;
  }
  frugal::Result<frugal::queue::JobStatus> Status(const frugal::ledger::QueueJobRow& row) override {
    frugal::queue::JobStatus status;
    if (started_.contains(row.id)) {
      status.phase = frugal::queue::JobPhase::kRunning;
      status.handle = 1'000'000 + row.id;
    }
    return status;
  }
  void Stop(const frugal::ledger::QueueJobRow& /*row*/) override {}

 private:
  std::set<int64_t> started_;
};

/// A ledger holding `jobs` waiting jobs as submitted, at `path`.
void WriteLedger(const std::filesystem::path& path, int jobs) {
  std::filesystem::remove(path);
  auto ledger = frugal::ledger::Ledger::Open(path.string());
  if (!ledger) std::abort();
  frugal::ledger::Connection& db = (*ledger)->connection();
  if (!db.Begin(frugal::ledger::TxnMode::kWrite)) std::abort();
  for (const JobRequest& r : MakeJobs(jobs, kNow)) {
    frugal::ledger::QueueJobRow row;
    row.name = r.name;
    row.state = frugal::ledger::QueueJobState::kWaiting;
    row.command = R"(["python3","train.py"])";
    row.request = frugal::queue::RequestToJson(r);
    row.submitted_ms = r.arrival * 1000;
    row.updated_ms = row.submitted_ms;
    if (!frugal::ledger::InsertQueueJob(db, row)) std::abort();
  }
  if (!db.Commit()) std::abort();
}

/// `passes_before`: untimed passes first (1: the steady state of a loop, where nothing changed
/// since the last pass and nothing is written but the catch-up).
void LivePass(benchmark::State& state, int passes_before) {
  const int jobs = static_cast<int>(frugal::bench::EnvCount("FRUGAL_BENCH_JOBS", 10000));
  const int pools = static_cast<int>(frugal::bench::EnvCount("FRUGAL_BENCH_POOLS", 100));
  const Capacity cap = MakeCapacity(pools);
  const std::filesystem::path dir = frugal::bench::BenchDir();
  const std::filesystem::path templ = dir / "queue_bench_template.db";
  const std::filesystem::path work = dir / "queue_bench_pass.db";
  WriteLedger(templ, jobs);
  int started = 0;
  int changed = 0;
  for (auto _ : state) {
    state.PauseTiming();
    NullExecutor executor;
    frugal::queue::RequestCache cache;  // as `queue run` keeps one between its passes
    std::filesystem::copy_file(templ, work, std::filesystem::copy_options::overwrite_existing);
    auto ledger = frugal::ledger::Ledger::Open(work.string());
    if (!ledger) std::abort();
    for (int p = 0; p < passes_before; ++p) {
      if (!frugal::queue::RunPass((*ledger)->connection(), cap, executor, kNow, &cache))
        std::abort();
    }
    state.ResumeTiming();
    auto report = frugal::queue::RunPass((*ledger)->connection(), cap, executor, kNow, &cache);
    state.PauseTiming();
    if (!report) std::abort();
    started = report->started;
    changed = static_cast<int>(report->lines.size());
    ledger->reset();
    state.ResumeTiming();
  }
  state.counters["jobs"] = jobs;
  state.counters["started"] = started;
  state.counters["changed"] = changed;  // decisions that changed (recorded, logged)
  std::filesystem::remove(templ);
  std::filesystem::remove(work);
}
/// The part of a live pass that reads the queue: the rows, and each job's stored request parsed.
void BM_LoadQueue(benchmark::State& state) {
  const int jobs = static_cast<int>(frugal::bench::EnvCount("FRUGAL_BENCH_JOBS", 10000));
  const std::filesystem::path templ = frugal::bench::BenchDir() / "queue_bench_load.db";
  WriteLedger(templ, jobs);
  auto ledger = frugal::ledger::Ledger::Open(templ.string());
  if (!ledger) std::abort();
  size_t rows = 0;
  double read_ms = 0;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    auto all = frugal::ledger::ListQueueJobs((*ledger)->connection(), {});
    if (!all) std::abort();
    read_ms +=
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    for (const auto& row : *all) {
      auto r = frugal::queue::RequestFromJson(row.request);
      benchmark::DoNotOptimize(r);
    }
    rows = all->size();
  }
  state.counters["jobs"] = static_cast<double>(rows);
  state.counters["rows_read_ms"] = read_ms / static_cast<double>(state.iterations());
  ledger->reset();
  std::filesystem::remove(templ);
}
BENCHMARK(BM_LoadQueue)->Unit(benchmark::kMillisecond)->Iterations(5);

void BM_LivePassFirst(benchmark::State& state) { LivePass(state, 0); }
void BM_LivePassSteady(benchmark::State& state) { LivePass(state, 3); }
BENCHMARK(BM_LivePassFirst)->Unit(benchmark::kMillisecond)->Iterations(5);
BENCHMARK(BM_LivePassSteady)->Unit(benchmark::kMillisecond)->Iterations(5);

}  // namespace
