#pragma once
// Many runs of several policies over traces and start times, with the offline optimum as
// the yardstick: per-run rows and per-policy aggregates (cost ÷ optimum, misses apart,
// strata by availability and deadline slack). Shared by `frugal simulate` and bench/spot.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "frugal/core/error.h"
#include "frugal/spot/job.h"
#include "frugal/spot/policy.h"
#include "frugal/spot/simulator.h"
#include "frugal/spot/trace.h"

namespace frugal::spot {

struct EvaluationConfig {
  JobSpec job;
  int gang = 1;
  FlatPrices flat;
  int starts = 300;  ///< runs per policy, spread round-robin over the traces
  uint64_t seed = 1;
  bool optimum = true;                ///< solve the optimum for every run (needed for ratios)
  std::vector<std::string> policies;  ///< names known to MakePolicy (or to make_policy)
  /// Makes a policy by name (benchmarks add their own); empty = MakePolicy.
  std::function<Result<std::unique_ptr<Policy>>(const std::string&)> make_policy;
};

/// One (trace, start) pair and every policy's run on it.
struct RunRow {
  std::string trace;
  int start_step = 0;
  int step_seconds = 0;
  double window_availability = 0;  ///< share of available steps in [start, start + deadline)
  bool tight = false;              ///< compute ÷ deadline > 0.75
  bool optimum_feasible = false;
  double optimum_cost_usd = 0;  ///< when solved and feasible
  int optimum_spot_steps = 0;   ///< spot steps of the optimal plan
  std::vector<RunResult> runs;  ///< one per policy, in config order
};

/// Aggregates over runs of one group (all, or one stratum).
struct RatioStats {
  int runs = 0;
  int deadline_misses = 0;
  int ratio_runs = 0;  ///< runs with a ratio: deadline met and a feasible optimum
  double mean_ratio = 0;
  double median_ratio = 0;
  double p90_ratio = 0;
  double mean_cost_usd = 0;
  double spot_share = 0;  ///< spot steps ÷ billed steps
  /// Spot steps ÷ the optimum's spot steps, over runs with a feasible optimum (0 without).
  double spot_vs_optimum = 0;
};

struct PolicySummary {
  std::string name;
  RatioStats all;
  /// "avail<50%/tight", "avail<50%/loose", "avail>=50%/tight", "avail>=50%/loose".
  std::map<std::string, RatioStats> strata;
  /// Share of greedy's mean extra cost over the optimum that this policy closes; present
  /// when greedy and the optimum were both run.
  bool has_gap_closed = false;
  double gap_closed = 0;
};

struct Evaluation {
  int step_seconds = 0;
  StepJob first_job;  ///< the job on the grid (checkpoint interval of the first run)
  std::vector<RunRow> rows;
  std::vector<PolicySummary> summaries;
  int infeasible = 0;  ///< runs whose deadline no plan can meet
};

/// Runs the evaluation. kBadInput when a policy name is unknown, a trace is shorter than the
/// deadline, or the job does not fit on the step grid.
[[nodiscard]] Result<Evaluation> Evaluate(const std::vector<Trace>& traces,
                                          const EvaluationConfig& config);

/// Stratum name of a row.
[[nodiscard]] std::string StratumOf(const RunRow& row);

}  // namespace frugal::spot
