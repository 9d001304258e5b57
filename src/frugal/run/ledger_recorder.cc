#include "frugal/run/ledger_recorder.h"

#include <fmt/format.h>

#include <thread>

#include "frugal/core/log.h"
#include "frugal/core/text.h"
#include "frugal/ledger/run_rows.h"
#include "frugal/run/run_text.h"

namespace frugal::run {
namespace {

using nlohmann::json;

/// The command as one line a shell would take back (arguments with spaces or quotes quoted);
/// bytes that are not UTF-8 are written escaped (run_text.h).
std::string CommandLine(const std::vector<std::string>& argv) {
  std::string line;
  for (const std::string& raw : argv) {
    const std::string arg = EscapeNonUtf8(raw);
    if (!line.empty()) line += ' ';
    const bool plain =
        !arg.empty() && arg.find_first_of(" \t\n'\"\\$`;&|<>()*?") == std::string::npos;
    if (plain) {
      line += arg;
      continue;
    }
    line += '\'';
    for (char c : arg) line += c == '\'' ? std::string("'\\''") : std::string(1, c);
    line += '\'';
  }
  return line;
}

ledger::EndReason EndReasonOf(SegmentEnd end) {
  switch (end) {
    case SegmentEnd::kFinished:
      return ledger::EndReason::kFinished;
    case SegmentEnd::kFailed:
      return ledger::EndReason::kFailed;
    case SegmentEnd::kPreempted:
      return ledger::EndReason::kPreempted;
    case SegmentEnd::kBudgetStop:
      return ledger::EndReason::kBudgetStop;
    case SegmentEnd::kInterrupted:
      return ledger::EndReason::kPaused;  // resumable by the user
    case SegmentEnd::kLost:
      return ledger::EndReason::kLost;
  }
  return ledger::EndReason::kFailed;
}

}  // namespace

ledger::EventType EventTypeOf(EventKind kind) {
  switch (kind) {
    case EventKind::kPreemptionNotice:
      return ledger::EventType::kPreemptionNotice;
    case EventKind::kPreempted:
      return ledger::EventType::kPreempted;
    case EventKind::kCheckpointCommitted:
      return ledger::EventType::kCheckpointCommitted;
    case EventKind::kResumed:
      return ledger::EventType::kResumed;
    case EventKind::kBudgetWarning:
      return ledger::EventType::kBudgetWarning;
    case EventKind::kBudgetStop:
      return ledger::EventType::kBudgetStop;
    case EventKind::kCheckpointRejected:
    case EventKind::kWarning:
    case EventKind::kSpotAdvice:
      return ledger::EventType::kNote;
  }
  return ledger::EventType::kNote;
}

nlohmann::json EventPayload(const RunEvent& e) {
  json p = {{"kind", EventKindName(e.kind)}, {"segment", e.segment}};
  if (!e.detail.empty()) p["detail"] = EscapeNonUtf8(e.detail);
  if (e.step) p["step"] = *e.step;
  if (e.bytes) p["bytes"] = *e.bytes;
  if (e.duration) {
    const double seconds = std::chrono::duration<double>(*e.duration).count();
    const char* key = e.kind == EventKind::kCheckpointCommitted ? "write_seconds"
                      : e.kind == EventKind::kResumed           ? "seconds_to_first_progress"
                                                                : "seconds";
    p[key] = seconds;
  }
  if (e.cap) p["cap"] = CapKindName(*e.cap);
  return p;
}

ledger::Sample LedgerSample(const monitor::Sample& s) {
  ledger::Sample out;
  out.time = ToLedgerTime(s.at);
  out.cpu_util = s.cpu_cores * 100;
  out.rss_bytes = static_cast<double>(s.rss_bytes);
  out.io_wait = s.io_wait_fraction * 100;
  out.gpu_util = s.gpu_util_percent;
  out.sm_active = s.sm_active_percent;
  out.tensor_active = s.tensor_active_percent;
  if (s.gpu_memory_bytes) out.gpu_mem_bytes = static_cast<double>(*s.gpu_memory_bytes);
  out.power_watts = s.gpu_power_watts;
  return out;
}

ledger::Timestamp ToLedgerTime(WallTime t) {
  return std::chrono::time_point_cast<std::chrono::milliseconds>(t);
}

std::optional<ledger::RunStatus> RunStatusOf(const std::string& outcome) {
  if (outcome == "finished") return ledger::RunStatus::kSucceeded;
  if (outcome == "budget_stop") return ledger::RunStatus::kBudgetStopped;
  if (outcome == "interrupted") return ledger::RunStatus::kCancelled;
  if (outcome == "paused") return ledger::RunStatus::kPaused;
  if (outcome == "lost") return ledger::RunStatus::kLost;
  if (outcome == "preempted") return std::nullopt;
  return ledger::RunStatus::kFailed;
}

Result<std::optional<ledger::Run>> FindRunByName(ledger::Ledger& ledger, const std::string& name) {
  const std::optional<ledger::RunId> id =
      FRUGAL_TRY(ledger::LatestRunNamed(ledger.connection(), name));
  if (!id) return std::optional<ledger::Run>();
  return std::optional<ledger::Run>(FRUGAL_TRY(ledger.GetRun(*id)));
}

Result<int64_t> ResolveRunRef(ledger::Ledger& ledger, const std::string& ref) {
  if (const Result<int64_t> number = ParseInt(ref); number && *number > 0) return *number;
  const std::optional<ledger::Run> run = FRUGAL_TRY(FindRunByName(ledger, ref));
  if (!run) {
    return Fail(ErrorCode::kBadInput,
                "no run named '" + ref + "' in the ledger (see 'frugal runs list')");
  }
  return run->id;
}

LedgerRecorder::LedgerRecorder(ledger::Ledger& ledger, std::string name, ledger::SegmentOffer offer,
                               std::string spec)
    : ledger_(ledger), offer_(std::move(offer)), spec_(std::move(spec)), name_(std::move(name)) {}

bool LedgerRecorder::Flush() {
  while (!pending_.empty()) {
    Result<void> done = pending_.front().second();
    if (!done && done.error().code != ErrorCode::kBadInput) {
      if (!warned_) {
        warned_ = true;
        log::Warning("ledger: cannot record {} ({}); keeping records in memory and retrying",
                     pending_.front().first, done.error().message);
      }
      return false;
    }
    // The ledger refused the record itself (a run already ended elsewhere): retrying cannot
    // help, and holding it back would block every record after it.
    if (!done)
      log::Warning("ledger: {} not recorded: {}", pending_.front().first, done.error().message);
    pending_.pop_front();
  }
  return true;
}

bool LedgerRecorder::FlushWithin(Duration patience) {
  const auto until = std::chrono::steady_clock::now() + patience;
  Duration wait(100);
  while (!Flush()) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= until) return false;
    std::this_thread::sleep_for(
        std::min<Duration>(wait, std::chrono::duration_cast<Duration>(until - now)));
    wait = std::min<Duration>(wait * 2, std::chrono::seconds(1));
  }
  return true;
}

