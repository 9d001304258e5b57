#include "frugal/spot/simulator.h"

#include <algorithm>

namespace frugal::spot {
namespace {

// The job's state between steps.
struct JobState {
  Mode mode = Mode::kIdle;
  int changeover_left = 0;
  int save_left = 0;  ///< > 0 while a checkpoint is being written
  int committed = 0;
  int uncommitted = 0;
  int since_checkpoint = 0;
};

// True when a notice announces a preemption that leaves time to write a checkpoint now.
bool NoticeCallsForCheckpoint(const StepTrace& trace, int now, const StepJob& job) {
  const int last = std::min(now + job.notice, trace.steps() - 1);
  for (int i = now + 1; i <= last; ++i) {
    if (trace.available[static_cast<size_t>(i)] == 0) return i - now >= job.checkpoint_cost;
  }
  return now + job.notice >= trace.steps() && trace.steps() - now >= job.checkpoint_cost;
}

void Enter(JobState& s, Mode want, const StepJob& job, RunResult& result) {
  s.mode = want;
  s.changeover_left = want == Mode::kIdle ? 0 : job.changeover;
  s.uncommitted = 0;
  s.since_checkpoint = 0;
  if (want != Mode::kIdle) ++result.changeovers;
}

/// At a step where no save is under way: the mode the policy wants (on demand past the
/// deadline, idle for spot that is not there), entered at once or after saving the work not yet
/// checkpointed; or, staying on spot, a checkpoint when it is due or a notice calls for one.
template <typename Decide>
void Steer(const StepTrace& trace, int t, int g, bool available, size_t price_index,
           const StepJob& job, Decide& decide, JobState& s, RunResult& result) {
  Observation obs{t,
                  available,
                  s.mode,
                  s.changeover_left,
                  s.committed,
                  s.uncommitted,
                  trace.on_demand_cost[price_index] / trace.spot_cost[price_index]};
  Mode want = t >= job.deadline ? Mode::kOnDemand : decide(obs);
  if (want == Mode::kSpot && !available) want = Mode::kIdle;
  const bool working = s.mode != Mode::kIdle && s.changeover_left == 0;
  const bool unsaved = working && s.uncommitted > 0 && job.checkpoint_cost > 0;
  if (want != s.mode) {
    if (unsaved) {
      s.save_left = job.checkpoint_cost;  // save first; the policy is asked again after
    } else {
      Enter(s, want, job, result);
    }
  } else if (unsaved && s.mode == Mode::kSpot &&
             (s.since_checkpoint >= job.checkpoint_every ||
              (job.notice > 0 && NoticeCallsForCheckpoint(trace, g, job)))) {
    s.save_left = job.checkpoint_cost;
  }
}

/// One step on capacity (not idle): its price, and what the step does (a save, a changeover,
/// or work, committed at once when checkpoints cost nothing).
void BillAndAdvance(const StepTrace& trace, size_t price_index, const StepJob& job, JobState& s,
                    RunResult& result) {
  if (s.mode == Mode::kSpot) {
    result.cost_usd += trace.spot_cost[price_index];
    ++result.spot_steps;
  } else {
    result.cost_usd += trace.on_demand_cost[price_index];
    ++result.on_demand_steps;
  }
  if (s.save_left > 0) {
    if (--s.save_left == 0) {
      s.committed += s.uncommitted;
      s.uncommitted = 0;
      s.since_checkpoint = 0;
    }
  } else if (s.changeover_left > 0) {
    --s.changeover_left;
  } else if (job.checkpoint_cost == 0) {
    ++s.committed;
  } else {
    ++s.uncommitted;
    ++s.since_checkpoint;
  }
}

// The simulation proper; `decide(obs)` gives the wanted mode.
template <typename Decide>
RunResult Run(const StepTrace& trace, int start, const StepJob& job, Decide&& decide,
              std::vector<StepRecord>* record) {
  RunResult result;
  JobState s;
  const int n = trace.steps();
  for (int t = 0;; ++t) {
    if (s.committed + s.uncommitted >= job.compute) {
      result.finish_step = t;
      result.deadline_met = t <= job.deadline;
      break;
    }
    const int g = start + t;
    const bool available = g < n && trace.available[static_cast<size_t>(g)] != 0;
    const auto price_index = static_cast<size_t>(std::min(g, n - 1));
    if (s.mode == Mode::kSpot && !available) {
      result.lost_steps += s.uncommitted;
      ++result.preemptions;
      s = JobState{Mode::kIdle, 0, 0, s.committed, 0, 0};
    }
    if (s.save_left == 0) Steer(trace, t, g, available, price_index, job, decide, s, result);
    if (s.mode != Mode::kIdle) BillAndAdvance(trace, price_index, job, s, result);
    if (record) record->push_back({s.mode, available, s.committed + s.uncommitted});
  }
  return result;
}

}  // namespace

RunResult Simulate(const StepTrace& trace, int start, const StepJob& job, Policy& policy,
                   std::vector<StepRecord>* record) {
  PolicyContext context;
  context.job = job;
  const int past_end = std::clamp(start, 0, trace.steps());
  context.past = std::span<const uint8_t>(trace.available.data(), static_cast<size_t>(past_end));
  const auto first = static_cast<size_t>(std::min(past_end, trace.steps() - 1));
  context.price_ratio = trace.on_demand_cost[first] / trace.spot_cost[first];
  policy.Start(context);
  return Run(
      trace, start, job, [&policy](const Observation& obs) { return policy.Decide(obs); }, record);
}

RunResult SimulateSequence(const StepTrace& trace, int start, const StepJob& job,
                           std::span<const Mode> modes) {
  return Run(
      trace, start, job,
      [modes](const Observation& obs) {
        return static_cast<size_t>(obs.step) < modes.size() ? modes[static_cast<size_t>(obs.step)]
                                                            : Mode::kIdle;
      },
      nullptr);
}

}  // namespace frugal::spot
