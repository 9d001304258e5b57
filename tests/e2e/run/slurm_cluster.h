#pragma once
// A real single-node Slurm cluster for tests: its own munge daemon (a fresh key and socket),
// slurmctld and slurmd on free loopback ports, partitions debug (the default), spot and
// ondemand on its one node, every file in a temporary directory; stopped
// and removed when the object goes away. Needs root (the daemons run as root here) and the
// Debian packages slurm-wlm and munge.

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "support/test_support.h"

namespace frugal::testing {

class SlurmCluster {
 public:
  /// Starts a cluster; null when it cannot (why() says so): not root, packages missing, or a
  /// daemon that did not come up.
  static std::unique_ptr<SlurmCluster> Start();
  static const std::string& why();
  /// Whether the last Start failed because this machine cannot run a cluster at all (not root,
  /// packages missing), rather than because one did not come up.
  static bool unavailable();

  ~SlurmCluster();
  SlurmCluster(const SlurmCluster&) = delete;
  SlurmCluster& operator=(const SlurmCluster&) = delete;

  /// Runs a Slurm client command (`sbatch`, `scontrol`, ...) against this cluster, with extra
  /// "K=V" environment entries (a submitted job inherits them).
  CommandResult Client(const std::string& command, const std::vector<std::string>& args,
                       const std::vector<std::string>& env = {}) const;
  /// A job's state as `scontrol show job` gives it (PENDING, RUNNING, COMPLETED, ...), empty
  /// when the controller does not know it.
  std::string JobState(const std::string& job) const;
  /// Polls until the job's state is one of `states`; false after `limit`.
  bool WaitForJob(const std::string& job, const std::vector<std::string>& states,
                  std::chrono::seconds limit) const;
  /// Lets a requeued job start now instead of at the begin time Slurm gave it (the requeue,
  /// plus the credential lifetime, plus 1 s: 121 s by default). That delay is what keeps a
  /// restart clear of the node's revocation of the job's previous credential: slurmd refuses a
  /// launch credential issued in the same second as the revocation, or before it ("Job
  /// credential revoked"), and the job ends FAILED. So this waits until the job is PENDING
  /// (its previous run cleaned up on the node, the revocation done) and then until the clock
  /// has moved into a later second, and only then moves its start to now. Empty on success,
  /// otherwise what went wrong.
  std::string StartRequeuedJobNow(const std::string& job, std::chrono::seconds limit) const;

  const std::filesystem::path& dir() const { return dir_; }
  /// "SLURM_CONF=<dir>/slurm.conf": the environment entry that points client commands (and a
  /// program that runs them) at this cluster.
  const std::string& conf_env() const { return conf_env_; }

 private:
  SlurmCluster() = default;
  bool Launch(std::string& why);

  std::filesystem::path dir_;
  std::string conf_env_;  ///< SLURM_CONF=...
};

}  // namespace frugal::testing
