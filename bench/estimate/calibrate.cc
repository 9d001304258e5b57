// Estimator quality on published training runs and measured memory peaks: prints one row per
// calibration entry (published vs predicted, in-sample error, and the error with the row's
// whole model family left out of the fit), the median errors, the worst held-out rows, and the
// family base utilizations that would fit the table.
//
//   estimate_calibration [calibration.csv] [gpus.csv]

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>

#include "frugal/catalog/offer_table.h"
#include "frugal/core/table.h"
#include "frugal/estimate/calibration.h"

namespace {

using frugal::Align;
using frugal::Table;
namespace est = frugal::estimate;

std::string Log(double ratio) { return fmt::format("{:+.2f}", std::log(ratio)); }

void PrintRows(const std::vector<est::CalibrationResult>& results) {
  Table t({{"ID"},
           {"FAMILY"},
           {"GPU"},
           {"GPUS", Align::kRight},
           {"CONFIDENCE"},
           {"UNIT"},
           {"PUBLISHED", Align::kRight},
           {"PREDICTED", Align::kRight},
           {"LN ERR", Align::kRight},
           {"LOFO LN ERR", Align::kRight}});
  for (size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    const auto lofo = est::LeaveOneFamilyOutRatio(results, i);
    t.AddRow({r.row->id, r.row->family, r.row->gpu->name, std::to_string(r.row->training.gpus),
              r.row->confidence, r.is_memory ? "GB" : "GPU-h", fmt::format("{:.4g}", r.published),
              fmt::format("{:.4g}", r.predicted), Log(r.Ratio()), lofo ? Log(*lofo) : "-"});
  }
  t.Render(std::cout);
}

struct HeldOut {
  std::vector<double> abs_log;
  std::vector<double> signed_log;
  std::vector<std::pair<double, std::string>> worst;
  size_t not_evaluable = 0;
};

HeldOut Collect(const std::vector<est::CalibrationResult>& results, bool memory) {
  HeldOut h;
  for (size_t i = 0; i < results.size(); ++i) {
    if (results[i].is_memory != memory) continue;
    const auto ratio = est::LeaveOneFamilyOutRatio(results, i);
    if (!ratio) {
      ++h.not_evaluable;
      continue;
    }
    const double l = std::log(*ratio);
    h.abs_log.push_back(std::abs(l));
    h.signed_log.push_back(l);
    h.worst.emplace_back(std::abs(l), fmt::format("{} {:+.2f}", results[i].row->id, l));
  }
  std::sort(h.worst.rbegin(), h.worst.rend());
  if (h.worst.size() > 6) h.worst.resize(6);
  return h;
}

void PrintSummary(const std::vector<est::CalibrationResult>& results) {
  const HeldOut time = Collect(results, false);
  const HeldOut memory = Collect(results, true);
  std::cout << fmt::format(
      "\nGPU-hours, in-sample (shipped prior): median |ln| {:.3f}\n"
      "GPU-hours, leave-one-family-out: median |ln| {:.3f}, median signed ln {:+.3f} over {} "
      "rows (target <= 0.15); {} rows have no other model family on their GPU family\n",
      est::MedianAbsLog(results, false), est::Median(time.abs_log), est::Median(time.signed_log),
      time.abs_log.size(), time.not_evaluable);
  std::cout << fmt::format(
      "Memory (no fitted constant: held out = in-sample): median |error| {:.1f}% over {} rows "
      "(target <= 10%)\n",
      100 * est::MedianAbsError(results, true), memory.abs_log.size());
  std::cout << "Worst held-out GPU-hours rows (ln):";
  for (const auto& w : time.worst) std::cout << " " << w.second << ";";
  std::cout << "\nWorst memory rows (ln):";
  for (const auto& w : memory.worst) std::cout << " " << w.second << ";";
  std::cout << "\n\n";
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
  PrintSummary(*results);
  Table fits({{"GPU FAMILY"},
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
