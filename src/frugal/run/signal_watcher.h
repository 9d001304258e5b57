#pragma once
// Signals to the supervisor itself. SIGTERM and SIGUSR1 are preemption notices (how Slurm and
// Kubernetes deliver them), SIGINT is the user interrupting, SIGCHLD wakes the loop when a
// child exits. Handlers only bump counters and write to self-pipes that the supervisors' loops
// wait on, so a loop wakes at once instead of at its next tick.
//
// Several watchers may live at once (the tuner supervises trials concurrently, one supervisor
// per thread): the handlers are installed while at least one watcher exists, and every signal
// fans out to every watcher. Each watcher has its own wake pipe and sees each preemption and
// interrupt that arrived after it was made exactly once.

#include <chrono>
#include <cstdint>

namespace frugal::run {

class SignalWatcher {
 public:
  /// Installs the handlers if no other watcher has; the previous ones come back when the last
  /// watcher goes. At most 64 watchers at once (FRUGAL_CHECK).
  SignalWatcher();
  ~SignalWatcher();
  SignalWatcher(const SignalWatcher&) = delete;
  SignalWatcher& operator=(const SignalWatcher&) = delete;

  /// Sleeps until a signal arrives or `timeout` passes (drains this watcher's pipe).
  void WaitFor(std::chrono::milliseconds timeout) const;

  /// The last preemption signal received (SIGTERM or SIGUSR1) since this watcher's last call
  /// (or its creation), or 0.
  int TakePreemptionSignal();
  /// Whether SIGINT (or SIGHUP) arrived since this watcher's last call (or its creation).
  bool TakeInterrupt();

 private:
  int slot_;
  uint64_t seen_preemptions_;
  uint64_t seen_interrupts_;
};

}  // namespace frugal::run
