#include "frugal/estimate/cpu_scaling.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace frugal::estimate {

CpuScaling ScaleCpuThroughput(double measured_vcpus, double busy_cores, double target_vcpus) {
  const double measured = std::isfinite(measured_vcpus) ? std::max(measured_vcpus, 1.0) : 1.0;
  const double target = std::isfinite(target_vcpus) ? std::max(target_vcpus, 1.0) : 1.0;
  const bool limited =
      std::isfinite(busy_cores) && busy_cores > 0 && busy_cores < kCpuBoundShare * measured;
  // A job that left cores idle uses about as many as it kept busy, at least one.
  const double width = limited ? std::max(busy_cores, 1.0) : HUGE_VAL;
  CpuScaling s;
  s.usable_measured = std::min(measured, width);
  s.usable_target = std::min(target, width);
  const double exponent = std::log2(kCpuGainPerDoubling);
  s.speedup = std::pow(s.usable_target / s.usable_measured, exponent);
  s.basis = fmt::format(
      "{:g} vCPUs measured{}; {:g} usable on {:g} vCPUs: x{:.2f} ({:g}x throughput per doubling "
      "of usable vCPUs, an assumption)",
      measured,
      limited ? fmt::format(" with {:.2f} busy (the job uses about that many)", busy_cores) : "",
      s.usable_target, target, s.speedup, kCpuGainPerDoubling);
  return s;
}

}  // namespace frugal::estimate
