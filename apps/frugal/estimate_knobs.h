#pragma once
// frugal estimate --knobs: the knob settings side by side on the chosen GPU; and, when the
// knobs as given do not fit, which settings would.

#include "app.h"
#include "frugal/plan/knob_table.h"

namespace frugal::cli {

/// Prints the comparison as a table (or JSON under --json).
[[nodiscard]] Result<void> RunKnobsEstimate(const plan::KnobQuestion& q, const catalog::Catalog& c,
                                            const GlobalOptions& global, Streams& s);

/// For a configuration that does not fit: "To fit on T4 16 GiB: ..." lines (up to three
/// settings, fastest first), or the smallest GPU the knobs as given and the lightest fit.
void PrintWaysToFit(const plan::KnobComparison& k, const plan::KnobQuestion& q, std::ostream& out);

/// The same as a JSON array of rows (plan::KnobRowJson), fastest first.
[[nodiscard]] nlohmann::json WaysToFitJson(const plan::KnobComparison& k);

}  // namespace frugal::cli
