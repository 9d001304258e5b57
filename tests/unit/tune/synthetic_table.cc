#include "synthetic_table.h"

#include <fmt/format.h>

#include <cmath>

#include "support/test_support.h"

namespace frugal::tune::testing {

void WriteSyntheticTable(const std::filesystem::path& dir, int configs, int epochs) {
  std::string config_csv = "config_id,lr,width\n";
  std::string curve_csv = "config_id,epoch,elapsed_s,score\n";
  for (int c = 0; c < configs; ++c) {
    const double lr = std::pow(10.0, -4.0 + 3.0 * std::fmod(c * 0.618034, 1.0));
    const int width = 32 << (c % 4);
    config_csv += fmt::format("{},{},{}\n", c, lr, width);
    // Final quality peaks at lr = 1e-2.5; slow starters (large width) catch up late.
    const double quality = 0.9 - 0.1 * std::pow(std::log10(lr) + 2.5, 2) - 0.01 * (c % 5);
    const double pace = 1.0 + (c % 4);
    const double epoch_seconds = 60.0 * (1 + c % 3);
    for (int e = 1; e <= epochs; ++e) {
      const bool diverged = c % 7 == 3 && e == 4;
      const double score = quality * (1 - std::exp(-e / pace));
      curve_csv += fmt::format("{},{},{},{}\n", c, e, epoch_seconds * e,
                               diverged ? std::string("nan") : fmt::format("{:.6f}", score));
      if (diverged) break;
    }
  }
  frugal::testing::WriteTestFile(dir / "configs.csv", config_csv);
  frugal::testing::WriteTestFile(dir / "curves.csv", curve_csv);
}

}  // namespace frugal::tune::testing
