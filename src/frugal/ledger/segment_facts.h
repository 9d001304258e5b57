#pragma once
// The one query that reads segments with the run facts reports group by (SegmentFact), under a
// condition on `s` (segments) and `r` (runs): Ledger::SegmentsBetween and fleet.h's
// OpenSegments each pass theirs.

#include <span>
#include <string_view>
#include <vector>

#include "frugal/ledger/ledger.h"

namespace frugal::ledger {

/// The segments matching `where` (SQL over `s` and `r`, with `params`), by run and start.
[[nodiscard]] Result<std::vector<SegmentFact>> SegmentFactsWhere(Connection& db,
                                                                 std::string_view where,
                                                                 std::span<const Value> params);

}  // namespace frugal::ledger
