#pragma once
// Turning a catalog GPU into the estimator's Hardware, and pricing an estimate per tier.

#include <string>
#include <vector>

#include "frugal/catalog/catalog.h"
#include "frugal/estimate/mfu_prior.h"

namespace frugal::estimate {

/// The GPU's memory, dense peak at `p` and interconnect. kBadInput when the GPU cannot run
/// `p` (bf16 on Turing/Volta, fp8 before Hopper/Ada) or publishes no peak for it.
[[nodiscard]] Result<Hardware> HardwareFor(const catalog::GpuSpec& gpu, Precision p);

/// The cheapest way, on one tier, to rent `gpus` GPUs of a kind for `wall_hours`.
struct TierCost {
  const catalog::Offer* offer = nullptr;
  int instances = 0;  ///< ceil(gpus / offer GPUs)
  Money cost;         ///< instances × price × wall hours (no spot overhead)
};

/// The cost of `gpus` GPUs on one offer for `wall_hours`: ceil(gpus / offer GPUs) instances.
[[nodiscard]] TierCost PriceOffer(const catalog::Offer& offer, int gpus, double wall_hours);

/// Whether one job's `gpus` GPUs can run on `offer`: up to 8 GPUs share one instance; more take
/// whole instances of at least 8 (small instances are not clustered, as the planner has it).
[[nodiscard]] bool CanHost(const catalog::Offer& offer, int gpus);

/// For each tier that has offers of `gpu`, the cheapest TierCost, in tier order. Up to 8 GPUs
/// must share one instance; more take whole instances of at least 8.
[[nodiscard]] std::vector<TierCost> CheapestPerTier(const catalog::Catalog& c,
                                                    const std::string& gpu, int gpus,
                                                    double wall_hours);

}  // namespace frugal::estimate
