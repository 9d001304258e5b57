#include "frugal/queue/week_time.h"

#include <fmt/format.h>

#include <array>
#include <chrono>

#include "frugal/core/text.h"
#include "frugal/core/timestamp.h"

namespace frugal::queue {
namespace {

constexpr std::array<std::string_view, 7> kDayNames = {"mon", "tue", "wed", "thu",
                                                       "fri", "sat", "sun"};

int DayIndex(std::string_view name) {
  const std::string lower = ToLower(Trim(name));
  for (size_t i = 0; i < kDayNames.size(); ++i) {
    if (lower.size() >= 3 && std::string_view(lower).substr(0, 3) == kDayNames[i]) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

Error BadDays(std::string_view text) {
  return Error{ErrorCode::kBadInput,
               fmt::format("'{}' is not a day list (e.g. mon-fri, sat,sun, daily)", text)};
}

}  // namespace

int HourOfWeek(Seconds t) {
  const Seconds hours = t >= 0 ? t / 3600 : (t - 3599) / 3600;
  // 1970-01-01 was a Thursday: day 3 when Monday is day 0.
  const Seconds h = (hours + Seconds{3} * 24) % kHoursPerWeek;
  return static_cast<int>(h < 0 ? h + kHoursPerWeek : h);
}

Result<uint8_t> ParseDays(std::string_view text) {
  const std::string lower = ToLower(Trim(text));
  if (lower == "daily" || lower == "all") return static_cast<uint8_t>(0x7f);
  if (lower == "weekdays") return static_cast<uint8_t>(0x1f);
  if (lower == "weekends") return static_cast<uint8_t>(0x60);
  uint8_t days = 0;
  for (const std::string& part : Split(lower, ',')) {
    const std::vector<std::string> ends = Split(part, '-');
    if (ends.size() == 1) {
      const int d = DayIndex(ends[0]);
      if (d < 0) return tl::unexpected(BadDays(text));
      days = static_cast<uint8_t>(days | (1u << d));
    } else if (ends.size() == 2) {
      const int from = DayIndex(ends[0]);
      const int to = DayIndex(ends[1]);
      if (from < 0 || to < 0) return tl::unexpected(BadDays(text));
      for (int d = from;; d = (d + 1) % 7) {
        days = static_cast<uint8_t>(days | (1u << d));
        if (d == to) break;
      }
    } else {
      return tl::unexpected(BadDays(text));
    }
  }
  if (days == 0) return tl::unexpected(BadDays(text));
  return days;
}

Result<std::pair<int, int>> ParseHourRange(std::string_view text) {
  const std::string lower = ToLower(Trim(text));
  if (lower == "all") return std::pair{0, 24};
  const std::vector<std::string> ends = Split(lower, '-');
  const auto bad = [&] {
    return Fail(ErrorCode::kBadInput,
                fmt::format("'{}' is not an hour range (e.g. 22-06, 9-17, all)", text));
  };
  if (ends.size() != 2) return bad();
  auto from = ParseInt(Trim(ends[0]));
  auto to = ParseInt(Trim(ends[1]));
  if (!from || !to || *from < 0 || *from > 23 || *to < 0 || *to > 24 || *from == *to) return bad();
  return std::pair{static_cast<int>(*from), static_cast<int>(*to)};
}

HourSet MakeHourSet(uint8_t days, int from_hour, int to_hour) {
  HourSet set;
  const int length = to_hour > from_hour ? to_hour - from_hour : 24 - from_hour + to_hour;
  for (int d = 0; d < 7; ++d) {
    if ((days & (1u << d)) == 0) continue;
    for (int i = 0; i < length; ++i) {
      set.set(static_cast<size_t>((d * 24 + from_hour + i) % kHoursPerWeek));
    }
  }
  return set;
}

Seconds SecondsAt(WallTime t) {
  return std::chrono::floor<std::chrono::seconds>(t).time_since_epoch().count();
}

Result<Seconds> ParseUtcTime(std::string_view text) {
  const Timestamp t = FRUGAL_TRY(ParseIsoTime(text));
  return std::chrono::floor<std::chrono::seconds>(t).time_since_epoch().count();
}

std::string FormatUtcTime(Seconds t) {
  // Whole seconds, so always "20:35:00Z", never "20:35Z" for one time and "20:35:07Z" the next.
  return FormatIsoTime(Timestamp(std::chrono::seconds(t)));
}

}  // namespace frugal::queue
