#pragma once
// The deadline planner: the best online decisions for a job, given a model of the spot
// market learned from the past (availability_model.h) — not the future. A dynamic program
// over (spare time, work left, mode, changeover left, spot available, age of the current
// spot run or outage) that minimizes the expected cost to finish, where spot lifetimes and
// outages follow the learned age-dependent survival (a semi-Markov market). It is solved
// once, backwards from "done", into a table of decisions; a decision is then one lookup.
//
// Units: the program may run on a coarser grid than the job's steps (`unit` steps per
// planner step) to stay within its budget of state updates; spare time, work and ages are
// then rounded conservatively (spare down, work up). The caller keeps the exact deadline rule
// (policy.h: SpareSteps) as a guard; the planner never relies on the model for safety — a
// state from which some sequence of availability can make the deadline unreachable is
// valued as infeasible, so the plan itself never gambles with the deadline either.

#include <cstdint>
#include <vector>

#include "frugal/spot/job.h"

namespace frugal::spot {

struct PlannerInput {
  int compute = 0;     ///< work steps
  int spare = 0;       ///< deadline − compute, steps (≥ 0)
  int changeover = 0;  ///< steps to enter spot or on-demand
  double price_ratio = 3;
  int unit = 1;  ///< job steps per planner step
  int ages = 1;  ///< ages tracked per run, in planner steps (the last one is the tail)
  /// P(run goes on for another planner step | its age), index age − 1, per state.
  std::vector<float> stay_up;
  std::vector<float> stay_down;
};

class DeadlinePlanner {
 public:
  /// State updates one Solve performs for `input` (the budget check).
  [[nodiscard]] static int64_t Work(const PlannerInput& input);

  /// Solves the program; replaces any earlier plan.
  void Solve(const PlannerInput& input);

  [[nodiscard]] bool solved() const { return !table_.empty(); }
  [[nodiscard]] int unit() const { return unit_; }

  /// The planned mode for a job with `spare` steps beyond its work left (time left − work
  /// left), `work_left` steps of work, in `mode` (ready to work: no changeover in progress),
  /// with spot `available` and the current run (of availability or outage) `age` steps old.
  /// Spot is never returned when it is unavailable.
  [[nodiscard]] Mode Decide(int spare, int work_left, Mode mode, bool available, int age) const;

  /// Expected cost to finish, in spot-price steps, from idle with spot `available` at `age`
  /// (for explanations and tests); infinity-like (≥ 1e29) when the deadline is unreachable.
  [[nodiscard]] double ExpectedCostFromIdle(bool available, int age) const;

 private:
  int unit_ = 1;
  int ages_ = 1;
  int spare_units_ = 0;
  int work_units_ = 0;
  std::vector<uint16_t> table_;       ///< decisions per (spare, work, age), see the .cc
  std::vector<float> start_idle_[2];  ///< expected cost from idle at the start, per age
};

}  // namespace frugal::spot
