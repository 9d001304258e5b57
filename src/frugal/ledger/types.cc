#include "frugal/ledger/types.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <ctime>
#include <utility>

#include "frugal/core/text.h"
#include "frugal/core/tier.h"

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

Result<int> Digits(std::string_view text, size_t pos, size_t count) {
  if (pos + count > text.size()) return Fail(ErrorCode::kBadInput, "short");
  int value = 0;
  for (size_t i = pos; i < pos + count; ++i) {
    if (text[i] < '0' || text[i] > '9') return Fail(ErrorCode::kBadInput, "digit");
    value = value * 10 + (text[i] - '0');
  }
  return value;
}

}  // namespace

Timestamp Now() {
  return std::chrono::time_point_cast<std::chrono::milliseconds>(std::chrono::system_clock::now());
}

std::string FormatTimestamp(Timestamp t) {
  const int64_t ms = ToMillis(t);
  int64_t seconds = ms / 1000;
  int64_t millis = ms % 1000;
  if (millis < 0) {
    millis += 1000;
    seconds -= 1;
  }
  const auto secs = static_cast<std::time_t>(seconds);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  std::string out = fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}", tm.tm_year + 1900,
                                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
  if (millis != 0) out += fmt::format(".{:03}", millis);
  return out + "Z";
}

Result<Timestamp> ParseTimestamp(std::string_view raw) {
  const std::string_view text = Trim(raw);
  auto bad = [&]() {
    return Fail(ErrorCode::kBadInput,
                fmt::format("invalid time '{}' (want YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ)", raw));
  };
  auto year = Digits(text, 0, 4);
  auto month = Digits(text, 5, 2);
  auto day = Digits(text, 8, 2);
  if (!year || !month || !day || text[4] != '-' || text[7] != '-') return bad();
  std::tm tm{};
  tm.tm_year = *year - 1900;
  tm.tm_mon = *month - 1;
  tm.tm_mday = *day;
  int64_t millis = 0;
  size_t pos = 10;
  if (text.size() > 10) {
    if (text[10] != 'T' && text[10] != ' ') return bad();
    auto hour = Digits(text, 11, 2);
    auto minute = Digits(text, 14, 2);
    auto second = Digits(text, 17, 2);
    if (!hour || !minute || !second || text[13] != ':' || text[16] != ':') return bad();
    tm.tm_hour = *hour;
    tm.tm_min = *minute;
    tm.tm_sec = *second;
    pos = 19;
    if (pos < text.size() && text[pos] == '.') {
      int64_t scale = 100;
      for (++pos; pos < text.size() && text[pos] >= '0' && text[pos] <= '9'; ++pos) {
        millis += (text[pos] - '0') * scale;
        scale /= 10;
      }
    }
    const std::string_view zone = text.substr(pos);
    if (!(zone.empty() || zone == "Z" || zone == "+00:00" || zone == "+0000")) return bad();
  }
  if (*month < 1 || *month > 12 || *day < 1 || *day > 31 || tm.tm_hour > 23 || tm.tm_min > 59 ||
      tm.tm_sec > 60) {
    return bad();
  }
  // timegm would quietly roll 2026-02-30 over into March.
  const bool leap = (*year % 4 == 0 && *year % 100 != 0) || *year % 400 == 0;
  constexpr std::array<int, 12> kDaysInMonth = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const int month_days = kDaysInMonth[static_cast<size_t>(*month - 1)] + (leap && *month == 2);
  if (*day > month_days) return bad();
  const std::time_t seconds = timegm(&tm);
  return FromMillis(static_cast<int64_t>(seconds) * 1000 + millis);
}

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

Result<std::string> NormalizeTier(std::string_view raw) {
  const CapacityTier tier = FRUGAL_TRY(ParseCapacityTier(raw));
  return std::string(CapacityTierName(tier));
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

Result<void> Tags::SetFromText(std::string_view key_value) {
  const size_t eq = key_value.find('=');
  if (eq == std::string_view::npos || eq == 0) {
    return Fail(ErrorCode::kBadInput, fmt::format("tag '{}' is not key=value", key_value));
  }
  Set(std::string(Trim(key_value.substr(0, eq))), std::string(Trim(key_value.substr(eq + 1))));
  return {};
}

Duration Segment::Length(Timestamp now) const {
  const Timestamp stop = end.value_or(now);
  return stop > start ? std::chrono::duration_cast<Duration>(stop - start) : Duration(0);
}

}  // namespace frugal::ledger
