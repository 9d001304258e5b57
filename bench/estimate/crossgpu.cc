// Cross-GPU prediction quality on published throughput tables of the same code on several GPU
// models (bench/estimate/crossgpu/throughput.csv, each row with its source). For every ordered
// pair of single-GPU rows of one workload and precision, predicts the second from the first
// with frugal's model and with the two naive baselines (scale by peak TFLOPS, scale by memory
// bandwidth) and prints median |ln(predicted / measured)| overall and per source. Then: from
// two measured GPU models to a third where a workload has three; and from one GPU to the
// published multi-GPU rows of the same GPU (data-parallel efficiency).
//
//   estimate_crossgpu [throughput.csv] [gpus.csv]

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>

#include "frugal/catalog/offer_table.h"
#include "frugal/core/csv.h"
#include "frugal/core/table.h"
#include "frugal/core/text.h"
#include "frugal/estimate/cross_gpu.h"

namespace {

namespace est = frugal::estimate;
namespace cat = frugal::catalog;
using frugal::Align;
using frugal::Table;

struct Row {
  std::string workload, source;
  std::string family;     ///< the model family, as the prediction is told it
  bool held_out = false;  ///< no constant or family prior was chosen on this row
  est::WorkloadShape shape;
  const cat::GpuSpec* gpu = nullptr;
  int gpus = 1;
  double per_second = 0;
};

double Median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::optional<double> Number(const std::string& text) {
  if (frugal::Trim(text).empty()) return std::nullopt;
  auto v = frugal::ParseCount(text);
  return v ? std::optional<double>(*v) : std::nullopt;
}

std::vector<Row> Load(const std::string& path, const std::vector<cat::GpuSpec>& gpus) {
  auto table = frugal::CsvTable::Load(path);
  if (!table) {
    std::cerr << table.error().message << "\n";
    std::exit(2);
  }
  auto col = [&](const char* name) { return *table->Column(name); };
  std::vector<Row> rows;
  for (const auto& r : table->rows()) {
    Row row;
    row.workload = frugal::CsvTable::Field(r, col("workload")) + "/" +
                   frugal::CsvTable::Field(r, col("dtype"));
    const std::string& src = frugal::CsvTable::Field(r, col("source"));
    row.source = src.starts_with("NVIDIA DeepLearningExamples") ? "NVIDIA DLE" : "timm";
    // The repositories of the consumer and workstation rows: github.com/OWNER/NAME.
    if (src.starts_with("github.com/")) row.source = src.substr(0, src.find(' '));
    if (src.find("/NCF/") != std::string::npos || src.find("/GNMT/") != std::string::npos) {
      row.source = "NVIDIA DLE (NCF, GNMT)";
    }
    row.shape.family = *est::ParseModelFamily(frugal::CsvTable::Field(r, col("family")));
    row.family = std::string(est::ModelFamilyName(row.shape.family));
    row.held_out = frugal::CsvTable::Field(r, col("role")) == "held_out";
    row.shape.precision = *cat::ParsePrecision(frugal::CsvTable::Field(r, col("dtype")));
    row.shape.params = Number(frugal::CsvTable::Field(r, col("params")));
    row.shape.units_per_gpu_step = Number(frugal::CsvTable::Field(r, col("per_gpu_batch")));
    row.shape.flops_per_unit = Number(frugal::CsvTable::Field(r, col("flops_per_unit")));
    row.shape.bytes_per_unit = Number(frugal::CsvTable::Field(r, col("bytes_per_unit")));
    const std::string& name = frugal::CsvTable::Field(r, col("gpu"));
    for (const auto& g : gpus) {
      if (g.name == name) row.gpu = &g;
    }
    if (row.gpu == nullptr) {
      std::cerr << path << ": unknown GPU " << name << "\n";
      std::exit(2);
    }
    row.gpus = static_cast<int>(*Number(frugal::CsvTable::Field(r, col("gpus"))));
    row.per_second = *Number(frugal::CsvTable::Field(r, col("throughput")));
    rows.push_back(row);
  }
  return rows;
}

struct Errors {
  std::vector<double> model, peak, bandwidth;
};

void SingleGpu(const std::vector<Row>& rows) {
  std::map<std::string, Errors> by_source;
  std::map<std::string, Errors> by_family;  // "cnn, held out", "cnn, fit on", ...
  std::map<std::string, Errors> by_prior;   // the same with the family's prior only
  Errors all;
  for (const Row& from : rows) {
    for (const Row& to : rows) {
      if (&from == &to || from.workload != to.workload || from.gpus != 1 || to.gpus != 1 ||
          from.gpu == to.gpu)
        continue;
      auto p = est::PredictThroughput({{from.gpu, 1, from.per_second}}, *to.gpu, 1, from.shape);
      if (!p) continue;
      const double f_from = *est::ComputeFlopsFor(*from.gpu, from.shape.precision);
      const double f_to = *est::ComputeFlopsFor(*to.gpu, from.shape.precision);
      const double peak = from.per_second * f_to / f_from;
      const double bw =
          from.per_second * to.gpu->memory_bandwidth_gbps / from.gpu->memory_bandwidth_gbps;
      const char* role = from.held_out ? ", held out" : ", priors chosen on";
      Errors& family = by_family[from.family + role];
      Errors& every_family = by_family[std::string("all") + role];
      for (Errors* e : {&all, &by_source[from.source], &family, &every_family}) {
        e->model.push_back(std::abs(std::log(p->per_second / to.per_second)));
        e->peak.push_back(std::abs(std::log(peak / to.per_second)));
        e->bandwidth.push_back(std::abs(std::log(bw / to.per_second)));
      }
      // What `--family` alone predicts: the row's FLOPs and bytes per unit not given.
      est::WorkloadShape prior_only = from.shape;
      prior_only.flops_per_unit.reset();
      prior_only.bytes_per_unit.reset();
      auto q = est::PredictThroughput({{from.gpu, 1, from.per_second}}, *to.gpu, 1, prior_only);
      if (!q) continue;
      for (Errors* e : {&by_prior[from.family + role], &by_prior[std::string("all") + role]}) {
        e->model.push_back(std::abs(std::log(q->per_second / to.per_second)));
        e->peak.push_back(std::abs(std::log(peak / to.per_second)));
        e->bandwidth.push_back(std::abs(std::log(bw / to.per_second)));
      }
    }
  }
  Table t({{"ROWS"},
           {"PAIRS", Align::kRight},
           {"FRUGAL", Align::kRight},
           {"PEAK TFLOPS", Align::kRight},
           {"BANDWIDTH", Align::kRight}});
  auto add = [&](const std::string& name, const Errors& e) {
    t.AddRow({name, std::to_string(e.model.size()), fmt::format("{:.3f}", Median(e.model)),
              fmt::format("{:.3f}", Median(e.peak)), fmt::format("{:.3f}", Median(e.bandwidth))});
  };
  add("all", all);
  for (const auto& [name, e] : by_source) add(name, e);
  std::cout << "From one measured GPU: median |ln(predicted / measured)|\n";
  t.Render(std::cout);
  auto family_table = [](const std::map<std::string, Errors>& groups) {
    Table f({{"FAMILY, ROWS"},
             {"PAIRS", Align::kRight},
             {"FRUGAL", Align::kRight},
             {"PEAK TFLOPS", Align::kRight},
             {"BANDWIDTH", Align::kRight}});
    for (const auto& [name, e] : groups) {
      f.AddRow({name, std::to_string(e.model.size()), fmt::format("{:.3f}", Median(e.model)),
                fmt::format("{:.3f}", Median(e.peak)), fmt::format("{:.3f}", Median(e.bandwidth))});
    }
    f.Render(std::cout);
  };
  std::cout << "\nBy family (held out: no constant or prior was chosen on these rows)\n";
  family_table(by_family);
  std::cout << "\nBy family, the family's prior only (each row's FLOPs and bytes per unit not "
               "given, as with --family alone)\n";
  family_table(by_prior);
}

/// Pairs whose two GPUs are of different segments (a data-centre board and a consumer or
/// workstation one), by source and direction: how far off the prediction is, and to which side.
void AcrossSegments(const std::vector<Row>& rows) {
  std::map<std::string, std::vector<double>> signed_errors;
  for (const Row& from : rows) {
    for (const Row& to : rows) {
      if (&from == &to || from.workload != to.workload || from.gpus != 1 || to.gpus != 1 ||
          from.gpu->segment == to.gpu->segment)
        continue;
      auto p = est::PredictThroughput({{from.gpu, 1, from.per_second}}, *to.gpu, 1, from.shape);
      if (!p) continue;
      const std::string direction = fmt::format("{} -> {}", cat::GpuSegmentName(from.gpu->segment),
                                                cat::GpuSegmentName(to.gpu->segment));
      const double e = std::log(p->per_second / to.per_second);
      signed_errors["all, " + direction].push_back(e);
      signed_errors[from.source + ", " + direction].push_back(e);
    }
  }
  Table t({{"SOURCE, DIRECTION"},
           {"PAIRS", Align::kRight},
           {"MEDIAN |LN|", Align::kRight},
           {"MEDIAN LN", Align::kRight}});
  for (const auto& [name, e] : signed_errors) {
    std::vector<double> abs;
    for (double v : e) abs.push_back(std::abs(v));
    t.AddRow({name, std::to_string(e.size()), fmt::format("{:.3f}", Median(abs)),
              fmt::format("{:+.3f}", Median(e))});
  }
  std::cout << "\nAcross segments (a data-centre GPU and a consumer or workstation one; ln < 0: "
               "predicted too slow)\n";
  t.Render(std::cout);
}

void TwoGpus(const std::vector<Row>& rows) {
  std::vector<double> errors;
  for (const Row& target : rows) {
    if (target.gpus != 1) continue;
    std::vector<const Row*> others;
    for (const Row& r : rows) {
      if (r.workload == target.workload && r.gpus == 1 && r.gpu != target.gpu) others.push_back(&r);
    }
    for (size_t i = 0; i < others.size(); ++i) {
      for (size_t j = i + 1; j < others.size(); ++j) {
        if (others[i]->gpu == others[j]->gpu) continue;
        auto p = est::PredictThroughput({{others[i]->gpu, 1, others[i]->per_second},
                                         {others[j]->gpu, 1, others[j]->per_second}},
                                        *target.gpu, 1, target.shape);
        if (p) errors.push_back(std::abs(std::log(p->per_second / target.per_second)));
      }
    }
  }
  std::cout << fmt::format(
      "\nFrom two measured GPU models to a third: {} predictions, median |ln| {:.3f}\n",
      errors.size(), Median(errors));
}

void MultiGpu(const std::vector<Row>& rows) {
  std::vector<double> model, linear;
  for (const Row& big : rows) {
    if (big.gpus == 1) continue;
    for (const Row& one : rows) {
      if (one.workload != big.workload || one.gpu != big.gpu || one.gpus != 1) continue;
      auto p =
          est::PredictThroughput({{one.gpu, 1, one.per_second}}, *big.gpu, big.gpus, one.shape);
      if (!p) continue;
      model.push_back(std::abs(std::log(p->per_second / big.per_second)));
      linear.push_back(std::abs(std::log(one.per_second * big.gpus / big.per_second)));
    }
  }
  std::cout << fmt::format(
      "\nFrom one GPU to the published multi-GPU rows: {} predictions, median |ln| {:.3f} "
      "(linear scaling: {:.3f})\n",
      model.size(), Median(model), Median(linear));
}

}  // namespace

int main(int argc, char** argv) {
  const std::string dir = FRUGAL_SOURCE_DIR;
  const std::string csv = argc > 1 ? argv[1] : dir + "/bench/estimate/crossgpu/throughput.csv";
  const std::string gpus_csv = argc > 2 ? argv[2] : dir + "/data/gpus.csv";
  auto gpus = cat::ReadGpuTable(gpus_csv);
  if (!gpus) {
    std::cerr << gpus.error().message << "\n";
    return 2;
  }
  const std::vector<Row> rows = Load(csv, *gpus);
  std::cout << fmt::format("{} rows from {}\n\n", rows.size(), csv);
  SingleGpu(rows);
  AcrossSegments(rows);
  TwoGpus(rows);
  MultiGpu(rows);
  return 0;
}
