// Ledger benchmarks (SQLite):
//   BM_InsertSamples     batched utilization samples per second (target > 100,000/s)
//   BM_Report30Days      a 30-day report grouped by team, gpu and tier over a ledger of
//                        FRUGAL_BENCH_RUNS runs (default 100,000) and FRUGAL_BENCH_SAMPLES
//                        samples (default 10,000,000); target < 1 s
// The large ledger is generated once through the public API (runs, segments, sample batches)
// into FRUGAL_BENCH_DIR (default: the working directory) and reused by later runs.

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <random>

#include "bench_env.h"
#include "frugal/ledger/ledger.h"
#include "frugal/ledger/report.h"

namespace frugal::ledger {
namespace {

constexpr int64_t kMinuteMs = 60'000;
const Timestamp kNow = FromMillis(1'769'817'600'000);  // 2026-01-31T00:00:00Z

using frugal::bench::BenchDir;
using frugal::bench::EnvCount;

std::vector<Sample> Batch(Timestamp start, int n, std::mt19937& rng) {
  std::vector<Sample> batch(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    Sample& s = batch[static_cast<size_t>(i)];
    s.time = start + std::chrono::seconds(10 * i);
    s.gpu_util = static_cast<double>(rng() % 101);
    s.cpu_util = static_cast<double>(rng() % 800);
    s.gpu_mem_bytes = 4e10;
    s.power_watts = 250;
  }
  return batch;
}

void BM_InsertSamples(benchmark::State& state) {
  const auto path = BenchDir() / "ledger_bench_insert.sqlite";
  std::filesystem::remove(path);
  std::filesystem::remove(path.string() + "-wal");
  auto ledger = Ledger::Open(path.string()).value();
  NewRun run;
  run.name = "insert";
  run.start = kNow;
  const RunId id = ledger->BeginRun(run).value();
  std::mt19937 rng(1);
  const int batch_size = static_cast<int>(state.range(0));
  Timestamp t = kNow;
  for (auto _ : state) {
    state.PauseTiming();
    std::vector<Sample> batch = Batch(t, batch_size, rng);
    t += std::chrono::seconds(10 * batch_size);
    state.ResumeTiming();
    if (!ledger->AddSamples(id, batch)) state.SkipWithError("insert failed");
  }
  state.SetItemsProcessed(state.iterations() * batch_size);
}
BENCHMARK(BM_InsertSamples)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond)->UseRealTime();

/// Builds (or reuses) the large ledger: runs spread over 45 days, 1-3 segments each on a mix of
/// GPUs and tiers, samples split evenly over runs in batches.
std::string LargeLedger(int64_t runs, int64_t samples) {
  const auto path = BenchDir() / fmt::format("ledger_bench_{}runs_{}samples.sqlite", runs, samples);
  if (std::filesystem::exists(path)) return path.string();
  const auto partial = path.string() + ".partial";
  std::filesystem::remove(partial);
  auto ledger = Ledger::Open(partial).value();
  std::mt19937 rng(42);
  const char* teams[] = {"nlp", "vision", "speech", "recsys", "research"};
  const char* gpus[] = {"A10G", "A100", "H100", "L4", "T4"};
  const CapacityTier tiers[] = {CapacityTier::kSpot, CapacityTier::kOnDemand,
                                CapacityTier::kReserved1y};
  const int64_t per_run = samples / runs;
  for (int64_t r = 0; r < runs; ++r) {
    NewRun run;
    run.name = fmt::format("run-{}", r);
    run.tags.team = teams[rng() % 5];
    run.tags.project = fmt::format("p{}", rng() % 40);
    run.tags.owner = fmt::format("u{}", rng() % 200);
    run.start = kNow - std::chrono::minutes(static_cast<int64_t>(rng() % (45 * 24 * 60)));
    const RunId id = ledger->BeginRun(run).value();
    Timestamp t = run.start;
    const int segments = 1 + static_cast<int>(rng() % 3);
    for (int s = 0; s < segments; ++s) {
      const CapacityTier tier = tiers[rng() % 3];
      const int64_t cents = 50 + static_cast<int64_t>(rng() % 3000);
      SegmentOffer offer{"aws",
                         "inst",
                         "us-east-1",
                         "",
                         gpus[rng() % 5],
                         1 + static_cast<int>(rng() % 8),
                         tier,
                         Rate{Money::FromCents(cents)},
                         Rate{Money::FromCents(cents * 3)}};
      const SegmentId seg = ledger->OpenSegment(id, offer, t).value();
      if (s == 0 && per_run > 0) {
        (void)ledger->AddSamples(id, Batch(t, static_cast<int>(per_run), rng));
      }
      t += std::chrono::minutes(10 + static_cast<int64_t>(rng() % 600));
      if (s + 1 < segments) (void)ledger->CloseSegment(seg, t, EndReason::kPreempted);
    }
    (void)ledger->FinishRun(id, rng() % 5 == 0 ? RunStatus::kFailed : RunStatus::kSucceeded, t);
  }
  ledger.reset();
  std::filesystem::rename(partial, path);
  return path.string();
}

void BM_Report30Days(benchmark::State& state) {
  const int64_t runs = EnvCount("FRUGAL_BENCH_RUNS", 100'000);
  const int64_t samples = EnvCount("FRUGAL_BENCH_SAMPLES", 10'000'000);
  const std::string path = LargeLedger(runs, samples);
  auto ledger = Ledger::Open(path).value();
  state.counters["runs"] = static_cast<double>(ledger->CountRows("runs").value());
  state.counters["samples"] = static_cast<double>(ledger->CountRows("samples").value());
  ReportOptions options;
  options.by = ParseGroupKeys("team,gpu,tier").value();
  options.now = kNow;
  options.since = kNow - std::chrono::hours(24 * 30);
  options.until = kNow;
  for (auto _ : state) {
    Result<Report> report = BuildReport(*ledger, options);
    if (!report) state.SkipWithError(report.error().message.c_str());
    benchmark::DoNotOptimize(report);
  }
}
BENCHMARK(BM_Report30Days)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(5);

}  // namespace
}  // namespace frugal::ledger
