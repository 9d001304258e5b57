#pragma once
// The scheduler: one pass over the waiting jobs decides, for each, a pool and a start time.
// A pure function of its inputs (jobs, pools and what runs on them, the time, the teams'
// spend), so the live loop (`frugal queue run`) and the simulator (`frugal queue simulate`)
// run the same code.
//
// The frugal pass: jobs in earliest-deadline-first order (priority, then the team with the
// least GPU-hours this period, then arrival, break ties). For each job, every pool it fits is
// priced at its earliest start (when enough GPUs and a job slot are free, the job's
// not-before and start window allowing) and, where the pool's price schedule has cheaper
// hours ahead, at each such hour while the deadline still holds: deferral into cheaper
// windows. Owned capacity costs nothing more to use (it is paid for, idle or not), so an idle
// or soon-free owned pool wins whenever it meets the deadline; among owned pools the tightest
// fit wins (packing). Spot is offered only to jobs that checkpoint, priced as `plan` prices it
// (Daly's expected wall time at the pool's preemption rate) and kept only while the
// probability of missing the deadline stays under `max_deadline_risk`. The cheapest option
// that meets the deadline is taken; the pool's capacity is booked for it, so jobs later in
// the order see it taken. A job no option can finish by its deadline (with the safety margin)
// is flagged late at once and placed where it finishes soonest: it starts there when that
// start is now, as any other start does, rather than wait for an option that cannot come. A job
// whose team budget its expected cost would exceed is held, unless it carries an override reason.
//
// The baselines of `queue simulate` are options of the same pass: FIFO or EDF order, first
// fit (owned if free now, else spot if allowed and up, else the cheapest on-demand now), and
// spot never, only for jobs that checkpoint, or greedily for every job.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "frugal/core/money.h"
#include "frugal/queue/capacity.h"
#include "frugal/queue/job.h"

namespace frugal::queue {

enum class Order { kEdf, kFifo };
enum class Choice { kCheapest, kFirstFit };
enum class SpotUse { kOff, kCheckpointing, kGreedy };

struct SchedulerOptions {
  Order order = Order::kEdf;
  Choice choice = Choice::kCheapest;
  SpotUse spot = SpotUse::kCheckpointing;
  /// How far a job without a deadline may be deferred for a cheaper start.
  Seconds max_defer_seconds = 24 * 3600;
  /// Kept between a planned finish and the deadline.
  Seconds safety_seconds = 15 * 60;
  /// Spot is used only while P(miss the deadline) stays at or under this.
  double max_deadline_risk = 0.05;
};

/// A job waiting for a place.
struct WaitingJob {
  const JobRequest* request = nullptr;  ///< borrowed; outlives the pass
  double work_left = 1.0;               ///< share of the job's work still to do (after checkpoints)
  bool spot_allowed = true;             ///< false once the spot policy moved the job to on-demand
  bool paid_allowed = true;  ///< false while the spot policy says wait for spot to return
};

/// What is running on a pool now.
struct PoolState {
  bool available = true;            ///< spot: capacity can be launched now
  std::vector<Seconds> busy_until;  ///< one entry per busy unit: its expected release
  std::vector<Seconds> jobs_until;  ///< one entry per running job: its expected end
};

struct ScheduleInput {
  Seconds now = 0;
  const Capacity* capacity = nullptr;  ///< borrowed
  std::vector<WaitingJob> jobs;
  std::vector<PoolState> pools;  ///< one per capacity pool, same order
  /// Spend this period per budget ("team=nlp"), running and placed work included.
  std::map<std::string, Money> committed;
  /// GPU-hours used this period per team, for fair share.
  std::map<std::string, double> usage_gpu_hours;
  SchedulerOptions options;
};

enum class Verdict {
  kStart,       ///< start now on the pool
  kDefer,       ///< start later on the pool (capacity frees, a cheaper window, a start window)
  kLate,        ///< no option meets the deadline; placed where it finishes soonest
  kOverBudget,  ///< its team's budget would be exceeded; held
  kWait,        ///< nothing fits now (spot down, no pool large enough)
};

[[nodiscard]] const char* VerdictName(Verdict verdict);

/// What the caller does with a placement now. `Schedule` sets it, so the live loop and
/// `queue simulate` act on one rule and cannot drift apart.
enum class Action {
  kNone,       ///< leave it waiting for a later pass
  kStartNow,   ///< start it now: a start, or a late job whose soonest finish starts now
  kStartHeld,  ///< hand it to its pool now, held there until `start` (Slurm's --begin):
               ///< a deferred or late start on a Slurm pool
};

struct Placement {
  size_t job = 0;  ///< index into ScheduleInput::jobs
  Verdict verdict = Verdict::kWait;
  Action action = Action::kNone;
  int pool = -1;  ///< index into the capacity's pools; -1 when none
  Seconds start = 0;
  Seconds finish = 0;              ///< expected
  double cost_usd = 0;             ///< expected marginal cost (owned capacity: 0)
  double on_demand_cost_usd = -1;  ///< the cheapest on-demand start now, for comparison; -1 none
  double deadline_risk = 0;        ///< spot: P(miss)
  std::string reason;              ///< why: what was chosen over what
};

/// One pass. Returns one placement per job, in the order decided (EDF or FIFO). Bookings are
/// made in the pools of `input` as placements are taken; the input is otherwise unchanged.
[[nodiscard]] std::vector<Placement> Schedule(ScheduleInput& input);

/// "team=nlp" keys of the budgets in `capacity` that apply to `job`.
[[nodiscard]] std::vector<std::string> BudgetKeys(const Capacity& capacity, const JobRequest& job);

}  // namespace frugal::queue
