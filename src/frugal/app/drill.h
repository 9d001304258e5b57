#pragma once
// Drill a job: run it uninterrupted, then again with injected preemptions, and judge whether it
// is ready for spot capacity (run/drill.h). `frugal drill` asks; the findings are stored for
// `frugal plan` and noted on the preempted run in the ledger.

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "frugal/app/supervise.h"
#include "frugal/ledger/types.h"
#include "frugal/run/drill.h"

namespace frugal::app {

struct DrillRequest {
  SuperviseRequest supervise;  ///< priced at nothing ("0/h") when it names no capacity
  int preemptions = 3;
  uint64_t seed = 1;
  std::string name;  ///< the record's name; "" = the spec's, else the script or program's stem
  std::string restart_backoff = "200ms";
};

struct DrillResult {
  run::DrillFindings findings;
  nlohmann::json record;  ///< as stored
  std::filesystem::path stored;
  std::optional<ledger::RunId> baseline_run, drilled_run;
};

/// Runs both runs, recorded in `context`'s ledger (laid down if missing). kBadInput naming the
/// flag; kFailed when the uninterrupted run does not finish. A job that is not spot-ready is a
/// result, not an error.
[[nodiscard]] Result<DrillResult> Drill(DrillRequest request, const SuperviseContext& context);

/// `frugal drill --json`: the record with where it is stored and the two ledger runs.
[[nodiscard]] nlohmann::json DrillJson(const DrillResult& result);

}  // namespace frugal::app
