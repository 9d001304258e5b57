#pragma once
// What the supervisor records about a run, as it happens. The ledger implements this interface
// (rows for runs, segments, events and samples); RunJournal (run_journal.h) implements it as a
// JSON-lines file in the run's directory. Implementations must not lose a record: a failed
// write is retried with the next one, and a problem is reported once on stderr; they never
// stop the run.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "frugal/core/duration.h"
#include "frugal/core/money.h"
#include "frugal/core/tier.h"
#include "frugal/monitor/sample.h"
#include "frugal/run/budget_guard.h"
#include "frugal/run/child_process.h"

namespace frugal::run {

using WallTime = std::chrono::system_clock::time_point;

/// A segment's length as the journal and the ledger record it: both ends to the millisecond.
inline Duration RecordedLength(WallTime opened, WallTime closed) {
  const auto ms = [](WallTime t) {
    return std::chrono::time_point_cast<std::chrono::milliseconds>(t);
  };
  return std::max(Duration(0), std::chrono::duration_cast<Duration>(ms(closed) - ms(opened)));
}

/// One invocation of `frugal run` starting (a requeued run starts again with the same run id
/// and the next attempt number).
struct RunStart {
  std::string run_id;
  int attempt = 1;
  WallTime at;
  std::vector<std::string> command;
  std::map<std::string, std::string> tags;
  std::string offer;                 ///< "aws:p4d.24xlarge:us-east-1:spot", or empty for --price
  std::optional<CapacityTier> tier;  ///< unset when nothing states it (--price alone)
  Rate price;
  int gpus = 0;
  BudgetCaps caps;
};

/// Why a segment (one stretch of the child running) ended.
enum class SegmentEnd { kFinished, kFailed, kPreempted, kBudgetStop, kInterrupted, kLost };
/// "finished", "failed", "preempted", "budget_stop", "interrupted", "lost".
std::string SegmentEndName(SegmentEnd end);

struct SegmentOpen {
  int segment = 0;  ///< 1-based over the whole run (across attempts)
  WallTime at;
  std::optional<std::filesystem::path> resume_from;
  int64_t resume_step = 0;
};

struct SegmentClose {
  int segment = 0;
  WallTime at;
  SegmentEnd end = SegmentEnd::kFinished;
  std::optional<ExitStatus> exit;
  Money cost;  ///< price × RecordedLength(opened, closed): what the ledger prices it at
  int64_t last_step = 0;
};

enum class EventKind {
  kPreemptionNotice,     ///< detail: the source
  kPreempted,            ///< step: steps lost since the last committed checkpoint
  kCheckpointCommitted,  ///< step, bytes, duration: commit time
  kCheckpointRejected,   ///< detail: why
  kResumed,              ///< duration: segment start to first progress; step: first step seen
  kBudgetWarning,        ///< cap, detail: the fraction used
  kBudgetStop,           ///< cap, detail: the overshoot
  kWarning,              ///< detail: e.g. processes left behind, garbage report lines
  kSpotAdvice,           ///< detail: the deadline policy's advice after a preemption
};
/// "preemption_notice", "preempted", ...
std::string EventKindName(EventKind kind);

struct RunEvent {
  EventKind kind = EventKind::kWarning;
  int segment = 0;
  WallTime at;
  std::string detail;
  std::optional<int64_t> step;
  std::optional<uint64_t> bytes;
  std::optional<Duration> duration;
  std::optional<CapKind> cap;
};

/// Usage so far in this invocation; written periodically so a supervisor killed outright
/// loses at most one heartbeat interval of accounting.
struct Heartbeat {
  int segment = 0;
  WallTime at;
  BudgetUsage usage;  ///< this invocation's
  int64_t step = 0;
};

/// How an invocation ended.
struct RunFinish {
  WallTime at;
  std::string outcome;  ///< "finished", "failed", "budget_stop", "preempted", "interrupted",
                        ///< "paused" (a tune trial stopped with its interrupted study)
  int exit_code = 0;
  BudgetUsage usage;  ///< this invocation's
  int preemptions = 0;
};

class RunRecorder {
 public:
  virtual ~RunRecorder() = default;
  virtual void RunStarted(const RunStart& start) = 0;
  virtual void SegmentOpened(const SegmentOpen& open) = 0;
  virtual void SegmentClosed(const SegmentClose& close) = 0;
  virtual void Event(const RunEvent& event) = 0;
  virtual void RecordSample(int segment, const monitor::Sample& sample) = 0;
  virtual void RecordHeartbeat(const Heartbeat& heartbeat) = 0;
  virtual void RunFinished(const RunFinish& finish) = 0;
};

}  // namespace frugal::run
