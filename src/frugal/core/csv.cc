#include "frugal/core/csv.h"

#include <fmt/format.h>

#include "frugal/core/atomic_file.h"
#include "frugal/core/text.h"

namespace frugal {

// One function: the scanner is one state machine (quotes, line and column) that reads best whole.
Result<CsvTable> CsvTable::Parse(std::string_view text, std::string source) {
  // Every field may end up in a JSON document or the ledger, which hold only UTF-8 text.
  FRUGAL_TRY(RequireUtf8(text, source));
  CsvTable table;
  table.source_ = std::move(source);
  std::vector<CsvRecord> records;
  CsvRecord current;
  std::string field;
  int line = 1;
  int column = 1;
  int field_column = 1;
  bool in_quotes = false;
  bool field_started = false;
  int quote_line = 0;
  int quote_column = 0;
  current.line = 1;

  auto end_field = [&] {
    current.fields.push_back(std::move(field));
    current.columns.push_back(field_column);
    field.clear();
    field_started = false;
  };
  auto end_record = [&] {
    end_field();
    // A blank line is no record.
    if (!(current.fields.size() == 1 && current.fields[0].empty())) {
      records.push_back(std::move(current));
    }
    current = CsvRecord{};
  };

  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);  // UTF-8 byte order mark
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_quotes) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          field.push_back('"');
          ++i;
          ++column;
        } else {
          in_quotes = false;
        }
      } else {
        field.push_back(c);
        if (c == '\n') {
          ++line;
          column = 0;
        }
      }
      ++column;
      continue;
    }
    if (c == '"' && !field_started) {
      in_quotes = true;
      field_started = true;
      quote_line = line;
      quote_column = column;
    } else if (c == ',') {
      end_field();
      field_column = column + 1;
    } else if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
      // CRLF: the '\n' ends the record.
    } else if (c == '\n') {
      end_record();
      ++line;
      column = 0;
      field_column = 1;
      current.line = line;
    } else {
      field.push_back(c);
      field_started = true;
    }
    ++column;
  }
  if (in_quotes) {
    return Fail(ErrorCode::kBadInput, fmt::format("{}:{}:{}: unterminated quoted field",
                                                  table.source_, quote_line, quote_column));
  }
  if (!field.empty() || !current.fields.empty()) end_record();
  if (records.empty()) {
    return Fail(ErrorCode::kBadInput, fmt::format("{}: empty CSV file (no header)", table.source_));
  }
  table.header_ = std::move(records.front());
  for (std::string& name : table.header_.fields) {
    while (!name.empty() && (name.back() == ' ' || name.back() == '\r')) name.pop_back();
  }
  records.erase(records.begin());
  table.rows_ = std::move(records);
  return table;
}

Result<CsvTable> CsvTable::Load(const std::filesystem::path& path) {
  const std::string text = FRUGAL_TRY(ReadFile(path));
  return Parse(text, path.string());
}

std::optional<size_t> CsvTable::Column(std::string_view name) const {
  for (size_t i = 0; i < header_.fields.size(); ++i) {
    if (header_.fields[i] == name) return i;
  }
  return std::nullopt;
}

Result<size_t> CsvTable::RequireColumn(std::string_view name) const {
  if (auto c = Column(name)) {
    // A second column of the same name would be silently ignored: refuse the ambiguity.
    for (size_t i = *c + 1; i < header_.fields.size(); ++i) {
      if (header_.fields[i] == name) {
        return Fail(ErrorCode::kBadInput, fmt::format("{}:1:{}: column '{}' appears twice", source_,
                                                      header_.columns[i], name));
      }
    }
    return *c;
  }
  return Fail(ErrorCode::kBadInput, fmt::format("{}:1: missing column '{}'", source_, name));
}

Result<void> CsvTable::RequireFullRows() const {
  for (const CsvRecord& r : rows_) {
    if (r.fields.size() != header_.fields.size()) {
      return Fail(
          ErrorCode::kBadInput,
          fmt::format("{}:{}: {} fields, the header has {} ({})", source_, r.line, r.fields.size(),
                      header_.fields.size(),
                      r.fields.size() < header_.fields.size() ? "is the file cut off?"
                                                              : "an unquoted comma in a field?"));
    }
  }
  return {};
}

std::string CsvTable::Where(const CsvRecord& record, size_t column) const {
  const int col = column < record.columns.size() ? record.columns[column] : 1;
  return fmt::format("{}:{}:{}", source_, record.line, col);
}

const std::string& CsvTable::Field(const CsvRecord& record, size_t column) {
  static const std::string kEmpty;
  return column < record.fields.size() ? record.fields[column] : kEmpty;
}

std::string CsvEscape(std::string_view field) {
  if (field.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(field);
  std::string out = "\"";
  for (char c : field) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  out.push_back('"');
  return out;
}

}  // namespace frugal
