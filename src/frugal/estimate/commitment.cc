#include "frugal/estimate/commitment.h"

#include <fmt/format.h>

namespace frugal::estimate {

using catalog::Tier;

Result<void> ApplyReservedUtilization(std::vector<TierCost>& costs,
                                      std::optional<double> utilization, double wall_hours) {
  const auto reserved = [](const TierCost& t) {
    return t.offer->tier == Tier::kReserved1y || t.offer->tier == Tier::kReserved3y;
  };
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

Result<CommitmentAnswer> AnswerCommitment(const catalog::Catalog& c, const std::string& gpu,
                                          int gpus, Tier term, double utilization) {
  if (!(utilization > 0 && utilization <= 1)) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("--utilization must be in (0, 1], got {:g}", utilization));
  }
  if (term != Tier::kReserved1y && term != Tier::kReserved3y) {
    return Fail(ErrorCode::kBadInput, "a commitment is reserved_1y or reserved_3y");
  }
  CommitmentAnswer a;
  a.term = term;
  a.utilization = utilization;
  // One hour of each tier's cheapest layout: the hourly rate for the whole set of GPUs.
  for (const TierCost& t : CheapestPerTier(c, gpu, gpus, 1.0)) {
    if (t.offer->tier == term) {
      a.reserved = t.offer;
      a.instances = t.instances;
      a.monthly_commitment = t.cost.Scaled(kHoursPerMonth);
    } else if (t.offer->tier == Tier::kOnDemand) {
      a.on_demand = t.offer;
      a.monthly_on_demand = t.cost.Scaled(kHoursPerMonth * utilization);
    } else if (t.offer->tier == Tier::kSpot) {
      a.spot = t.offer;
      a.monthly_spot = t.cost.Scaled(kHoursPerMonth * utilization);
    }
  }
  if (a.reserved == nullptr || a.on_demand == nullptr) {
    return Fail(ErrorCode::kBadInput, fmt::format("no {} and on-demand offers of {} x{} to compare",
                                                  catalog::TierName(term), gpu, gpus));
  }
  const double committed = a.monthly_commitment.dollars();
  a.break_even_vs_on_demand = committed / (a.monthly_on_demand.dollars() / utilization);
  if (a.monthly_spot && a.monthly_spot->dollars() > 0) {
    a.break_even_vs_spot = committed / (a.monthly_spot->dollars() / utilization);
  }
  return a;
}

}  // namespace frugal::estimate
