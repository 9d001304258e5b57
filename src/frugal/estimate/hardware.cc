#include "frugal/estimate/hardware.h"

#include <fmt/format.h>

#include <algorithm>

#include "frugal/estimate/parallelism.h"

namespace frugal::estimate {

Result<Hardware> HardwareFor(const catalog::GpuSpec& gpu, Precision p) {
  if ((p == Precision::kBf16 || p == Precision::kTf32) && !gpu.supports_bf16) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("{} ({}) has no {} support; use fp16 or fp32", gpu.name,
                            gpu.architecture, catalog::PrecisionName(p)));
  }
  if (p == Precision::kFp8 && !gpu.fp8_tflops) {
    return Fail(ErrorCode::kBadInput, fmt::format("{} has no fp8 tensor cores", gpu.name));
  }
  const std::optional<double> tflops = gpu.DenseTflops(p);
  if (!tflops || !(*tflops > 0)) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("{} publishes no dense {} peak, so its runtime cannot be estimated",
                            gpu.name, catalog::PrecisionName(p)));
  }
  Hardware hw;
  hw.gpu = gpu.name;
  hw.architecture = gpu.architecture;
  // What a job can allocate, not the nameplate (data/gpu_memory.csv).
  hw.memory_gib = gpu.UsableMemoryGib();
  hw.peak_flops = *tflops * 1e12;
  hw.has_nvlink = gpu.nvlink_gbps.has_value();
  hw.nvlink_gbps = gpu.nvlink_gbps.value_or(0.0);
  return hw;
}

TierCost PriceOffer(const catalog::Offer& offer, int gpus, double wall_hours) {
  TierCost c;
  c.offer = &offer;
  c.instances = offer.gpu_count > 0 ? (gpus + offer.gpu_count - 1) / offer.gpu_count : 1;
  c.cost = Rate{offer.price.per_hour * c.instances}.ForHours(wall_hours);
  return c;
}

bool CanHost(const catalog::Offer& offer, int gpus) {
  return offer.gpu_count >= std::min(gpus, kGpusPerNode);
}

std::vector<TierCost> CheapestPerTier(const catalog::Catalog& c, const std::string& gpu, int gpus,
                                      double wall_hours) {
  std::vector<TierCost> best(4);
  for (const catalog::Offer& o : c.offers()) {
    // GPUs of one job share a node up to 8; beyond that, whole multi-GPU nodes.
    if (o.gpu != gpu || !CanHost(o, gpus)) continue;
    const TierCost candidate = PriceOffer(o, gpus, wall_hours);
    TierCost& slot = best[static_cast<size_t>(o.tier)];
    if (slot.offer == nullptr || candidate.cost < slot.cost ||
        (candidate.cost == slot.cost && o.Id() < slot.offer->Id())) {
      slot = candidate;
    }
  }
  std::vector<TierCost> out;
  for (const TierCost& t : best) {
    if (t.offer != nullptr) out.push_back(t);
  }
  return out;
}

}  // namespace frugal::estimate
