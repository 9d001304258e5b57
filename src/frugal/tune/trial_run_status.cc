// A trial's ledger run tells the story `tune status` tells: once a segment has ended, the run's
// status is the trial's state (a paused trial's run is paused, not succeeded).

#include <algorithm>
#include <filesystem>

#include "frugal/core/log.h"
#include "frugal/run/ledger_catch_up.h"
#include "frugal/run/ledger_recorder.h"
#include "frugal/run/run_journal.h"
#include "frugal/tune/supervised_runner.h"

namespace frugal::tune {

namespace {

/// The run's end and the status the journal last decided for it, when its last attempt has
/// finished (nullopt while one runs or was lost unfinished).
struct JournalEnd {
  ledger::Timestamp end;
  std::string decided;  ///< the newest run_status after it ("" when none)
};

std::optional<JournalEnd> EndOf(const std::filesystem::path& journal) {
  const std::vector<run::JournalAttempt> attempts = run::ReadJournalAttempts(journal);
  if (attempts.empty() || !attempts.back().finished) return std::nullopt;
  const run::JournalAttempt& last = attempts.back();
  if (!last.decided) return JournalEnd{*last.finished, ""};
  return JournalEnd{*last.decided_end, std::string(ledger::RunStatusName(*last.decided))};
}

}  // namespace

ledger::RunStatus TrialRunStatus(TrialState state) {
  switch (state) {
    case TrialState::kRunning:
      return ledger::RunStatus::kRunning;
    case TrialState::kPaused:
      return ledger::RunStatus::kPaused;
    case TrialState::kCompleted:
      return ledger::RunStatus::kSucceeded;
    case TrialState::kPruned:
      return ledger::RunStatus::kPruned;
    case TrialState::kFailed:
      return ledger::RunStatus::kFailed;
    case TrialState::kStoppedAtBudget:
    case TrialState::kStoppedAtWall:
      return ledger::RunStatus::kBudgetStopped;
  }
  return ledger::RunStatus::kFailed;
}

void SupervisedRunner::RecordTrialStates(const std::vector<Trial>& trials) {
  for (const Trial& t : trials) {
    if (t.state == TrialState::kRunning || t.run_name.empty()) continue;
    if (active_.contains(t.id) || std::any_of(queue_.begin(), queue_.end(), [&t](const Pending& p) {
          return p.trial.id == t.id;
        })) {
      continue;  // its segment has not ended yet
    }
    if (const auto it = recorded_states_.find(t.id);
        it != recorded_states_.end() && it->second == t.state) {
      continue;
    }
    const std::filesystem::path journal = TrialDir(t.id) / "journal.jsonl";
    const std::optional<JournalEnd> end = EndOf(journal);
    if (!end) continue;
    const ledger::RunStatus status = TrialRunStatus(t.state);
    const std::string name(ledger::RunStatusName(status));
    if (end->decided != name) {
      run::RunJournal(journal).RunStatusDecided(name, end->end);
    }
    if (!status_ledger_tried_ && options_.open_ledger) {
      status_ledger_tried_ = true;
      Result<std::unique_ptr<ledger::Ledger>> opened = options_.open_ledger();
      if (!opened) {
        log::Warning("{}: the ledger cannot be opened ({}); trial statuses are journaled only",
                     options_.study, opened.error().message);
      } else {
        status_ledger_ = std::move(*opened);
      }
    }
    // The journal now says it; a ledger write that fails (or a run the ledger still shows
    // running) is left to the journal's catch-up at the next resume or sweep, not retried here.
    if (status_ledger_) {
      const ledger::Timestamp at = end->end;
      const auto found = run::FindRunByName(*status_ledger_, t.run_name);
      Result<void> done;
      if (!found) {
        done = Fail(found.error());
      } else if (*found && (*found)->status != ledger::RunStatus::kRunning &&
                 ((*found)->status != status || (*found)->end != at)) {
        done = status_ledger_->ReviseRunEnd((*found)->id, status, at);
      }
      if (!done) {
        log::Warning("{}: status {} not recorded in the ledger ({}); its journal has it",
                     t.run_name, name, done.error().message);
      }
    }
    recorded_states_[t.id] = t.state;
  }
}

}  // namespace frugal::tune
