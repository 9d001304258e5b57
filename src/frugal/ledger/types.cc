#include "frugal/ledger/types.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <ctime>
#include <utility>

#include "frugal/core/text.h"
#include "frugal/core/tier.h"
#include "frugal/core/timestamp.h"

namespace frugal::ledger {
namespace {

template <typename E, size_t N>
Result<E> ParseName(std::string_view text,
                    const std::array<std::pair<E, std::string_view>, N>& names,
                    std::string_view what) {
  for (const auto& [value, name] : names) {
    if (name == text) return value;
  }
  std::vector<std::string> known;
  for (const auto& entry : names) known.emplace_back(entry.second);
  std::string hint = DidYouMean(text, known);
  if (hint.empty()) hint = fmt::format(" (one of {})", fmt::join(known, ", "));
  return Fail(ErrorCode::kBadInput, fmt::format("unknown {} '{}'{}", what, Abbreviate(text), hint));
}

template <typename E, size_t N>
std::string_view NameOf(E value, const std::array<std::pair<E, std::string_view>, N>& names) {
  for (const auto& [v, name] : names) {
    if (v == value) return name;
  }
  return "unknown";
}

constexpr std::array<std::pair<RunStatus, std::string_view>, 8> kRunStatusNames{{
    {RunStatus::kRunning, "running"},
    {RunStatus::kSucceeded, "succeeded"},
    {RunStatus::kFailed, "failed"},
    {RunStatus::kBudgetStopped, "budget_stopped"},
    {RunStatus::kCancelled, "cancelled"},
    {RunStatus::kLost, "lost"},
    {RunStatus::kPaused, "paused"},
    {RunStatus::kPruned, "pruned"},
}};

constexpr std::array<std::pair<EndReason, std::string_view>, 6> kEndReasonNames{{
    {EndReason::kFinished, "finished"},
    {EndReason::kPreempted, "preempted"},
    {EndReason::kBudgetStop, "budget_stop"},
    {EndReason::kPaused, "paused"},
    {EndReason::kFailed, "failed"},
    {EndReason::kLost, "lost"},
}};

constexpr std::array<std::pair<EventType, std::string_view>, 10> kEventTypeNames{{
    {EventType::kPreemptionNotice, "preemption_notice"},
    {EventType::kPreempted, "preempted"},
    {EventType::kCheckpointCommitted, "checkpoint_committed"},
    {EventType::kResumed, "resumed"},
    {EventType::kBudgetWarning, "budget_warning"},
    {EventType::kBudgetStop, "budget_stop"},
    {EventType::kPruned, "pruned"},
    {EventType::kPromoted, "promoted"},
    {EventType::kPolicyOverride, "policy_override"},
    {EventType::kNote, "note"},
}};

}  // namespace

Timestamp Now() {
  return std::chrono::time_point_cast<std::chrono::milliseconds>(std::chrono::system_clock::now());
}

std::string FormatTimestamp(Timestamp t) { return FormatIsoTime(t); }

Result<Timestamp> ParseTimestamp(std::string_view text) { return ParseIsoTime(text); }

Result<Timestamp> ParseTimeOrAgo(std::string_view text, Timestamp now) {
  if (Result<Duration> ago = ParseDuration(text)) return now - *ago;
  Result<Timestamp> at = ParseTimestamp(text);
  if (at) return at;
  return Fail(ErrorCode::kBadInput,
              fmt::format("invalid time '{}' (want a duration back from now like 7d or 36h, or "
                          "a date like 2026-01-31)",
                          text));
}

std::string_view RunStatusName(RunStatus s) { return NameOf(s, kRunStatusNames); }
Result<RunStatus> ParseRunStatus(std::string_view text) {
  return ParseName(text, kRunStatusNames, "run status");
}
std::string_view EndReasonName(EndReason r) { return NameOf(r, kEndReasonNames); }
Result<EndReason> ParseEndReason(std::string_view text) {
  return ParseName(text, kEndReasonNames, "end reason");
}
std::string_view EventTypeName(EventType t) { return NameOf(t, kEventTypeNames); }
Result<EventType> ParseEventType(std::string_view text) {
  return ParseName(text, kEventTypeNames, "event type");
}

std::string Tags::Get(std::string_view key) const {
  if (key == "team") return team;
  if (key == "project") return project;
  if (key == "owner") return owner;
  auto it = extra.find(std::string(key));
  return it == extra.end() ? std::string() : it->second;
}

void Tags::Set(const std::string& key, const std::string& value) {
  if (key == "team") {
    team = value;
  } else if (key == "project") {
    project = value;
  } else if (key == "owner") {
    owner = value;
  } else {
    extra[key] = value;
  }
}

nlohmann::json Tags::ToJson() const {
  nlohmann::json out = nlohmann::json::object();
  if (!team.empty()) out["team"] = team;
  if (!project.empty()) out["project"] = project;
  if (!owner.empty()) out["owner"] = owner;
  for (const auto& [k, v] : extra) out[k] = v;
  return out;
}

Result<Tag> ParseTag(std::string_view key_value) {
  const size_t eq = key_value.find('=');
  const std::string_view key = Trim(key_value.substr(0, std::min(eq, key_value.size())));
  if (eq == std::string_view::npos || key.empty()) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("'{}' is not key=value (e.g. team=nlp)", key_value));
  }
  return Tag{std::string(key), std::string(Trim(key_value.substr(eq + 1)))};
}

Result<void> Tags::SetFromText(std::string_view key_value) {
  const Tag tag = FRUGAL_TRY(ParseTag(key_value));
  Set(tag.key, tag.value);
  return {};
}

Duration Segment::Length(Timestamp now) const {
  const Timestamp stop = end.value_or(now);
  return stop > start ? std::chrono::duration_cast<Duration>(stop - start) : Duration(0);
}

}  // namespace frugal::ledger
