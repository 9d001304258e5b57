#pragma once
// The best-so-far curve of a study as an SVG chart: the best completed value (y) against the
// money spent when it was reached (x), as a step line, so a user sees what more money bought.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace frugal::tune {

/// An SVG document (a standalone file) of `points`, the `best_so_far` array of a summary
/// (`[{"spend_usd": x, "best_value": y}, ...]`), drawn to `end_usd` (the spend so far) and, when
/// given, with the budget as a vertical line. A study with no completed trial yet gets an
/// empty chart that says so.
std::string BestSoFarSvg(const nlohmann::json& points, const std::string& metric, double end_usd,
                         std::optional<double> budget_usd);

}  // namespace frugal::tune