void LedgerRecorder::Submit(std::string what, Write write) {
  pending_.emplace_back(std::move(what), std::move(write));
  Flush();
}

Result<void> LedgerRecorder::BeginOrReopen(const RunStart& start) {
  const ledger::Timestamp at = ToLedgerTime(start.at);
  if (start.attempt > 1) {
    std::optional<ledger::Run> earlier = FRUGAL_TRY(FindRunByName(ledger_, name_));
    if (earlier) {
      const ledger::RunId id = earlier->id;
      FRUGAL_TRY(ledger::ReopenRun(ledger_, id, at));
      run_ = id;
      return {};
    }
  }
  ledger::NewRun run;
  run.name = name_;
  run.command = CommandLine(start.command);
  run.spec = spec_;
  for (const auto& [key, value] : start.tags) run.tags.Set(key, value);
  run.budget = start.caps.dollars;
  run.gpu_hours_cap = start.caps.gpu_hours;
  run.start = at;
  run_ = FRUGAL_TRY(ledger_.BeginRun(run));
  return {};
}

Result<void> LedgerRecorder::FinishLostAttempt(ledger::Timestamp last_seen) {
  std::optional<ledger::Run> earlier = FRUGAL_TRY(FindRunByName(ledger_, name_));
  if (!earlier) return {};
  // Like the sweep, the attempt is costed up to the last moment anything heard from it: the
  // ledger's last heartbeat, or the journal's last record when that is later (the journal also
  // records samples and events between heartbeats). The journal closes it at the same moment,
  // so the two agree on the attempt's seconds, also when the sweep got there first.
  if (earlier->status == ledger::RunStatus::kLost)
    return ledger_.ExtendLost(earlier->id, last_seen);
  if (earlier->status != ledger::RunStatus::kRunning) return {};
  return ledger_.FinishRun(earlier->id, ledger::RunStatus::kLost,
                           std::max(earlier->heartbeat.value_or(earlier->start), last_seen));
}

