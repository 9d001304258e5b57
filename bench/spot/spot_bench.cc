// Speed of the spot simulator and the offline optimum (DESIGN.md budgets: > 10 M policy
// decisions/s over a 45-day trace at 3-minute ticks; the optimum for an 80-hour job at
// 3-minute ticks in < 1 s).

#include <benchmark/benchmark.h>

#include <memory>

#include "frugal/spot/frugal_policy.h"
#include "frugal/spot/optimum.h"
#include "frugal/spot/policy.h"
#include "frugal/spot/simulator.h"
#include "frugal/spot/trace_synthetic.h"

namespace frugal::spot {
namespace {

constexpr int kTickSeconds = 180;

StepTrace FortyFiveDays() {
  SyntheticSpec spec;
  spec.days = 90;  // 45 days of past for the policy to learn from, 45 for the job
  spec.gap_seconds = kTickSeconds;
  spec.mean_up_hours = 3;
  spec.mean_down_hours = 2;
  spec.seed = 42;
  return ToStepTrace(MakeSyntheticTrace(spec), kTickSeconds, 1, FlatPrices{});
}

void BM_PolicyDecisions(benchmark::State& state, const std::string& name) {
  const StepTrace trace = FortyFiveDays();
  const int half = trace.steps() / 2;
  StepJob job;
  job.step_seconds = kTickSeconds;
  job.deadline = half;         // 45 days
  job.compute = half * 2 / 3;  // 30 days of work
  job.changeover = 2;          // 6 minutes
  std::unique_ptr<Policy> policy = *MakePolicy(name);
  int64_t decisions = 0;
  for (auto _ : state) {
    RunResult r = Simulate(trace, half, job, *policy);
    benchmark::DoNotOptimize(r.cost_usd);
    decisions += r.finish_step;
  }
  state.SetItemsProcessed(decisions);
}
BENCHMARK_CAPTURE(BM_PolicyDecisions, greedy, std::string("greedy"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PolicyDecisions, up, std::string("up"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PolicyDecisions, frugal, std::string("frugal"))->Unit(benchmark::kMillisecond);

// frugal on a job of the evaluation grid, decisions per second including its plan (solved at
// every start): 2-minute steps, C = state.range(0) hours, D = C · range(1) / 100, d = range(2)
// minutes.
void BM_FrugalGridJob(benchmark::State& state) {
  SyntheticSpec spec;
  spec.days = 30;
  spec.gap_seconds = 120;
  spec.mean_up_hours = 3;
  spec.mean_down_hours = 1;
  spec.seed = 7;
  const StepTrace trace = ToStepTrace(MakeSyntheticTrace(spec), 120, 1, FlatPrices{});
  StepJob job;
  job.step_seconds = 120;
  job.compute = static_cast<int>(state.range(0)) * 30;
  job.deadline = static_cast<int>(job.compute * state.range(1) / 100);
  job.changeover = static_cast<int>(state.range(2)) / 2;
  FrugalPolicy policy;
  int64_t decisions = 0;
  for (auto _ : state) {
    RunResult r = Simulate(trace, trace.steps() / 2, job, policy);
    benchmark::DoNotOptimize(r.cost_usd);
    decisions += r.finish_step;
  }
  state.SetItemsProcessed(decisions);
  state.counters["plan_unit"] = policy.plan_unit();
}
BENCHMARK(BM_FrugalGridJob)
    ->Args({12, 110, 12})
    ->Args({48, 110, 6})
    ->Args({48, 110, 12})
    ->Args({48, 200, 6})
    ->Args({48, 200, 12})
    ->Unit(benchmark::kMillisecond);

// The optimum for an 80-hour job at 3-minute steps, deadline factor state.range(0)/100.
void BM_Optimum80h(benchmark::State& state) {
  const StepTrace trace = FortyFiveDays();
  StepJob job;
  job.step_seconds = kTickSeconds;
  job.compute = 80 * 20;
  job.deadline = static_cast<int>(job.compute * state.range(0) / 100);
  job.changeover = 2;
  for (auto _ : state) {
    OptimumResult opt = SolveOptimum(trace, 1000, job);
    benchmark::DoNotOptimize(opt.cost_usd);
  }
}
BENCHMARK(BM_Optimum80h)->Arg(110)->Arg(150)->Arg(200)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace frugal::spot
