#include "frugal/estimate/calibration.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "frugal/core/csv.h"
#include "frugal/core/text.h"
#include "frugal/estimate/hardware.h"

namespace frugal::estimate {

namespace {

constexpr std::string_view kColumns[] = {"id",        "kind",         "layers",    "hidden",
                                         "heads",     "kv_heads",     "ffn",       "vocab",
                                         "seq",       "mlp",          "tied",      "method",
                                         "lora_rank", "lora_targets", "dtype",     "master_weights",
                                         "optimizer", "micro_batch",  "recompute", "zero",
                                         "gpu",       "gpus",         "tokens",    "published",
                                         "source",    "confidence"};
constexpr size_t kColumnCount = std::size(kColumns);

Result<CalibrationKind> ParseKind(std::string_view t) {
  if (t == "gpu_hours") return CalibrationKind::kGpuHours;
  if (t == "model_tflops_per_gpu") return CalibrationKind::kModelTflopsPerGpu;
  if (t == "hardware_tflops_per_gpu") return CalibrationKind::kHardwareTflopsPerGpu;
  if (t == "memory_gb_allocated") return CalibrationKind::kMemoryGbAllocated;
  return Fail(ErrorCode::kBadInput, fmt::format("unknown kind '{}'", t));
}

/// Reads fields by column name and wraps every error with file:line:column: column 'x'.
class RowReader {
 public:
  RowReader(const CsvTable& table, const CsvRecord& record, const std::vector<size_t>& index)
      : table_(table), record_(record), index_(index) {}

  const std::string& Text(size_t column) const { return CsvTable::Field(record_, index_[column]); }
  Error At(size_t column, const Error& e) const {
    return Error{ErrorCode::kBadInput,
                 fmt::format("{}: column '{}': {}", table_.Where(record_, index_[column]),
                             kColumns[column], e.message)};
  }
  template <typename T>
  Result<T> Get(size_t column, Result<T> value) const {
    if (!value) return Fail(At(column, value.error()));
    return value;
  }
  Result<double> Number(size_t column) const { return Get(column, ParseDouble(Text(column))); }
  Result<int> Int(size_t column) const {
    const int64_t v = FRUGAL_TRY(Get(column, ParseInt(Text(column))));
    return static_cast<int>(v);
  }

