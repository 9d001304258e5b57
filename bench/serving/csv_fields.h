// The typed fields the serving quality programs read from their CSV tables
// (serving_accuracy, serving_heldout): a bad field names its file, line and column.
#pragma once

#include <cstddef>

#include "frugal/core/csv.h"
#include "frugal/core/text.h"

namespace frugal::bench {

inline Result<int> Int(const CsvTable& t, const CsvRecord& r, size_t c) {
  auto v = ParseInt(CsvTable::Field(r, c));
  if (!v) return Fail(ErrorCode::kBadInput, t.Where(r, c) + ": not an integer");
  return static_cast<int>(*v);
}

inline Result<double> Num(const CsvTable& t, const CsvRecord& r, size_t c) {
  auto v = ParseDouble(CsvTable::Field(r, c));
  if (!v) return Fail(ErrorCode::kBadInput, t.Where(r, c) + ": not a number");
  return *v;
}

}  // namespace frugal::bench
