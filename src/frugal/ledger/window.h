#pragma once
// The time window a report, an export, the daily spend or the audit covers: `--since` and
// `--until` as the user gives them (a duration back from now, or a date), read one way for
// every command and API request.

#include <string_view>

#include "frugal/ledger/types.h"

namespace frugal::ledger {

struct TimeWindow {
  Timestamp since;
  Timestamp until;  ///< exclusive
};

/// Reads `since` and `until` (each a duration back from `now` or a date; "" = now). kBadInput
/// naming the field with `prefix` ("--" for flags, "" for query parameters): a time that does
/// not parse; a `since` not before `now` when no `until` is given (the window would end before
/// it starts); an `until` not after `since`.
[[nodiscard]] Result<TimeWindow> ParseWindow(std::string_view since, std::string_view until,
                                             Timestamp now, std::string_view prefix);

/// Reads `since` alone (the audit's window ends now), as ParseWindow.
[[nodiscard]] Result<Timestamp> ParseSince(std::string_view since, Timestamp now,
                                           std::string_view prefix);

}  // namespace frugal::ledger
