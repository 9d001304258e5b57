#include "frugal/core/csv.h"

#include <fmt/format.h>

#include "frugal/core/atomic_file.h"
#include "frugal/core/text.h"

namespace frugal {

namespace {

// The CSV state machine: where it is (line and column, for the positions every field keeps),
// the record and field being built, and whether it is inside a quoted field.
class CsvScanner {
 public:
  explicit CsvScanner(std::string_view text) : text_(text) { current_.line = 1; }

  void Scan() {
    for (size_t i = 0; i < text_.size(); ++i) {
      if (in_quotes_) {
        i = ScanQuoted(i);
      } else {
        ScanUnquoted(i);
      }
      ++column_;
    }
  }

  bool in_quotes() const { return in_quotes_; }
  int quote_line() const { return quote_line_; }
  int quote_column() const { return quote_column_; }

  /// The records read, the last one closed even without a final newline.
  std::vector<CsvRecord> TakeRecords() {
    if (!field_.empty() || !current_.fields.empty()) EndRecord();
    return std::move(records_);
  }

 private:
  // One character inside quotes; returns the index of the last character consumed (a doubled
  // quote is two).
  size_t ScanQuoted(size_t i) {
    const char c = text_[i];
    if (c == '"') {
      if (i + 1 < text_.size() && text_[i + 1] == '"') {
        field_.push_back('"');
        ++i;
        ++column_;
      } else {
        in_quotes_ = false;
      }
    } else {
      field_.push_back(c);
      if (c == '\n') {
        ++line_;
        column_ = 0;
      }
    }
    return i;
  }

  void ScanUnquoted(size_t i) {
    const char c = text_[i];
    if (c == '"' && !field_started_) {
      in_quotes_ = true;
      field_started_ = true;
      quote_line_ = line_;
      quote_column_ = column_;
    } else if (c == ',') {
      EndField();
      field_column_ = column_ + 1;
    } else if (c == '\r' && i + 1 < text_.size() && text_[i + 1] == '\n') {
      // CRLF: the '\n' ends the record.
    } else if (c == '\n') {
      EndRecord();
      ++line_;
      column_ = 0;
      field_column_ = 1;
      current_.line = line_;
    } else {
      field_.push_back(c);
      field_started_ = true;
    }
  }

  void EndField() {
    current_.fields.push_back(std::move(field_));
    current_.columns.push_back(field_column_);
    field_.clear();
    field_started_ = false;
  }

  void EndRecord() {
    EndField();
    // A blank line is no record.
    if (!(current_.fields.size() == 1 && current_.fields[0].empty())) {
      records_.push_back(std::move(current_));
    }
    current_ = CsvRecord{};
  }

  std::string_view text_;
  std::vector<CsvRecord> records_;
  CsvRecord current_;
  std::string field_;
  int line_ = 1;
  int column_ = 1;
  int field_column_ = 1;
  bool in_quotes_ = false;
  bool field_started_ = false;
  int quote_line_ = 0;
  int quote_column_ = 0;
};

// Every record of `text`, header first; kBadInput when a quoted field never ends.
Result<std::vector<CsvRecord>> ScanRecords(std::string_view text, const std::string& source) {
  CsvScanner scanner(text);
  scanner.Scan();
  if (scanner.in_quotes()) {
    return Fail(ErrorCode::kBadInput, fmt::format("{}:{}:{}: unterminated quoted field", source,
                                                  scanner.quote_line(), scanner.quote_column()));
  }
  return scanner.TakeRecords();
}

}  // namespace

Result<CsvTable> CsvTable::Parse(std::string_view text, std::string source) {
  // Every field may end up in a JSON document or the ledger, which hold only UTF-8 text.
  FRUGAL_TRY(RequireUtf8(text, source));
  CsvTable table;
  table.source_ = std::move(source);
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);  // UTF-8 byte order mark
  std::vector<CsvRecord> records = FRUGAL_TRY(ScanRecords(text, table.source_));
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
