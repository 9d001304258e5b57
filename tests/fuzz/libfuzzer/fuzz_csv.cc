// libFuzzer: the CSV reader behind the SkyPilot, FOCUS, inventory and replay tables.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "frugal/core/csv.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const frugal::Result<frugal::CsvTable> table = frugal::CsvTable::Parse(text, "table.csv");
  frugal::fuzz::CheckAnswer(table, "table.csv");
  if (!table) return 0;
  frugal::fuzz::CheckAnswer(table->RequireFullRows(), "table.csv");
  for (const std::string& name : table->header()) {
    frugal::fuzz::CheckAnswer(table->RequireColumn(name), "table.csv");
  }
  for (const frugal::CsvRecord& row : table->rows()) {
    for (size_t c = 0; c <= table->header().size(); ++c) (void)table->Where(row, c);
  }
  return 0;
}