 private:
  const CsvTable& table_;
  const CsvRecord& record_;
  const std::vector<size_t>& index_;
};

Result<CalibrationRow> ReadRow(const RowReader& r, const std::vector<catalog::GpuSpec>& gpus) {
  CalibrationRow row;
  row.id = r.Text(0);
  row.kind = FRUGAL_TRY(r.Get(1, ParseKind(r.Text(1))));
  ModelSpec spec;
  spec.layers = FRUGAL_TRY(r.Int(2));
  spec.hidden = FRUGAL_TRY(r.Int(3));
  spec.heads = FRUGAL_TRY(r.Int(4));
  spec.kv_heads = FRUGAL_TRY(r.Int(5));
  spec.ffn = FRUGAL_TRY(r.Int(6));
  spec.vocab = FRUGAL_TRY(r.Int(7));
  spec.seq = FRUGAL_TRY(r.Int(8));
  spec.mlp = FRUGAL_TRY(r.Get(9, ParseMlp(r.Text(9))));
  spec.tied_embeddings = r.Text(10) == "true";
  row.model = FRUGAL_TRY(r.Get(2, ResolveModel(spec)));
  Training& t = row.training;
  t.method = FRUGAL_TRY(r.Get(11, ParseMethod(r.Text(11))));
  t.lora_rank = std::max(1, FRUGAL_TRY(r.Int(12)));
  t.lora_targets = FRUGAL_TRY(r.Get(13, ParseLoraTargets(r.Text(13))));
  t.precision = FRUGAL_TRY(r.Get(14, catalog::ParsePrecision(r.Text(14))));
  t.master_weights = FRUGAL_TRY(r.Get(15, ParseMasterWeights(r.Text(15))));
  t.optimizer = FRUGAL_TRY(r.Get(16, ParseOptimizer(r.Text(16))));
  t.micro_batch = FRUGAL_TRY(r.Int(17));
  t.recompute = FRUGAL_TRY(r.Get(18, ParseRecompute(r.Text(18))));
  t.zero_stage = FRUGAL_TRY(r.Int(19));
  t.gpus = FRUGAL_TRY(r.Int(21));
  FRUGAL_TRY(r.Get(17, t.Validate()));
  const auto gpu = std::find_if(gpus.begin(), gpus.end(),
                                [&](const catalog::GpuSpec& g) { return g.name == r.Text(20); });
  if (gpu == gpus.end()) return Fail(r.At(20, Error{ErrorCode::kBadInput, "unknown GPU"}));
  row.gpu = &*gpu;
  row.tokens = FRUGAL_TRY(r.Number(22));
  row.published = FRUGAL_TRY(r.Number(23));
  if (!(row.published > 0)) return Fail(r.At(23, Error{ErrorCode::kBadInput, "must be positive"}));
  if (row.kind != CalibrationKind::kMemoryGbAllocated && !(row.tokens > 0)) {
    return Fail(r.At(22, Error{ErrorCode::kBadInput, "a time row needs tokens"}));
  }
  row.source = r.Text(24);
  row.confidence = r.Text(25);
  return row;
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

Result<std::vector<CalibrationRow>> ReadCalibration(const std::filesystem::path& path,
                                                    const std::vector<catalog::GpuSpec>& gpus) {
  const CsvTable table = FRUGAL_TRY(CsvTable::Load(path));
  std::vector<size_t> index;
  for (size_t c = 0; c < kColumnCount; ++c)
    index.push_back(FRUGAL_TRY(table.RequireColumn(kColumns[c])));
  std::vector<CalibrationRow> rows;
  for (const CsvRecord& record : table.rows()) {
    rows.push_back(FRUGAL_TRY(ReadRow(RowReader(table, record, index), gpus)));
  }
  return rows;
}

Result<std::vector<CalibrationResult>> EvaluateCalibration(
    const std::vector<CalibrationRow>& rows) {
  std::vector<CalibrationResult> out;
  for (const CalibrationRow& row : rows) {
    const auto wrap = [&](Error error) { return error.Wrap(row.id); };
    const Hardware hw = FRUGAL_TRY(HardwareFor(*row.gpu, row.training.precision).map_error(wrap));
    const double tokens = row.kind == CalibrationKind::kMemoryGbAllocated ? 1.0 : row.tokens;
    const Estimate e =
        FRUGAL_TRY(EstimateTraining(row.model, row.training, hw, tokens).map_error(wrap));
    CalibrationResult r;
    r.row = &row;
    r.family = row.gpu->architecture;
    switch (row.kind) {
      case CalibrationKind::kMemoryGbAllocated:
        r.is_memory = true;
        r.predicted = (e.memory.Total() - kFixedOverheadBytes) / 1e9;
        r.published = row.published;
        break;
      case CalibrationKind::kGpuHours:
        r.predicted = e.GpuHours();
        r.published = row.published;
        break;
      case CalibrationKind::kModelTflopsPerGpu:
        r.predicted = e.GpuHours();
        r.published = e.flops.model / (row.published * 1e12 * 3600.0);
        break;
      case CalibrationKind::kHardwareTflopsPerGpu:
        r.predicted = e.GpuHours();
        r.published = e.flops.Total() / (row.published * 1e12 * 3600.0);
        break;
    }
    out.push_back(r);
  }
  return out;
}

double MedianAbsError(const std::vector<CalibrationResult>& results, bool memory) {
  std::vector<double> errors;
  for (const auto& r : results) {
    if (r.is_memory == memory) errors.push_back(std::abs(r.Ratio() - 1.0));
  }
  return Median(errors);
}

std::vector<FamilyFit> FitFamilyBases(const std::vector<CalibrationResult>& results) {
  std::vector<FamilyFit> fits;
  for (const auto& r : results) {
    if (r.is_memory) continue;
    if (std::none_of(fits.begin(), fits.end(),
                     [&](const FamilyFit& f) { return f.family == r.family; })) {
      fits.push_back({r.family, 0, FamilyBaseUtilization(r.family), 0});
    }
  }
  for (FamilyFit& f : fits) {
    std::vector<double> ratios;
    for (const auto& r : results) {
      if (!r.is_memory && r.family == f.family) ratios.push_back(r.Ratio());
    }
    f.rows = ratios.size();
    // Predicted hours scale as 1/base, so the base that brings the median ratio to 1 is the
    // shipped base times that median.
    f.fitted_base = f.shipped_base * Median(ratios);
  }
  return fits;
}

std::optional<double> LeaveOneOutError(const std::vector<CalibrationResult>& results,
                                       size_t index) {
  const CalibrationResult& target = results[index];
  if (target.is_memory) return std::nullopt;
  std::vector<double> others;
  for (size_t i = 0; i < results.size(); ++i) {
    if (i != index && !results[i].is_memory && results[i].family == target.family)
      others.push_back(results[i].Ratio());
  }
  if (others.empty()) return std::nullopt;
  return target.Ratio() / Median(others) - 1.0;
}

}  // namespace frugal::estimate
