#pragma once
// Commitments, honestly: a reservation is paid whether it is used or not, so it is never a
// per-job price. A job is charged its share of one only at a stated utilization, and the
// question a team can ask is whether a 1- or 3-year commitment of N GPUs would pay.

#include <optional>
#include <vector>

#include "frugal/catalog/catalog.h"
#include "frugal/estimate/hardware.h"

namespace frugal::estimate {

/// Reserved tiers among `costs` as a job pays them: dropped without `utilization`; with it,
/// price × wall hours ÷ utilization (the idle share of the reservation is the job's cost too).
/// kBadInput for a utilization outside (0, 1].
[[nodiscard]] Result<void> ApplyReservedUtilization(std::vector<TierCost>& costs,
                                                    std::optional<double> utilization,
                                                    double wall_hours);

/// Would a commitment of `gpus` GPUs of `gpu` pay at `utilization` (0-1 of the hours in a
/// month), against renting the same hours on demand or on spot (spot before preemption
/// overhead)? Monthly figures use 730 hours.
struct CommitmentAnswer {
  catalog::Tier term = catalog::Tier::kReserved1y;
  const catalog::Offer* reserved = nullptr;   ///< the cheapest reservation for the layout
  const catalog::Offer* on_demand = nullptr;  ///< the cheapest on-demand offer of it
  const catalog::Offer* spot = nullptr;       ///< the cheapest spot offer (nullptr: none)
  int instances = 0;
  double utilization = 0;
  Money monthly_commitment;  ///< paid whatever the use
  Money monthly_on_demand;   ///< the used hours on demand
  std::optional<Money> monthly_spot;
  double break_even_vs_on_demand = 0;  ///< utilization above which it pays
  std::optional<double> break_even_vs_spot;
  [[nodiscard]] bool PaysVsOnDemand() const { return utilization > break_even_vs_on_demand; }
};

/// kBadInput for a utilization outside (0, 1], a term that is not reserved_1y/3y, or a layout
/// no offer has on that term and on demand (naming the GPU).
[[nodiscard]] Result<CommitmentAnswer> AnswerCommitment(const catalog::Catalog& c,
                                                        const std::string& gpu, int gpus,
                                                        catalog::Tier term, double utilization);

inline constexpr double kHoursPerMonth = 730;

}  // namespace frugal::estimate
