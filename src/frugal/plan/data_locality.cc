#include "frugal/plan/data_locality.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>

#include "frugal/core/duration.h"
#include "frugal/core/text.h"
#include "frugal/plan/planner.h"

namespace frugal::plan {

std::string_view DataRouteName(DataRoute r) {
  switch (r) {
    case DataRoute::kNone:
      return "none";
    case DataRoute::kSameRegion:
      return "same_region";
    case DataRoute::kInterRegion:
      return "inter_region";
    case DataRoute::kInternet:
      return "internet";
    case DataRoute::kCopy:
      return "copy";
  }
  return "?";
}

namespace {

/// A storage month, as the clouds bill GB-months (730 hours).
constexpr double kHoursPerMonth = 730;

/// Checks one declared location against the catalog and the price table, inferring the cloud
/// from the region when the spec names none. Scans the offers once; the lists for messages
/// are built only on failure.
Result<DataLocation> CheckLocation(DataLocation l, const std::string& source,
                                   const catalog::Catalog& c,
                                   const catalog::TransferPrices& prices) {
  const std::string where = l.where.empty() ? source : l.where;
  if (l.cloud.empty()) {
    std::set<std::string> clouds;  // the clouds with an offer in the region
    for (const catalog::Offer& o : c.offers()) {
      if (o.region == l.region) clouds.insert(o.cloud);
    }
    if (clouds.size() == 1) {
      l.cloud = *clouds.begin();
      return l;
    }
    if (!clouds.empty()) {
      return Fail(ErrorCode::kBadInput,
                  fmt::format("{}: field 'region': region '{}' is in {}: name the cloud (cloud, "
                              "or location: cloud:region)",
                              where, l.region, fmt::join(clouds, " and ")));
    }
    std::set<std::string> all;
    for (const catalog::Offer& o : c.offers()) all.insert(o.region);
    const std::vector<std::string> names(all.begin(), all.end());
    return Fail(ErrorCode::kBadInput,
                fmt::format("{}: field 'region': no offer in the catalog is in region '{}'{}; "
                            "name the cloud too (location: cloud:region)",
                            where, Abbreviate(l.region), DidYouMean(l.region, names)));
  }
  bool cloud_has_offers = false;
  for (const catalog::Offer& o : c.offers()) {
    if (o.cloud != l.cloud) continue;
    if (o.region == l.region) return l;
    cloud_has_offers = true;
  }
  if (!cloud_has_offers) {
    if (prices.Find(l.cloud) != nullptr) return l;  // priced; no offer to check the region by
    std::vector<std::string> known = c.Clouds();
    for (const std::string& p : prices.Clouds()) known.push_back(p);
    const std::string at = l.cloud_where.empty() ? where : l.cloud_where;
    return Fail(ErrorCode::kBadInput,
                fmt::format("{}: field '{}': unknown cloud '{}'{}: no catalog offer is from it and "
                            "data/transfer/transfer_prices.csv has no prices for it",
                            at, l.where == l.cloud_where ? "location" : "cloud",
                            Abbreviate(l.cloud), DidYouMean(l.cloud, known)));
  }
  std::set<std::string> regions;
  for (const catalog::Offer& o : c.offers()) {
    if (o.cloud == l.cloud) regions.insert(o.region);
  }
  const std::vector<std::string> names(regions.begin(), regions.end());
  return Fail(ErrorCode::kBadInput,
              fmt::format("{}: field '{}': {} has no region '{}' in the catalog{}", where,
                          where == l.cloud_where ? "location" : "region", l.cloud,
                          Abbreviate(l.region), DidYouMean(l.region, names)));
}

}  // namespace

Result<DataSource> ResolveData(const DataSpec& d, const catalog::Catalog& c,
                               const catalog::TransferPrices* prices) {
  DataSource s;
  s.runs = d.runs;
  s.keep_hours = d.keep_hours;
  const bool cached = d.cache_location.declared();
  const DataLocation from = cached ? d.cache_location : d.Location();
  s.gb = cached ? d.cache_size_gb : d.size_gb;
  s.from_cache = cached;
  // Preprocessing with nowhere to keep its output is repeated by every run.
  if (d.preprocess_hours && d.cache.empty()) s.preprocess_hours = *d.preprocess_hours;
  if (!from.declared()) return s;
  FRUGAL_CHECK(prices != nullptr);
  if (!s.gb) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("{}: field 'size_gb': the plan prices moving the data to each "
                            "offer and needs its size (size_gb, GB read per run)",
                            d.size_where.empty() ? from.where : d.size_where));
  }
  s.from = FRUGAL_TRY(CheckLocation(from, d.size_where, c, *prices));
  // A dataset location behind a cache is not read, but a typo there is still an error.
  if (cached && d.Location().declared()) {
    FRUGAL_TRY(CheckLocation(d.Location(), d.size_where, c, *prices));
  }
  return s;
}

