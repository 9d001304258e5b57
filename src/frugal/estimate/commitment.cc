#include "frugal/estimate/commitment.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "frugal/core/text.h"

namespace frugal::estimate {

namespace {

/// Instances of `gpus_per_instance` GPUs that cover `gpus`.
int InstancesFor(int gpus, int gpus_per_instance) {
  return (gpus + gpus_per_instance - 1) / gpus_per_instance;
}

/// The offers that can host the query's GPUs, by GPUs per instance.
using OffersBySize = std::map<int, std::vector<const catalog::Offer*>>;

/// The layout every tier is priced on: the fewest GPUs paid for (ties: the smaller instance)
/// among the sizes with a commitment and an on-demand offer; failing that, with a commitment.
std::optional<int> ChooseLayout(const OffersBySize& by_size, int gpus) {
  std::vector<int> sizes;
  for (const auto& [size, offers] : by_size) sizes.push_back(size);
  std::ranges::stable_sort(sizes, [gpus](int a, int b) {
    return InstancesFor(gpus, a) * a < InstancesFor(gpus, b) * b;
  });
  auto has = [&](int size, auto&& tier_matches) {
    return std::ranges::any_of(by_size.at(size),
                               [&](const catalog::Offer* o) { return tier_matches(o->tier); });
  };
  for (const int size : sizes) {
    if (has(size, IsReservedTier) &&
        has(size, [](CapacityTier t) { return t == CapacityTier::kOnDemand; })) {
      return size;
    }
  }
  for (const int size : sizes) {
    if (has(size, IsReservedTier)) return size;
  }
  return std::nullopt;
}

/// The cheapest offer of `tier` among `offers` (ties: the smaller id), or nullopt.
std::optional<TierQuote> CheapestOn(const std::vector<const catalog::Offer*>& offers, int gpus,
                                    CapacityTier tier) {
  std::optional<TierQuote> best;
  for (const catalog::Offer* o : offers) {
    if (o->tier != tier) continue;
    const int instances = InstancesFor(gpus, o->gpu_count);
    const Rate hourly{o->price.per_hour * instances};
    if (best && (hourly > best->hourly || (hourly == best->hourly && o->Id() >= best->offer.Id())))
      continue;
    best = TierQuote{tier, *o, instances, hourly, std::nullopt};
  }
  return best;
}

/// Commitment cost over a full month of `other`: the utilization above which it is cheaper.
std::optional<double> BreakEven(const TierQuote& commitment,
                                const std::optional<TierQuote>& other) {
  if (!other || other->hourly.per_hour.IsZero()) return std::nullopt;
  return MonthlyCost(commitment.hourly, 1.0).RatioTo(MonthlyCost(other->hourly, 1.0));
}

/// Prices the pay-as-you-go tiers at the utilization and names the cheapest tier.
void PickWinner(CommitmentAnalysis& a, double utilization) {
  std::optional<Money> best;
  auto consider = [&](CapacityTier tier, Money monthly) {
    if (best && monthly >= *best) return;
    best = monthly;
    a.winner = tier;
  };
  // Pay-as-you-go tiers pay only the hours used; a commitment pays the whole month.
  for (std::optional<TierQuote>* quote : {&a.on_demand, &a.spot}) {
    if (!*quote) continue;
    (*quote)->monthly = MonthlyCost((*quote)->hourly, utilization);
    consider((*quote)->tier, *(*quote)->monthly);
  }
  for (const CommitmentTerm& t : a.commitments) consider(t.quote.tier, *t.quote.monthly);
}

}  // namespace

Result<void> ApplyReservedUtilization(std::vector<TierCost>& costs,
                                      std::optional<double> utilization, double wall_hours) {
  const auto reserved = [](const TierCost& t) { return IsReservedTier(t.offer->tier); };
  if (!utilization) {
    std::erase_if(costs, reserved);
    return {};
  }
  if (!(*utilization > 0 && *utilization <= 1)) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("utilization must be in (0, 1], got {:g}", *utilization));
  }
  for (TierCost& t : costs) {
    if (!reserved(t)) continue;
    t.cost = Rate{t.offer->price.per_hour * t.instances}.ForHours(wall_hours / *utilization);
  }
  return {};
}

const CommitmentTerm* CommitmentAnalysis::Term(CapacityTier term) const {
  for (const CommitmentTerm& t : commitments) {
    if (t.quote.tier == term) return &t;
  }
  return nullptr;
}

