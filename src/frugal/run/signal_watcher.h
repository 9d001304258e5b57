#pragma once
// Signals to the supervisor itself. SIGTERM and SIGUSR1 are preemption notices (how Slurm and
// Kubernetes deliver them), SIGINT is the user interrupting, SIGCHLD wakes the loop when the
// child exits. Handlers only set flags and write to a self-pipe that the supervisor's loop
// waits on, so the loop wakes at once instead of at its next tick.

#include <chrono>

namespace frugal::run {

class SignalWatcher {
 public:
  /// Installs the handlers; the previous ones come back in the destructor. One at a time.
  SignalWatcher();
  ~SignalWatcher();
  SignalWatcher(const SignalWatcher&) = delete;
  SignalWatcher& operator=(const SignalWatcher&) = delete;

  /// Sleeps until a signal arrives or `timeout` passes (drains the self-pipe).
  void WaitFor(std::chrono::milliseconds timeout) const;

  /// The last preemption signal received (SIGTERM or SIGUSR1) since the last call, or 0.
  int TakePreemptionSignal();
  /// Whether SIGINT (or SIGHUP) arrived since the last call.
  bool TakeInterrupt();
};

}  // namespace frugal::run
