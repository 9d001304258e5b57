// Serving model quality on published rows left out of every fit (bench/serving/heldout.csv):
// each row is stated as an inference spec would state it (the model's shape and experts, the
// weight format, a GPU of the shipped table and its count, the point: one stream's decode, a
// prompt's prefill, or continuous batching at a fixed concurrency) and predicted with the
// shipped constants and GPU figures (data/gpus.csv through the catalog, as `frugal plan` reads
// them). Prints each row and the median |ln(predicted/published)|, overall and per metric. No
// constant is fitted here.
//
//   serving_heldout [heldout.csv] [data dir]

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>

#include "csv_fields.h"
#include "frugal/catalog/catalog.h"
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
  std::string metric;  ///< decode, prefill or serve
  sv::ServedModel model;
  sv::Workload workload;
  int gpus = 1;
  double published = 0;
};

Result<Row> ReadRow(const frugal::CsvTable& t, const frugal::CsvRecord& r,
                    std::map<std::string, size_t>& col) {
  Row row;
  row.id = frugal::CsvTable::Field(r, col["id"]);
  row.engine = frugal::CsvTable::Field(r, col["engine"]);
  row.gpu = frugal::CsvTable::Field(r, col["gpu"]);
  row.metric = frugal::CsvTable::Field(r, col["metric"]);
  if (row.metric != "decode" && row.metric != "prefill" && row.metric != "serve") {
    return frugal::Fail(frugal::ErrorCode::kBadInput,
                        t.Where(r, col["metric"]) + ": expected decode, prefill or serve");
  }
  frugal::estimate::ModelSpec spec;
  spec.layers = FRUGAL_TRY(Int(t, r, col["layers"]));
  spec.hidden = FRUGAL_TRY(Int(t, r, col["hidden"]));
  spec.heads = FRUGAL_TRY(Int(t, r, col["heads"]));
  spec.kv_heads = FRUGAL_TRY(Int(t, r, col["kv_heads"]));
  spec.ffn = FRUGAL_TRY(Int(t, r, col["ffn"]));
  spec.vocab = FRUGAL_TRY(Int(t, r, col["vocab"]));
  spec.experts = FRUGAL_TRY(Int(t, r, col["experts"]));
  spec.experts_per_token = FRUGAL_TRY(Int(t, r, col["experts_per_token"]));
  spec.seq = 131072;
  row.model.shape = FRUGAL_TRY(frugal::estimate::ResolveModel(spec));
  row.model.weights = FRUGAL_TRY(sv::ParseWeightFormat(frugal::CsvTable::Field(r, col["weights"])));
  const std::string kv = frugal::CsvTable::Field(r, col["kv_cache"]);
  if (kv != "fp16" && kv != "fp8") {
    return frugal::Fail(frugal::ErrorCode::kBadInput,
                        t.Where(r, col["kv_cache"]) + ": expected fp16 or fp8");
  }
  row.model.kv_cache_bytes = kv == "fp8" ? 1 : 2;
  row.gpus = FRUGAL_TRY(Int(t, r, col["gpus"]));
  row.workload.mean_rps = row.workload.peak_rps = 1;
  row.workload.input_tokens = FRUGAL_TRY(Int(t, r, col["input"]));
  row.workload.output_tokens = FRUGAL_TRY(Int(t, r, col["output"]));
  row.workload.concurrency = FRUGAL_TRY(Int(t, r, col["concurrency"]));
  row.published = FRUGAL_TRY(Num(t, r, col["published"]));
  return row;
}

Result<std::vector<Row>> Load(const std::string& path) {
  const frugal::CsvTable t = FRUGAL_TRY(frugal::CsvTable::Load(path));
  FRUGAL_TRY(t.RequireFullRows());
  std::map<std::string, size_t> col;
  for (const char* name : {"id", "engine", "layers", "hidden", "heads", "kv_heads", "ffn", "vocab",
                           "experts", "experts_per_token", "weights", "kv_cache", "gpu", "gpus",
                           "metric", "input", "output", "concurrency", "published"}) {
    col[name] = FRUGAL_TRY(t.RequireColumn(name));
  }
  std::vector<Row> rows;
  for (const frugal::CsvRecord& r : t.rows()) rows.push_back(FRUGAL_TRY(ReadRow(t, r, col)));
  return rows;
}

/// The prediction in the row's unit: output tokens/s of its streams (decode, serve) or prompt
/// tokens/s (prefill); nullopt when the model does not fit at the row's point.
std::optional<double> Predict(const Row& r, const sv::ReplicaHardware& hw) {
  const sv::Workload& w = r.workload;
  const int c = *w.concurrency;
  if (r.metric == "decode") {
    const double context = w.input_tokens + w.output_tokens / 2.0;
    return c / sv::DecodeStepSeconds(r.model, hw, c, context);
  }
  if (r.metric == "prefill")
    return w.input_tokens / sv::PrefillSeconds(r.model, hw, w.input_tokens);
  auto p = sv::SizeReplica(r.model, w, {}, hw);
  if (!p) return std::nullopt;
  return p->per_second;
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
      argc > 1 ? argv[1] : std::string(FRUGAL_SOURCE_DIR) + "/bench/serving/heldout.csv";
  const std::string data = argc > 2 ? argv[2] : std::string(FRUGAL_SOURCE_DIR) + "/data";
  auto loaded = Load(path);
  auto catalog = frugal::catalog::Catalog::LoadFrom(data);
  if (!loaded || !catalog) {
    std::cerr << "serving_heldout: " << (loaded ? catalog.error().message : loaded.error().message)
              << "\n";
    return 2;
  }
  Table t({{"ID"},
           {"METRIC"},
           {"GPU"},
           {"PUBLISHED", Align::kRight},
           {"PREDICTED", Align::kRight},
           {"LN ERR", Align::kRight}});
  std::vector<double> all;
  std::map<std::string, std::vector<double>> by_metric;
  int unexpressed = 0;
  for (const Row& r : *loaded) {
    const frugal::catalog::GpuSpec* gpu = catalog->FindGpu(r.gpu);
    auto hw = gpu != nullptr ? sv::GpuReplica(*gpu, r.gpus, r.model.weights)
                             : Result<sv::ReplicaHardware>(frugal::Fail(
                                   frugal::ErrorCode::kBadInput, r.gpu + ": not in the table"));
    const std::optional<double> predicted = hw ? Predict(r, *hw) : std::nullopt;
    if (!predicted) {
      ++unexpressed;
      t.AddRow({r.id, r.metric, r.gpu, fmt::format("{:.1f}", r.published), "-",
                hw ? "does not fit" : hw.error().message});
      continue;
    }
    const double e = std::log(*predicted / r.published);
    all.push_back(std::abs(e));
    by_metric[r.metric].push_back(std::abs(e));
    t.AddRow({r.id, r.metric, r.gpu, fmt::format("{:.1f}", r.published),
              fmt::format("{:.1f}", *predicted), fmt::format("{:+.2f}", e)});
  }
  t.Render(std::cout);
  std::cout << fmt::format(
      "\n{} rows predicted, {} not expressible. Median |ln(predicted/"
      "published)|: {:.3f}",
      all.size(), unexpressed, Median(all));
  for (const auto& [metric, errors] : by_metric)
    std::cout << fmt::format("; {} ({} rows) {:.3f}", metric, errors.size(), Median(errors));
  std::cout << ". Target: 0.25.\n";
  return 0;
}
