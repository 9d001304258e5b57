#include "frugal/catalog/offer.h"

#include <fmt/format.h>

#include <algorithm>

#include "frugal/core/text.h"

namespace frugal::catalog {

const std::string& SpotRisk::basis() const {
  static const std::string kNone;
  return source ? *source : kNone;
}

Money Offer::PricePerGpuHour() const {
  if (gpu_count <= 0) return price.per_hour;
  if (gpu_fraction < 1 && gpu_fraction > 0) {
    return Money::FromDollars(price.per_hour.dollars() / (gpu_count * gpu_fraction));
  }
  return Money::FromMicros((price.per_hour.micros() + gpu_count / 2) / gpu_count);
}

bool Offer::NamedBy(std::string_view name) const {
  if (name == instance_type) return true;
  // Walks Id()'s pieces: cloud ':' instance_type ':' region ['/' zone] ':' tier.
  const std::string_view pieces[] = {cloud, ":",    instance_type,
                                     ":",   region, zone.empty() ? "" : "/",
                                     zone,  ":",    CapacityTierName(tier)};
  std::string_view rest = name;
  for (const std::string_view piece : pieces) {
    const size_t n = std::min(rest.size(), piece.size());
    if (rest.substr(0, n) != piece.substr(0, n)) return false;
    rest.remove_prefix(n);
    if (rest.empty()) return true;
  }
  return false;
}

std::string Offer::Id() const {
  const std::string where = zone.empty() ? region : region + "/" + zone;
  return fmt::format("{}:{}:{}:{}", cloud, instance_type, where, CapacityTierName(tier));
}

}  // namespace frugal::catalog
