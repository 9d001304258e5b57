#pragma once
// The JSON documents of serving plans and lifetime bills, as `frugal plan INFERENCE.yaml
// --json` and `frugal tco --json` print them (and an HTTP front end would serve them).

#include <cstddef>
#include <nlohmann/json.hpp>

#include "frugal/serving/inference_spec.h"
#include "frugal/serving/lifetime.h"
#include "frugal/serving/serving_plan.h"

namespace frugal::serving {

/// One serving option, with its 1-based rank.
[[nodiscard]] nlohmann::json ServingOptionJson(const ServingOption& o, size_t rank);

/// The whole serving plan of `spec`: the model, workload and schedule, the ranked options (with
/// the cost per million of the spec's unit), and what was excluded and why.
[[nodiscard]] nlohmann::json ServingPlanJson(const InferenceSpec& spec, const ServingPlan& p);

/// A lifetime bill: training, retraining and serving totals, the levers, the monthly points.
[[nodiscard]] nlohmann::json LifetimeBillJson(const LifetimeBill& b);

}  // namespace frugal::serving
