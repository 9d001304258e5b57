#pragma once
// LedgerRecorder: a RunRecorder that writes a supervised run into the ledger, so `frugal runs`,
// `frugal report` and the FOCUS export see every second of it priced at the tier it ran on.
//
// Mapping (the supervisor's records → ledger rows):
// - One ledger run per run id (its `name`): the first attempt begins it; a requeued attempt
//   (the same run id, attempt > 1) reopens it, so every attempt's segments sit under one run.
// - Each segment (one stretch of the command) is a ledger segment on the offer given at
//   construction, opened and closed at the supervisor's wall times; its cost is the ledger's
//   exact price × length.
// - Events become typed ledger events with a JSON payload (`kind`, `segment`, `detail`, `step`,
//   `bytes`, `write_seconds` or `seconds_to_first_progress`, `cap`); rejected checkpoints and
//   warnings are notes.
// - Samples become ledger samples (cpu_util in percent of one core × cores, io_wait in percent).
// - Heartbeats bump the run's heartbeat, so a supervisor killed outright leaves a run that
//   `Ledger::SweepLost` marks lost, costed to its last heartbeat.
// - The run ends as succeeded, failed, budget_stopped or cancelled (interrupted). A preempted
//   invocation that hands the restart to an outer scheduler leaves the run running with no open
//   segment: the requeued attempt continues it (or the sweep marks it lost if none comes).
// - A previous attempt the supervisor found unfinished (SIGKILL) is closed as lost at the
//   ledger's last heartbeat for it, before the new attempt reopens the run.
//
// A failed write (a locked or full database, a PostgreSQL server gone) is kept and retried, in
// order, before the next record; the first failure is reported once on stderr. The run goes on.
// What is still pending when the supervisor exits is in the run's journal: the next supervisor
// of the run brings the ledger up to it (ledger_catch_up.h).

#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "frugal/ledger/ledger.h"
#include "frugal/run/recorder.h"

namespace frugal::run {

class LedgerRecorder : public RunRecorder {
 public:
  /// `ledger` must outlive the recorder. `name` is the supervisor's run id; `offer` is what
  /// every segment ran on (price, tier, on-demand reference); `spec` is the job spec text,
  /// when the run came from one.
  LedgerRecorder(ledger::Ledger& ledger, std::string name, ledger::SegmentOffer offer,
                 std::string spec = {});

  void RunStarted(const RunStart& start) override;
  void SegmentOpened(const SegmentOpen& open) override;
  void SegmentClosed(const SegmentClose& close) override;
  void Event(const RunEvent& event) override;
  void RecordSample(int segment, const monitor::Sample& sample) override;
  void RecordHeartbeat(const Heartbeat& heartbeat) override;
  void RunFinished(const RunFinish& finish) override;

  /// The ledger's id of the run, once it is recorded.
  [[nodiscard]] std::optional<ledger::RunId> run_id() const { return run_; }
  /// Records not yet in the ledger (after write failures).
  [[nodiscard]] size_t pending() const { return pending_.size(); }
  /// Retries what is pending; true when nothing is left.
  bool Flush();
  /// Retries what is pending for up to `patience` (backing off from 100 ms to 1 s), for a
  /// supervisor about to exit: a server restarting or a lock held for a while still gets the
  /// records. True when nothing is left.
  bool FlushWithin(Duration patience);

 private:
  using Write = std::function<Result<void>()>;
  /// Queues `write` behind anything pending and tries the queue.
  void Submit(std::string what, Write write);
  [[nodiscard]] Result<void> BeginOrReopen(const RunStart& start);
  [[nodiscard]] Result<void> FinishLostAttempt(ledger::Timestamp last_seen);
  [[nodiscard]] std::optional<ledger::SegmentId> SegmentId(int segment) const;

  ledger::Ledger& ledger_;
  ledger::SegmentOffer offer_;
  std::string spec_;
  std::string name_;  ///< the supervisor's run id
  std::optional<ledger::RunId> run_;
  std::map<int, ledger::SegmentId> segments_;
  std::deque<std::pair<std::string, Write>> pending_;
  bool warned_ = false;
};

/// Fans every record out to several recorders (the journal and the ledger), in order.
class TeeRecorder : public RunRecorder {
 public:
  TeeRecorder(RunRecorder& first, RunRecorder& second) : first_(first), second_(second) {}
  void RunStarted(const RunStart& s) override;
  void SegmentOpened(const SegmentOpen& o) override;
  void SegmentClosed(const SegmentClose& c) override;
  void Event(const RunEvent& e) override;
  void RecordSample(int segment, const monitor::Sample& s) override;
  void RecordHeartbeat(const Heartbeat& h) override;
  void RunFinished(const RunFinish& f) override;

 private:
  RunRecorder& first_;
  RunRecorder& second_;
};

/// A journal time as the ledger keeps it (to the millisecond).
[[nodiscard]] ledger::Timestamp ToLedgerTime(WallTime t);
/// How the ledger keeps a supervisor's event: its type, and the payload (kind, segment and the
/// event's figures, durations in seconds).
[[nodiscard]] ledger::EventType EventTypeOf(EventKind kind);
[[nodiscard]] nlohmann::json EventPayload(const RunEvent& event);
/// A utilization sample as the ledger keeps it (percentages, bytes as numbers).
[[nodiscard]] ledger::Sample LedgerSample(const monitor::Sample& sample);

/// How an attempt's outcome ("finished", "failed", ...) ends the ledger run; nullopt leaves it
/// as it is (a preempted attempt waits for its requeue).
[[nodiscard]] std::optional<ledger::RunStatus> RunStatusOf(const std::string& outcome);

/// The ledger run recorded under `name` (a supervisor run id), newest first; nullopt if none.
[[nodiscard]] Result<std::optional<ledger::Run>> FindRunByName(ledger::Ledger& ledger,
                                                               const std::string& name);

/// The ledger id of the run `ref` names: its number in the ledger, or the run id `frugal run`
/// printed (the newest run of that name). kBadInput when no run has that name.
[[nodiscard]] Result<int64_t> ResolveRunRef(ledger::Ledger& ledger, const std::string& ref);

}  // namespace frugal::run
