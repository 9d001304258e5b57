// Policy quality over the grid of issue 6: mean and p90 cost ÷ offline optimum, deadline
// misses and spot share for greedy, Uniform Progress and frugal, on the shipped AWS traces
// on synthetic families (validation on markets frugal was not designed on), and on a
// held-out set of synthetic markets that no constant of the policy was ever tuned on.
//
//   spot_eval [--part real|synthetic|heldout|all|markov] [--starts N] [--seed S] [--tight]
// `--tight` keeps only the cells with D/C = 1.1 (for quick experiments).
// Prints Markdown tables.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "frugal/spot/evaluation.h"
#include "frugal/spot/frugal_policy.h"
#include "frugal/spot/trace.h"
#include "frugal/spot/trace_synthetic.h"

namespace frugal::spot {
namespace {

struct Cell {
  double compute_hours;
  double deadline_factor;
  double changeover_hours;
};

// The shipped traces. Every file holds 0/1 availability of one instance; the `_8` files are
// the 8-GPU instance types (p3.16xlarge, p2.8xlarge), not gangs of eight single-GPU ones.
std::vector<Trace> RealTraces() {
  std::vector<Trace> traces;
  const std::filesystem::path dir =
      std::filesystem::path(FRUGAL_SOURCE_DIR) / "data" / "spot_traces";
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& path : files) {
    auto trace = LoadTrace(path);
    if (!trace) {
      std::fprintf(stderr, "%s\n", trace.error().message.c_str());
      std::exit(1);
    }
    for (int& n : trace->launchable) n = n >= 1 ? 1 : 0;
    traces.push_back(std::move(*trace));
  }
  return traces;
}

struct Family {
  LifetimeShape shape;
  double up, down;  ///< mean lifetime and mean outage, hours
};

// The families the policy was validated on while it was designed.
constexpr Family kSynthetic[] = {
    {LifetimeShape::kPoisson, 3, 1}, {LifetimeShape::kPoisson, 1, 1},
    {LifetimeShape::kPoisson, 8, 8}, {LifetimeShape::kBathtub, 4, 2},
    {LifetimeShape::kBathtub, 2, 3}, {LifetimeShape::kPoisson, 0.5, 0.25}};

// Held out: fixed before the policy was reworked and only ever run to report, never to choose
// a rule or a constant. Heavy-tailed markets (log-normal lifetimes and outages) and families
// at parameters none of the others use.
constexpr Family kHeldOut[] = {
    {LifetimeShape::kLogNormal, 6, 1},   {LifetimeShape::kLogNormal, 2, 2},
    {LifetimeShape::kLogNormal, 1, 0.5}, {LifetimeShape::kLogNormal, 12, 4},
    {LifetimeShape::kBathtub, 8, 1},     {LifetimeShape::kPoisson, 1.5, 0.5}};

// Memoryless markets on the simulator's own 2-minute grid: there the planner's model (an
// alternating renewal process) is the true one, up to what it learns from the past, so its
// cost ÷ optimum approximates the best any online policy can reach on such a market.
constexpr Family kMarkov[] = {{LifetimeShape::kPoisson, 3, 1},
                              {LifetimeShape::kPoisson, 1, 1},
                              {LifetimeShape::kPoisson, 8, 8}};

template <size_t N>
std::vector<Trace> SyntheticTraces(const Family (&families)[N], uint64_t seed,
                                   int gap_seconds = 600) {
  std::vector<Trace> traces;
  for (const Family& f : families) {
    SyntheticSpec spec;
    spec.shape = f.shape;
    spec.mean_up_hours = f.up;
    spec.mean_down_hours = f.down;
    spec.days = 40;
    spec.seed = seed++;
    spec.gap_seconds = gap_seconds;
    traces.push_back(MakeSyntheticTrace(spec));
  }
  return traces;
}

JobSpec JobOf(const Cell& cell) {
  JobSpec job;
  job.compute = std::chrono::duration_cast<Duration>(
      std::chrono::duration<double, std::ratio<3600>>(cell.compute_hours));
  job.deadline = std::chrono::duration_cast<Duration>(
      std::chrono::duration<double, std::ratio<3600>>(cell.compute_hours * cell.deadline_factor));
  job.changeover = std::chrono::duration_cast<Duration>(
      std::chrono::duration<double, std::ratio<3600>>(cell.changeover_hours));
  return job;
}

// A memoryless market in discrete time: each tick, available spot stays available with
// probability 1 − tick/up and an outage goes on with probability 1 − tick/down (means up and
// down). The deadline planner's model with these two numbers is then exactly the market.
Trace MarkovChainTrace(double up_hours, double down_hours, int gap_seconds, double days,
                       uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const double tick = gap_seconds / 3600.0;
  Trace trace;
  trace.name = "markov-" + std::to_string(seed);
  trace.gap_seconds = gap_seconds;
  const auto ticks = static_cast<size_t>(days * 24 / tick);
  bool up = unit(rng) < up_hours / (up_hours + down_hours);
  for (size_t i = 0; i < ticks; ++i) {
    trace.launchable.push_back(up ? 1 : 0);
    if (unit(rng) < tick / (up ? up_hours : down_hours)) up = !up;
  }
  return trace;
}

// How far from the optimum the best online policy is on memoryless markets: the planner told
// the true market (so no policy that sees only the past can expect to pay less), against
// the learning policy and Uniform Progress, per cell. Reported as the mean of per-run ratios
// (the measure) and as the ratio of mean costs (the exact bound: E[cost of any
// online policy] ≥ E[cost of the informed planner]).
void RunBound(const std::vector<Cell>& cells, int starts, uint64_t seed) {
  constexpr int kGap = 120;
  constexpr Family kMarkets[] = {{LifetimeShape::kPoisson, 3, 1},
                                 {LifetimeShape::kPoisson, 1, 1},
                                 {LifetimeShape::kPoisson, 8, 8}};
  std::printf(
      "\n### The bound: memoryless markets, the planner told the true market (%d starts per "
      "cell over 3 markets, on-demand ÷ spot = 3)\n\n",
      starts);
  std::printf(
      "| C h | D/C | d h | UP mean | frugal (learns) mean | informed mean | informed p90 | "
      "informed: mean cost ÷ mean optimum | misses UP/f/informed |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|\n");
  for (const Cell& cell : cells) {
    std::vector<double> ratios[3];
    double cost[3] = {0, 0, 0};
    double optimum = 0;
    int misses[3] = {0, 0, 0};
    uint64_t market_seed = seed + 500;
    for (const Family& m : kMarkets) {
      const Trace trace = MarkovChainTrace(m.up, m.down, kGap, 40, market_seed++);
      const double tick = kGap / 3600.0;
      EvaluationConfig config;
      config.job = JobOf(cell);
      config.starts = starts / 3;
      config.seed = seed;
      config.policies = {"up", "frugal", "informed"};
      config.make_policy = [&](const std::string& name) -> Result<std::unique_ptr<Policy>> {
        if (name != "informed") return MakePolicy(name);
        auto policy = std::make_unique<FrugalPolicy>();
        policy->AssumeMemoryless(1 - tick / m.up, 1 - tick / m.down);
        return std::unique_ptr<Policy>(std::move(policy));
      };
      auto eval = Evaluate({trace}, config);
      if (!eval) {
        std::fprintf(stderr, "%s\n", eval.error().message.c_str());
        std::exit(1);
      }
      for (const RunRow& row : eval->rows) {
        if (!row.optimum_feasible || row.optimum_cost_usd <= 0) continue;
        optimum += row.optimum_cost_usd;
        for (size_t p = 0; p < 3; ++p) {
          const RunResult& r = row.runs[p];
          cost[p] += r.cost_usd;
          if (!r.deadline_met) {
            ++misses[p];
            continue;
          }
          ratios[p].push_back(r.cost_usd / row.optimum_cost_usd);
        }
      }
    }
    auto mean = [](const std::vector<double>& v) {
      double sum = 0;
      for (double x : v) sum += x;
      return v.empty() ? 0.0 : sum / static_cast<double>(v.size());
    };
    std::vector<double> sorted = ratios[2];
    std::sort(sorted.begin(), sorted.end());
    const double p90 = sorted.empty() ? 0 : sorted[(sorted.size() - 1) * 9 / 10];
    std::printf("| %g | %g | %g | %.3f | %.3f | %.3f | %.3f | %.3f | %d/%d/%d |\n",
                cell.compute_hours, cell.deadline_factor, cell.changeover_hours, mean(ratios[0]),
                mean(ratios[1]), mean(ratios[2]), p90, cost[2] / optimum, misses[0], misses[1],
                misses[2]);
    std::fflush(stdout);
  }
}

struct Totals {
  int cells = 0;
  int frugal_beats_up = 0;
  int frugal_within_target = 0;
  int misses[3] = {0, 0, 0};
  double mean_sum[3] = {0, 0, 0};
};

void RunGrid(const char* title, const std::vector<Trace>& traces, const std::vector<Cell>& cells,
             int starts, uint64_t seed) {
  std::printf("\n### %s (%d starts per cell, on-demand ÷ spot = 3)\n\n", title, starts);
  std::printf(
      "| C h | D/C | d h | greedy mean | greedy p90 | UP mean | UP p90 | frugal mean | "
      "frugal p90 | misses g/UP/f | spot share g/UP/f | spot ÷ opt's g/UP/f | frugal < UP |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  Totals totals;
  for (const Cell& cell : cells) {
    EvaluationConfig config;
    config.job = JobOf(cell);
    config.starts = starts;
    config.seed = seed;
    config.policies = {"greedy", "up", "frugal"};
    auto eval = Evaluate(traces, config);
    if (!eval) {
      std::fprintf(stderr, "%s\n", eval.error().message.c_str());
      std::exit(1);
    }
    const auto& s = eval->summaries;
    const bool beats = s[2].all.mean_ratio < s[1].all.mean_ratio;
    std::printf(
        "| %g | %g | %g | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %d/%d/%d | "
        "%.0f%%/%.0f%%/%.0f%% | %.0f%%/%.0f%%/%.0f%% | %s |\n",
        cell.compute_hours, cell.deadline_factor, cell.changeover_hours, s[0].all.mean_ratio,
        s[0].all.p90_ratio, s[1].all.mean_ratio, s[1].all.p90_ratio, s[2].all.mean_ratio,
        s[2].all.p90_ratio, s[0].all.deadline_misses, s[1].all.deadline_misses,
        s[2].all.deadline_misses, 100 * s[0].all.spot_share, 100 * s[1].all.spot_share,
        100 * s[2].all.spot_share, 100 * s[0].all.spot_vs_optimum, 100 * s[1].all.spot_vs_optimum,
        100 * s[2].all.spot_vs_optimum, beats ? "yes" : "no");
    std::fflush(stdout);
    ++totals.cells;
    totals.frugal_beats_up += beats ? 1 : 0;
    totals.frugal_within_target += s[2].all.mean_ratio <= 1.05 ? 1 : 0;
    for (int p = 0; p < 3; ++p) {
      totals.misses[p] += s[static_cast<size_t>(p)].all.deadline_misses;
      totals.mean_sum[p] += s[static_cast<size_t>(p)].all.mean_ratio;
    }
  }
  std::printf(
      "\nCells: %d. Mean of cell means: greedy %.3f, UP %.3f, frugal %.3f. Misses: "
      "greedy %d, UP %d, frugal %d. frugal better than UP in %d/%d cells; frugal mean "
      "≤ 1.05 in %d/%d cells.\n",
      totals.cells, totals.mean_sum[0] / totals.cells, totals.mean_sum[1] / totals.cells,
      totals.mean_sum[2] / totals.cells, totals.misses[0], totals.misses[1], totals.misses[2],
      totals.frugal_beats_up, totals.cells, totals.frugal_within_target, totals.cells);
}

}  // namespace
}  // namespace frugal::spot

