#pragma once
// Shared by `frugal run` and `frugal drill`: the options both take (app/supervise.h turns them
// into a supervisor configuration), the status line and the end-of-run summary.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app.h"
#include "frugal/app/supervise.h"
#include "frugal/ledger/types.h"
#include "frugal/plan/job_spec.h"
#include "frugal/run/self_checks.h"
#include "frugal/run/supervisor.h"

namespace frugal::cli {

/// Adds the request's flags to `cmd` (their names are queue::RunFlag's where the queue's
/// executor passes them).
void AddSuperviseOptions(CLI::App* cmd, app::SuperviseRequest& o);

/// The catalog, ledger and output the global flags give a supervised run.
[[nodiscard]] app::SuperviseContext SuperviseContextOf(const GlobalOptions& global);

/// Draws the status line on the command's stderr: overprinted on a smart terminal (its phase
/// coloured as --color says), otherwise a plain line every 30 seconds.
class StatusLine {
 public:
  explicit StatusLine(Streams& s);
  void Update(const run::RunStatus& status);
  /// Clears an overprinted line before other output.
  void Clear();

 private:
  std::ostream& err_;
  LinePrinter printer_;
  std::chrono::steady_clock::time_point last_plain_{};
};

/// The end-of-run summary: human text or the JSON object for --json.
void PrintRunSummary(std::ostream& out, const run::SupervisorConfig& config,
                     const run::RunResult& result, const std::vector<run::SelfCheck>& checks);
nlohmann::json RunSummaryJson(const run::SupervisorConfig& config, const run::RunResult& result,
                              const std::vector<run::SelfCheck>& checks);

}  // namespace frugal::cli
