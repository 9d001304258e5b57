// Estimator quality on published training runs and measured memory peaks: prints one row per
// calibration entry (published vs predicted, error, leave-one-out error), the median errors,
// and the family base utilizations that would fit the table.
//
//   estimate_calibration [calibration.csv] [gpus.csv]

#include <fmt/format.h>

#include <cstdio>
#include <iostream>

#include "frugal/catalog/offer_table.h"
#include "frugal/core/table.h"
#include "frugal/estimate/calibration.h"

namespace {

using frugal::Align;
using frugal::Table;
namespace est = frugal::estimate;

std::string Percent(double x) { return fmt::format("{:+.0f}%", 100 * x); }

void PrintRows(const std::vector<est::CalibrationResult>& results) {
  Table t({{"ID"},
           {"GPU"},
           {"CONFIDENCE"},
           {"UNIT"},
           {"PUBLISHED", Align::kRight},
           {"PREDICTED", Align::kRight},
           {"ERROR", Align::kRight},
           {"LOO ERROR", Align::kRight}});
  for (size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    const auto loo = est::LeaveOneOutError(results, i);
    t.AddRow({r.row->id, r.row->gpu->name, r.row->confidence, r.is_memory ? "GB" : "GPU-h",
              fmt::format("{:.4g}", r.published), fmt::format("{:.4g}", r.predicted),
              Percent(r.Ratio() - 1), loo ? Percent(*loo) : "-"});
  }
  t.Render(std::cout);
}

double MedianLooError(const std::vector<est::CalibrationResult>& results) {
  std::vector<double> errors;
  for (size_t i = 0; i < results.size(); ++i) {
    if (auto loo = est::LeaveOneOutError(results, i)) errors.push_back(std::abs(*loo));
  }
  std::sort(errors.begin(), errors.end());
  if (errors.empty()) return 0;
  const size_t n = errors.size();
  return n % 2 == 1 ? errors[n / 2] : 0.5 * (errors[n / 2 - 1] + errors[n / 2]);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string csv = argc > 1 ? argv[1] : FRUGAL_SOURCE_DIR "/bench/estimate/calibration.csv";
  const std::string gpus_csv = argc > 2 ? argv[2] : FRUGAL_SOURCE_DIR "/data/gpus.csv";
  auto gpus = frugal::catalog::ReadGpuTable(gpus_csv);
  if (!gpus) {
    std::cerr << gpus.error().message << "\n";
    return 2;
  }
  auto rows = est::ReadCalibration(csv, *gpus);
  if (!rows) {
    std::cerr << rows.error().message << "\n";
    return 2;
  }
  auto results = est::EvaluateCalibration(*rows);
  if (!results) {
    std::cerr << results.error().message << "\n";
    return 2;
  }
  PrintRows(*results);
  std::cout << fmt::format(
      "\nMedian |error|, GPU-hours (shipped prior): {:.1f}%  (target <= 25%)\n",
      100 * est::MedianAbsError(*results, false));
  std::cout << fmt::format("Median |error|, GPU-hours (leave-one-out refit per family): {:.1f}%\n",
                           100 * MedianLooError(*results));
  std::cout << fmt::format("Median |error|, memory: {:.1f}%  (target <= 15%)\n\n",
                           100 * est::MedianAbsError(*results, true));
  Table fits({{"FAMILY"},
              {"ROWS", Align::kRight},
              {"SHIPPED BASE", Align::kRight},
              {"FITTED BASE", Align::kRight}});
  for (const auto& f : est::FitFamilyBases(*results)) {
    fits.AddRow({f.family, std::to_string(f.rows), fmt::format("{:.3f}", f.shipped_base),
                 fmt::format("{:.3f}", f.fitted_base)});
  }
  fits.Render(std::cout);
  return 0;
}