std::optional<ledger::SegmentId> LedgerRecorder::SegmentId(int segment) const {
  const auto it = segments_.find(segment);
  if (it == segments_.end()) return std::nullopt;
  return it->second;
}

void LedgerRecorder::RunStarted(const RunStart& start) {
  Submit("the run's start", [this, start] { return BeginOrReopen(start); });
}

void LedgerRecorder::SegmentOpened(const SegmentOpen& open) {
  Submit(fmt::format("segment {}'s start", open.segment), [this, open]() -> Result<void> {
    if (!run_) return {};  // the start could not be recorded (already reported)
    segments_[open.segment] = FRUGAL_TRY(ledger_.OpenSegment(*run_, offer_, ToLedgerTime(open.at)));
    return {};
  });
}

void LedgerRecorder::SegmentClosed(const SegmentClose& close) {
  // Before RunStarted, this is an earlier attempt's segment left open by a killed supervisor;
  // RunFinished("lost") that follows closes it at the ledger's last heartbeat.
  if (!run_ && pending_.empty()) return;
  Submit(fmt::format("segment {}'s end", close.segment), [this, close]() -> Result<void> {
    const std::optional<ledger::SegmentId> id = SegmentId(close.segment);
    if (!id) return {};
    return ledger_.CloseSegment(*id, ToLedgerTime(close.at), EndReasonOf(close.end));
  });
}

void LedgerRecorder::Event(const RunEvent& event) {
  Submit(fmt::format("a {} event", EventKindName(event.kind)), [this, event]() -> Result<void> {
    if (!run_) return {};  // the start could not be recorded (already reported)
    return ledger_
        .AddEvent(*run_, SegmentId(event.segment), EventTypeOf(event.kind), ToLedgerTime(event.at),
                  EventPayload(event))
        .map([](int64_t) {});
  });
}

void LedgerRecorder::RecordSample(int /*segment*/, const monitor::Sample& sample) {
  Submit("a utilization sample", [this, s = LedgerSample(sample)]() -> Result<void> {
    if (!run_) return {};  // the start could not be recorded (already reported)
    return ledger_.AddSamples(*run_, std::span<const ledger::Sample>(&s, 1));
  });
}

void LedgerRecorder::RecordHeartbeat(const Heartbeat& heartbeat) {
  Submit("a heartbeat", [this, at = ToLedgerTime(heartbeat.at)]() -> Result<void> {
    if (!run_) return {};  // the start could not be recorded (already reported)
    return ledger_.Heartbeat(*run_, at);
  });
}

void LedgerRecorder::RunFinished(const RunFinish& finish) {
  if (!run_ && finish.outcome == "lost") {
    Submit("the earlier attempt's loss",
           [this, at = ToLedgerTime(finish.at)] { return FinishLostAttempt(at); });
    return;
  }
  Submit("the run's end", [this, finish]() -> Result<void> {
    if (!run_) return {};  // the start could not be recorded (already reported)
    const ledger::Timestamp at = ToLedgerTime(finish.at);
    const std::optional<ledger::RunStatus> status = RunStatusOf(finish.outcome);
    if (!status) return ledger_.Heartbeat(*run_, at);  // requeued: the next attempt continues it
    return ledger_.FinishRun(*run_, *status, at);
  });
}

void TeeRecorder::RunStarted(const RunStart& s) {
  first_.RunStarted(s);
  second_.RunStarted(s);
}
void TeeRecorder::SegmentOpened(const SegmentOpen& o) {
  first_.SegmentOpened(o);
  second_.SegmentOpened(o);
}
void TeeRecorder::SegmentClosed(const SegmentClose& c) {
  first_.SegmentClosed(c);
  second_.SegmentClosed(c);
}
void TeeRecorder::Event(const RunEvent& e) {
  first_.Event(e);
  second_.Event(e);
}
void TeeRecorder::RecordSample(int segment, const monitor::Sample& s) {
  first_.RecordSample(segment, s);
  second_.RecordSample(segment, s);
}
void TeeRecorder::RecordHeartbeat(const Heartbeat& h) {
  first_.RecordHeartbeat(h);
  second_.RecordHeartbeat(h);
}
void TeeRecorder::RunFinished(const RunFinish& f) {
  first_.RunFinished(f);
  second_.RunFinished(f);
}

}  // namespace frugal::run
