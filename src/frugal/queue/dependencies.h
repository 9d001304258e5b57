#pragma once
// A queued job's depends_on against the queue's other jobs. A dependency names a job: it is met
// once a job of that name has succeeded, and can never be met once every job of that name has
// failed or been cancelled (or none was ever submitted). Submission refuses a name no job has
// and one that can no longer be met; a pass fails a waiting job whose dependency can no longer
// be met, instead of leaving it waiting for ever.

#include <optional>
#include <string>
#include <vector>

#include "frugal/queue/reconcile.h"

namespace frugal::queue {

struct DependencyState {
  /// Names not yet met that still may be (a job of that name waits, is held or runs).
  std::vector<std::string> unmet;
  /// Why the first dependency that can never be met cannot, in words ("'prep' failed (job 3:
  /// exited with status 1)", "no queue job is named 'prep'"); nullopt when none.
  std::optional<std::string> never;
};

/// Where `depends_on` stands among `jobs` (the job itself, when among them, is not counted).
[[nodiscard]] DependencyState CheckDependencies(const std::vector<std::string>& depends_on,
                                                const std::vector<LoadedJob>& jobs,
                                                int64_t self_id = 0);

}  // namespace frugal::queue
