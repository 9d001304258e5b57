// Audit benchmarks (SQLite):
//   BM_Audit90Days   every rule plus the chart data over a 90-day window of a ledger of
//                    FRUGAL_BENCH_RUNS runs (default 10,000) with 72 samples each (5-minute
//                    samples over 6 hours), against the shipped catalog
//   BM_WriteHtml     the HTML report (with its four SVG charts) for that audit
// The ledger mixes the waste the rules look for (idle and under-used runs, on-demand runs that
// checkpoint, spot runs that do not, untagged runs, specs with far data and shared cache
// keys); it is generated once through the public API into FRUGAL_BENCH_DIR (default: the
// working directory) and reused by later runs.

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <random>
#include <sstream>

#include "bench_env.h"
#include "frugal/audit/audit.h"
#include "frugal/audit/audit_output.h"
#include "frugal/core/paths.h"

namespace frugal::audit {
namespace {

using ledger::Timestamp;
const Timestamp kNow = ledger::FromMillis(1'769'817'600'000);  // 2026-01-31T00:00:00Z

using frugal::bench::BenchDir;
using frugal::bench::EnvCount;

/// Offers from the shipped catalog (aws, us-east-1) the generated runs are priced at.
struct Choice {
  const char* type;
  const char* gpu;
  int gpus;
  double price;
  frugal::CapacityTier tier;
};
constexpr Choice kChoices[] = {
    {"p4d.24xlarge", "A100-40GB", 8, 21.96, frugal::CapacityTier::kOnDemand},
    {"p4d.24xlarge", "A100-40GB", 8, 8.19, frugal::CapacityTier::kSpot},
    {"g5.xlarge", "A10G", 1, 1.006, frugal::CapacityTier::kOnDemand},
    {"g4dn.xlarge", "T4", 1, 0.526, frugal::CapacityTier::kOnDemand},
    {"p5.48xlarge", "H100-80GB-SXM", 8, 98.32, frugal::CapacityTier::kOnDemand}};

void AddRun(ledger::Ledger& l, int64_t r, std::mt19937& rng) {
  const Choice& c = kChoices[rng() % std::size(kChoices)];
  ledger::NewRun run;
  run.name = fmt::format("run-{}", r);
  if (rng() % 10 != 0) run.tags.team = fmt::format("team{}", rng() % 6);
  run.start = kNow - std::chrono::minutes(static_cast<int64_t>(rng() % (89 * 24 * 60)));
  run.spec = fmt::format(
      "apiVersion: frugal/v1\nmodel: {{params: 1b}}\nwork: {{tokens: 1b}}\ndata:\n"
      "  region: {}\n  size_gb: {}\n  preprocessing: {{cache_key: k{}, duration: 20m}}\n",
      rng() % 4 == 0 ? "us-west-2" : "us-east-1", 50 + rng() % 500, rng() % 50);
  const ledger::RunId id = l.BeginRun(run).value();
  ledger::SegmentOffer offer{"aws",       c.type, "us-east-1", "",
                             c.gpu,       c.gpus, c.tier,      Rate{Money::FromDollars(c.price)},
                             std::nullopt};
  const ledger::SegmentId seg = l.OpenSegment(id, offer, run.start).value();
  // Idle, under-used or busy; SM and tensor activity on some.
  const double util = rng() % 8 == 0 ? 1 : rng() % 4 == 0 ? 30 : 90;
  std::vector<ledger::Sample> samples(72);
  for (size_t i = 0; i < samples.size(); ++i) {
    ledger::Sample& s = samples[i];
    s.time = run.start + std::chrono::minutes(5 * static_cast<int64_t>(i));
    s.gpu_util = util + static_cast<double>(rng() % 5);
    s.gpu_mem_bytes = 1e10 + static_cast<double>(rng() % 1000) * 1e7;
    if (r % 3 == 0) {
      s.sm_active = util * 0.9;
      s.tensor_active = r % 2 == 0 ? 0.1 : 30;
    }
  }
  (void)l.AddSamples(id, samples);
  if (rng() % 2 == 0) {
    (void)l.AddEvent(id, seg, ledger::EventType::kCheckpointCommitted,
                     run.start + std::chrono::hours(3), {{"bytes", 1}});
  }
  const Timestamp end = run.start + std::chrono::hours(6);
  (void)l.CloseSegment(seg, end, ledger::EndReason::kFinished);
  (void)l.FinishRun(id, ledger::RunStatus::kSucceeded, end);
}

std::string BenchLedger(int64_t runs) {
  const auto path = BenchDir() / fmt::format("audit_bench_{}runs.sqlite", runs);
  if (std::filesystem::exists(path)) return path.string();
  const auto partial = path.string() + ".partial";
  std::filesystem::remove(partial);
  auto l = ledger::Ledger::Open(partial).value();
  std::mt19937 rng(7);
  for (int64_t r = 0; r < runs; ++r) AddRun(*l, r, rng);
  l.reset();
  std::filesystem::rename(partial, path);
  return path.string();
}

struct Fixture {
  std::unique_ptr<ledger::Ledger> ledger;
  catalog::Catalog catalog;
  catalog::TransferPrices transfer;
  AuditOptions options;
};

Fixture Load() {
  const int64_t runs = EnvCount("FRUGAL_BENCH_RUNS", 10'000);
  Fixture f{ledger::Ledger::Open(BenchLedger(runs)).value(),
            catalog::Catalog::LoadDefault({}).value(),
            catalog::LoadShippedTransferPrices().value(),
            {}};
  f.options.now = kNow;
  f.options.since = kNow - std::chrono::hours(24 * 90);
  f.options.catalog = &f.catalog;
  f.options.transfer = &f.transfer;
  return f;
}

void BM_Audit90Days(benchmark::State& state) {
  Fixture f = Load();
  size_t findings = 0;
  for (auto _ : state) {
    Result<AuditResult> r = RunAudit(*f.ledger, f.options);
    if (!r) state.SkipWithError(r.error().message.c_str());
    findings = r ? r->findings.size() : 0;
    benchmark::DoNotOptimize(r);
  }
  state.counters["runs"] = static_cast<double>(f.ledger->CountRows("runs").value());
  state.counters["samples"] = static_cast<double>(f.ledger->CountRows("samples").value());
  state.counters["findings"] = static_cast<double>(findings);
}
BENCHMARK(BM_Audit90Days)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);

void BM_WriteHtml(benchmark::State& state) {
  Fixture f = Load();
  const AuditResult result = RunAudit(*f.ledger, f.options).value();
  size_t bytes = 0;
  for (auto _ : state) {
    std::ostringstream out;
    WriteAuditHtml(result, out);
    bytes = out.str().size();
    benchmark::DoNotOptimize(bytes);
  }
  state.counters["bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_WriteHtml)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace frugal::audit
