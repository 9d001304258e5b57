#pragma once
// A child process in its own process group. The supervisor signals the whole group (so a
// training script's workers and data loaders stop with it), and the destructor kills whatever
// is left of the group, so no child ever outlives the object that started it.
//
// Several supervisors may run in one process (the tuner's concurrent trials), and the process
// is a child subreaper, so exited children are reaped with care: every ChildProcess leader is
// registered process-wide from fork to reap, only its owner reaps it, and ReapOrphans reaps
// only exited children that no ChildProcess owns.

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "frugal/core/error.h"

namespace frugal::run {

/// How a process ended.
struct ExitStatus {
  int exit_code = 0;  ///< valid when signal == 0
  int signal = 0;     ///< the signal that killed it, or 0

  [[nodiscard]] bool Succeeded() const { return signal == 0 && exit_code == 0; }
  /// "exit code 1", "killed by SIGKILL".
  [[nodiscard]] std::string Describe() const;
};

/// Where the child's standard output goes.
enum class ChildStdout { kInherit, kToStderr };

struct SpawnOptions {
  std::vector<std::string> argv;  ///< argv[0] is looked up on PATH
  /// Added to (or replacing in) the inherited environment.
  std::vector<std::pair<std::string, std::string>> env;
  ChildStdout stdout_to = ChildStdout::kInherit;
};

class ChildProcess {
 public:
  /// Starts argv in a new process group. kBadInput when the command cannot be executed (not
  /// found, not executable), naming it; kFailed when fork fails. The child gets SIGTERM if
  /// the spawning thread's process dies (so a SIGKILLed supervisor does not leave it running
  /// unattended forever).
  [[nodiscard]] static Result<std::unique_ptr<ChildProcess>> Spawn(const SpawnOptions& options);

  /// Kills the whole process group (SIGKILL) and reaps the leader if it has not been reaped.
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  [[nodiscard]] pid_t pid() const { return pid_; }

  /// Sends `signal` to every process of the group. Returns false when none is left.
  bool SignalGroup(int signal) const;
  /// Whether any process of the group (the leader included, even unreaped) still exists.
  [[nodiscard]] bool GroupAlive() const;

  /// Reaps the leader if it has exited; its status once it has (and from then on).
  std::optional<ExitStatus> Poll();
  /// Waits up to `timeout` for the leader to exit.
  std::optional<ExitStatus> WaitFor(std::chrono::milliseconds timeout);

 private:
  explicit ChildProcess(pid_t pid) : pid_(pid) {}
  pid_t pid_;
  std::optional<ExitStatus> status_;
};

/// Reaps exited children that no ChildProcess owns: orphans of a command, re-parented to this
/// process (a child subreaper). `group`, when positive, is a command's process group, whose
/// exited members are reaped even while another owner's exited leader waits to be reaped.
/// Safe to call from several threads.
void ReapOrphans(pid_t group);

/// Running processes whose environment holds every entry of `entries` ("NAME=value"), as /proc
/// records it from their exec; not this process, nor the members of a command group that a
/// ChildProcess here owns. Processes it cannot read are skipped.
std::vector<pid_t> ProcessesWithEnvironment(const std::vector<std::string>& entries);

/// A process's start time in clock ticks since boot (/proc/PID/stat), or nullopt when it is gone
/// or not readable. With its pid it names one process for good: pids are reused, start times
/// are not.
std::optional<uint64_t> ProcessStartTime(pid_t pid);

/// The running members of process group `group`, a command's group that an earlier owner
/// recorded with its leader's start time `leader_start`. None when the group's leader runs but
/// started at another time (the pid was reused), or when a ChildProcess here owns the group.
/// Only members that started after the leader and no later than `latest_start` (when the owner
/// was surely gone) count: a group whose id was reused after the command's group ended is
/// younger than that.
std::vector<pid_t> LeftGroupMembers(pid_t group, uint64_t leader_start,
                                    std::chrono::system_clock::time_point latest_start);

/// Stops each of `pids` with its whole process group: SIGTERM, then SIGKILL to whatever is still
/// running after `grace`. A process in this process's own group is signalled alone.
void StopProcessGroups(const std::vector<pid_t>& pids, std::chrono::milliseconds grace);

/// Converts a waitpid status.
ExitStatus FromWaitStatus(int wait_status);
/// "SIGTERM", "SIGKILL", or "signal 42".
std::string SignalName(int signal);

}  // namespace frugal::run
