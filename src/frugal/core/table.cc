#include "frugal/core/table.h"

#include <algorithm>

#include "frugal/core/error.h"

namespace frugal {
namespace {
// Display width of UTF-8 text: count code points, not bytes.
size_t Width(const std::string& s) {
  return static_cast<size_t>(std::count_if(
      s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}
}  // namespace

void Table::AddRow(std::vector<std::string> cells) {
  FRUGAL_CHECK(cells.size() == columns_.size());
  rows_.push_back(std::move(cells));
}

void Table::Render(std::ostream& out) const {
  std::vector<size_t> widths(columns_.size());
  for (size_t c = 0; c < columns_.size(); ++c) widths[c] = Width(columns_[c].title);
  for (const auto& row : rows_) {
    for (size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], Width(row[c]));
  }
  auto write_row = [&](const std::vector<std::string>& cells) {
    std::string line;
    for (size_t c = 0; c < cells.size(); ++c) {
      const std::string pad(widths[c] - Width(cells[c]), ' ');
      if (c > 0) line += "  ";
      line += columns_[c].align == Align::kRight ? pad + cells[c] : cells[c] + pad;
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << '\n';
  };
  std::vector<std::string> titles;
  for (const auto& column : columns_) titles.push_back(column.title);
  write_row(titles);
  std::vector<std::string> rules;
  for (size_t w : widths) rules.emplace_back(w, '-');
  write_row(rules);
  for (const auto& row : rows_) write_row(row);
}

}  // namespace frugal
