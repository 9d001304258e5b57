#include "frugal/run/spec_gate.h"

#include <fmt/format.h>

#include <limits>

#include "frugal/core/text.h"

namespace frugal::run {

Result<std::optional<SpecEstimate>> EstimateSpecRun(const plan::JobSpec& spec,
                                                    const catalog::Catalog& catalog,
                                                    const std::string& offer_id) {
  // Nothing to estimate from yet: a job planned from measurements, before its first run.
  if (!spec.modelled && spec.measured.empty()) return std::optional<SpecEstimate>();
  plan::JobSpec unbounded = spec;
  unbounded.constraints.budget.reset();
  unbounded.constraints.max_gpu_hours.reset();
  plan::PlanRequest request;
  request.top = std::numeric_limits<size_t>::max();
  const plan::Plan p = FRUGAL_TRY(plan::MakePlan(unbounded, catalog, request));
  for (const plan::Option& o : p.options) {
    if (!offer_id.empty() && ToLower(o.offer->Id()) != ToLower(offer_id)) continue;
    SpecEstimate e;
    e.offer = o.offer;
    e.instances = o.instances;
    e.gpus = o.gpus;
    e.price = Rate{o.offer->price.per_hour * o.instances};
    e.expected_cost = o.expected_cost;
    e.wall_hours = o.wall_hours;
    e.gpu_hours = o.gpu_hours;
    e.kind = std::string(plan::RunKindName(o.kind));
    return std::optional<SpecEstimate>(e);
  }
  return std::optional<SpecEstimate>();
}

Result<std::string> GateOnEstimate(const SpecEstimate& estimate, std::optional<Money> budget,
                                   std::optional<double> max_gpu_hours, Overrun overrun) {
  std::string over;
  if (budget && estimate.expected_cost > *budget) {
    over = fmt::format("the estimate of {} on {} exceeds the budget of {}",
                       estimate.expected_cost.ToString(), estimate.offer->Id(), budget->ToString());
  } else if (max_gpu_hours && estimate.gpu_hours > *max_gpu_hours) {
    over = fmt::format("the estimate of {:.2f} GPU-hours on {} exceeds the cap of {:.2f} GPU-hours",
                       estimate.gpu_hours, estimate.offer->Id(), *max_gpu_hours);
  }
  if (over.empty()) return std::string();
  if (overrun == Overrun::kRefuse) {
    return Fail(ErrorCode::kBudget,
                fmt::format("refused to start: {} (see `frugal plan`; --allow-overrun starts "
                            "it anyway, and the cap still stops it)",
                            over));
  }
  return fmt::format("{}; starting anyway (--allow-overrun): the cap will stop the run", over);
}

}  // namespace frugal::run
