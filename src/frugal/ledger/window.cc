#include "frugal/ledger/window.h"

#include <fmt/format.h>

namespace frugal::ledger {
namespace {

Result<Timestamp> ParsePoint(std::string_view text, Timestamp now, std::string_view field) {
  if (text.empty()) return now;
  return ParseTimeOrAgo(text, now).map_error(
      [field](Error e) { return e.Wrap(std::string(field)); });
}

}  // namespace

Result<Timestamp> ParseSince(std::string_view since, Timestamp now, std::string_view prefix) {
  const std::string field = fmt::format("{}since", prefix);
  const Timestamp at = FRUGAL_TRY(ParsePoint(since, now, field));
  if (at >= now) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("{}: '{}' is not in the past ({}), and the window it starts ends now",
                            field, since, FormatTimestamp(at)));
  }
  return at;
}

Result<TimeWindow> ParseWindow(std::string_view since, std::string_view until, Timestamp now,
                               std::string_view prefix) {
  if (until.empty()) return TimeWindow{FRUGAL_TRY(ParseSince(since, now, prefix)), now};
  TimeWindow w;
  w.since = FRUGAL_TRY(ParsePoint(since, now, fmt::format("{}since", prefix)));
  w.until = FRUGAL_TRY(ParsePoint(until, now, fmt::format("{}until", prefix)));
  if (w.until <= w.since) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("{}until: {} is not after {}since ({})", prefix,
                            FormatTimestamp(w.until), prefix, FormatTimestamp(w.since)));
  }
  return w;
}

}  // namespace frugal::ledger
