#include "frugal/run/run_journal.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <fstream>

#include "frugal/core/log.h"
#include "frugal/core/timestamp.h"
#include "frugal/run/journal_file.h"
#include "frugal/run/run_text.h"

namespace frugal::run {

using nlohmann::json;

std::string SegmentEndName(SegmentEnd end) {
  switch (end) {
    case SegmentEnd::kFinished:
      return "finished";
    case SegmentEnd::kFailed:
      return "failed";
    case SegmentEnd::kPreempted:
      return "preempted";
    case SegmentEnd::kBudgetStop:
      return "budget_stop";
    case SegmentEnd::kInterrupted:
      return "interrupted";
    case SegmentEnd::kLost:
      return "lost";
  }
  return "?";
}

std::string EventKindName(EventKind kind) {
  switch (kind) {
    case EventKind::kPreemptionNotice:
      return "preemption_notice";
    case EventKind::kPreempted:
      return "preempted";
    case EventKind::kCheckpointCommitted:
      return "checkpoint_committed";
    case EventKind::kCheckpointRejected:
      return "checkpoint_rejected";
    case EventKind::kResumed:
      return "resumed";
    case EventKind::kBudgetWarning:
      return "budget_warning";
    case EventKind::kBudgetStop:
      return "budget_stop";
    case EventKind::kWarning:
      return "warning";
    case EventKind::kSpotAdvice:
      return "spot_advice";
  }
  return "?";
}

namespace {

std::optional<EventKind> EventKindNamed(const std::string& name) {
  for (int k = 0; k <= static_cast<int>(EventKind::kSpotAdvice); ++k) {
    if (EventKindName(static_cast<EventKind>(k)) == name) return static_cast<EventKind>(k);
  }
  return std::nullopt;
}

std::optional<CapKind> CapKindNamed(const std::string& name) {
  for (CapKind k : {CapKind::kDollars, CapKind::kGpuHours, CapKind::kWall}) {
    if (CapKindName(k) == name) return k;
  }
  return std::nullopt;
}

template <typename T>
std::optional<T> Optional(const json& record, const char* key) {
  const auto it = record.find(key);
  if (it == record.end() || !it->is_number()) return std::nullopt;
  return it->get<T>();
}

}  // namespace

Result<std::optional<CapacityTier>> JournalTier(const json& record) {
  const std::string name = record.value("tier", "");
  if (name.empty()) return std::nullopt;
  return std::optional<CapacityTier>(FRUGAL_TRY(ParseCapacityTier(name)));
}

std::optional<RunEvent> JournalEvent(const json& record) {
  if (record.value("record", "") != "event" || !record.value("kind", json()).is_string()) {
    return std::nullopt;
  }
  const std::optional<EventKind> kind = EventKindNamed(record.value("kind", ""));
  const std::optional<WallTime> at = ParseWallTime(record.value("at", ""));
  if (!kind || !at) return std::nullopt;
  RunEvent e;
  e.kind = *kind;
  e.at = *at;
  e.segment = Optional<int>(record, "segment").value_or(0);
  if (record.value("detail", json()).is_string()) e.detail = record["detail"].get<std::string>();
  e.step = Optional<int64_t>(record, "step");
  e.bytes = Optional<uint64_t>(record, "bytes");
  if (const auto ms = Optional<int64_t>(record, "duration_ms")) e.duration = Duration(*ms);
  if (record.value("cap", json()).is_string()) e.cap = CapKindNamed(record["cap"]);
  return e;
}

std::optional<monitor::Sample> JournalSample(const json& record) {
  if (record.value("record", "") != "sample") return std::nullopt;
  const std::optional<WallTime> at = ParseWallTime(record.value("at", ""));
  if (!at) return std::nullopt;
  monitor::Sample s;
  s.at = *at;
  s.processes = Optional<int>(record, "processes").value_or(0);
  s.cpu_cores = Optional<double>(record, "cpu_cores").value_or(0);
  s.rss_bytes = Optional<uint64_t>(record, "rss_bytes").value_or(0);
  s.io_wait_fraction = Optional<double>(record, "io_wait_fraction").value_or(0);
  s.gpu_util_percent = Optional<double>(record, "gpu_util_percent");
  s.gpu_memory_bytes = Optional<uint64_t>(record, "gpu_memory_bytes");
  s.gpu_power_watts = Optional<double>(record, "gpu_power_watts");
  s.sm_clock_mhz = Optional<double>(record, "sm_clock_mhz");
  s.sm_active_percent = Optional<double>(record, "sm_active_percent");
  s.tensor_active_percent = Optional<double>(record, "tensor_active_percent");
  return s;
}

std::string FormatWallTime(WallTime t) {
  return FormatIsoTime(std::chrono::floor<std::chrono::milliseconds>(t), IsoMillis::kAlways);
}

std::optional<WallTime> ParseWallTime(const std::string& text) {
  // Strict: a damaged record's time is no time (the sscanf this replaces took "2026-1-99...").
  const Result<Timestamp> at = ParseIsoTime(text);
  if (!at) return std::nullopt;
  return WallTime(*at);
}

namespace {

json UsageJson(const BudgetUsage& u) {
  return {
      {"spent_micros", u.spent.micros()}, {"gpu_hours", u.gpu_hours}, {"wall_ms", u.wall.count()}};
}

BudgetUsage UsageFrom(const json& j) {
  BudgetUsage u;
  u.spent = Money::FromMicros(j.value("spent_micros", int64_t{0}));
  u.gpu_hours = j.value("gpu_hours", 0.0);
  u.wall = Duration(j.value("wall_ms", int64_t{0}));
  return u;
}

BudgetUsage Add(const BudgetUsage& a, const BudgetUsage& b) {
  return {a.spent + b.spent, a.gpu_hours + b.gpu_hours, a.wall + b.wall};
}

/// a − b, never below zero (a damaged journal).
BudgetUsage Subtract(const BudgetUsage& a, const BudgetUsage& b) {
  return {std::max(a.spent - b.spent, Money()), std::max(a.gpu_hours - b.gpu_hours, 0.0),
          std::max(a.wall - b.wall, Duration(0))};
}

}  // namespace

RunJournal::RunJournal(std::filesystem::path path) : path_(std::move(path)) {}

namespace {

/// Why `path` cannot be written, in the user's words: "disk full" for ENOSPC and EDQUOT.
std::string CannotWrite(const std::filesystem::path& path, int error, const char* doing) {
  if (error == ENOSPC || error == EDQUOT) {
    return fmt::format(
        "{}: disk full: cannot {} the run's journal ({}); free some space or "
        "give another --run-dir",
        EscapeNonUtf8(path.string()), doing, std::strerror(error));
  }
  return fmt::format("{}: cannot {} the run's journal: {}", EscapeNonUtf8(path.string()), doing,
                     std::strerror(error));
}

}  // namespace

Result<void> RunJournal::Open() {
  if (fd_ >= 0) return {};
  std::error_code ec;
  std::filesystem::create_directories(path_.parent_path(), ec);
  if (ec) {
    return Fail(ErrorCode::kFailed,
                CannotWrite(path_.parent_path(), ec.value(), "create the folder of"));
  }
  const int fd = ::open(path_.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return Fail(ErrorCode::kFailed, CannotWrite(path_, errno, "open"));
  CutTornTail(fd);
  // An empty file can be created on a full disk; its first record could not. Reserving room
  // past the end (the file's size is unchanged) asks the filesystem for it now.
  reserved_end_ = 0;
  if (const int error = KeepReserve(fd, reserved_end_); error != 0) {
    ::close(fd);
    return Fail(ErrorCode::kFailed, CannotWrite(path_, error, "write"));
  }
  fd_ = fd;
  return {};
}

RunJournal::~RunJournal() {
  Flush();
  if (fd_ >= 0) ::close(fd_);
}

void RunJournal::RunStatusDecided(const std::string& status, WallTime end) {
  Append({{"record", "run_status"},
          {"at", FormatWallTime(std::chrono::system_clock::now())},
          {"status", status},
          {"end", FormatWallTime(end)}});
}

void RunJournal::Append(json record) {
  record["v"] = 1;
  // Every text a record holds is UTF-8 by now (run_text.h); should one not be, its bad bytes
  // become U+FFFD rather than the record (and the run's accounting) being lost.
  pending_.push_back(record.dump(-1, ' ', false, json::error_handler_t::replace) + "\n");
  Flush();
}

void RunJournal::CutTornTail(int fd) const {
  if (const long cut = CutTornLastLine(fd); cut > 0) {
    log::Warning("{}: cut off a torn last record ({} bytes) before appending",
                 EscapeNonUtf8(path_.string()), cut);
  }
}

void RunJournal::Flush() {
  if (pending_.empty()) return;
  if (fd_ < 0) {
    std::error_code ec;
    std::filesystem::create_directories(path_.parent_path(), ec);
    fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd_ >= 0) CutTornTail(fd_);
    reserved_end_ = 0;
  }
  size_t written = 0;
  int error = 0;
  if (fd_ < 0) error = errno;
  // Each record whole or not at all (journal_file.h); the first that fails and all after it
  // stay in memory, in order, for the next try.
  for (; error == 0 && written < pending_.size(); ++written) {
    error = AppendWholeLine(fd_, pending_[written]);
    if (error != 0) {
      reserved_end_ = 0;  // a record cut back off took the room past it along
      break;
    }
  }
  if (written > 0) {
    ::fdatasync(fd_);
    // Room for the records that end the run, should the disk fill up (best effort: a full disk
    // refuses it, and what is still reserved is used first).
    [[maybe_unused]] const int reserved = KeepReserve(fd_, reserved_end_);
  }
  pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(written));
  if (error != 0 && !warned_) {
    warned_ = true;
    log::Warning(
        "{}: cannot append to the run journal ({}); keeping records in memory and retrying",
        path_.string(), std::strerror(error));
  }
}

