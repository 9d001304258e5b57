#pragma once
// A workload for `frugal queue simulate`: jobs with arrival times, sizes, deadlines and
// whether they checkpoint. Format (apiVersion frugal/v1, kind Workload; docs/queue.md):
//
//   apiVersion: frugal/v1
//   kind: Workload
//   name: research-week
//   start: 2026-11-30T00:00Z   # simulated time 0 (prices and windows are by hour of week)
//   horizon: 7d                # idle owned GPU-hours are counted over [start, start+horizon)
//   jobs:
//     - name: sweep            # copies are named sweep-1, sweep-2, ...
//       at: 9h                 # arrival after start
//       count: 8               # copies (default 1), `every` apart (default 0)
//       every: 20m
//       gpus: 1                # or cpu_slots: N for a CPU job
//       gpu: A100-80GB         # required model (optional)
//       runtime: 4h            # undisturbed runtime on any pool that fits
//       runtime_by_gpu: {V100: 9h}
//       checkpoints: true      # resumes from checkpoints: may use spot
//       deadline: 36h          # after arrival (optional: none)
//       not_before: 2h         # after arrival (optional)
//       window: nights         # start only in this window (capacity windows)
//       priority: 0
//       tags: {team: vision}
//       depends_on: [prep]     # waits for these jobs (copy i on copy i when counts match)

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "frugal/core/error.h"
#include "frugal/queue/capacity.h"
#include "frugal/queue/job.h"

namespace frugal::queue {

struct Workload {
  std::string name;
  std::string source;
  Seconds start = 0;
  Seconds horizon_end = 0;
  std::vector<JobRequest> jobs;  ///< arrival order; depends_on names other jobs' names
};

/// Loads a workload; windows are looked up in `capacity`. kBadInput names file:line:column.
[[nodiscard]] Result<Workload> LoadWorkload(const std::filesystem::path& path,
                                            const Capacity& capacity);
[[nodiscard]] Result<Workload> ParseWorkload(std::string_view text, const std::string& source,
                                             const Capacity& capacity);

}  // namespace frugal::queue
