#pragma once
// `frugal plan` on an inference spec, and the JSON of one serving option (shared with tco).

#include <nlohmann/json.hpp>
#include <string>

#include "app.h"
#include "frugal/serving/serving_plan.h"

namespace frugal::cli {

/// Plans the inference spec at `path` and prints the ranked options (the first `top`).
[[nodiscard]] Result<void> RunInferencePlan(const std::string& path, size_t top,
                                            const GlobalOptions& global, Streams& s);

/// One serving option as `plan --json` prints it, with its 1-based rank.
[[nodiscard]] nlohmann::json ServingOptionJson(const serving::ServingOption& o, size_t rank);

}  // namespace frugal::cli
