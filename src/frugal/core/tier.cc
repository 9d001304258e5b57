#include "frugal/core/tier.h"

#include <fmt/format.h>

#include <string>
#include <vector>

#include "frugal/core/text.h"

namespace frugal {

std::string_view CapacityTierName(CapacityTier tier) {
  switch (tier) {
    case CapacityTier::kOnDemand:
      return "on_demand";
    case CapacityTier::kSpot:
      return "spot";
    case CapacityTier::kReserved1y:
      return "reserved_1y";
    case CapacityTier::kReserved3y:
      return "reserved_3y";
    case CapacityTier::kOwned:
      return "owned";
  }
  return "on_demand";
}

Result<CapacityTier> ParseCapacityTier(std::string_view raw) {
  const std::string t = ToLower(Trim(raw));
  if (t == "on_demand" || t == "on-demand" || t == "ondemand" || t == "od")
    return CapacityTier::kOnDemand;
  if (t == "spot" || t == "preemptible") return CapacityTier::kSpot;
  if (t == "reserved_1y" || t == "reserved-1y") return CapacityTier::kReserved1y;
  if (t == "reserved_3y" || t == "reserved-3y") return CapacityTier::kReserved3y;
  if (t == "owned") return CapacityTier::kOwned;
  const std::vector<std::string> known = {"on_demand", "spot", "reserved_1y", "reserved_3y",
                                          "owned"};
  return Fail(ErrorCode::kBadInput,
              fmt::format("unknown tier '{}'{} (one of on_demand, spot, reserved_1y, reserved_3y, "
                          "owned)",
                          Abbreviate(raw), DidYouMean(t, known)));
}

}  // namespace frugal
