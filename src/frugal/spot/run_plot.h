#pragma once
// An SVG picture of one simulated run: spot availability, the mode chosen at each step, and
// progress against the deadline, for reports.

#include <string>
#include <vector>

#include "frugal/spot/job.h"
#include "frugal/spot/simulator.h"

namespace frugal::spot {

/// A self-contained SVG document. `title` is escaped.
[[nodiscard]] std::string RenderRunSvg(const std::string& title, const StepJob& job,
                                       const std::vector<StepRecord>& steps);

}  // namespace frugal::spot