int main(int argc, char** argv) {
  using namespace frugal::spot;
  std::string part = "all";
  int starts = 300;
  uint64_t seed = 1;
  bool tight_only = false;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--tight") {
      tight_only = true;
      continue;
    }
    if (i + 1 >= argc) break;
    if (flag == "--part")
      part = argv[i + 1];
    else if (flag == "--starts")
      starts = std::atoi(argv[i + 1]);
    else if (flag == "--seed")
      seed = static_cast<uint64_t>(std::atoll(argv[i + 1]));
    ++i;
  }
  std::vector<Cell> grid;
  for (double c : {12.0, 24.0, 48.0}) {
    for (double f : {1.1, 1.25, 1.5, 2.0}) {
      if (tight_only && f > 1.1) continue;
      for (double d : {0.1, 0.2}) grid.push_back({c, f, d});
    }
  }
  if (part == "real" || part == "all") {
    RunGrid("AWS traces (8 files: 1- and 8-GPU instances)", RealTraces(), grid, starts, seed);
  }
  if (part == "synthetic" || part == "all") {
    RunGrid("Synthetic families (Poisson and bathtub lifetimes, 6 markets)",
            SyntheticTraces(kSynthetic, seed + 100), grid, starts, seed);
  }
  if (part == "markov") {
    RunGrid("Memoryless markets at the step grid (the planner's model is the true one)",
            SyntheticTraces(kMarkov, seed + 300, 120), grid, starts, seed);
  }
  if (part == "bound") RunBound(grid, starts, seed);
  if (part == "heldout" || part == "all") {
    RunGrid("Held-out synthetic markets (log-normal, bathtub, Poisson; never tuned on)",
            SyntheticTraces(kHeldOut, seed + 200), grid, starts, seed);
  }
  return 0;
}
