#pragma once
// Samples the utilization of a supervised process group: a seam so the supervisor can run
// with the real /proc + NVML probes or with none.

#include <sys/types.h>

#include "frugal/monitor/sample.h"

namespace frugal::monitor {

class Sampler {
 public:
  virtual ~Sampler() = default;
  /// Samples every process in process group `pgid` (and the GPUs). The first call after a
  /// new group starts measures CPU from the processes' start.
  virtual Sample Take(pid_t pgid) = 0;
};

}  // namespace frugal::monitor
