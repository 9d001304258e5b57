#pragma once
// One data row of a FOCUS CSV file as the importer reads it: FOCUS null handling, strict
// FOCUS numbers, counting of tolerated quirks, and every problem named by file:line:column.

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "frugal/core/csv.h"
#include "frugal/core/money.h"
#include "frugal/ledger/focus.h"

namespace frugal::ledger {

/// FOCUS numeric text as a plain decimal: "8e-07" → "0.0000008", "-1.50" → "-1.5". nullopt
/// when the text is not a FOCUS number: an optional sign, digits with at most one '.', and an
/// optional exponent; no grouping separators, currency symbols or spaces ("1,500", "$5",
/// "12,5", " 3" are not numbers; FocusRow trims spaces first).
[[nodiscard]] std::optional<std::string> PlainDecimal(std::string_view text);

/// A FOCUS number as sign, significant digits (no leading or trailing zeros; empty for zero)
/// and where the decimal point stands among them: digits × 10^(point_at − digits.size()).
struct DecimalParts {
  bool negative = false;
  std::string digits;
  int64_t point_at = 0;
};
/// nullopt when the text is not a FOCUS number (see PlainDecimal). Zero has no sign.
[[nodiscard]] std::optional<DecimalParts> SplitDecimal(std::string_view text);
/// Whether two numeric texts ("1e3", "1000.0", fmt's shortest form of a double) are the same
/// decimal number; false when either is not a FOCUS number.
[[nodiscard]] bool SameDecimal(std::string_view a, std::string_view b);

/// The quirks a real export has that the importer tolerates, as `repaired` names them.
inline constexpr const char* kQuirkLiteralNull = "literal NULL read as null";
inline constexpr const char* kQuirkEmptyNull = "empty string read as null";
inline constexpr const char* kQuirkSpaceTime = "space-separated datetime read as UTC";
inline constexpr const char* kQuirkCase = "allowed value in the wrong case normalized";
inline constexpr const char* kQuirkShifted = "number in AvailabilityZone (shifted column) dropped";
inline constexpr const char* kQuirkTagKeys = "padded tag keys trimmed";
inline constexpr const char* kQuirkBadTags = "unreadable Tags dropped";
inline constexpr const char* kQuirkPaddedNumber = "spaces around a number trimmed";
inline constexpr const char* kQuirkListCost =
    "ListCost differs from ListUnitPrice x PricingQuantity";

class FocusRow {
 public:
  /// `literal_nulls`: the file writes nulls as NULL, so an empty field is a (tolerated)
  /// empty string. Quirks are counted into `summary`, once per row each.
  FocusRow(const CsvTable& table, const CsvRecord& record, bool literal_nulls,
           FocusImportSummary& summary)
      : table_(table), record_(record), summary_(summary), literal_nulls_(literal_nulls) {}

  /// The field's text; nullopt when the column is absent or the field is a null (empty,
  /// NULL or null).
  [[nodiscard]] std::optional<std::string> Get(std::string_view column);

  /// A numeric field's text, spaces around it trimmed (a tolerated quirk); nullopt when null.
  [[nodiscard]] std::optional<std::string> Number(std::string_view column);
  /// An amount, rounded to the micro-dollar half away from zero; a null is nullopt, or a
  /// problem when `required`. `fine`, when given, gets the amount to 18 decimals.
  std::optional<Money> Amount(std::string_view column, bool required, FineAmount* fine = nullptr);
  /// A quantity (ConsumedQuantity); a null is nullopt.
  std::optional<double> Quantity(std::string_view column);
  /// A required date-time (ISO 8601 UTC, or the SQL-style quirk).
  std::optional<Timestamp> Time(std::string_view column);
  /// The value matched case-insensitively against the allowed ones; nullopt when null or not
  /// one of them.
  std::optional<std::string> Allowed(std::string_view column,
                                     std::initializer_list<std::string_view> allowed);

  /// Records that the row cannot be imported: "file:line:col: <message>".
  void Problem(std::string_view column, const std::string& message);
  [[nodiscard]] bool bad() const { return bad_; }
  void Note(const char* quirk);

  /// "file:line:col" of the column's field (the row's start when the column is absent).
  [[nodiscard]] std::string Where(std::string_view column) const;

 private:
  const CsvTable& table_;
  const CsvRecord& record_;
  FocusImportSummary& summary_;
  bool literal_nulls_ = false;
  bool bad_ = false;
  std::set<std::string> noted_;
};

}  // namespace frugal::ledger
