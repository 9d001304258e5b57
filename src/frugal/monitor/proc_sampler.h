#pragma once
// Samples a process group from /proc: CPU (utime+stime), resident memory, and time blocked on
// block I/O (delayacct_blkio_ticks, which reads 0 where the kernel's delay accounting is off),
// plus the GPUs through NVML when it loads.

#include <sys/types.h>

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "frugal/monitor/nvml_probe.h"
#include "frugal/monitor/sampler.h"

namespace frugal::monitor {

/// Per-process counters read from /proc/<pid>/stat.
struct ProcStat {
  pid_t pid = 0;
  pid_t pgrp = 0;
  uint64_t cpu_ticks = 0;  ///< utime + stime
  uint64_t rss_bytes = 0;
  uint64_t blkio_ticks = 0;
};

/// Reads every process's stat line; processes that vanish meanwhile are skipped.
std::vector<ProcStat> ReadAllProcStats();
/// Parses one /proc/<pid>/stat line (the command name may contain spaces and parentheses).
std::optional<ProcStat> ParseProcStat(std::string_view line, long page_bytes);

class ProcSampler : public Sampler {
 public:
  /// `gpus`: may be null (no GPU figures).
  explicit ProcSampler(std::unique_ptr<NvmlProbe> gpus);
  Sample Take(pid_t pgid) override;

 private:
  std::unique_ptr<NvmlProbe> gpus_;
  pid_t pgid_ = 0;
  std::chrono::steady_clock::time_point last_;
  std::map<pid_t, ProcStat> previous_;
};

}  // namespace frugal::monitor
