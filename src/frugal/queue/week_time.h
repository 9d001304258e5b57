#pragma once
// Times in the queue, and the hours of the week that prices and windows are written in.
//
// Queue times are whole seconds since the Unix epoch, UTC (`Seconds`). Prices by hour of day
// and day of week, and windows such as "nights", are sets of the 168 hours of a week, hour 0
// being Monday 00:00–01:00 UTC.

#include <bitset>
#include <cstdint>
#include <string>
#include <string_view>

#include "frugal/core/clock.h"
#include "frugal/core/error.h"

namespace frugal::queue {

using Seconds = int64_t;  ///< seconds since 1970-01-01T00:00Z
/// `t` in the queue's whole seconds (rounded down): what a queue pass or view calls now.
[[nodiscard]] Seconds SecondsAt(WallTime t);
constexpr Seconds kNever = INT64_MAX / 4;  ///< "no deadline"; far enough to add hours to
constexpr int kHoursPerWeek = 168;
using HourSet = std::bitset<kHoursPerWeek>;

/// The hour of the week of `t` (0 = Monday 00:00 UTC).
[[nodiscard]] int HourOfWeek(Seconds t);

/// Parses a day list: "mon-fri", "sat,sun", "daily" (or "all"), "weekends", "weekdays"; day
/// names are the first three letters. kBadInput naming the text otherwise. Bit d is day d
/// (0 = Monday).
[[nodiscard]] Result<uint8_t> ParseDays(std::string_view text);
/// Parses an hour range "22-06" (wrapping past midnight), "9-17", "all"; [from, to) in hours
/// 0–24. kBadInput otherwise.
[[nodiscard]] Result<std::pair<int, int>> ParseHourRange(std::string_view text);
/// The hours of the week on `days` within [from, to) of each day (wrapping into the next day
/// when from > to, as a night that begins on Friday ends on Saturday morning).
[[nodiscard]] HourSet MakeHourSet(uint8_t days, int from_hour, int to_hour);

/// A UTC time as every frugal command reads one (core's ParseIsoTime: "2026-12-01T08:00Z",
/// "2026-12-01T08:00:00Z", "2026-12-01" for midnight; no offset means UTC), in whole seconds.
[[nodiscard]] Result<Seconds> ParseUtcTime(std::string_view text);
/// "2026-12-01T08:00:00Z": core's FormatIsoTime of whole seconds, so always with seconds.
[[nodiscard]] std::string FormatUtcTime(Seconds t);

}  // namespace frugal::queue
