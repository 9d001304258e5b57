#pragma once
// The self-checks a run's summary ends with: what the run's own figures say about how it
// should run next time.

#include <string>
#include <vector>

#include "frugal/run/supervisor.h"

namespace frugal::run {

enum class CheckLevel { kOk, kAdvice, kWarning };

struct SelfCheck {
  CheckLevel level = CheckLevel::kOk;
  std::string id;       ///< "gpu_underutilized", "spot_without_checkpoint", "slow_resume", ...
  std::string message;  ///< one sentence for the user
};

/// A resume slower than this is not spot-ready (DESIGN.md).
inline constexpr Duration kSpotReadyResume = std::chrono::minutes(5);

/// The right-size advice needs this many GPU samples taken while training (a minute at the
/// default 5 s interval): a short run's average says more about its start-up than its GPU.
inline constexpr int kMinTrainingSamples = 12;

/// `on_spot`: the run was on spot capacity or had a preemption source (chaos, metadata).
std::vector<SelfCheck> RunSelfChecks(const RunResult& result, bool on_spot);

}  // namespace frugal::run
