#pragma once
// The Slurm commands the queue's Slurm executor uses (sbatch, squeue, scontrol, scancel),
// behind one narrow seam. The real client runs the installed binaries as child processes with
// the caller's environment (SLURM_CONF included), captures what they print and gives up on one
// that hangs (a client retries an unreachable controller for minutes). Tests use the real
// client against a real cluster; the seam is there for fault injection.

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "frugal/core/error.h"

namespace frugal::queue {

/// What a Slurm command printed and how it ended.
struct SlurmOutput {
  int exit_code = 0;
  std::string out;
  std::string err;
};

class SlurmClient {
 public:
  virtual ~SlurmClient() = default;
  /// Runs `tool` ("sbatch", "squeue", "scontrol", "scancel") with `args`. A command that ran
  /// and failed is a value with its exit code; kUnavailable when it could not be run at all
  /// (not installed) or did not finish within the client's limit.
  [[nodiscard]] virtual Result<SlurmOutput> Run(const std::string& tool,
                                                const std::vector<std::string>& args) = 0;
};

/// The installed Slurm client commands, found in `bin_dir` ("" = on PATH), each given at most
/// `limit` to finish.
[[nodiscard]] std::unique_ptr<SlurmClient> MakeSystemSlurmClient(
    std::string bin_dir = "", std::chrono::seconds limit = std::chrono::seconds(30));

/// `scontrol show job -o ID`'s one line as key → value ("JobState" → "RUNNING"). Values run to
/// the next " Key=" (a command line may hold spaces); empty when the text has no fields.
[[nodiscard]] std::map<std::string, std::string> ParseScontrolFields(const std::string& line);

}  // namespace frugal::queue