std::optional<DataCost> PriceData(const DataSource& s, const catalog::TransferPrices* prices,
                                  const catalog::Offer& offer, const LaunchCosts& launch,
                                  double restarts) {
  DataCost d;
  d.gb = s.gb.value_or(0);
  d.transfer_hours = StagingHours(launch, s.gb);
  d.preprocess_hours = s.preprocess_hours;
  if (!s.Priced()) return d;
  const std::optional<Money> egress =
      prices->EgressPerGb(s.from.cloud, s.from.region, offer.cloud, offer.region);
  if (!egress) return std::nullopt;
  d.egress_per_gb = *egress;
  if (*egress == Money()) {
    d.route = DataRoute::kSameRegion;
    return d;
  }
  d.route = s.from.cloud == offer.cloud ? DataRoute::kInterRegion : DataRoute::kInternet;
  d.reads = 1 + std::max(restarts, 0.0);
  d.cost = egress->Scaled(d.gb * d.reads);
  // Several runs: one copy into this region, kept as storage, may cost less per run.
  const catalog::CloudTransferPrices* here = prices->Find(offer.cloud);
  if (s.runs > 1 && here != nullptr) {
    const Money copy = egress->Scaled(d.gb);
    const Money storage = here->storage_per_gb_month.Scaled(d.gb * s.keep_hours / kHoursPerMonth);
    const Money share = (copy + storage).Scaled(1.0 / s.runs);
    if (share < d.cost) {
      d.route = DataRoute::kCopy;
      d.copy_cost = copy;
      d.storage_cost = storage;
      d.cost = share;
      d.reads = 0;
    }
  }
  return d;
}

namespace {

std::string Place(const Option& o) {
  return fmt::format("{} ({}{})", o.offer->Id(), o.offer->gpu.empty() ? "cpu" : o.offer->gpu,
                     o.offer->gpu.empty() ? "" : fmt::format(" x{}", o.gpus));
}

std::string Moving(const DataSource& s, const Option& o) {
  const DataCost& d = o.data;
  if (d.route == DataRoute::kCopy) {
    return fmt::format(
        "{} as its share of one copy for {} runs ({:.0f} GB × {}/GB = {}, + {} "
        "storage)",
        d.cost.ToString(), s.runs, d.gb, d.egress_per_gb.ToString(), d.copy_cost.ToString(),
        d.storage_cost.ToString());
  }
  return fmt::format("{} to move {:.0f} GB ({:.0f} GB × {}/GB{}) and {} staging", d.cost.ToString(),
                     d.gb, d.gb * d.reads, d.egress_per_gb.ToString(),
                     d.reads > 1 ? ", restarts included" : "", ShortDuration(d.transfer_hours));
}

}  // namespace

std::optional<std::string> DataAdvice(const DataSource& s, const std::vector<Option>& ranked) {
  if (!s.Priced() || ranked.empty()) return std::nullopt;
  const Option& best = ranked.front();
  const std::string what = s.from_cache ? "the cache" : "the data";
  if (best.data.route == DataRoute::kSameRegion) {
    // The cheapest compute elsewhere that lost once it paid to move the data.
    const Option* elsewhere = nullptr;
    for (const Option& o : ranked) {
      if (o.data.route == DataRoute::kSameRegion || o.meets_deadline != best.meets_deadline)
        continue;
      const Money compute = o.expected_cost - o.data.cost;
      if (compute < best.expected_cost &&
          (elsewhere == nullptr || compute < elsewhere->expected_cost - elsewhere->data.cost)) {
        elsewhere = &o;
      }
    }
    if (elsewhere == nullptr) {
      return fmt::format(
          "Training where {} lives ({}): {} is also the cheapest compute ranked, {}.", what,
          s.from.Label(), Place(best), best.expected_cost.ToString());
    }
    return fmt::format(
        "Training where {} lives ({}) wins: {} costs {}; the cheapest compute elsewhere, {}, "
        "costs {} + {} = {}.",
        what, s.from.Label(), Place(best), best.expected_cost.ToString(), Place(*elsewhere),
        (elsewhere->expected_cost - elsewhere->data.cost).ToString(), Moving(s, *elsewhere),
        elsewhere->expected_cost.ToString());
  }
  const Option* local = nullptr;
  for (const Option& o : ranked) {
    if (o.data.route == DataRoute::kSameRegion) {
      local = &o;
      break;
    }
  }
  if (local == nullptr) {
    return fmt::format("No ranked option computes where {} lives ({}); {} pays {}.", what,
                       s.from.Label(), Place(best), Moving(s, best));
  }
  return fmt::format(
      "Moving {} pays: {} pays {}, and at {} still costs {} less than the best option where it "
      "lives ({}, {}).",
      what, Place(best), Moving(s, best), best.expected_cost.ToString(),
      (local->expected_cost - best.expected_cost).ToString(), Place(*local),
      local->expected_cost.ToString());
}

}  // namespace frugal::plan
