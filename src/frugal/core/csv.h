#pragma once
// An RFC 4180 CSV reader that remembers where every field came from, so errors can name
// file:line:column. Quoted fields may hold commas, doubled quotes and newlines.

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frugal/core/error.h"

namespace frugal {

struct CsvRecord {
  int line = 0;  ///< 1-based line where the record starts
  std::vector<std::string> fields;
  std::vector<int> columns;  ///< 1-based character column where each field starts
};

class CsvTable {
 public:
  /// Parses `text`; the first record is the header. `source` names the input in errors.
  /// kBadInput on an unterminated quote, an empty input or a byte that is not UTF-8.
  [[nodiscard]] static Result<CsvTable> Parse(std::string_view text, std::string source);
  [[nodiscard]] static Result<CsvTable> Load(const std::filesystem::path& path);

  const std::string& source() const { return source_; }
  const std::vector<std::string>& header() const { return header_.fields; }
  const std::vector<CsvRecord>& rows() const { return rows_; }

  std::optional<size_t> Column(std::string_view name) const;
  /// The column's index, or kBadInput "file:1: missing column 'Price'" (or "file:1:40: column
  /// 'Price' appears twice").
  [[nodiscard]] Result<size_t> RequireColumn(std::string_view name) const;

  /// kBadInput "file:line: 3 fields, the header has 9" for the first row whose field count
  /// differs from the header's: a cut-off or hand-damaged file, which readers of machine-written
  /// tables refuse rather than read short rows as empty fields.
  [[nodiscard]] Result<void> RequireFullRows() const;

  /// "file:line:column" of a field (the record's start when the field is absent).
  std::string Where(const CsvRecord& record, size_t column) const;
  /// The field, or "" when the row is short.
  static const std::string& Field(const CsvRecord& record, size_t column);

 private:
  std::string source_;
  CsvRecord header_;
  std::vector<CsvRecord> rows_;
};

/// Quotes a field for CSV output when it needs it.
std::string CsvEscape(std::string_view field);

}  // namespace frugal
