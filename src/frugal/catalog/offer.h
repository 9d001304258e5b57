#pragma once
// An offer: one way to rent compute at one price. See DESIGN.md "Units and core types".

#include <optional>
#include <string>
#include <string_view>

#include "frugal/core/error.h"
#include "frugal/core/money.h"

namespace frugal::catalog {

enum class Tier { kOnDemand, kSpot, kReserved1y, kReserved3y };
/// "on_demand", "spot", "reserved_1y", "reserved_3y".
[[nodiscard]] std::string_view TierName(Tier t);
/// Accepts the names above (and "ondemand", "on-demand", "preemptible"); kBadInput otherwise.
[[nodiscard]] Result<Tier> ParseTier(std::string_view text);

/// Where an offer's price came from.
enum class OfferSource { kShipped, kImported, kCustom };

/// Launch and billing figures a custom offer sets for itself (hours; unset: the cloud's default,
/// see plan/fixed_costs.h).
struct OfferLaunch {
  std::optional<double> boot_hours, setup_hours, staging_gbps, billing_increment_hours,
      minimum_billed_hours;
};

struct Offer {
  std::string cloud;          ///< "aws", "gcp", "azure", "lambda", "vast", or a custom pool's cloud
  std::string instance_type;  ///< "p4de.24xlarge", "a2-ultragpu-8g", "onprem-a100"
  std::string region;
  std::string zone;  ///< empty where prices do not differ by zone
  std::string gpu;   ///< canonical GPU name; empty for CPU-only offers
  int gpu_count = 0;
  double vcpus = 0;
  double ram_gib = 0;
  Tier tier = Tier::kOnDemand;
  Rate price;                       ///< for the whole instance
  bool price_estimated = false;     ///< derived (reserved tiers), not a listed price
  double preemptions_per_hour = 0;  ///< expected, spot only
  OfferSource source = OfferSource::kShipped;
  OfferLaunch launch;  ///< custom offers only

  /// Price per GPU-hour (the whole price when the offer has no GPU).
  [[nodiscard]] Money PricePerGpuHour() const;
  /// "aws:p4de.24xlarge:us-east-1:spot" (zone appended as region/zone when present).
  [[nodiscard]] std::string Id() const;
};

}  // namespace frugal::catalog
