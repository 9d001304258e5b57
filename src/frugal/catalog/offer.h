#pragma once
// An offer: one way to rent compute at one price. See DESIGN.md "Units and core types".

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "frugal/core/error.h"
#include "frugal/core/money.h"
#include "frugal/core/tier.h"

namespace frugal::catalog {

/// Where an offer's price came from.
enum class OfferSource { kShipped, kImported, kCustom };

/// Launch and billing figures a custom offer sets for itself (hours; unset: the cloud's default,
/// see plan/fixed_costs.h).
struct OfferLaunch {
  std::optional<double> boot_hours, setup_hours, staging_gbps, billing_increment_hours,
      minimum_billed_hours;
};

/// A spot price far below its peers' (catalog/spot_prices.h): what plans use instead.
struct SpotPriceCheck {
  Money median;   ///< the peers' median, for the whole instance
  Money planned;  ///< the peers' lower quartile: the price plans use
  int peers = 0;
  bool same_instance_type = true;  ///< peers: the instance type elsewhere (else GPU and count)
};

/// How obtainable spot capacity is and how often it is taken back, from the rule that matched
/// (data/catalog/preemption_rates.csv; catalog/pricing_rules.h).
struct SpotRisk {
  double available_share = 1;    ///< share of the time capacity can be launched
  double mean_outage_hours = 0;  ///< mean stretch without capacity: the wait after a preemption
  /// The rule's source, shared by every offer the rule matched (thousands of spot offers carry
  /// one of a dozen texts); null where no rule matched.
  std::shared_ptr<const std::string> source;
  /// The rule's source, "" where none matched.
  [[nodiscard]] const std::string& basis() const;
};

struct Offer {
  std::string cloud;          ///< "aws", "gcp", "azure", "lambda", "vast", or a custom pool's cloud
  std::string instance_type;  ///< "p4de.24xlarge", "a2-ultragpu-8g", "onprem-a100"
  std::string region;
  std::string zone;  ///< empty where prices do not differ by zone
  std::string gpu;   ///< canonical GPU name; empty for CPU-only offers
  int gpu_count = 0;
  /// The share of its GPU the instance holds: 1 for whole GPUs, below 1 for a partition (1/8
  /// of an MI25: gpu_count 1, gpu_fraction 0.125), from data/catalog/gpu_fractions.csv.
  double gpu_fraction = 1;
  double vcpus = 0;
  double ram_gib = 0;
  /// A rented tier, never kOwned: owned capacity is bought, not offered, so it is never a spot
  /// candidate. Every reader of offers (the offer table, the offer cache, custom offers, the
  /// SkyPilot importer) sets one of the rented tiers only (core/tier.h ParseRentedTier).
  CapacityTier tier = CapacityTier::kOnDemand;
  Rate price;                                  ///< for the whole instance
  bool price_estimated = false;                ///< derived (reserved tiers), not a listed price
  double preemptions_per_hour = 0;             ///< expected, spot only
  std::optional<SpotPriceCheck> spot_outlier;  ///< spot only: set when the price is an outlier
  SpotRisk spot_risk;                          ///< spot only
  OfferSource source = OfferSource::kShipped;
  /// Custom offers that set any launch figure only (null: the cloud's defaults); shared by the
  /// offer's derived copies, so the thousands of table rows carry a pointer, not the figures.
  std::shared_ptr<const OfferLaunch> launch;

  /// True for a GPU partition (gpu_fraction below 1).
  [[nodiscard]] bool IsGpuShare() const { return !gpu.empty() && gpu_fraction < 1; }
  /// Price per hour of a whole GPU: the price over the GPUs' worth it holds (a 1/8 share at
  /// $0.23/h is $1.86 per GPU-hour); the whole price when the offer has no GPU.
  [[nodiscard]] Money PricePerGpuHour() const;
  /// The price plans use: the listed one, or an outlier's planned price (SpotPriceCheck).
  [[nodiscard]] Rate PlannedRate() const {
    return spot_outlier ? Rate{spot_outlier->planned} : price;
  }
  /// "aws:p4de.24xlarge:us-east-1:spot" (zone appended as region/zone when present).
  [[nodiscard]] std::string Id() const;
  /// Whether `name` (a measured profile's `offer:`) names this offer: its instance type, or a
  /// prefix of its Id ("aws:m6i.8xlarge:us-east-1" names every tier there). Formats nothing:
  /// callers ask it of every offer of the catalog.
  [[nodiscard]] bool NamedBy(std::string_view name) const;
};

}  // namespace frugal::catalog
