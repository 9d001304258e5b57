#pragma once
// A CPU job measured on one instance, carried to CPU instances of other sizes by their vCPU
// count (docs/estimate.md "CPU instances"). The model is an assumption, not a fit: each doubling
// of the vCPUs a job can use multiplies its throughput by kCpuGainPerDoubling (vCPUs are
// hyperthreads sharing cores, caches and memory bandwidth), and a job that kept fewer than
// three quarters of the measured vCPUs busy is taken to use that many at most, wherever it runs.
// The CPU model's own speed is not modelled. A runtime measured on the offer itself always wins.

#include <string>

namespace frugal::estimate {

/// Throughput gained per doubling of usable vCPUs: 1.8 (90% parallel efficiency per doubling).
inline constexpr double kCpuGainPerDoubling = 1.8;
/// Below this share of the measured vCPUs busy on average, the job is taken to be limited to
/// the cores it kept busy.
inline constexpr double kCpuBoundShare = 0.75;

struct CpuScaling {
  double speedup = 1;          ///< target throughput ÷ measured throughput
  double usable_measured = 1;  ///< vCPUs the job could use where it was measured
  double usable_target = 1;    ///< ... and on the target
  std::string basis;           ///< for people
};

/// How a job measured on `measured_vcpus` vCPUs with `busy_cores` busy on average (0 when
/// unknown: taken as all of them) runs on `target_vcpus`. Non-positive counts are taken as 1.
[[nodiscard]] CpuScaling ScaleCpuThroughput(double measured_vcpus, double busy_cores,
                                            double target_vcpus);

}  // namespace frugal::estimate
