#pragma once
// Aligned plain-text tables for human output.

#include <ostream>
#include <string>
#include <vector>

namespace frugal {

enum class Align { kLeft, kRight };

class Table {
 public:
  struct Column {
    std::string title;
    Align align = Align::kLeft;
  };
  explicit Table(std::vector<Column> columns) : columns_(std::move(columns)) {}

  /// Adds a row; it must have one cell per column.
  void AddRow(std::vector<std::string> cells);
  size_t size() const { return rows_.size(); }
  /// Writes the header, a rule and the rows, columns separated by two spaces.
  void Render(std::ostream& out) const;

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace frugal
