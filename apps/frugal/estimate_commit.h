#pragma once
// frugal estimate --commitment 1y|3y --utilization U: would a commitment of N GPUs pay?

#include <string>

#include "app.h"

namespace frugal::cli {

/// Prints the monthly cost of the commitment, of the same used hours on demand and on spot, and
/// the break-even utilizations (`commitment` in --json).
[[nodiscard]] Result<void> RunCommitmentEstimate(const std::string& term, double utilization,
                                                 const std::string& gpu, int gpus,
                                                 const GlobalOptions& global, Streams& s);

}  // namespace frugal::cli
