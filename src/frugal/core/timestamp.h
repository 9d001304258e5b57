#pragma once
// Points in time as frugal records and reads them: UTC to the millisecond, written as ISO 8601 /
// RFC 3339 ("2026-11-21T05:03:14Z", "2026-11-21T05:03:14.250Z"), and one strict parser for all
// of it (the ledger's times, a run journal's, what a user types).

#include <chrono>
#include <string>
#include <string_view>

#include "frugal/core/error.h"

namespace frugal {

/// Milliseconds since the Unix epoch, UTC.
using Timestamp = std::chrono::sys_time<std::chrono::milliseconds>;

enum class IsoMillis {
  kWhenNonZero,  ///< "…:14Z", "…:14.250Z"
  kAlways,       ///< "…:14.000Z" (fixed width: a journal's records)
};

/// "2026-11-21T05:03:14Z", with ".fff" as `millis` says.
[[nodiscard]] std::string FormatIsoTime(Timestamp t, IsoMillis millis = IsoMillis::kWhenNonZero);

/// Accepts "YYYY-MM-DD", "YYYY-MM-DDTHH:MM[:SS[.f…]](Z|+00:00|+0000)" and the SQL-export form
/// "YYYY-MM-DD HH:MM[:SS]", around surrounding blanks; times without an offset are UTC, digits
/// past milliseconds are dropped. Every field is checked (a 30 February, hour 24, a fraction
/// without digits are refused). kBadInput quoting the text otherwise.
[[nodiscard]] Result<Timestamp> ParseIsoTime(std::string_view text);

/// The first instant (00:00 UTC on the 1st) of the calendar month `months_ahead` months after
/// the one `t` is in (0: its own month, 1: the next, -1: the one before).
[[nodiscard]] Timestamp MonthStart(Timestamp t, int months_ahead = 0);

/// The calendar periods budgets are kept over (UTC; weeks start on Monday, ISO 8601).
enum class CalendarPeriod { kWeek, kMonth, kQuarter, kYear };
/// "week", "month", "quarter", "year".
[[nodiscard]] std::string_view CalendarPeriodName(CalendarPeriod p);

/// The period of kind `p` that contains `t`: [start, end).
struct PeriodBounds {
  Timestamp start{};
  Timestamp end{};
};
[[nodiscard]] PeriodBounds PeriodAround(CalendarPeriod p, Timestamp t);

}  // namespace frugal