void RunJournal::RunStarted(const RunStart& s) {
  json caps = json::object();
  if (s.caps.dollars) caps["dollars_micros"] = s.caps.dollars->micros();
  if (s.caps.gpu_hours) caps["gpu_hours"] = *s.caps.gpu_hours;
  if (s.caps.wall) caps["wall_ms"] = s.caps.wall->count();
  // The command runs as given; bytes that are not UTF-8 are written escaped (run_text.h).
  json command = json::array();
  for (const std::string& arg : s.command) command.push_back(EscapeNonUtf8(arg));
  Append({{"record", "run_started"},
          {"at", FormatWallTime(s.at)},
          {"run_id", s.run_id},
          {"attempt", s.attempt},
          {"command", command},
          {"tags", s.tags},
          {"offer", s.offer},
          {"tier", s.tier ? CapacityTierName(*s.tier) : ""},
          {"price_per_hour_micros", s.price.per_hour.micros()},
          {"gpus", s.gpus},
          {"caps", caps}});
}

void RunJournal::SegmentOpened(const SegmentOpen& o) {
  Append({{"record", "segment_opened"},
          {"at", FormatWallTime(o.at)},
          {"segment", o.segment},
          {"resume_from", o.resume_from ? json(o.resume_from->string()) : json()},
          {"resume_step", o.resume_step}});
}

