#pragma once
// State shared by the supervisor's files (supervisor.cc: the attempt and its restarts;
// supervisor_segment.cc: one segment's loop). Not part of the public API.

#include <chrono>
#include <memory>
#include <optional>
#include <vector>

#include "frugal/run/budget_guard.h"
#include "frugal/run/signal_watcher.h"
#include "frugal/run/supervisor.h"

namespace frugal::run {

/// Where the supervisor is with one invocation.
struct Supervisor::Loop {
  SignalWatcher signals;
  BudgetGuard guard;
  SteadyTime t0;
  SteadyTime next_accrual;
  SteadyTime next_heartbeat;
  SteadyTime next_sample;
  SteadyTime next_status;
  int segment = 0;  ///< the segment running now (for heartbeats)
  bool warned_caps[3] = {false, false, false};
  std::optional<CapKind> cap_hit;
  bool self_signalled = false;  ///< the preemption came as a signal to the supervisor itself
  int interrupts = 0;
  int64_t last_committed_step = 0;
  int64_t last_step = 0;
  std::vector<monitor::Sample> samples;
  /// GPU utilization of the samples taken while the command trained: after its segment's first
  /// progress report (start-up, imports and the resume are not training).
  std::vector<double> training_gpu_util;
  /// What this invocation's segments price, as the ledger prices them (price × length, both
  /// ends to the millisecond): what the summary calls spend.
  BudgetUsage recorded;
  std::optional<WallTime> last_segment_closed;
  /// With --restart local the capacity is held between segments (the backoff, the relaunch):
  /// the next segment opens where the previous one closed, so the ledger prices that time too.
  std::optional<WallTime> next_segment_opens;

  Loop(BudgetGuard g, SteadyTime now)
      : guard(std::move(g)),
        t0(now),
        next_accrual(now),
        next_heartbeat(now),
        next_sample(now),
        next_status(now) {}
  [[nodiscard]] Duration Elapsed(SteadyTime now) const {
    return std::chrono::duration_cast<Duration>(now - t0);
  }
};

enum class SegmentPhase { kRunning, kCheckpointing, kStopping, kKilled };

/// One segment: the command running once.
struct Supervisor::Segment {
  int number = 0;
  std::unique_ptr<ChildProcess> child;
  std::unique_ptr<ReportReader> reader;
  SegmentPhase phase = SegmentPhase::kRunning;
  SteadyTime deadline;
  SegmentEnd pending_end = SegmentEnd::kFinished;
  bool reported_result = false;  ///< the command reported its final result in this segment
  SteadyTime started;
  WallTime opened_at;  ///< what its record says (where the previous one closed, when held)
  bool resumed = false;
  std::optional<SteadyTime> first_progress_at;
  int64_t first_step = 0;
  SteadyTime rate_window_start;
  int64_t rate_window_step = 0;
  double steps_per_second = 0;
};

}  // namespace frugal::run
