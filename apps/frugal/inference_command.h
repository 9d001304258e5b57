#pragma once
// `frugal plan` on an inference spec.

#include <string>

#include "app.h"
#include "frugal/serving/serving_plan.h"

namespace frugal::cli {

/// Plans the inference spec at `path` and prints the ranked options (the first `top`).
[[nodiscard]] Result<void> RunInferencePlan(const std::string& path, size_t top,
                                            const GlobalOptions& global, Streams& s);

}  // namespace frugal::cli
