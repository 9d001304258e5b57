#pragma once
// `frugal simulate --json`: an evaluation of deadline policies over spot traces as one
// document.

#include <nlohmann/json.hpp>

#include "frugal/spot/evaluation.h"

namespace frugal::spot {

/// The job, the step, each policy's summary (with the optimum's ratios when `config.optimum`)
/// and, with `per_run`, every start's result under every policy; dollars as Money rounds them.
[[nodiscard]] nlohmann::json EvaluationJson(const Evaluation& eval, const EvaluationConfig& config,
                                            bool per_run);

}  // namespace frugal::spot
