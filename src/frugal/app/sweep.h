#pragma once
// Sweep lost runs: runs whose supervisor stopped heartbeating are marked lost, and every lost
// run whose journal is on this host is caught up from it (its real end, or its cost to the
// journal's last record). `frugal ledger sweep` calls it; so can a long-running server.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "frugal/ledger/ledger.h"

namespace frugal::app {

struct SweepRequest {
  ledger::Timestamp now;
  Duration stale{};  ///< how long a supervisor may stay silent; must be positive
};

struct CaughtUpRun {
  ledger::RunId run = 0;
  std::string name;
  std::string from_journal;  ///< what the journal added ("2 segments closed, ...")
};

struct SweepResult {
  std::vector<ledger::RunId> lost;     ///< marked lost by this sweep
  std::vector<CaughtUpRun> caught_up;  ///< lost runs (now or before) caught up from a journal
};

/// Sweeps `db`. Errors are the ledger's or a journal's.
[[nodiscard]] Result<SweepResult> SweepLostRuns(ledger::Ledger& db, const SweepRequest& request);

/// {"lost_runs": [id], "caught_up_from_journal": [{"run", "name", "from_journal"}]}.
[[nodiscard]] nlohmann::json SweepJson(const SweepResult& result);

}  // namespace frugal::app
