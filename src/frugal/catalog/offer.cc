#include "frugal/catalog/offer.h"

#include <fmt/format.h>

#include <algorithm>

#include "frugal/core/text.h"

namespace frugal::catalog {

const std::string& SpotRisk::basis() const {
  static const std::string kNone;
  return source ? *source : kNone;
}

std::string_view TierName(Tier t) {
  switch (t) {
    case Tier::kOnDemand:
      return "on_demand";
    case Tier::kSpot:
      return "spot";
    case Tier::kReserved1y:
      return "reserved_1y";
    case Tier::kReserved3y:
      return "reserved_3y";
  }
  return "on_demand";
}

Result<Tier> ParseTier(std::string_view text) {
  const std::string t = ToLower(text);
  if (t == "on_demand" || t == "on-demand" || t == "ondemand" || t == "od") return Tier::kOnDemand;
  if (t == "spot" || t == "preemptible") return Tier::kSpot;
  if (t == "reserved_1y" || t == "reserved-1y") return Tier::kReserved1y;
  if (t == "reserved_3y" || t == "reserved-3y") return Tier::kReserved3y;
  const std::vector<std::string> names = {"on_demand", "spot", "reserved_1y", "reserved_3y"};
  return Fail(ErrorCode::kBadInput,
              fmt::format("unknown tier '{}'{} (expected on_demand, spot, reserved_1y or "
                          "reserved_3y)",
                          Abbreviate(text), DidYouMean(t, names)));
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
  const std::string_view pieces[] = {
      cloud, ":", instance_type, ":", region, zone.empty() ? "" : "/", zone, ":", TierName(tier)};
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
  return fmt::format("{}:{}:{}:{}", cloud, instance_type, where, TierName(tier));
}

}  // namespace frugal::catalog
