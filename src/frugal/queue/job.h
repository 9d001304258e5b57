#pragma once
// A job as the queue sees it: how much of which capacity it needs, for how long, by when, and
// what it is allowed to run on. Filled from a queued job spec (`frugal queue submit`) or a
// simulated workload (workload.h).

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "frugal/core/money.h"
#include "frugal/queue/capacity.h"
#include "frugal/queue/week_time.h"

namespace frugal::queue {

/// What the live queue has learnt of a job on spot, kept with its request in the ledger so the
/// spot deadline policy's decision survives a restart of the scheduler.
struct SpotHistory {
  int preemptions = 0;
  bool spot_allowed = true;    ///< false once the policy moved the job to on-demand
  bool paid_allowed = true;    ///< false while the policy says wait for spot to return
  Seconds first_start = 0;     ///< the job's first start; 0 when never started
  Seconds stint_start = 0;     ///< start of the current stretch on spot (0: not on spot)
  Seconds preempted_at = 0;    ///< the last preemption
  Seconds recheck_at = 0;      ///< while waiting for spot: when to ask the policy again
  double work_done_hours = 0;  ///< work estimated safe in checkpoints
  /// The job's own spot history, oldest first: (on spot, seconds) stretches.
  std::vector<std::pair<bool, Seconds>> spans;
};

struct JobRequest {
  std::string name;
  int units = 1;             ///< GPUs, or CPU slots when cpu_only
  bool cpu_only = false;     ///< runs on CPU-slot pools only
  std::string gpu;           ///< required GPU model; "" for any
  double runtime_hours = 0;  ///< undisturbed runtime on any pool that fits
  /// Runtime on named GPU models; when not empty, pools with other models do not fit unless
  /// runtime_hours is set too.
  std::map<std::string, double> runtime_by_gpu;
  bool checkpoints = false;  ///< resumes from checkpoints (spot-ready); only such jobs use spot
  double checkpoint_every_hours = 0.5;
  double restart_hours = 5.0 / 60;  ///< resume from a checkpoint on a fresh node
  Seconds arrival = 0;
  Seconds deadline = kNever;
  Seconds not_before = 0;
  std::optional<HourSet> window;  ///< it may only start in these hours of the week
  std::string window_name;
  int priority = 0;  ///< higher first among jobs with the same deadline
  std::map<std::string, std::string> tags;
  std::optional<Money> budget;  ///< the job's own cap
  std::string override_reason;  ///< over a team budget on purpose ("" = not allowed)
  std::vector<std::string> depends_on;
  /// Where depends_on was given ("job.yaml:9:13: field 'depends_on'"), for errors at
  /// submission; not stored.
  std::string depends_on_where;
  /// A step whose output is reusable: when `cache_output` exists the job is not run again.
  std::string cache_key;
  std::string cache_output;
  /// Starts from this run's newest committed checkpoint ("" = a fresh start).
  std::string warm_start;
  /// Where warm_start was given ("job.yaml:7:13: field 'warm_start'", "--warm-start"), for
  /// errors at submission; not stored.
  std::string warm_start_where;
  /// Steps the command runs in all (its progress reports count up to it); 0 when not given.
  /// With it, a running job's ETA comes from its measured progress (queue_view.h).
  int64_t steps = 0;
  SpotHistory spot;  ///< live queue only
  /// Live queue only: the kind of pool it was last placed on ("local", "slurm"); "" before
  /// its first start. A Slurm pool's handle (the row's pid) is the Slurm job id.
  std::string executor;

  /// Hours of undisturbed work on `pool`, or nullopt when the job does not fit it (model,
  /// CPU/GPU, size).
  [[nodiscard]] std::optional<double> RuntimeOn(const Pool& pool) const;
  /// The team the fair share counts it under: its `team` tag, "" when none.
  [[nodiscard]] std::string Team() const;
};

}  // namespace frugal::queue
