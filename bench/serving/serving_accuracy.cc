// Serving model quality on published inference throughput: one row per published figure
// (the same model and engine across GPU types), predicted vs published output tokens/s, the
// log error, and the same error after calibrating on the other GPUs (leave one GPU out: the
// geometric mean of published ÷ predicted over the rows of every other GPU of the same engine,
// applied as a measured profile would be). Prints the medians of |ln(predicted/published)|.
//
//   serving_accuracy [published.csv]

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>

#include "csv_fields.h"
#include "frugal/core/csv.h"
#include "frugal/core/table.h"
#include "frugal/core/text.h"
#include "frugal/serving/replica_model.h"

namespace {

using frugal::Align;
using frugal::Result;
using frugal::Table;
using frugal::bench::Int;
using frugal::bench::Num;
namespace sv = frugal::serving;

struct Row {
  std::string id;
  std::string engine;
  std::string gpu;
  sv::ServedModel model;
  sv::ReplicaHardware hw;
  int batch = 1;
  double context = 0;
  double published = 0;
  double predicted = 0;
};

Result<std::vector<Row>> Load(const std::string& path) {
  const frugal::CsvTable t = FRUGAL_TRY(frugal::CsvTable::Load(path));
  FRUGAL_TRY(t.RequireFullRows());
  std::map<std::string, size_t> col;
  for (const char* name :
       {"id", "engine", "layers", "hidden", "heads", "kv_heads", "ffn", "vocab", "weights", "gpu",
        "bandwidth_gbps", "fp16_tflops", "memory_gib", "batch", "context", "published"}) {
    col[name] = FRUGAL_TRY(t.RequireColumn(name));
  }
  std::vector<Row> rows;
  for (const frugal::CsvRecord& r : t.rows()) {
    Row row;
    row.id = frugal::CsvTable::Field(r, col["id"]);
    row.engine = frugal::CsvTable::Field(r, col["engine"]);
    row.gpu = frugal::CsvTable::Field(r, col["gpu"]);
    frugal::estimate::ModelSpec spec;
    spec.layers = FRUGAL_TRY(Int(t, r, col["layers"]));
    spec.hidden = FRUGAL_TRY(Int(t, r, col["hidden"]));
    spec.heads = FRUGAL_TRY(Int(t, r, col["heads"]));
    spec.kv_heads = FRUGAL_TRY(Int(t, r, col["kv_heads"]));
    spec.ffn = FRUGAL_TRY(Int(t, r, col["ffn"]));
    spec.vocab = FRUGAL_TRY(Int(t, r, col["vocab"]));
    row.model.shape = FRUGAL_TRY(frugal::estimate::ResolveModel(spec));
    row.model.weights =
        FRUGAL_TRY(sv::ParseWeightFormat(frugal::CsvTable::Field(r, col["weights"])));
    row.hw.gpu = row.gpu;
    row.hw.gpus = 1;
    row.hw.bandwidth_bytes_per_s = FRUGAL_TRY(Num(t, r, col["bandwidth_gbps"])) * 1e9;
    row.hw.peak_flops = FRUGAL_TRY(Num(t, r, col["fp16_tflops"])) * 1e12;
    row.hw.memory_bytes = FRUGAL_TRY(Num(t, r, col["memory_gib"])) * 1024.0 * 1024 * 1024;
    row.batch = FRUGAL_TRY(Int(t, r, col["batch"]));
    row.context = FRUGAL_TRY(Num(t, r, col["context"]));
    row.published = FRUGAL_TRY(Num(t, r, col["published"]));
    rows.push_back(row);
  }
  return rows;
}

/// Output tokens/s of `batch` streams decoding at `context`, with the efficiencies × scale.
double Predict(const Row& r, double scale) {
  return r.batch / sv::DecodeStepSeconds(r.model, r.hw, r.batch, r.context, scale);
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string path =
      argc > 1 ? argv[1] : std::string(FRUGAL_SOURCE_DIR) + "/bench/serving/published.csv";
  auto loaded = Load(path);
  if (!loaded) {
    std::cerr << "serving_accuracy: " << loaded.error().message << "\n";
    return 2;
  }
  std::vector<Row>& rows = *loaded;
  for (Row& r : rows) r.predicted = Predict(r, 1.0);
  Table t({{"ID"},
           {"ENGINE"},
           {"GPU"},
           {"PUBLISHED", Align::kRight},
           {"PREDICTED", Align::kRight},
           {"LN ERR", Align::kRight},
           {"CALIBRATED", Align::kRight},
           {"LN ERR", Align::kRight}});
  std::vector<double> prior_errors, loo_errors;
  for (const Row& r : rows) {
    // Leave this GPU out: calibrate on the same engine's rows on every other GPU.
    double log_sum = 0;
    int n = 0;
    for (const Row& o : rows) {
      if (o.engine != r.engine || o.gpu == r.gpu) continue;
      log_sum += std::log(o.published / o.predicted);
      ++n;
    }
    const double k = n > 0 ? std::exp(log_sum / n) : 1.0;
    const double calibrated = Predict(r, k);
    const double e_prior = std::log(r.predicted / r.published);
    const double e_loo = std::log(calibrated / r.published);
    prior_errors.push_back(std::abs(e_prior));
    loo_errors.push_back(std::abs(e_loo));
    t.AddRow({r.id, r.engine, r.gpu, fmt::format("{:.1f}", r.published),
              fmt::format("{:.1f}", r.predicted), fmt::format("{:+.2f}", e_prior),
              fmt::format("{:.1f}", calibrated), fmt::format("{:+.2f}", e_loo)});
  }
  t.Render(std::cout);
  std::cout << fmt::format(
      "\n{} rows. Median |ln(predicted/published)|: prior {:.3f}; calibrated on the other GPUs "
      "(leave one GPU out) {:.3f}. Target: 0.25.\n",
      rows.size(), Median(prior_errors), Median(loo_errors));
  return 0;
}
