#include "frugal/catalog/offer.h"

#include <fmt/format.h>

namespace frugal::catalog {

Money Offer::PricePerGpuHour() const {
  if (gpu_count <= 0) return price.per_hour;
  if (gpu_fraction < 1 && gpu_fraction > 0) {
    return Money::FromDollars(price.per_hour.dollars() / (gpu_count * gpu_fraction));
  }
  return Money::FromMicros((price.per_hour.micros() + gpu_count / 2) / gpu_count);
}

std::string Offer::Id() const {
  const std::string where = zone.empty() ? region : region + "/" + zone;
  return fmt::format("{}:{}:{}:{}", cloud, instance_type, where, CapacityTierName(tier));
}

}  // namespace frugal::catalog
