#pragma once
// The price of a trial from the catalog. A study spec states its price one of three ways:
// `price_per_hour` (per GPU-hour, declared), `offer` (a catalog offer), or `gpu` (a GPU name:
// the cheapest catalog offer with at least `gpus` of it). For the last two, the tier comes from
// the offer text ("aws:g5.xlarge spot") or `tier`, on_demand when neither says.
//
// Offer text forms, matched without regard to case:
//   aws:g5.xlarge                    the cheapest region at the tier
//   aws:g5.xlarge spot               the same, at spot
//   aws:g5.xlarge:us-east-1          that region
//   aws:g5.xlarge:us-east-1:spot     a full offer id (as `frugal catalog offers` prints)
// A trial rents the whole instance: its price per hour is the offer's, its GPU count the
// offer's (a stated `gpus` must match), and the price per GPU-hour the gate counts in is the
// offer's price divided by its GPUs.

#include <nlohmann/json.hpp>

#include "frugal/catalog/catalog.h"
#include "frugal/core/error.h"
#include "frugal/tune/study_spec.h"

namespace frugal::tune {

/// Whether the spec names an offer or a GPU that the catalog must price.
[[nodiscard]] inline bool NeedsCatalog(const StudySpec& spec) {
  return !spec.resources.offer.empty() || !spec.resources.gpu.empty();
}

/// Fills the spec's price per GPU-hour, GPU count, tier, offer_id and ledger record from the
/// catalog offer it names; for a declared price, the ledger record only. kBadInput
/// "file:line:col: field 'resources.offer': no offer ... (did you mean ...?)" for an unknown
/// offer, GPU or tier, or a GPU count the offer does not have.
[[nodiscard]] Result<void> ResolvePricing(StudySpec& spec, const catalog::Catalog& catalog);

/// The pricing ResolvePricing chose, as the study state keeps it: a study is priced once, when
/// it starts, and a resumed study charges the same rate even if the catalog changed since.
nlohmann::json PricingToJson(const Resources& resources);

/// Restores PricingToJson's document into the spec's resources (no catalog needed); kBadInput
/// when it is not one.
[[nodiscard]] Result<void> ApplyPinnedPricing(StudySpec& spec, const nlohmann::json& pricing);

}  // namespace frugal::tune