Result<double> ParseUtilization(std::string_view text) {
  const std::string_view trimmed = Trim(text);
  const bool percent = !trimmed.empty() && trimmed.back() == '%';
  const std::string_view number = percent ? trimmed.substr(0, trimmed.size() - 1) : trimmed;
  const Result<double> value = ParseDouble(number);
  const std::string problem = fmt::format(
      "--utilization: expected a percentage from 0% to 100% (60%) or a fraction (0.6), got '{}'",
      text);
  if (!value || !std::isfinite(*value)) return Fail(ErrorCode::kBadInput, problem);
  const double share = percent ? *value / 100.0 : *value;
  if (!(share > 0.0) || share > 1.0) return Fail(ErrorCode::kBadInput, problem);
  return share;
}

Result<CapacityTier> ParseCommitmentTerm(std::string_view text) {
  if (text == "1y" || text == "reserved_1y") return CapacityTier::kReserved1y;
  if (text == "3y" || text == "reserved_3y") return CapacityTier::kReserved3y;
  return Fail(ErrorCode::kBadInput, fmt::format("--commitment: expected 1y or 3y, got '{}'", text));
}

Money MonthlyCost(Rate hourly, double share) {
  if (share == 1.0) return hourly.per_hour * kHoursPerMonth;
  return hourly.ForHours(share * static_cast<double>(kHoursPerMonth));
}

Result<CommitmentAnalysis> AnalyzeCommitment(const catalog::Catalog& catalog,
                                             const CommitmentQuery& query) {
  if (query.gpus < 1)
    return Fail(ErrorCode::kBadInput,
                fmt::format("--gpus: expected 1 or more, got {}", query.gpus));
  if (query.utilization && (!(*query.utilization > 0.0) || *query.utilization > 1.0)) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("--utilization: expected a share from 0% to 100%, got {:g}",
                            *query.utilization));
  }
  const catalog::GpuSpec* spec = FRUGAL_TRY(catalog.RequireGpu(query.gpu));
  catalog::OfferQuery q;
  q.gpu = spec->name;
  q.cloud = query.cloud;
  OffersBySize by_size;
  for (const catalog::Offer* o : FRUGAL_TRY(catalog.Query(q))) {
    if (o->gpu_count > 0 && CanHost(*o, query.gpus)) by_size[o->gpu_count].push_back(o);
  }

  CommitmentAnalysis a;
  a.gpu = spec->name;
  a.gpus = query.gpus;
  a.utilization = query.utilization;
  const std::optional<int> layout = ChooseLayout(by_size, query.gpus);
  if (!layout) {
    auto offered = [&](CapacityTier tier) {
      for (const auto& [size, offers] : by_size) {
        if (CheapestOn(offers, query.gpus, tier)) return "offered";
      }
      return "none";
    };
    return Fail(ErrorCode::kBadInput,
                fmt::format("no 1- or 3-year commitment offer for {}{} in the catalog (on-demand: "
                            "{}, spot: {})",
                            a.gpu, query.cloud ? " on " + *query.cloud : "",
                            offered(CapacityTier::kOnDemand), offered(CapacityTier::kSpot)));
  }
  a.gpus_per_instance = *layout;
  const std::vector<const catalog::Offer*>& offers = by_size.at(*layout);
  a.on_demand = CheapestOn(offers, query.gpus, CapacityTier::kOnDemand);
  a.spot = CheapestOn(offers, query.gpus, CapacityTier::kSpot);
  for (const CapacityTier term : {CapacityTier::kReserved1y, CapacityTier::kReserved3y}) {
    std::optional<TierQuote> quote = CheapestOn(offers, query.gpus, term);
    if (!quote) continue;
    quote->monthly = MonthlyCost(quote->hourly, 1.0);
    a.commitments.push_back({*quote, BreakEven(*quote, a.on_demand), BreakEven(*quote, a.spot)});
  }
  if (query.utilization) PickWinner(a, *query.utilization);
  return a;
}

Result<CommitmentAnswer> AnswerFor(const CommitmentAnalysis& a, CapacityTier term) {
  const CommitmentTerm* t = a.Term(term);
  if (t == nullptr || !a.on_demand || !a.utilization) {
    return Fail(ErrorCode::kBadInput, fmt::format("no {} and on-demand offers of {} x{} to compare",
                                                  CapacityTierName(term), a.gpu, a.gpus));
  }
  const double u = *a.utilization;
  CommitmentAnswer answer;
  answer.term = t;
  answer.on_demand = &*a.on_demand;
  answer.spot = a.spot ? &*a.spot : nullptr;
  answer.pays_vs_on_demand = u > *t->break_even_vs_on_demand;
  answer.pays_vs_spot = t->break_even_vs_spot && u > *t->break_even_vs_spot;
  return answer;
}

}  // namespace frugal::estimate
