#pragma once
// Durations are whole milliseconds; users write them as "90s", "45m", "24h", "3d", "2h30m",
// "2.2h" or "1d12h".

#include <chrono>
#include <string>
#include <string_view>

#include "frugal/core/error.h"

namespace frugal {

using Duration = std::chrono::milliseconds;

/// Parses a duration: one or more <number><unit> parts with units ms, s, m, h, d, w (a number
/// may have decimals: "2.2h"). A bare number is rejected
/// (ambiguous unit), as is a negative one. kBadInput names the offending text.
[[nodiscard]] Result<Duration> ParseDuration(std::string_view text);

/// Humanized: "2h05m", "45m", "1m30s", "3d4h", "850ms"; zero is "0s".
[[nodiscard]] std::string FormatDuration(Duration d);
/// Humanized as an upper bound, never shown below `d`: under a minute to the hundredth of a
/// second rounded up ("1.23s", "850ms"), else FormatDuration of `d` rounded up to the second.
[[nodiscard]] std::string FormatDurationAtMost(Duration d);

inline double ToHours(Duration d) { return static_cast<double>(d.count()) / 3'600'000.0; }
inline double ToSeconds(Duration d) { return static_cast<double>(d.count()) / 1'000.0; }
/// Rounds to the nearest millisecond.
Duration FromHours(double hours);
Duration FromSeconds(double seconds);

}  // namespace frugal
