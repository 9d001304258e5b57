#pragma once
// How `frugal plan` shows the serving plan of an inference spec.

#include "app.h"
#include "frugal/serving/inference_spec.h"
#include "frugal/serving/serving_plan.h"

namespace frugal::cli {

/// Prints the ranked serving options of `p`, why the others lost, and the best.
void PrintServingPlan(const serving::InferenceSpec& spec, const serving::ServingPlan& p,
                      Streams& s);

}  // namespace frugal::cli
