#include "frugal/app/sweep.h"

#include <algorithm>
#include <filesystem>

#include "frugal/core/paths.h"
#include "frugal/run/ledger_catch_up.h"
#include "frugal/run/run_control.h"
#include "frugal/tune/supervised_runner.h"

namespace frugal::app {
namespace {

namespace fs = std::filesystem;

/// Where the run's journal is on this host, if it is: its run folder's, or, for a tune trial,
/// its study's trial folder's.
std::optional<fs::path> JournalOf(const ledger::Run& run) {
  const fs::path journal = run::DefaultRunDir(run.name) / "journal.jsonl";
  std::error_code ec;
  if (fs::exists(journal, ec)) return journal;
  return tune::FindTrialJournal(UserDataDir() / "studies", run.name);
}

}  // namespace

Result<SweepResult> SweepLostRuns(ledger::Ledger& db, const SweepRequest& request) {
  SweepResult result;
  result.lost = FRUGAL_TRY(db.SweepLost(request.now, request.stale));
  // A run whose supervisor ended while the ledger could not be written (a full disk, a dead
  // server) looks lost too; runs an earlier sweep marked lost count as well, and one caught up
  // before has nothing left to do.
  ledger::RunFilter lost;
  lost.status = ledger::RunStatus::kLost;
  std::vector<ledger::RunId> candidates = result.lost;
  for (const ledger::RunSummary& r : FRUGAL_TRY(db.ListRuns(lost, request.now))) {
    if (std::find(candidates.begin(), candidates.end(), r.run.id) == candidates.end()) {
      candidates.push_back(r.run.id);
    }
  }
  std::sort(candidates.begin() + static_cast<std::ptrdiff_t>(result.lost.size()), candidates.end());
  for (ledger::RunId id : candidates) {
    const ledger::Run run = FRUGAL_TRY(db.GetRun(id));
    const std::optional<fs::path> journal = JournalOf(run);
    std::error_code ec;
    if (!journal || !fs::exists(*journal, ec)) continue;
    // With no segment recorded, the journal's own offer text and price are recorded instead.
    const std::vector<ledger::Segment> segments = FRUGAL_TRY(db.SegmentsOf(id));
    const ledger::SegmentOffer offer =
        segments.empty() ? ledger::SegmentOffer{} : segments.back().offer;
    const run::LedgerCatchUp done =
        FRUGAL_TRY(run::CatchUpFromJournal(db, run.name, *journal, offer));
    if (done.Any()) result.caught_up.push_back({id, run.name, done.Describe()});
  }
  return result;
}

nlohmann::json SweepJson(const SweepResult& result) {
  nlohmann::json caught_up = nlohmann::json::array();
  for (const CaughtUpRun& c : result.caught_up) {
    caught_up.push_back({{"run", c.run}, {"name", c.name}, {"from_journal", c.from_journal}});
  }
  return {{"lost_runs", result.lost}, {"caught_up_from_journal", std::move(caught_up)}};
}

}  // namespace frugal::app