void RunJournal::SegmentClosed(const SegmentClose& c) {
  json exit = json();
  if (c.exit) exit = {{"exit_code", c.exit->exit_code}, {"signal", c.exit->signal}};
  Append({{"record", "segment_closed"},
          {"at", FormatWallTime(c.at)},
          {"segment", c.segment},
          {"end", SegmentEndName(c.end)},
          {"exit", exit},
          {"cost_micros", c.cost.micros()},
          {"last_step", c.last_step}});
}

void RunJournal::Event(const RunEvent& e) {
  json record = {{"record", "event"},
                 {"at", FormatWallTime(e.at)},
                 {"segment", e.segment},
                 {"kind", EventKindName(e.kind)},
                 {"detail", e.detail}};
  if (e.step) record["step"] = *e.step;
  if (e.bytes) record["bytes"] = *e.bytes;
  if (e.duration) record["duration_ms"] = e.duration->count();
  if (e.cap) record["cap"] = CapKindName(*e.cap);
  Append(std::move(record));
}

void RunJournal::RecordSample(int segment, const monitor::Sample& s) {
  json record = {{"record", "sample"},
                 {"at", FormatWallTime(s.at)},
                 {"segment", segment},
                 {"processes", s.processes},
                 {"cpu_cores", s.cpu_cores},
                 {"rss_bytes", s.rss_bytes},
                 {"io_wait_fraction", s.io_wait_fraction}};
  if (s.gpu_util_percent) record["gpu_util_percent"] = *s.gpu_util_percent;
  if (s.gpu_memory_bytes) record["gpu_memory_bytes"] = *s.gpu_memory_bytes;
  if (s.gpu_power_watts) record["gpu_power_watts"] = *s.gpu_power_watts;
  if (s.sm_clock_mhz) record["sm_clock_mhz"] = *s.sm_clock_mhz;
  if (s.sm_active_percent) record["sm_active_percent"] = *s.sm_active_percent;
  if (s.tensor_active_percent) record["tensor_active_percent"] = *s.tensor_active_percent;
  Append(std::move(record));
}

void RunJournal::RecordHeartbeat(const Heartbeat& h) {
  Append({{"record", "heartbeat"},
          {"at", FormatWallTime(h.at)},
          {"segment", h.segment},
          {"usage", UsageJson(h.usage)},
          {"step", h.step}});
}

void RunJournal::RunFinished(const RunFinish& f) {
  Append({{"record", "run_finished"},
          {"at", FormatWallTime(f.at)},
          {"outcome", f.outcome},
          {"exit_code", f.exit_code},
          {"usage", UsageJson(f.usage)},
          {"preemptions", f.preemptions}});
}

std::vector<json> ReadJournal(const std::filesystem::path& path) {
  std::vector<json> records;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    json j = json::parse(line, nullptr, false);
    if (!j.is_discarded() && j.is_object() && j.contains("record")) records.push_back(std::move(j));
  }
  return records;
}

