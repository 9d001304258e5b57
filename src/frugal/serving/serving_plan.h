#pragma once
// The serving planner: every GPU model × GPUs per replica, and every CPU instance, sized by
// the replica model (or a measured profile), given replicas for the peak with headroom, and
// priced per tier: on demand (static, or autoscaled to the daily shape), 1- and 3-year
// commitments with their break-even utilization, spot only where the spec tolerates
// interruption, and a committed base with on-demand for the peak. Ranked: options that meet
// the latency first, then by cost over the model's lifetime.

#include <optional>
#include <string>
#include <vector>

#include "frugal/catalog/catalog.h"
#include "frugal/serving/inference_spec.h"
#include "frugal/serving/replica_model.h"

namespace frugal::serving {

struct ServingRequest {
  size_t top = 10;
};

/// One way to serve: a replica shape, a replica count, a tier and its price.
struct ServingOption {
  const catalog::Offer* offer = nullptr;       ///< the instance (the committed one for a mix)
  const catalog::Offer* peak_offer = nullptr;  ///< a mix's on-demand instance for the peak
  std::string gpu;                             ///< canonical name, or "cpu"
  int gpus_per_replica = 0;                    ///< 0 for a CPU instance
  int replicas = 0;                            ///< for the peak, with headroom
  int base_replicas = 0;                       ///< a mix's committed replicas
  int instances = 0;                           ///< at the peak
  int replicas_per_instance = 1;               ///< data-parallel replicas one instance holds
  /// The label printed: the offer's tier's name, or a mix's (reserved_1y+on_demand). Rules read
  /// the offers' tiers (OnTier, committed), never this.
  std::string tier;
  bool autoscaled = false;  ///< on demand, following the daily shape
  ReplicaPerformance perf;
  double paid_hours_per_month = 0;  ///< per instance at the peak (committed: 730)
  Money monthly;
  Money lifetime;  ///< over the lifetime, or the commitment's term when that is longer
  double usd_per_million_requests = 0;
  double usd_per_million_units = 0;              ///< output tokens (decoder) or items
  std::optional<double> break_even_utilization;  ///< committed: hours share where it pays off
  double utilization = 0;                        ///< mean load ÷ the peak replicas' capacity
  bool estimated_price = false;
  std::string lost_because;  ///< why it ranks below the best; empty for the best
  /// Whether it is a committed base with an on-demand peak.
  [[nodiscard]] bool mix() const { return peak_offer != nullptr; }
  /// Whether all of it runs on `t` (a mix runs on two tiers).
  [[nodiscard]] bool OnTier(CapacityTier t) const {
    return offer != nullptr && offer->tier == t && !mix();
  }
  /// Whether it is, or has a base, on a reserved tier.
  [[nodiscard]] bool committed() const { return offer != nullptr && IsReservedTier(offer->tier); }
};

/// Options that lost before ranking, grouped by reason.
struct ServingExclusion {
  std::string reason;
  size_t offers = 0;
};

struct ServingPlan {
  std::vector<ServingOption> options;  ///< ranked, best first; the first `top`
  std::vector<ServingExclusion> excluded;
  size_t ranked = 0;
  double requests_per_month = 0;
  double units_per_request = 0;  ///< output tokens or items per request
  std::string unit;              ///< "output tokens" or "items"
  double scale = 1.0;            ///< calibration from measured profiles (1: none)
};

/// Plans `spec` over `c` (custom offers already loaded). kBadInput when a measured profile
/// matches no option, or nothing in the catalog can serve the model at all is not an error
/// (the plan is empty, with the reasons in `excluded`).
[[nodiscard]] Result<ServingPlan> PlanServing(const InferenceSpec& spec, const catalog::Catalog& c,
                                              const ServingRequest& request = {});

/// Months a commitment tier binds: 12 (reserved_1y), 36 (reserved_3y), else 0.
[[nodiscard]] int CommitmentMonths(CapacityTier t);

}  // namespace frugal::serving
