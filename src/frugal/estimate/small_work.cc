#include "frugal/estimate/small_work.h"

#include <algorithm>

namespace frugal::estimate {

double SmallWorkFactor(double flops_per_micro_step, double peak_flops, double utilization,
                       int layers) {
  if (!(flops_per_micro_step > 0) || !(peak_flops > 0) || !(utilization > 0) || layers < 0) {
    return 1.0;
  }
  const double compute_seconds = flops_per_micro_step / (peak_flops * utilization);
  const double overhead_seconds =
      static_cast<double>(layers) * kLaunchSecondsPerLayer + kFixedSecondsPerMicroStep;
  return compute_seconds / std::max(compute_seconds, overhead_seconds);
}

}  // namespace frugal::estimate
