#pragma once
// Knobs side by side: one job on one GPU type and count, with the knobs as given and each
// setting that changes them (precision, micro-batch with gradient accumulation keeping the
// global batch, activation recompute, LoRA/QLoRA, ZeRO stage), the lightest full-training
// setting and the fastest that fits (knob_search.h). Each row has its memory per GPU, its time
// and cost on the chosen GPU, and the smallest GPU the catalog rents that it fits. It answers
// "how do I make one GPU enough?" and, when the knobs as given do not fit, which would.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "frugal/catalog/catalog.h"
#include "frugal/core/money.h"
#include "frugal/estimate/estimator.h"

namespace frugal::plan {

/// What to compare: the job, its knobs as given, and where.
struct KnobQuestion {
  estimate::Model model;
  estimate::Training base;                      ///< the knobs as given; `gpus` is the GPU count
  std::optional<double> tokens;                 ///< the work; none: memory only (no time or cost)
  const catalog::GpuSpec* gpu = nullptr;        ///< the chosen GPU (borrowed)
  double network_gbps = 0;                      ///< between nodes; 0: the estimator's default
  CapacityTier tier = CapacityTier::kOnDemand;  ///< cost at this tier's cheapest offer
  const catalog::Offer* offer = nullptr;        ///< or at exactly this offer (borrowed)
};

/// One knob setting.
struct KnobRow {
  std::string label;  ///< what differs from the knobs as given; "as given" for the first row
  estimate::Training training;
  double peak_bytes = 0;             ///< per GPU (memory needs no FLOPs)
  bool fits = false;                 ///< on the chosen GPU (memory, and the precision runs on it)
  std::optional<double> wall_hours;  ///< with work, when it fits and the GPU has a peak for it
  std::optional<Money> cost;         ///< wall hours at the tier's cheapest offer
  std::string smallest_gpu;  ///< the smallest-memory GPU with an offer that fits it; empty: none
  double smallest_gpu_memory_gib = 0;
  std::string note;  ///< why a row that fits has no time ("T4 has no bf16 support ...")
};

struct KnobComparison {
  std::vector<KnobRow> rows;              ///< [0] the knobs as given
  const catalog::Offer* offer = nullptr;  ///< where costs were priced; null: none at the tier
  size_t evaluated = 0;                   ///< combinations the search for the fastest estimated
};

/// Compares the knobs of `q` side by side. kBadInput when the knobs as given are invalid
/// (Training::Validate); a setting that is invalid at this GPU count (a micro-batch that does
/// not divide the global batch, ZeRO on one GPU) is left out.
[[nodiscard]] Result<KnobComparison> CompareKnobs(const KnobQuestion& q, const catalog::Catalog& c);

/// Whether `gpu` can run precision `p` at all: bf16/tf32 need Ampere or newer, fp8 its tensor
/// cores (support, not a published peak: memory questions need none).
[[nodiscard]] bool RunsPrecision(const catalog::GpuSpec& gpu, estimate::Precision p);
/// The precision to use instead of `p` on `gpu` (fp16 for bf16 on a T4), or nullopt when `p`
/// runs there.
[[nodiscard]] std::optional<estimate::Precision> PrecisionToUse(const catalog::GpuSpec& gpu,
                                                                estimate::Precision p);

/// The comparison as JSON: the GPU, the tier and offer priced, and one object per row (label,
/// knobs, peak_memory_gib_per_gpu, fits, wall_hours, cost_usd, smallest_gpu,
/// smallest_gpu_memory_gib, note).
[[nodiscard]] nlohmann::json KnobComparisonJson(const KnobQuestion& q, const KnobComparison& k);
/// One row as JSON (as in KnobComparisonJson).
[[nodiscard]] nlohmann::json KnobRowJson(const KnobRow& r);

/// Rows other than the first that fit the chosen GPU, fastest first (by memory when there is
/// no time): what would make a configuration that does not fit, fit. At most `n`.
[[nodiscard]] std::vector<const KnobRow*> WaysToFit(const KnobComparison& k, size_t n);

}  // namespace frugal::plan
