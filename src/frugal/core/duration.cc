#include "frugal/core/duration.h"

#include <fmt/format.h>

#include <cmath>

namespace frugal {
namespace {

// Milliseconds per unit, or 0 for an unknown unit.
int64_t UnitMillis(std::string_view unit) {
  if (unit == "ms") return 1;
  if (unit == "s" || unit == "sec") return 1'000;
  if (unit == "m" || unit == "min") return 60'000;
  if (unit == "h" || unit == "hr") return 3'600'000;
  if (unit == "d") return 86'400'000;
  if (unit == "w") return 7 * 86'400'000LL;
  return 0;
}

}  // namespace

Result<Duration> ParseDuration(std::string_view text) {
  const std::string original(text);
  auto bad = [&](const std::string& why) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("invalid duration '{}': {} (expected e.g. 90s, 45m, 24h, 3d, 2h30m)",
                            original, why));
  };
  if (text.empty()) return bad("empty");
  double total_ms = 0;
  size_t i = 0;
  while (i < text.size()) {
    const size_t number_start = i;
    bool seen_dot = false;
    while (i < text.size() &&
           ((text[i] >= '0' && text[i] <= '9') || (text[i] == '.' && !seen_dot))) {
      if (text[i] == '.') seen_dot = true;
      ++i;
    }
    const std::string number(text.substr(number_start, i - number_start));
    if (number.empty() || number == ".") {
      return bad(text[number_start] == '-' ? "negative" : "expected a number");
    }
    const size_t unit_start = i;
    while (i < text.size() && std::isalpha(static_cast<unsigned char>(text[i]))) ++i;
    const std::string_view unit = text.substr(unit_start, i - unit_start);
    if (unit.empty()) return bad("missing unit");
    const int64_t millis = UnitMillis(unit);
    if (millis == 0) return bad(fmt::format("unknown unit '{}'", unit));
    total_ms += std::stod(number) * static_cast<double>(millis);
  }
  if (total_ms > 1e15) return bad("too long");
  return Duration(std::llround(total_ms));
}

std::string FormatDurationAtMost(Duration d) {
  const int64_t ms = d.count();
  if (ms < 1'000) return FormatDuration(d);
  if (ms < 60'000) {
    const int64_t centis = (ms + 9) / 10;
    return fmt::format("{}.{:02d}s", centis / 100, centis % 100);
  }
  return FormatDuration(Duration((ms + 999) / 1'000 * 1'000));  // whole seconds, rounded up
}

std::string FormatDuration(Duration d) {
  int64_t ms = d.count();
  const char* sign = "";
  if (ms < 0) {
    sign = "-";
    ms = -ms;
  }
  if (ms < 1'000) return fmt::format("{}{}ms", sign, ms);
  const int64_t total_s = (ms + 500) / 1'000;
  const int64_t days = total_s / 86'400;
  const int64_t hours = total_s % 86'400 / 3'600;
  const int64_t minutes = total_s % 3'600 / 60;
  const int64_t seconds = total_s % 60;
  if (days > 0) {
    return hours > 0 ? fmt::format("{}{}d{}h", sign, days, hours)
                     : fmt::format("{}{}d", sign, days);
  }
  if (hours > 0) {
    return minutes > 0 ? fmt::format("{}{}h{:02d}m", sign, hours, minutes)
                       : fmt::format("{}{}h", sign, hours);
  }
  if (minutes > 0) {
    return seconds > 0 ? fmt::format("{}{}m{:02d}s", sign, minutes, seconds)
                       : fmt::format("{}{}m", sign, minutes);
  }
  return fmt::format("{}{}s", sign, seconds);
}

Duration FromHours(double hours) { return Duration(std::llround(hours * 3'600'000.0)); }
Duration FromSeconds(double seconds) { return Duration(std::llround(seconds * 1'000.0)); }

}  // namespace frugal
