#include "frugal/core/tier.h"

#include <fmt/format.h>

#include <optional>
#include <string>
#include <vector>

#include "frugal/core/text.h"

namespace frugal {
namespace {

/// The tier a spelling names (lower case, trimmed), if any.
std::optional<CapacityTier> TierOf(const std::string& t) {
  if (t == "on_demand" || t == "on-demand" || t == "ondemand" || t == "od")
    return CapacityTier::kOnDemand;
  if (t == "spot" || t == "preemptible") return CapacityTier::kSpot;
  if (t == "reserved_1y" || t == "reserved-1y") return CapacityTier::kReserved1y;
  if (t == "reserved_3y" || t == "reserved-3y") return CapacityTier::kReserved3y;
  if (t == "owned") return CapacityTier::kOwned;
  return std::nullopt;
}

}  // namespace

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
  if (const std::optional<CapacityTier> tier = TierOf(t)) return *tier;
  const std::vector<std::string> known = {"on_demand", "spot", "reserved_1y", "reserved_3y",
                                          "owned"};
  return Fail(ErrorCode::kBadInput,
              fmt::format("unknown tier '{}'{} (one of on_demand, spot, reserved_1y, reserved_3y, "
                          "owned)",
                          Abbreviate(raw), DidYouMean(t, known)));
}

std::optional<CapacityTier> TierNamed(std::string_view text) {
  const std::optional<CapacityTier> tier = TierOf(std::string(text));
  if (tier && CapacityTierName(*tier) == text) return tier;
  return std::nullopt;
}

Result<CapacityTier> ParseRentedTier(std::string_view raw) {
  const std::string t = ToLower(Trim(raw));
  const std::optional<CapacityTier> tier = TierOf(t);
  if (tier && IsRentedTier(*tier)) return *tier;
  if (tier) {
    return Fail(ErrorCode::kBadInput,
                "tier 'owned' is not rented: owned capacity is never an offer (expected "
                "on_demand, spot, reserved_1y or reserved_3y)");
  }
  const std::vector<std::string> rented = {"on_demand", "spot", "reserved_1y", "reserved_3y"};
  return Fail(ErrorCode::kBadInput,
              fmt::format("unknown tier '{}'{} (expected on_demand, spot, reserved_1y or "
                          "reserved_3y)",
                          Abbreviate(raw), DidYouMean(t, rented)));
}

}  // namespace frugal
