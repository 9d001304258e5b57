#pragma once
// `frugal queue simulate`: replays a workload against the capacity in simulated time, through
// the same scheduler pass the live loop runs, with spot availability from traces, and the
// same workload under the baselines (FIFO on on-demand, EDF on on-demand, greedy spot with
// on-demand fallback).
//
// Time advances in steps of `step_seconds`. Each step: spot pools whose trace says no
// capacity preempt their jobs (work since the last checkpoint is lost; a job that does not
// checkpoint loses all of it); under frugal's policy the spot deadline policy (spot/live_advice)
// then says, from the job's own history on spot, whether to wait for spot or move to
// on-demand, and a running spot job whose spare time before its deadline runs out is
// checkpointed and moved; arrived jobs whose dependencies are done join the queue; the
// scheduler places the waiting jobs and those it starts now begin (paying the pool's
// changeover); running jobs progress and are billed at their pool's price in that hour.
// Owned capacity is paid for whatever happens and is not in `cost_usd`; its idle GPU-hours
// are counted over the workload's horizon. Team budgets are not applied in simulation.

#include <cstdint>
#include <string>
#include <vector>

#include "frugal/core/error.h"
#include "frugal/queue/capacity.h"
#include "frugal/queue/scheduler.h"
#include "frugal/queue/workload.h"
#include "frugal/spot/trace.h"

namespace frugal::queue {

/// One placement the scheduler made during a simulation: when, for which job.
struct SimulatedPlacement {
  Seconds time = 0;
  std::string job;  ///< the job's name
  Placement placement;
};

struct SimulationConfig {
  /// Availability per spot pool, in the order of the spot pools in the capacity (cycled when
  /// fewer); empty: each spot pool's own `trace`, or always available without one.
  std::vector<spot::Trace> traces;
  uint64_t seed = 1;  ///< picks where in each trace the simulation starts
  int step_seconds = 600;
  /// Policies to run (PolicyNames() when empty).
  std::vector<std::string> policies;
  /// When set (borrowed), every placement of every policy's passes is appended to it, in
  /// order: what the live loop would have decided at those times.
  std::vector<SimulatedPlacement>* placements = nullptr;
};

struct PolicyResult {
  std::string name;
  double cost_usd = 0;  ///< on-demand and spot spend (owned capacity is sunk)
  int jobs = 0;
  int jobs_completed = 0;
  int deadline_misses = 0;  ///< finished after the deadline, or never
  int flagged_late = 0;     ///< jobs the scheduler flagged as unable to meet their deadline
  double idle_owned_gpu_hours = 0;
  double owned_gpu_hours = 0;
  double on_demand_gpu_hours = 0;
  double spot_gpu_hours = 0;
  int preemptions = 0;
  int moved_to_on_demand = 0;       ///< by the spot policy or, for greedy, the fallback
  double mean_wait_hours = 0;       ///< arrival (or dependencies done) to first start
  double makespan_hours = 0;        ///< workload start to the last finish
  std::vector<std::string> missed;  ///< names of the jobs that missed their deadline
};

/// "frugal", "fifo_on_demand", "edf_on_demand", "greedy_spot".
[[nodiscard]] const std::vector<std::string>& SimulationPolicyNames();
/// The scheduler options a policy name stands for; kBadInput with a suggestion otherwise.
[[nodiscard]] Result<SchedulerOptions> PolicyOptions(const std::string& name);

/// Runs every policy of `config` on the workload. kBadInput when a job fits no pool, when a
/// spot pool's trace cannot be read, or when a dependency cannot finish.
[[nodiscard]] Result<std::vector<PolicyResult>> SimulateWorkload(const Workload& workload,
                                                                 const Capacity& capacity,
                                                                 const SimulationConfig& config);

}  // namespace frugal::queue
