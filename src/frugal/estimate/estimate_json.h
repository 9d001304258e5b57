#pragma once
// The JSON of an estimate, as `frugal estimate --json` prints it (and an HTTP front end would
// serve it): memory terms, the model and training layout, work, utilization, step time, cost.

#include <nlohmann/json.hpp>
#include <vector>

#include "frugal/estimate/estimator.h"
#include "frugal/estimate/hardware.h"
#include "frugal/estimate/memory.h"

namespace frugal::estimate {

/// The memory terms per GPU, in GiB.
[[nodiscard]] nlohmann::json MemoryJson(const MemoryBreakdown& m);

/// Each priced option: tier, offer, instances, price and cost.
[[nodiscard]] nlohmann::json CostJson(const std::vector<TierCost>& costs);

/// The whole estimate with its priced options.
[[nodiscard]] nlohmann::json EstimateJson(const Estimate& e, const std::vector<TierCost>& costs);

}  // namespace frugal::estimate
