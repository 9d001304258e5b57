#include "frugal/estimate/commitment_json.h"

namespace frugal::estimate {

namespace {

nlohmann::json OptionalShare(const std::optional<double>& share) {
  return share ? nlohmann::json(*share) : nlohmann::json(nullptr);
}

nlohmann::json QuoteJson(const TierQuote& q) {
  return {{"tier", CapacityTierName(q.tier)},
          {"offer", q.offer.Id()},
          {"instance_type", q.offer.instance_type},
          {"gpus_per_instance", q.offer.gpu_count},
          {"instances", q.instances},
          {"price_per_hour_usd", q.hourly.per_hour.dollars()},
          {"price_estimated", q.offer.price_estimated},
          {"monthly_usd", q.monthly ? nlohmann::json(q.monthly->dollars()) : nullptr}};
}

}  // namespace

nlohmann::json CommitmentAnalysisJson(const CommitmentAnalysis& a) {
  nlohmann::json terms = nlohmann::json::array();
  for (const CommitmentTerm& t : a.commitments) {
    nlohmann::json j = QuoteJson(t.quote);
    j["break_even_vs_on_demand"] = OptionalShare(t.break_even_vs_on_demand);
    j["break_even_vs_spot"] = OptionalShare(t.break_even_vs_spot);
    terms.push_back(std::move(j));
  }
  return {{"gpu", a.gpu},
          {"gpus", a.gpus},
          {"hours_per_month", kHoursPerMonth},
          {"utilization", OptionalShare(a.utilization)},
          {"on_demand", a.on_demand ? QuoteJson(*a.on_demand) : nlohmann::json(nullptr)},
          {"spot", a.spot ? QuoteJson(*a.spot) : nlohmann::json(nullptr)},
          {"commitments", terms},
          {"winner", a.winner ? nlohmann::json(CapacityTierName(*a.winner)) : nullptr}};
}

nlohmann::json CommitmentAnswerJson(const CommitmentAnalysis& a, const CommitmentAnswer& answer) {
  const TierQuote& reserved = answer.term->quote;
  const std::optional<Money> spot_monthly =
      answer.spot ? answer.spot->monthly : std::optional<Money>();
  return {
      {"term", CapacityTierName(reserved.tier)},
      {"gpu", a.gpu},
      {"gpus", a.gpus},
      {"instances", reserved.instances},
      {"offer", reserved.offer.Id()},
      {"price_estimated", reserved.offer.price_estimated},
      {"utilization", OptionalShare(a.utilization)},
      {"monthly_commitment_usd", reserved.monthly->dollars()},
      {"monthly_on_demand_usd", answer.on_demand->monthly->dollars()},
      {"monthly_spot_usd", spot_monthly ? nlohmann::json(spot_monthly->dollars()) : nullptr},
      {"break_even_utilization_vs_on_demand", OptionalShare(answer.term->break_even_vs_on_demand)},
      {"break_even_utilization_vs_spot", OptionalShare(answer.term->break_even_vs_spot)},
      {"pays_vs_on_demand", answer.pays_vs_on_demand},
      {"pays_vs_spot", answer.pays_vs_spot}};
}

}  // namespace frugal::estimate
