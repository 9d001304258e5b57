#pragma once
// The budget gate for `frugal run --spec`: before a run starts, the planner estimates the job
// on the offer it will run on (or picks the best offer itself), and a run whose estimate
// exceeds its budget or GPU-hour cap is refused unless the user allows the overrun.

#include <optional>
#include <string>

#include "frugal/catalog/catalog.h"
#include "frugal/core/error.h"
#include "frugal/plan/job_spec.h"
#include "frugal/plan/planner.h"

namespace frugal::run {

/// The planner's view of the run about to start.
struct SpecEstimate {
  const catalog::Offer* offer = nullptr;  ///< in the catalog passed in
  int instances = 1;
  int gpus = 0;  ///< in total
  Rate price;    ///< for all instances
  Money expected_cost;
  double wall_hours = 0;
  double gpu_hours = 0;
  std::string kind;  ///< "plain", "spot", ...
};

/// Estimates `spec` over `catalog` with its budget and GPU-hour cap lifted (so an option over
/// them is still estimated): on the offer whose id is `offer_id` (its best option), or, when
/// `offer_id` is empty, the best option overall. nullopt when the planner ranks no option on
/// that offer (it does not fit, or misses the deadline). Errors from the planner pass through.
[[nodiscard]] Result<std::optional<SpecEstimate>> EstimateSpecRun(const plan::JobSpec& spec,
                                                                  const catalog::Catalog& catalog,
                                                                  const std::string& offer_id);

enum class Overrun { kRefuse, kAllow };

/// kBudget ("refused: the estimate ... exceeds the budget ...") when the estimate is over the
/// dollar budget or the GPU-hour cap and `overrun` is kRefuse. With kAllow, returns the
/// warning to print instead (empty when within both).
[[nodiscard]] Result<std::string> GateOnEstimate(const SpecEstimate& estimate,
                                                 std::optional<Money> budget,
                                                 std::optional<double> max_gpu_hours,
                                                 Overrun overrun);

}  // namespace frugal::run
