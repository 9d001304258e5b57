#pragma once
// The best training knobs for one GPU type and count: every combination of precision, method,
// recompute, micro-batch (gradient accumulation keeps the global batch) and ZeRO stage the
// spec allows, estimated; the fastest that fits wins.

#include <limits>
#include <optional>
#include <string>

#include "frugal/catalog/gpu.h"
#include "frugal/estimate/estimator.h"
#include "frugal/plan/job_spec.h"

namespace frugal::plan {

struct KnobResult {
  /// Fastest combination that fits leaving the headroom free; when none does, the fastest
  /// that fits inside it (best_inside_headroom).
  std::optional<estimate::Estimate> best;
  bool best_inside_headroom = false;
  std::optional<estimate::Estimate> baseline;  ///< the spec's own knobs, fitting or not
  double min_peak_bytes =
      std::numeric_limits<double>::infinity();  ///< smallest peak of any combination
  double memory_correction = 1.0;  ///< measured / modelled peak, from a measured profile
  std::string unsupported;         ///< why nothing could be estimated (no bf16, no peak figure)
  size_t evaluated = 0;
};

/// Searches the knob space of `spec` on `gpus` GPUs of `gpu` for `tokens` tokens. A measured
/// profile's peak_memory_gib for this GPU count rescales every modelled peak by measured /
/// modelled-baseline. Ties on wall time go to the lower ZeRO stage, then the larger micro-batch,
/// then the lighter recompute. `network_gbps` (between nodes, per node) is used when the spec
/// states none; 0 leaves the estimator's default. `headroom` is the share of usable memory to
/// keep free (estimate::kDefaultMemoryHeadroom unless the spec or a flag says otherwise).
[[nodiscard]] KnobResult SearchKnobs(const JobSpec& spec, const catalog::GpuSpec& gpu, int gpus,
                                     double tokens, double network_gbps = 0,
                                     double headroom = estimate::kDefaultMemoryHeadroom);

/// "bf16, selective recompute, micro-batch 2 (×8 accumulation), ZeRO-2" (only what differs from
/// `base` when `only_changes`).
enum class Describe { kAll, kOnlyChanges };
[[nodiscard]] std::string DescribeKnobs(const estimate::Training& t, const estimate::Training& base,
                                        Describe what);

}  // namespace frugal::plan
