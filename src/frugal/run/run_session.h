#pragma once
// One supervised run's session: the safety-critical sequence every command that supervises a
// run goes through (`frugal run`, `frugal drill`, `frugal profile`, the tuner's trials), in
// one place and one order:
//   1. hold the run: the host's file lock on its folder (supervisor.lock) and the ledger's
//      claim on its id, so that no second supervisor interleaves its journal and checkpoints;
//   2. open the journal, the run's source of truth, and refuse to start when it cannot be
//      written (a full disk under the run folder);
//   3. bring the ledger up to the journal (what an earlier supervisor could not write there);
//   4. record to both, the journal first (the recorder pair);
//   5. supervise with the process sampler;
//   6. at the end, write what the ledger still lacks, with patience.
// Without a ledger the run is journaled only.

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "frugal/core/clock.h"
#include "frugal/core/error.h"
#include "frugal/core/file_lock.h"
#include "frugal/ledger/ledger.h"
#include "frugal/run/ledger_recorder.h"
#include "frugal/run/run_journal.h"
#include "frugal/run/supervisor.h"

namespace frugal::run {

/// Who keeps a second supervisor away from the run.
enum class RunHold {
  kLockAndClaim,  ///< the session: the run folder's file lock and the ledger's claim
  /// The caller: a folder no one else knows (a profile's fresh one), or a lock above it (a
  /// study's, for its trials).
  kCallerHolds,
};

enum class RunSampling { kProcess, kNone };

/// Whether a journal that cannot be written stops the run before it starts.
enum class JournalCheck {
  kRefuseUnwritable,  ///< the run does not start (RunJournal::Open)
  /// It starts; the journal opens at its first record, its failures warned about and retried
  /// (a tuner's trial, whose study decides what a failed launch means).
  kWarnOnly,
};

struct RunSessionOptions {
  RunHold hold = RunHold::kLockAndClaim;
  RunSampling sampling = RunSampling::kProcess;
  JournalCheck journal_check = JournalCheck::kRefuseUnwritable;
  /// What the ledger segments are recorded on, and the job spec's text (when there is one).
  ledger::SegmentOffer offer;
  std::string spec_text;
  /// Step 3 when the caller brings the ledger up to the journal its own way (a tuner's trial,
  /// whose run the ledger may never have got); empty: CatchUpFromJournal, warning on failure.
  std::function<void(ledger::Ledger&)> catch_up;
};

class RunSession {
 public:
  /// Steps 1 to 4 for the run `config` describes. `ledger` may be null (journaled only); it and
  /// `clock` must outlive the session. kBadInput when another supervisor holds the run (the
  /// lock's or the claim's message), kFailed when the journal cannot be written; nothing of
  /// the run is recorded then.
  [[nodiscard]] static Result<std::unique_ptr<RunSession>> Open(SupervisorConfig config,
                                                                ledger::Ledger* ledger,
                                                                RunSessionOptions options,
                                                                const Clock& clock = RealClock());
  ~RunSession();
  RunSession(const RunSession&) = delete;
  RunSession& operator=(const RunSession&) = delete;

  /// A new supervisor of the run (replacing the previous one, which must not be running), with
  /// the sampler the options ask for; the caller adds its preemption sources and status
  /// callback. It records to recorder(), or to `front` when given: a recorder that passes
  /// every record on to recorder() (a drill's observer), which must outlive the supervisor.
  Supervisor& NewSupervisor(RunRecorder* front = nullptr);

  /// The journal, then the ledger.
  [[nodiscard]] RunRecorder& recorder();
  /// The ledger's side alone (records the journal already has), or null without a ledger.
  [[nodiscard]] LedgerRecorder* ledger_recorder() { return ledger_recorder_.get(); }
  [[nodiscard]] const SupervisorConfig& config() const { return config_; }
  /// The ledger's id of the run, once it is recorded there.
  [[nodiscard]] std::optional<ledger::RunId> ledger_run_id() const;

  /// Step 6: retries the ledger writes that failed, for up to `patience` (once when zero).
  /// True when nothing is left (always without a ledger); pending() says how much is.
  bool Flush(Duration patience = Duration(0));
  [[nodiscard]] size_t pending() const;

  /// The run's journal: its path, and the records a full disk kept from it (`pending()`,
  /// `Retry()`), which the caller reports.
  [[nodiscard]] RunJournal& journal() { return journal_; }

 private:
  RunSession(SupervisorConfig config, const Clock& clock, RunSampling sampling);

  SupervisorConfig config_;
  const Clock& clock_;
  RunSampling sampling_;
  std::optional<FileLock> lock_;
  RunJournal journal_;
  std::unique_ptr<LedgerRecorder> ledger_recorder_;
  std::unique_ptr<TeeRecorder> tee_;
  std::unique_ptr<Supervisor> supervisor_;
};

/// Step 3 as `frugal run` takes it: CatchUpFromJournal for the run, warning (never failing)
/// when the ledger cannot be brought up to the journal or when it had missed records.
void CatchUpLedger(ledger::Ledger& ledger, const SupervisorConfig& config,
                   const ledger::SegmentOffer& offer);

}  // namespace frugal::run
