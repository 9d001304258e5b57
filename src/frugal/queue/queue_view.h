#pragma once
// What `frugal queue list|show` show, built in the library so another front end (the HTTP
// server) shows the same: each job's state, where and why (its placement and the expected cost
// against the cheapest on-demand start), its ETA against its deadline, and its spend so far
// from its ledger run's segments.
//
// ETA (`eta`, with `eta_basis`):
//   waiting   the expected finish of its newest placement ("placement"; none while it waits
//             with no pool, over budget, or for a dependency)
//   starting, running
//             measured progress once there is some ("measured": the job spec gave `steps`,
//             and its run's journal has more than a second of reported steps in its newest
//             segment: the time of the last step recorded plus the steps left at the rate
//             measured over that segment, or now when that has passed); otherwise the
//             expected finish of the placement it started on ("expected_runtime": the start,
//             its changeover and the expected runtime of the work left), or now when that has
//             passed and the job still runs ("overdue")
//   succeeded when it finished ("finished")
//   held, failed, cancelled: none
// `deadline_slack_seconds` = deadline − ETA (negative: late); `will_miss` is true when the ETA
// is past the deadline (for a finished job: it finished late), or when the scheduler flagged it
// late and there is no ETA to tell (a late job may still finish before its deadline, inside the
// scheduler's safety margin: then it shows the time it has to spare).

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "frugal/core/error.h"
#include "frugal/core/money.h"
#include "frugal/core/tier.h"
#include "frugal/ledger/ledger.h"
#include "frugal/ledger/queue_jobs.h"
#include "frugal/queue/job.h"
#include "frugal/queue/measured_progress.h"

namespace frugal::queue {

struct JobView {
  ledger::QueueJobRow row;
  std::optional<JobRequest> request;  ///< nullopt when the stored request cannot be read
  std::optional<ledger::QueueDecisionRow> latest;  ///< its newest placement decision
  std::optional<Seconds> eta;
  /// placement, measured, expected_runtime, overdue, finished; "" without an ETA
  std::string eta_basis;
  /// Its run's measured progress (starting and running jobs), from the run's journal.
  std::optional<MeasuredProgress> progress;
  std::optional<int64_t> deadline_slack_seconds;
  bool will_miss = false;
  Money spend;  ///< its ledger run's segments so far (zero before it starts)
  /// The tier its run is recorded on (its newest segment); unset before it starts.
  std::optional<CapacityTier> tier;
  double spend_gpu_hours = 0;
  std::vector<ledger::QueueDecisionRow> decisions;  ///< every decision (ShowJob only)
};

/// The jobs in `states` (all when empty), oldest first, with ETA and spend at `now`. A ledger
/// with no queue yet lists none. kBadInput on a state that is not a job state.
[[nodiscard]] Result<std::vector<JobView>> ListJobs(ledger::Ledger& ledger,
                                                    std::span<const std::string> states,
                                                    Seconds now);

/// Job `id`'s row. kBadInput ("no queue job N") when there is none, a ledger with no queue yet
/// included.
[[nodiscard]] Result<ledger::QueueJobRow> FindJob(ledger::Ledger& ledger, int64_t id);

/// One job with every decision. kBadInput when there is no job `id` (FindJob).
[[nodiscard]] Result<JobView> ShowJob(ledger::Ledger& ledger, int64_t id, Seconds now);

/// A job as `queue list --json` prints it in `jobs`: id, name, state, pool, devices, pid, run_id,
/// reason, submitted, started, finished, exit_code, expected_cost_usd, deadline, tags, gpus,
/// warm_start, preemptions, command, eta, eta_basis, deadline_slack_seconds, will_miss,
/// spend_usd, spend_gpu_hours, tier (its run's, null before it starts), on_demand_cost_usd (of its
/// newest decision), slurm_job_id (the Slurm job behind it on a Slurm pool, else null), steps (the
/// spec's total, or null), progress_step, steps_per_second and progress_fraction (measured; null
/// while unknown).
[[nodiscard]] nlohmann::json JobViewJson(const JobView& job);
/// `queue show --json`: the job, with `decisions` (time, verdict, pool, start, finish,
/// cost_usd, on_demand_cost_usd, reason), oldest first.
[[nodiscard]] nlohmann::json ShowJson(const JobView& job);
/// {"jobs": [...]}.
[[nodiscard]] nlohmann::json ListJson(std::span<const JobView> jobs);

/// The human views: a table, and one job's fields and decisions.
void PrintJobTable(std::span<const JobView> jobs, std::ostream& out);
void PrintJob(const JobView& job, std::ostream& out);

}  // namespace frugal::queue
