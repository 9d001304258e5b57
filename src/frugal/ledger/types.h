#pragma once
// The ledger's records: runs split into segments on one offer each, typed events, utilization
// samples, and the names their enums have on disk and on the command line. Times are UTC
// milliseconds; money is exact micro-dollars.

#include <chrono>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frugal/core/duration.h"
#include "frugal/core/error.h"
#include "frugal/core/money.h"
#include "frugal/core/tier.h"

namespace frugal::ledger {

using Timestamp = std::chrono::sys_time<std::chrono::milliseconds>;
using RunId = int64_t;
using SegmentId = int64_t;

[[nodiscard]] inline int64_t ToMillis(Timestamp t) { return t.time_since_epoch().count(); }
[[nodiscard]] inline Timestamp FromMillis(int64_t ms) { return Timestamp(Duration(ms)); }
/// The current wall-clock time, truncated to milliseconds.
[[nodiscard]] Timestamp Now();
/// "2026-11-21T05:03:14Z" (milliseconds appended only when non-zero: ".250Z").
[[nodiscard]] std::string FormatTimestamp(Timestamp t);
/// Accepts "YYYY-MM-DD", "YYYY-MM-DDTHH:MM:SS[.fff](Z|+00:00)" and the SQL-export form
/// "YYYY-MM-DD HH:MM:SS". Times without an offset are UTC. kBadInput otherwise.
[[nodiscard]] Result<Timestamp> ParseTimestamp(std::string_view text);

/// A point in time for --since/--until: a duration back from `now` ("7d", "36h") or a date
/// or time as ParseTimestamp accepts. kBadInput otherwise.
[[nodiscard]] Result<Timestamp> ParseTimeOrAgo(std::string_view text, Timestamp now);

/// kPaused and kPruned are a tune trial's: checkpointed at a rung to resume later, or stopped
/// by the tuner's scheduler (set by the tuner once the trial's segment has ended).
enum class RunStatus {
  kRunning,
  kSucceeded,
  kFailed,
  kBudgetStopped,
  kCancelled,
  kLost,
  kPaused,
  kPruned
};
[[nodiscard]] std::string_view RunStatusName(RunStatus s);
[[nodiscard]] Result<RunStatus> ParseRunStatus(std::string_view text);

/// Why a segment (an uninterrupted stretch on one offer) ended.
enum class EndReason { kFinished, kPreempted, kBudgetStop, kPaused, kFailed, kLost };
[[nodiscard]] std::string_view EndReasonName(EndReason r);
[[nodiscard]] Result<EndReason> ParseEndReason(std::string_view text);

enum class EventType {
  kPreemptionNotice,
  kPreempted,
  kCheckpointCommitted,  ///< payload: bytes, write_seconds
  kResumed,              ///< payload: seconds_to_first_progress
  kBudgetWarning,
  kBudgetStop,
  kPruned,
  kPromoted,
  kPolicyOverride,
  kNote,
};
[[nodiscard]] std::string_view EventTypeName(EventType t);
[[nodiscard]] Result<EventType> ParseEventType(std::string_view text);

/// team, project and owner, plus any other key=value.
struct Tags {
  std::string team;
  std::string project;
  std::string owner;
  std::map<std::string, std::string> extra;

  /// The value of `key` ("team", "project", "owner" or an extra key); "" when absent.
  [[nodiscard]] std::string Get(std::string_view key) const;
  /// Sets a key; team/project/owner land in their fields.
  void Set(const std::string& key, const std::string& value);
  /// All tags as one flat JSON object (absent ones left out).
  [[nodiscard]] nlohmann::json ToJson() const;
  /// Parses "key=value"; kBadInput on anything else.
  [[nodiscard]] Result<void> SetFromText(std::string_view key_value);
};

/// One "key=value" tag, both sides trimmed: the one reading of a tag every flag and file uses
/// (--tag, a queue budget's tag:, a filter). kBadInput ("'x' is not key=value (e.g.
/// team=nlp)") without '=' or with an empty key.
struct Tag {
  std::string key;
  std::string value;
};
[[nodiscard]] Result<Tag> ParseTag(std::string_view key_value);

/// What a new run is: what the supervisor knows when it starts.
struct NewRun {
  std::string name;
  std::string command;
  std::string spec;  ///< the job spec text (YAML) as given
  Tags tags;
  std::optional<Money> budget;
  std::optional<double> gpu_hours_cap;
  Timestamp start{};
};

/// The offer a segment ran on, with the price actually paid.
struct SegmentOffer {
  std::string cloud;
  std::string instance_type;
  std::string region;
  std::string zone;  ///< empty when unknown
  std::string gpu;   ///< empty for CPU-only
  int gpu_count = 0;
  /// core/tier.h's tier (owned: capacity paid for whether used or not, never a spot
  /// candidate); the segments table holds its name, parsed once where a row is read.
  CapacityTier tier = CapacityTier::kOnDemand;
  Rate price;
  std::optional<Rate> on_demand_price;  ///< the same offer's on-demand price, when known
};

struct Segment {
  SegmentId id = 0;
  RunId run_id = 0;
  SegmentOffer offer;
  Timestamp start{};
  std::optional<Timestamp> end;
  std::optional<EndReason> end_reason;

  /// Length up to `end`, or up to `now` while still open.
  [[nodiscard]] Duration Length(Timestamp now) const;
  /// price × length, exact to the micro-dollar.
  [[nodiscard]] Money Cost(Timestamp now) const { return offer.price.For(Length(now)); }
  [[nodiscard]] double GpuHours(Timestamp now) const {
    return ToHours(Length(now)) * offer.gpu_count;
  }
};

struct Event {
  int64_t id = 0;
  RunId run_id = 0;
  std::optional<SegmentId> segment_id;
  Timestamp time{};
  EventType type = EventType::kNote;
  nlohmann::json payload = nlohmann::json::object();
};

/// One utilization reading; absent values are unknown, not zero.
struct Sample {
  Timestamp time{};
  std::optional<double> gpu_util;       ///< percent
  std::optional<double> sm_active;      ///< percent
  std::optional<double> tensor_active;  ///< percent of time a tensor pipe was active
  std::optional<double> gpu_mem_bytes;
  std::optional<double> power_watts;
  std::optional<double> cpu_util;  ///< percent of one core × cores
  std::optional<double> rss_bytes;
  std::optional<double> io_wait;  ///< percent
};

struct Run {
  RunId id = 0;
  std::string name;
  std::string command;
  std::string spec;
  Tags tags;
  RunStatus status = RunStatus::kRunning;
  Timestamp start{};
  std::optional<Timestamp> end;
  std::optional<Timestamp> heartbeat;
  std::optional<Money> budget;
  std::optional<double> gpu_hours_cap;
};

/// Averages over a run's samples (hourly rollups), for show and reports.
struct Utilization {
  int64_t samples = 0;
  std::optional<double> gpu_util;
  std::optional<double> cpu_util;
  std::optional<double> gpu_mem_bytes;
  std::optional<double> power_watts;
  std::optional<double> io_wait;
};

}  // namespace frugal::ledger
