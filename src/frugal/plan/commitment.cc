#include "frugal/plan/commitment.h"

#include <fmt/format.h>

#include <cmath>

#include "frugal/core/text.h"

namespace frugal::plan {

namespace {

using catalog::Tier;

/// The cheapest way to cover `gpus` on one tier, or nullopt when the tier has no offer.
Result<std::optional<TierQuote>> CheapestOn(const catalog::Catalog& catalog,
                                            const CommitmentQuery& query, Tier tier) {
  catalog::OfferQuery q;
  q.gpu = query.gpu;
  q.cloud = query.cloud;
  q.tier = tier;
  const std::vector<const catalog::Offer*> offers = FRUGAL_TRY(catalog.Query(q));
  std::optional<TierQuote> best;
  for (const catalog::Offer* o : offers) {
    const int per_instance = o->gpu_count > 0 ? o->gpu_count : 1;
    const int instances = (query.gpus + per_instance - 1) / per_instance;
    const Rate hourly{o->price.per_hour * instances};
    if (best && hourly >= best->hourly) continue;
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

}  // namespace

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

Money MonthlyCost(Rate hourly, double share) {
  if (share == 1.0) return hourly.per_hour * kHoursPerMonth;
  return hourly.ForHours(share * static_cast<double>(kHoursPerMonth));
}

Result<CommitmentAnalysis> AnalyzeCommitment(const catalog::Catalog& catalog,
                                             const CommitmentQuery& query) {
  if (query.gpus < 1)
    return Fail(ErrorCode::kBadInput, fmt::format("--gpus: expected 1 or more, got {}", query.gpus));
  if (query.utilization && (!(*query.utilization > 0.0) || *query.utilization > 1.0)) {
    return Fail(ErrorCode::kBadInput, "--utilization: expected a share from 0% to 100%");
  }
  const catalog::GpuSpec* spec = FRUGAL_TRY(catalog.RequireGpu(query.gpu));
  CommitmentQuery q = query;
  q.gpu = spec->name;

  CommitmentAnalysis a;
  a.gpu = spec->name;
  a.gpus = q.gpus;
  a.utilization = q.utilization;
  a.on_demand = FRUGAL_TRY(CheapestOn(catalog, q, Tier::kOnDemand));
  a.spot = FRUGAL_TRY(CheapestOn(catalog, q, Tier::kSpot));
  for (const Tier term : {Tier::kReserved1y, Tier::kReserved3y}) {
    std::optional<TierQuote> quote = FRUGAL_TRY(CheapestOn(catalog, q, term));
    if (!quote) continue;
    quote->monthly = MonthlyCost(quote->hourly, 1.0);
    CommitmentTerm t{*quote, BreakEven(*quote, a.on_demand), BreakEven(*quote, a.spot)};
    a.commitments.push_back(std::move(t));
  }
  if (a.commitments.empty()) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("no 1- or 3-year commitment offer for {}{} in the catalog (on-demand: "
                            "{}, spot: {})",
                            a.gpu, q.cloud ? " on " + *q.cloud : "",
                            a.on_demand ? "offered" : "none", a.spot ? "offered" : "none"));
  }
  if (!q.utilization) return a;

  const double u = *q.utilization;
  std::optional<Money> best;
  auto consider = [&](Tier tier, Money monthly) {
    if (best && monthly >= *best) return;
    best = monthly;
    a.winner = tier;
  };
  // Pay-as-you-go tiers pay only the hours used; a commitment pays the whole month.
  for (std::optional<TierQuote>* quote : {&a.on_demand, &a.spot}) {
    if (!*quote) continue;
    (*quote)->monthly = MonthlyCost((*quote)->hourly, u);
    consider((*quote)->tier, *(*quote)->monthly);
  }
  for (const CommitmentTerm& t : a.commitments) consider(t.quote.tier, *t.quote.monthly);
  return a;
}

}  // namespace frugal::plan
