#include "frugal/core/timestamp.h"

#include <fmt/format.h>

#include <array>
#include <ctime>

#include "frugal/core/duration.h"
#include "frugal/core/text.h"

namespace frugal {
namespace {

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

std::string FormatIsoTime(Timestamp t, IsoMillis millis_shown) {
  const int64_t ms = t.time_since_epoch().count();
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
  if (millis != 0 || millis_shown == IsoMillis::kAlways) out += fmt::format(".{:03}", millis);
  return out + "Z";
}

Result<Timestamp> ParseIsoTime(std::string_view raw) {
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
    if (!hour || !minute || text[13] != ':') return bad();
    tm.tm_hour = *hour;
    tm.tm_min = *minute;
    pos = 16;
    if (pos < text.size() && text[pos] == ':') {  // seconds may be left out: "…T20:35Z"
      auto second = Digits(text, 17, 2);
      if (!second) return bad();
      tm.tm_sec = *second;
      pos = 19;
    }
    if (pos < text.size() && text[pos] == '.') {
      int64_t scale = 100;
      const size_t first_digit = ++pos;
      for (; pos < text.size() && text[pos] >= '0' && text[pos] <= '9'; ++pos) {
        millis += (text[pos] - '0') * scale;
        scale /= 10;
      }
      if (pos == first_digit) return bad();
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
  return Timestamp(Duration(static_cast<int64_t>(seconds) * 1000 + millis));
}

Timestamp MonthStart(Timestamp t, int months_ahead) {
  using namespace std::chrono;
  const year_month_day day{floor<days>(t)};
  const year_month month = year_month{day.year(), day.month()} + months{months_ahead};
  return Timestamp(sys_days{month / 1}.time_since_epoch());
}

std::string_view CalendarPeriodName(CalendarPeriod p) {
  switch (p) {
    case CalendarPeriod::kWeek:
      return "week";
    case CalendarPeriod::kMonth:
      return "month";
    case CalendarPeriod::kQuarter:
      return "quarter";
    case CalendarPeriod::kYear:
      return "year";
  }
  return "month";
}

PeriodBounds PeriodAround(CalendarPeriod p, Timestamp t) {
  using namespace std::chrono;
  const sys_days day = floor<days>(t);
  if (p == CalendarPeriod::kWeek) {
    const sys_days monday = day - (weekday{day} - Monday);
    return {Timestamp(monday.time_since_epoch()),
            Timestamp((monday + weeks{1}).time_since_epoch())};
  }
  const year_month_day ymd{day};
  const auto month_index = static_cast<int>(static_cast<unsigned>(ymd.month())) - 1;
  const int first = p == CalendarPeriod::kMonth     ? month_index
                    : p == CalendarPeriod::kQuarter ? month_index / 3 * 3
                                                    : 0;
  const int span = p == CalendarPeriod::kMonth ? 1 : p == CalendarPeriod::kQuarter ? 3 : 12;
  const Timestamp year_start = MonthStart(t, -month_index);
  return {MonthStart(year_start, first), MonthStart(year_start, first + span)};
}

}  // namespace frugal