void CloseLostAttempt(const JournalHistory& h, WallTime at, RunRecorder& recorder) {
  if (h.open_segment) {
    SegmentClose c;
    c.segment = *h.open_segment;
    c.at = at;
    c.end = SegmentEnd::kLost;
    c.cost = h.open_segment_cost;
    c.last_step = h.last_step;
    recorder.SegmentClosed(c);
  }
  RunFinish f;
  f.at = at;
  f.outcome = "lost";
  f.exit_code = -1;
  f.usage = h.unfinished_usage;
  recorder.RunFinished(f);
}

WallTime CloseLostAttemptAtLastRecord(const JournalHistory& h, RunRecorder& recorder) {
  const WallTime at = h.last_seen.value_or(std::chrono::system_clock::now());
  CloseLostAttempt(h, at, recorder);
  return at;
}

namespace {

/// What an attempt's guard had counted when it was last heard from. Its heartbeats can lag by
/// an interval, so for an attempt that never finished the usage is also priced from its start
/// to its last record (the ledger's end for it): the larger of the two, so the next attempt's
/// caps never start from too little.
struct AttemptTally {
  std::optional<WallTime> started;
  Rate rate;
  int gpus = 0;
  /// What the earlier attempts had used when this one started: its guard's prior, which its
  /// heartbeats include (they carry the caps' whole count).
  BudgetUsage prior;
  BudgetUsage at_heartbeat;  ///< this attempt's own usage at its last heartbeat
  std::optional<WallTime> last_record;

  [[nodiscard]] BudgetUsage UpToLastRecord() const {
    BudgetUsage u = at_heartbeat;
    if (!started || !last_record || *last_record <= *started) return u;
    const auto elapsed = std::chrono::duration_cast<Duration>(*last_record - *started);
    u.spent = std::max(u.spent, rate.For(elapsed));
    u.gpu_hours = std::max(u.gpu_hours, ToHours(elapsed) * gpus);
    u.wall = std::max(u.wall, elapsed);
    return u;
  }
};

}  // namespace

JournalHistory ReadJournalHistory(const std::filesystem::path& path) {
  JournalHistory h;
  AttemptTally attempt;
  bool attempt_open = false;
  std::optional<WallTime> segment_opened;
  for (const json& r : ReadJournal(path)) {
    const std::string kind = r.value("record", "");
    const std::optional<WallTime> at =
        r.contains("at") ? ParseWallTime(r.value("at", "")) : std::optional<WallTime>();
    if (kind == "run_started") {
      // A previous attempt without run_finished was lost: count it to its last record.
      if (attempt_open) h.usage = Add(h.usage, attempt.UpToLastRecord());
      ++h.attempts;
      attempt = AttemptTally{at,
                             Rate{Money::FromMicros(r.value("price_per_hour_micros", int64_t{0}))},
                             r.value("gpus", 0),
                             h.usage,
                             {},
                             at};
      attempt_open = true;
    } else if (kind == "segment_opened") {
      h.segments = std::max(h.segments, r.value("segment", 0));
      h.open_segment = r.value("segment", 0);
      segment_opened = at;
    } else if (kind == "segment_closed") {
      if (h.open_segment == r.value("segment", 0)) h.open_segment.reset();
      if (segment_opened && at && *at > *segment_opened) {
        h.recorded.AddHeld(std::chrono::duration_cast<Duration>(*at - *segment_opened),
                           attempt.rate, attempt.gpus);
      }
      segment_opened.reset();
    } else if (kind == "heartbeat" && r.contains("usage")) {
      // A heartbeat carries the caps' count, earlier attempts included: take them out, or a
      // lost attempt would count them again (and the next one again, twice).
      attempt.at_heartbeat = Subtract(UsageFrom(r.at("usage")), attempt.prior);
      h.last_step = std::max(h.last_step, r.value("step", int64_t{0}));
    } else if (kind == "event" && r.value("kind", "") == "preempted") {
      ++h.preemptions;
    } else if (kind == "run_finished") {
      h.usage = Add(h.usage, r.contains("usage") ? UsageFrom(r.at("usage")) : attempt.at_heartbeat);
      h.last_outcome = r.value("outcome", "");
      attempt_open = false;
    }
    if (at) {
      h.last_seen = at;
      attempt.last_record = at;
    }
  }
  if (h.open_segment && segment_opened && attempt.last_record &&
      *attempt.last_record > *segment_opened) {
    h.open_segment_cost = attempt.rate.For(
        std::chrono::duration_cast<Duration>(*attempt.last_record - *segment_opened));
  }
  if (attempt_open) {
    h.unfinished_usage = attempt.UpToLastRecord();
    h.usage = Add(h.usage, h.unfinished_usage);
    h.unfinished_attempt = true;
  }
  return h;
}

}  // namespace frugal::run
