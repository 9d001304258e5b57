#pragma once
// RunJournal: a RunRecorder writing one JSON object per line to <run dir>/journal.jsonl.
// Each record is appended with a single write() on an O_APPEND descriptor and fdatasync'ed, so
// a crash leaves at most one torn last line (which readers skip). A write that fails (a full
// disk) is kept in memory and retried before the next record; nothing is dropped while the
// process lives.
//
// Format, version 1: every line has "v":1, "record" (run_started, segment_opened,
// segment_closed, event, sample, heartbeat, run_finished, run_status), "at" (RFC 3339 UTC,
// milliseconds) and the fields of the matching struct in recorder.h, snake_case; money as
// micro-dollars ("..._micros") and durations as milliseconds ("..._ms"). `run_status` is not a
// recorder call: a tuner's word on how a trial's run ended, after its attempt's run_finished
// ("status": a ledger run status such as paused or pruned, "end": the run's end time, RFC 3339);
// the newest one stands until the next run_started.

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "frugal/core/error.h"
#include "frugal/core/tier.h"
#include "frugal/run/recorder.h"

namespace frugal::run {

class RunJournal : public RunRecorder {
 public:
  explicit RunJournal(std::filesystem::path path);
  ~RunJournal() override;

  /// Creates the journal's folder and opens the journal for appending, and makes sure the disk
  /// has room for its next records (a block is reserved past its end). A run must not start
  /// when its journal, the source of truth for its spend, cannot be written: kFailed naming the
  /// path ("disk full" when there is no room). Without it the journal is opened at its first
  /// record and a failure is only warned about (records are kept in memory and retried).
  [[nodiscard]] Result<void> Open();
  RunJournal(const RunJournal&) = delete;
  RunJournal& operator=(const RunJournal&) = delete;

  void RunStarted(const RunStart& start) override;
  void SegmentOpened(const SegmentOpen& open) override;
  void SegmentClosed(const SegmentClose& close) override;
  void Event(const RunEvent& event) override;
  void RecordSample(int segment, const monitor::Sample& sample) override;
  void RecordHeartbeat(const Heartbeat& heartbeat) override;
  void RunFinished(const RunFinish& finish) override;

  /// Appends a `run_status` record: the run ended as `status` (a ledger run status name) at
  /// `end`, whatever its last attempt's outcome says (a tuner's paused or pruned trial).
  void RunStatusDecided(const std::string& status, WallTime end);

  /// Tries again to write the records a failure kept in memory (a full disk since freed).
  void Retry() { Flush(); }
  /// Records not yet on disk (after write failures). Each record is on disk whole or not at
  /// all (journal_file.h), so these are exactly the journal's missing last records.
  [[nodiscard]] size_t pending() const { return pending_.size(); }
  const std::filesystem::path& path() const { return path_; }

 private:
  void Append(nlohmann::json record);
  void Flush();
  /// Cuts a torn last line off the journal open at `fd`, saying so.
  void CutTornTail(int fd) const;

  std::filesystem::path path_;
  int fd_ = -1;
  std::vector<std::string> pending_;
  bool warned_ = false;
  long reserved_end_ = 0;  ///< where the room kept past the journal's end ends (journal_file.h)
};

/// Reads every complete record of a journal (a torn last line is skipped). Empty when the
/// file does not exist.
std::vector<nlohmann::json> ReadJournal(const std::filesystem::path& path);

/// The event or utilization sample an `event` or `sample` record holds, as the supervisor
/// recorded it (times to the millisecond); nullopt for another record or one that is damaged.
std::optional<RunEvent> JournalEvent(const nlohmann::json& record);
std::optional<monitor::Sample> JournalSample(const nlohmann::json& record);
/// The tier a `run_started` record names: unset when it names none (""), kBadInput when its
/// name is not a tier (core/tier.h).
[[nodiscard]] Result<std::optional<CapacityTier>> JournalTier(const nlohmann::json& record);

/// What earlier invocations of a run left in its journal.
struct JournalHistory {
  int attempts = 0;
  int segments = 0;  ///< highest segment number opened
  /// Summed over attempts. A lost attempt counts to its last record, priced from its start
  /// (its heartbeats may lag by an interval).
  BudgetUsage usage;
  int preemptions = 0;
  /// A segment opened but never closed: the supervisor died (it is marked lost on restart).
  std::optional<int> open_segment;
  Money open_segment_cost;            ///< that segment priced from its opening to the last record
  int64_t last_step = 0;              ///< the furthest step a heartbeat reported
  std::optional<WallTime> last_seen;  ///< time of the last record of the unfinished attempt
  bool unfinished_attempt = false;    ///< the last attempt has no run_finished record
  BudgetUsage unfinished_usage;       ///< that attempt's usage at its last record
  std::optional<std::string> last_outcome;
  /// The closed segments priced as the ledger prices them (each at its attempt's price and GPU
  /// count, over RecordedLength), every attempt. `wall` is their summed length: the time the
  /// ledger prices, which excludes the supervisor's own start and wind-down around each segment.
  BudgetUsage recorded;
};
JournalHistory ReadJournalHistory(const std::filesystem::path& path);

/// Ends an attempt whose supervisor died (h.unfinished_attempt): its open segment closes as
/// lost at `at`, and the attempt finishes "lost" with the usage it had reached.
void CloseLostAttempt(const JournalHistory& h, WallTime at, RunRecorder& recorder);
/// The one end of an attempt whose supervisor died, whoever closes it (a restarted `frugal
/// run`, a resumed tuner's trial): its last journal record (now when it has none), which is
/// what the journal's usage counts to, the moment its last checkpoint and sample are dated up
/// to, and what `ledger sweep`'s catch-up extends a swept run to. Closes it there through
/// `recorder` (CloseLostAttempt) and returns it.
WallTime CloseLostAttemptAtLastRecord(const JournalHistory& h, RunRecorder& recorder);

/// RFC 3339 UTC with milliseconds: "2026-05-20T10:04:05.123Z".
std::string FormatWallTime(WallTime t);
std::optional<WallTime> ParseWallTime(const std::string& text);

}  // namespace frugal::run
