#include "frugal/catalog/offer_json.h"

#include "frugal/catalog/cpu_instance.h"

namespace frugal::catalog {

nlohmann::json OfferJson(const Offer& o) {
  return {
      {"cloud", o.cloud},
      {"instance_type", o.instance_type},
      {"region", o.region},
      {"zone", o.zone.empty() ? nlohmann::json() : nlohmann::json(o.zone)},
      {"gpu", o.gpu.empty() ? nlohmann::json() : nlohmann::json(o.gpu)},
      {"gpu_count", o.gpu_count},
      {"gpu_fraction", o.gpu.empty() ? nlohmann::json() : nlohmann::json(o.gpu_fraction)},
      {"cpu_class",
       o.gpu.empty() ? nlohmann::json(CpuClassName(ClassifyCpuOffer(o))) : nlohmann::json()},
      {"vcpus", o.vcpus},
      {"ram_gib", o.ram_gib},
      {"tier", CapacityTierName(o.tier)},
      {"price_per_hour", o.price.per_hour.dollars()},
      {"price_per_gpu_hour", o.PricePerGpuHour().dollars()},
      {"price_estimated", o.price_estimated},
      {"preemptions_per_hour",
       o.tier == CapacityTier::kSpot ? nlohmann::json(o.preemptions_per_hour) : nlohmann::json()},
      {"source", o.source == OfferSource::kCustom     ? "custom"
                 : o.source == OfferSource::kImported ? "imported"
                                                      : "shipped"}};
}

nlohmann::json OfferListJson(const std::vector<const Offer*>& offers,
                             const std::string& snapshot_date) {
  nlohmann::json list = nlohmann::json::array();
  for (const Offer* o : offers) list.push_back(OfferJson(*o));
  return {{"offers", list}, {"count", offers.size()}, {"snapshot_date", snapshot_date}};
}

}  // namespace frugal::catalog
