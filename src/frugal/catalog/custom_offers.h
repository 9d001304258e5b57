#pragma once
// Custom offers: capacity no public list prices (an on-prem cluster, a Slurm or Kubernetes pool)
// at an internal rate, declared in YAML. Format (apiVersion frugal/v1):
//
//   apiVersion: frugal/v1
//   offers:
//     - name: dc1-a100x8            # instance type as listed
//       cloud: onprem               # default: onprem
//       region: dc1                 # default: local
//       gpu: A100-80GB              # omit for a CPU-only offer
//       gpus: 8                     # default 1 with a gpu, 0 without
//       price_per_gpu_hour: 1.10    # or price_per_hour for the whole node (one of the two)
//       tier: on_demand             # on_demand (default), spot, reserved_1y, reserved_3y
//       preemptions_per_hour: 0.2   # for preemptible pools (tier: spot)
//       vcpus: 64
//       ram_gib: 512
//       boot: 0s                    # launch and billing (plan/fixed_costs.h); default: the
//       setup: 0s                   #   cloud's, and nothing for a custom pool already up
//       staging_gbps: 25
//       billing_increment: 1s
//       minimum_billed: 0s
//   preemption_rates:               # optional overrides of the default table
//     - {cloud: aws, gpu: "H100*", per_hour: 0.5}

#include <filesystem>
#include <vector>

#include "frugal/catalog/gpu.h"
#include "frugal/catalog/offer.h"
#include "frugal/catalog/pricing_rules.h"
#include "frugal/core/error.h"

namespace frugal::catalog {

struct CustomCatalog {
  std::vector<Offer> offers;
  std::vector<PreemptionRate> preemption_rates;
};

/// Reads a custom offers file. GPU names are resolved against `gpus` (aliases allowed). Errors
/// (kBadInput) name file:line:column and the field: unknown keys, unknown GPUs, missing or
/// non-positive prices, both or neither of price_per_hour and price_per_gpu_hour.
[[nodiscard]] Result<CustomCatalog> ReadCustomOffers(const std::filesystem::path& path,
                                                     const std::vector<GpuSpec>& gpus);

}  // namespace frugal::catalog
