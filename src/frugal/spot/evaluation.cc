#include "frugal/spot/evaluation.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "frugal/spot/optimum.h"
#include "frugal/spot/policy.h"

namespace frugal::spot {
namespace {

double Quantile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const double pos = q * static_cast<double>(values.size() - 1);
  const auto lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (pos - static_cast<double>(lo)) * (values[hi] - values[lo]);
}

RatioStats Summarize(const std::vector<const RunRow*>& rows, size_t policy) {
  RatioStats s;
  std::vector<double> ratios;
  double cost = 0;
  int64_t spot = 0;
  int64_t billed = 0;
  int64_t spot_with_optimum = 0;
  int64_t optimum_spot = 0;
  for (const RunRow* row : rows) {
    const RunResult& r = row->runs[policy];
    ++s.runs;
    cost += r.cost_usd;
    spot += r.spot_steps;
    billed += r.spot_steps + r.on_demand_steps;
    if (row->optimum_feasible) {
      spot_with_optimum += r.spot_steps;
      optimum_spot += row->optimum_spot_steps;
    }
    if (!r.deadline_met) {
      ++s.deadline_misses;
      continue;
    }
    if (row->optimum_feasible && row->optimum_cost_usd > 0) {
      ratios.push_back(r.cost_usd / row->optimum_cost_usd);
    }
  }
  s.ratio_runs = static_cast<int>(ratios.size());
  if (s.runs > 0) s.mean_cost_usd = cost / s.runs;
  if (billed > 0) s.spot_share = static_cast<double>(spot) / static_cast<double>(billed);
  if (optimum_spot > 0) {
    s.spot_vs_optimum = static_cast<double>(spot_with_optimum) / static_cast<double>(optimum_spot);
  }
  if (!ratios.empty()) {
    double sum = 0;
    for (double x : ratios) sum += x;
    s.mean_ratio = sum / static_cast<double>(ratios.size());
    s.median_ratio = Quantile(ratios, 0.5);
    s.p90_ratio = Quantile(ratios, 0.9);
  }
  return s;
}

}  // namespace

std::string StratumOf(const RunRow& row) {
  return std::string(row.window_availability < 0.5 ? "avail<50%" : "avail>=50%") +
         (row.tight ? "/tight" : "/loose");
}

namespace {

// The traces on one step grid; kBadInput when their ticks disagree or one is too short.
Result<std::vector<StepTrace>> ToStepTraces(const std::vector<Trace>& traces,
                                            const EvaluationConfig& config, int step_seconds) {
  const StepJob probe = FRUGAL_TRY(ToSteps(config.job, step_seconds, 1.0));
  std::vector<StepTrace> step_traces;
  for (const Trace& trace : traces) {
    if (trace.gap_seconds % step_seconds != 0 ||
        ChooseStepSeconds(trace.gap_seconds, config.job) % step_seconds != 0) {
      return Fail(ErrorCode::kBadInput,
                  (trace.source.empty() ? "trace '" + trace.name + "'" : trace.source) +
                      ": tick of " + std::to_string(trace.gap_seconds) +
                      " s does not match the other traces' grid");
    }
    step_traces.push_back(ToStepTrace(trace, step_seconds, config.gang, config.flat));
    if (step_traces.back().steps() < probe.deadline) {
      // Named by its file, where there is one: a flag alone cannot make a trace longer.
      return Fail(ErrorCode::kBadInput,
                  (trace.source.empty() ? "trace '" + trace.name + "'" : trace.source) + ": " +
                      std::to_string(trace.ticks()) + " ticks of " +
                      std::to_string(trace.gap_seconds) +
                      " s are shorter than the deadline (--deadline)");
    }
  }
  return step_traces;
}

// Per-policy aggregates, strata, and the share of greedy's gap to the optimum closed (on
// mean costs over runs with a feasible optimum).
void Summarize(const EvaluationConfig& config, Evaluation& eval) {
  std::vector<const RunRow*> all;
  std::map<std::string, std::vector<const RunRow*>> groups;
  for (const RunRow& row : eval.rows) {
    all.push_back(&row);
    groups[StratumOf(row)].push_back(&row);
  }
  for (size_t p = 0; p < config.policies.size(); ++p) {
    PolicySummary summary;
    summary.name = config.policies[p];
    summary.all = Summarize(all, p);
    for (const auto& [name, rows] : groups) summary.strata[name] = Summarize(rows, p);
    eval.summaries.push_back(std::move(summary));
  }
  auto greedy = std::find(config.policies.begin(), config.policies.end(), "greedy");
  if (!config.optimum || greedy == config.policies.end()) return;
  const auto gi = static_cast<size_t>(greedy - config.policies.begin());
  for (size_t p = 0; p < config.policies.size(); ++p) {
    double opt = 0, g = 0, mine = 0;
    for (const RunRow& row : eval.rows) {
      if (!row.optimum_feasible) continue;
      opt += row.optimum_cost_usd;
      g += row.runs[gi].cost_usd;
      mine += row.runs[p].cost_usd;
    }
    if (g - opt > 1e-9) {
      eval.summaries[p].has_gap_closed = true;
      eval.summaries[p].gap_closed = (g - mine) / (g - opt);
    }
  }
}

}  // namespace

Result<Evaluation> Evaluate(const std::vector<Trace>& traces, const EvaluationConfig& config) {
  if (traces.empty()) return Fail(ErrorCode::kBadInput, "no trace given");
  std::vector<std::unique_ptr<Policy>> policies;
  for (const std::string& name : config.policies) {
    policies.push_back(
        FRUGAL_TRY(config.make_policy ? config.make_policy(name) : MakePolicy(name)));
  }
  Evaluation eval;
  const int step_seconds = ChooseStepSeconds(traces.front().gap_seconds, config.job);
  eval.step_seconds = step_seconds;
  const std::vector<StepTrace> step_traces = FRUGAL_TRY(ToStepTraces(traces, config, step_seconds));
  std::mt19937_64 rng(config.seed);
  const double fallback_life = 2.0 * 3600 / step_seconds;
  for (int k = 0; k < config.starts; ++k) {
    const size_t ti = static_cast<size_t>(k) % traces.size();
    const StepTrace& st = step_traces[ti];
    RunRow row;
    row.trace = traces[ti].name;
    row.step_seconds = step_seconds;
    const int deadline = FRUGAL_TRY(ToSteps(config.job, step_seconds, 1.0)).deadline;
    row.start_step = std::uniform_int_distribution<int>(0, st.steps() - deadline)(rng);
    const StepJob job =
        FRUGAL_TRY(ToSteps(config.job, step_seconds,
                           MeanLifetimeSteps(st.available, 0, row.start_step, fallback_life)));
    if (k == 0) eval.first_job = job;
    row.window_availability =
        AvailableShare(st.available, row.start_step, row.start_step + job.deadline);
    row.tight = static_cast<double>(job.compute) / job.deadline > 0.75;
    if (config.optimum) {
      const OptimumResult opt = SolveOptimum(st, row.start_step, job);
      row.optimum_feasible = opt.feasible;
      row.optimum_cost_usd = opt.cost_usd;
      row.optimum_spot_steps = opt.spot_steps;
      if (!opt.feasible) ++eval.infeasible;
    }
    for (auto& policy : policies) row.runs.push_back(Simulate(st, row.start_step, job, *policy));
    eval.rows.push_back(std::move(row));
  }
  Summarize(config, eval);
  return eval;
}

}  // namespace frugal::spot
