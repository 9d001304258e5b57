#include "frugal/run/run_session.h"

#include "frugal/core/log.h"
#include "frugal/monitor/nvml_probe.h"
#include "frugal/monitor/proc_sampler.h"
#include "frugal/run/ledger_catch_up.h"

namespace frugal::run {

void CatchUpLedger(ledger::Ledger& ledger, const SupervisorConfig& config,
                   const ledger::SegmentOffer& offer) {
  Result<LedgerCatchUp> caught =
      CatchUpFromJournal(ledger, config.run_id, config.run_dir / "journal.jsonl", offer);
  if (!caught) {
    log::Warning("run {}: the ledger could not be brought up to the run's journal: {}",
                 config.run_id, caught.error().message);
  } else if (caught->Any()) {
    log::Warning("run {}: the ledger had missed part of an earlier attempt; from the journal: {}",
                 config.run_id, caught->Describe());
  }
}

RunSession::RunSession(SupervisorConfig config, const Clock& clock, RunSampling sampling)
    : config_(std::move(config)),
      clock_(clock),
      sampling_(sampling),
      journal_(config_.run_dir / "journal.jsonl") {}

RunSession::~RunSession() = default;

Result<std::unique_ptr<RunSession>> RunSession::Open(SupervisorConfig config,
                                                     ledger::Ledger* ledger,
                                                     RunSessionOptions options,
                                                     const Clock& clock) {
  std::unique_ptr<RunSession> session(new RunSession(std::move(config), clock, options.sampling));
  const SupervisorConfig& c = session->config_;
  if (options.hold == RunHold::kLockAndClaim) {
    // The FileLock guards this host; a ledger shared between hosts needs its own claim.
    const std::string what = "run '" + c.run_id + "'";
    session->lock_.emplace(FRUGAL_TRY(FileLock::Acquire(c.run_dir / "supervisor.lock", what)));
    if (ledger != nullptr) FRUGAL_TRY(ledger->ClaimExclusive("run " + c.run_id, what));
  }
  if (options.journal_check == JournalCheck::kRefuseUnwritable) {
    FRUGAL_TRY(session->journal_.Open());
  }
  if (ledger != nullptr) {
    if (options.catch_up) {
      options.catch_up(*ledger);
    } else {
      CatchUpLedger(*ledger, c, options.offer);
    }
    session->ledger_recorder_ = std::make_unique<LedgerRecorder>(
        *ledger, c.run_id, std::move(options.offer), std::move(options.spec_text));
    session->tee_ = std::make_unique<TeeRecorder>(session->journal_, *session->ledger_recorder_);
  }
  return session;
}

RunRecorder& RunSession::recorder() {
  if (tee_) return *tee_;
  return journal_;
}

Supervisor& RunSession::NewSupervisor(RunRecorder* front) {
  supervisor_.reset();
  supervisor_ =
      std::make_unique<Supervisor>(config_, front != nullptr ? *front : recorder(), clock_);
  if (sampling_ == RunSampling::kProcess) {
    supervisor_->SetSampler(
        std::make_unique<monitor::ProcSampler>(std::make_unique<monitor::NvmlProbe>()));
  }
  return *supervisor_;
}

std::optional<ledger::RunId> RunSession::ledger_run_id() const {
  if (!ledger_recorder_) return std::nullopt;
  return ledger_recorder_->run_id();
}

bool RunSession::Flush(Duration patience) {
  if (!ledger_recorder_) return true;
  if (patience.count() <= 0) return ledger_recorder_->Flush();
  return ledger_recorder_->FlushWithin(patience);
}

size_t RunSession::pending() const { return ledger_recorder_ ? ledger_recorder_->pending() : 0; }

}  // namespace frugal::run
