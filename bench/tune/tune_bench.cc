// Speed of the tuner: one scheduling decision with 10,000 trials in the study (target < 50 µs),
// and a whole replay of a 512-configuration study (target < 1 s).

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <random>

#include "frugal/tune/replay_runner.h"
#include "frugal/tune/scheduler.h"
#include "frugal/tune/study.h"

namespace {

using namespace frugal::tune;

/// 10,000 trials spread over the rungs of a 1-3-9-27-81 ladder as ASHA leaves them: most paused
/// at rung 0, a third of those promoted, and so on.
std::vector<Trial> PopulatedTrials(Scheduler& s, int n, int rungs) {
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<Trial> trials;
  for (int i = 0; i < n; ++i) {
    Job job = s.Next(trials, true);
    while (job.kind == JobKind::kResume) {
      Trial& t = trials[static_cast<size_t>(job.trial_id)];
      t.target_rung = job.target_rung;
      t.rung_losses[static_cast<size_t>(job.target_rung)] = u(rng);
      t.state = s.OnRung(trials, t, job.target_rung,
                         t.rung_losses[static_cast<size_t>(job.target_rung)]) == Verdict::kComplete
                    ? TrialState::kCompleted
                    : TrialState::kPaused;
      job = s.Next(trials, true);
    }
    Trial t;
    t.id = static_cast<int64_t>(trials.size());
    t.target_rung = job.target_rung;
    t.bracket = job.bracket;
    t.rung_losses.assign(static_cast<size_t>(rungs), std::numeric_limits<double>::quiet_NaN());
    trials.push_back(t);
    s.OnStart(trials.back());
    Trial& stored = trials.back();
    stored.rung_losses[static_cast<size_t>(job.target_rung)] = u(rng);
    const Verdict v = s.OnRung(trials, stored, job.target_rung,
                               stored.rung_losses[static_cast<size_t>(job.target_rung)]);
    stored.state = v == Verdict::kPause ? TrialState::kPaused : TrialState::kCompleted;
  }
  return trials;
}

void BM_SchedulingDecision(benchmark::State& state) {
  const auto kind = static_cast<SchedulerKind>(state.range(0));
  SchedulerOptions o{kind, GeometricLadder(1, 81, 3), 3, 0};
  auto s = MakeScheduler(o);
  std::vector<Trial> trials = PopulatedTrials(*s, 10'000, 5);
  std::mt19937_64 rng(2);
  std::uniform_real_distribution<double> u(0, 1);
  // Each iteration: one decision for a free worker, and the report that follows it.
  for (auto _ : state) {
    Job job = s->Next(trials, true);
    if (job.kind == JobKind::kStart) {
      Trial t;
      t.id = static_cast<int64_t>(trials.size());
      t.target_rung = job.target_rung;
      t.bracket = job.bracket;
      t.rung_losses.assign(5, std::numeric_limits<double>::quiet_NaN());
      trials.push_back(t);
      s->OnStart(trials.back());
      job.trial_id = t.id;
    }
    Trial& t = trials[static_cast<size_t>(job.trial_id)];
    t.target_rung = job.target_rung;
    const double loss = u(rng);
    t.rung_losses[static_cast<size_t>(job.target_rung)] = loss;
    t.state = s->OnRung(trials, t, job.target_rung, loss) == Verdict::kPause
                  ? TrialState::kPaused
                  : TrialState::kCompleted;
    benchmark::DoNotOptimize(job);
  }
  state.SetLabel(std::string(SchedulerName(kind)) + ", 10k trials");
}
BENCHMARK(BM_SchedulingDecision)
    ->Arg(static_cast<int>(SchedulerKind::kAsha))
    ->Arg(static_cast<int>(SchedulerKind::kAshaStop))
    ->Arg(static_cast<int>(SchedulerKind::kHyperband))
    ->Arg(static_cast<int>(SchedulerKind::kMedian))
    ->Iterations(5000)  // starts add trials: keep the study near 10,000 (at most 15,000)
    ->Unit(benchmark::kMicrosecond);

void BM_Replay512(benchmark::State& state) {
  const std::filesystem::path dir =
      std::filesystem::path(FRUGAL_SHARED_DATA_DIR) / "hpo_curves" / "opda_alexnet_imagenet";
  auto table = ReplayTable::Load(ReplaySource{dir, "config_id", "elapsed_s"}, "val_top1", "epoch");
  if (!table) {
    state.SkipWithError("shared hpo_curves/opda_alexnet_imagenet not present");
    return;
  }
  const auto kind = static_cast<SchedulerKind>(state.range(0));
  SpecText text{"name: b\nreplay: {dir: '" + dir.string() +
                    "'}\n"
                    "objective: {metric: val_top1, direction: maximize}\n"
                    // The default grace: asha and asha-stop get their early rung at epoch 1.
                    "fidelity: {max: 100}\nscheduler: " +
                    std::string(SchedulerName(kind)) +
                    "\nresources: {price_per_hour: 2.5, workers: 8}\n",
                "bench", dir};
  const StudySpec spec = *ParseStudySpec(text.yaml, text.source, dir);
  size_t trials = 0;
  for (auto _ : state) {
    // No budget: the study runs until all 512 configurations are spent.
    ReplayRunner runner(*table, 100);
    MemoryStudyStore store;
    auto study = Study::Create(text, spec, runner, store, &*table);
    auto summary = (*study)->Run(RunOptions{});
    trials = static_cast<size_t>(summary->trials_started);
    benchmark::DoNotOptimize(summary);
  }
  state.SetLabel(std::string(SchedulerName(kind)) + ", " + std::to_string(trials) +
                 " trials, 8 workers");
}
BENCHMARK(BM_Replay512)
    ->Arg(static_cast<int>(SchedulerKind::kAsha))
    ->Arg(static_cast<int>(SchedulerKind::kHyperband))
    ->Arg(static_cast<int>(SchedulerKind::kNone))
    ->Unit(benchmark::kMillisecond);

/// One proposal (range 2 = 0) or one pick among 365 untried rows (range 2 = 1) by TPE or the GP,
/// in 7 dimensions, after range(1) observations of a quadratic bowl.
void BM_SamplerProposal(benchmark::State& state) {
  const auto kind = static_cast<SamplerKind>(state.range(0));
  const auto observed = static_cast<size_t>(state.range(1));
  const bool pick = state.range(2) != 0;
  constexpr size_t kDims = 7;
  RandomSampler random(11);
  std::vector<Observation> history;
  for (size_t i = 0; i < observed; ++i) {
    std::vector<double> p = random.Propose(kDims, {});
    double loss = 0;
    for (double x : p) loss += (x - 0.4) * (x - 0.4);
    history.push_back({std::move(p), loss});
  }
  std::vector<std::vector<double>> pool;
  for (int i = 0; i < 365; ++i) pool.push_back(random.Propose(kDims, {}));
  auto sampler = MakeSampler(kind, 5);
  for (auto _ : state) {
    if (pick) {
      benchmark::DoNotOptimize(sampler->Pick(kDims, history, pool));
    } else {
      benchmark::DoNotOptimize(sampler->Propose(kDims, history));
    }
  }
  state.SetLabel(fmt::format("{}, {} observations, {}", kind == SamplerKind::kGp ? "gp" : "tpe",
                             observed, pick ? "pick of 365 rows" : "proposal"));
}
BENCHMARK(BM_SamplerProposal)
    ->ArgsProduct({{static_cast<int>(SamplerKind::kTpe), static_cast<int>(SamplerKind::kGp)},
                   {40, 160, 400},
                   {0, 1}})
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
