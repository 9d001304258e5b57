#include "frugal/tune/study_pricing.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "frugal/catalog/twin.h"
#include "frugal/core/text.h"

namespace frugal::tune {

namespace {

/// The offer text split: cloud, instance, region ("" = any), tier (unset: not in the text).
struct OfferText {
  std::string cloud;
  std::string instance;
  std::string region;
  std::optional<CapacityTier> tier;
};

Error At(const StudySpec& spec, std::string_view field, std::string_view message) {
  return Error{ErrorCode::kBadInput,
               fmt::format("{}: field '{}': {}", spec.resources.offer_where, field, message)};
}

/// A tier the offer text names, read as a rented tier.
Result<CapacityTier> OfferTier(const StudySpec& spec, std::string_view text) {
  Result<CapacityTier> parsed = ParseRentedTier(text);
  if (!parsed) return Fail(At(spec, "resources.offer", parsed.error().message));
  return parsed;
}

Result<OfferText> SplitOffer(const StudySpec& spec) {
  std::string text = ToLower(spec.resources.offer);
  std::string tier_text;  // after the blank
  if (const size_t space = text.find(' '); space != std::string::npos) {
    tier_text = std::string(Trim(text.substr(space + 1)));
    text = text.substr(0, space);
  }
  const std::vector<std::string> parts = Split(text, ':');
  if (parts.size() < 2 || parts.size() > 4 || parts[0].empty() || parts[1].empty()) {
    return Fail(At(spec, "resources.offer",
                   fmt::format("'{}' is not CLOUD:INSTANCE[:REGION[:TIER]] [TIER] (e.g. "
                               "'aws:g5.xlarge spot')",
                               spec.resources.offer)));
  }
  OfferText out;
  out.cloud = parts[0];
  out.instance = parts[1];
  if (parts.size() >= 3) out.region = parts[2];
  if (!tier_text.empty()) out.tier = FRUGAL_TRY(OfferTier(spec, tier_text));
  if (parts.size() == 4) {
    std::optional<CapacityTier> id_tier;  // "CLOUD:INSTANCE:REGION:" names none
    if (!parts[3].empty()) id_tier = FRUGAL_TRY(OfferTier(spec, parts[3]));
    if (out.tier && out.tier != id_tier) {
      return Fail(At(spec, "resources.offer", "names two tiers"));
    }
    out.tier = id_tier;
  }
  return out;
}

/// The tier to price at: the offer text's, else the spec's, else on demand.
Result<CapacityTier> TierFor(const StudySpec& spec, std::optional<CapacityTier> from_offer) {
  const std::optional<CapacityTier> stated = spec.resources.tier;
  if (from_offer && stated && *from_offer != *stated) {
    return Fail(At(spec, "resources.offer",
                   fmt::format("names tier '{}' but resources.tier is '{}'",
                               CapacityTierName(*from_offer), CapacityTierName(*stated))));
  }
  return from_offer.value_or(stated.value_or(CapacityTier::kOnDemand));
}

Result<const catalog::Offer*> FindOffer(const StudySpec& spec, const catalog::Catalog& c) {
  const OfferText want = FRUGAL_TRY(SplitOffer(spec));
  const CapacityTier tier = FRUGAL_TRY(TierFor(spec, want.tier));
  const catalog::Offer* best = nullptr;
  std::set<std::string> instances;  // cloud:instance, for "did you mean"
  std::set<std::string> tiers;      // the instance's tiers, where the tier is what is missing
  std::set<std::string> regions;
  for (const catalog::Offer& o : c.offers()) {
    const std::string cloud = ToLower(o.cloud);
    const std::string instance = ToLower(o.instance_type);
    instances.insert(fmt::format("{}:{}", cloud, instance));
    if (cloud != want.cloud || instance != want.instance) continue;
    const std::string where = ToLower(o.zone.empty() ? o.region : o.region + "/" + o.zone);
    regions.insert(where);
    if (!want.region.empty() && where != want.region && ToLower(o.region) != want.region) continue;
    tiers.insert(std::string(CapacityTierName(o.tier)));
    if (o.tier != tier) continue;
    if (best == nullptr || o.price.per_hour < best->price.per_hour) best = &o;
  }
  if (best != nullptr) return best;
  const std::string pair = want.cloud + ":" + want.instance;
  if (!instances.contains(pair)) {
    const std::vector<std::string> known(instances.begin(), instances.end());
    return Fail(At(spec, "resources.offer",
                   fmt::format("no offer '{}' in the catalog{} (see `frugal catalog offers`)",
                               Abbreviate(pair), DidYouMean(pair, known))));
  }
  if (tiers.empty()) {
    const std::vector<std::string> known(regions.begin(), regions.end());
    return Fail(At(spec, "resources.offer",
                   fmt::format("{} is not offered in region '{}'{}", Abbreviate(pair),
                               Abbreviate(want.region), DidYouMean(want.region, known))));
  }
  return Fail(At(spec, "resources.offer",
                 fmt::format("{} has no {} offer (it has: {})", pair, CapacityTierName(tier),
                             fmt::join(tiers, ", "))));
}

Result<const catalog::Offer*> CheapestWithGpu(const StudySpec& spec, const catalog::Catalog& c) {
  Result<const catalog::GpuSpec*> gpu = c.RequireGpu(spec.resources.gpu);
  if (!gpu) return Fail(At(spec, "resources.gpu", gpu.error().message));
  catalog::OfferQuery q;
  q.gpu = (*gpu)->name;
  q.min_gpus = spec.resources.gpus;
  q.tier = FRUGAL_TRY(TierFor(spec, std::nullopt));
  q.limit = 1;
  const std::vector<const catalog::Offer*> offers = FRUGAL_TRY(c.Query(q));
  if (offers.empty()) {
    return Fail(At(spec, "resources.gpu",
                   fmt::format("no {} offer with at least {} x {} in the catalog",
                               CapacityTierName(*q.tier), q.min_gpus, (*gpu)->name)));
  }
  return offers.front();
}

}  // namespace

Result<void> ResolvePricing(StudySpec& spec, const catalog::Catalog& catalog) {
  Resources& r = spec.resources;
  r.record = ledger::SegmentOffer{};
  r.record.gpu_count = r.gpus;
  r.record.tier = r.tier.value_or(CapacityTier::kOnDemand);
  if (r.price_per_gpu_hour) r.record.price = Rate{r.price_per_gpu_hour->per_hour * r.gpus};
  if (!NeedsCatalog(spec)) return {};
  const catalog::Offer* offer = r.offer.empty() ? FRUGAL_TRY(CheapestWithGpu(spec, catalog))
                                                : FRUGAL_TRY(FindOffer(spec, catalog));
  const int gpus = std::max(1, offer->gpu_count);
  if (r.gpus_stated && r.gpus != gpus && !r.offer.empty()) {
    return Fail(At(spec, "resources.gpus",
                   fmt::format("resources.gpus is {} but {} has {} GPU(s); a trial rents the "
                               "whole instance",
                               r.gpus, offer->Id(), offer->gpu_count)));
  }
  r.gpus = gpus;
  r.tier = offer->tier;
  r.price_per_gpu_hour = Rate{offer->price.per_hour.Scaled(1.0 / static_cast<double>(gpus))};
  r.offer_id = offer->Id();
  r.record.cloud = offer->cloud;
  r.record.instance_type = offer->instance_type;
  r.record.region = offer->region;
  r.record.zone = offer->zone;
  r.record.gpu = offer->gpu;
  r.record.gpu_count = offer->gpu_count;
  r.record.tier = offer->tier;
  // The rate the study and the supervisor charge (equal to the offer's up to rounding).
  r.record.price = Rate{r.price_per_gpu_hour->per_hour * gpus};
  r.record.on_demand_price = catalog::OnDemandTwinPrice(catalog, *offer);
  return {};
}

nlohmann::json PricingToJson(const Resources& r) {
  const ledger::SegmentOffer& o = r.record;
  return {{"gpus", r.gpus},
          {"tier", r.tier ? nlohmann::json(CapacityTierName(*r.tier)) : nlohmann::json("")},
          {"price_per_gpu_hour_micros",
           r.price_per_gpu_hour ? nlohmann::json(r.price_per_gpu_hour->per_hour.micros())
                                : nlohmann::json(nullptr)},
          {"offer_id", r.offer_id},
          {"record",
           {{"cloud", o.cloud},
            {"instance_type", o.instance_type},
            {"region", o.region},
            {"zone", o.zone},
            {"gpu", o.gpu},
            {"gpu_count", o.gpu_count},
            {"tier", CapacityTierName(o.tier)},
            {"price_micros", o.price.per_hour.micros()},
            {"on_demand_price_micros", o.on_demand_price
                                           ? nlohmann::json(o.on_demand_price->per_hour.micros())
                                           : nlohmann::json(nullptr)}}}};
}

namespace {

/// A pinned pricing's tier name, read back; an error names where it was.
Result<CapacityTier> PinnedTier(Result<CapacityTier> tier) {
  if (!tier) return Fail(ErrorCode::kBadInput, "study state: pricing: " + tier.error().message);
  return tier;
}

}  // namespace

Result<void> ApplyPinnedPricing(StudySpec& spec, const nlohmann::json& pricing) {
  auto rate = [](const nlohmann::json& micros) -> std::optional<Rate> {
    if (micros.is_null()) return std::nullopt;
    return Rate{Money::FromMicros(micros.get<int64_t>())};
  };
  try {
    Resources& r = spec.resources;
    r.gpus = pricing.at("gpus").get<int>();
    const std::string tier = pricing.at("tier").get<std::string>();
    r.tier.reset();
    if (!tier.empty()) r.tier = FRUGAL_TRY(PinnedTier(ParseRentedTier(tier)));
    r.price_per_gpu_hour = rate(pricing.at("price_per_gpu_hour_micros"));
    r.offer_id = pricing.at("offer_id").get<std::string>();
    const auto& o = pricing.at("record");
    r.record.cloud = o.at("cloud").get<std::string>();
    r.record.instance_type = o.at("instance_type").get<std::string>();
    r.record.region = o.at("region").get<std::string>();
    r.record.zone = o.at("zone").get<std::string>();
    r.record.gpu = o.at("gpu").get<std::string>();
    r.record.gpu_count = o.at("gpu_count").get<int>();
    r.record.tier = FRUGAL_TRY(PinnedTier(ParseCapacityTier(o.at("tier").get<std::string>())));
    r.record.price = Rate{Money::FromMicros(o.at("price_micros").get<int64_t>())};
    r.record.on_demand_price = rate(o.at("on_demand_price_micros"));
  } catch (const nlohmann::json::exception& e) {
    return Fail(ErrorCode::kBadInput, std::string("study state: pricing: ") + e.what());
  }
  return {};
}

}  // namespace frugal::tune
