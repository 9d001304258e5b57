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
  if (t == "tokens_per_second_per_gpu") return CalibrationKind::kTokensPerSecondPerGpu;
  if (t == "memory_gib_reserved") return CalibrationKind::kMemoryGibReserved;
  if (t == "memory_gib_nvidia_smi") return CalibrationKind::kMemoryGibNvidiaSmi;
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

/// The optional version-2 columns, by name; absent columns are nullopt.
struct OptionalColumns {
  std::optional<size_t> family, tensor_parallel, pipeline_parallel, sequence_parallel, global_batch,
      network_gbps, attention, loss, offload, optimizer_in_backward, virtual_stages, experts,
      experts_per_token, expert_parallel;
};

OptionalColumns FindOptionalColumns(const CsvTable& table) {
  OptionalColumns c;
  c.family = table.Column("family");
  c.tensor_parallel = table.Column("tensor_parallel");
  c.pipeline_parallel = table.Column("pipeline_parallel");
  c.sequence_parallel = table.Column("sequence_parallel");
  c.global_batch = table.Column("global_batch");
  c.network_gbps = table.Column("network_gbps");
  c.attention = table.Column("attention");
  c.loss = table.Column("loss");
  c.offload = table.Column("offload");
  c.optimizer_in_backward = table.Column("optimizer_in_backward");
  c.virtual_stages = table.Column("virtual_stages");
  c.experts = table.Column("experts");
  c.experts_per_token = table.Column("experts_per_token");
  c.expert_parallel = table.Column("expert_parallel");
  return c;
}

/// Reads one optional column: empty or absent leaves `out` as it is.
class OptionalReader {
 public:
  OptionalReader(const CsvTable& table, const CsvRecord& record) : table_(table), record_(record) {}
  std::string Text(std::optional<size_t> column) const {
    return column ? std::string(Trim(CsvTable::Field(record_, *column))) : std::string();
  }
  template <typename T, typename Parse>
  Result<void> Read(std::optional<size_t> column, Parse parse, T& out) const {
    const std::string text = Text(column);
    if (text.empty()) return {};
    auto value = parse(text);
    if (!value) {
      return Fail(ErrorCode::kBadInput,
                  fmt::format("{}: column '{}': {}", table_.Where(record_, *column),
                              table_.header()[*column], value.error().message));
    }
    out = static_cast<T>(*value);
    return {};
  }

 private:
  const CsvTable& table_;
  const CsvRecord& record_;
};

Result<bool> ParseBool(std::string_view text) {
  if (text == "true") return true;
  if (text == "false") return false;
  return Fail(ErrorCode::kBadInput, fmt::format("expected true or false, got '{}'", text));
}

Result<void> ReadOptional(const OptionalReader& o, const OptionalColumns& c, CalibrationRow& row) {
  Training& t = row.training;
  const std::string family = o.Text(c.family);
  row.family = family.empty() ? row.id.substr(0, row.id.find('-')) : family;
  FRUGAL_TRY(o.Read(c.tensor_parallel, ParseInt, t.tensor_parallel));
  FRUGAL_TRY(o.Read(c.pipeline_parallel, ParseInt, t.pipeline_parallel));
  FRUGAL_TRY(o.Read(c.virtual_stages, ParseInt, t.virtual_stages));
  FRUGAL_TRY(o.Read(c.expert_parallel, ParseInt, t.expert_parallel));
  // A mixture of experts changes the parameter count the architecture implies.
  Model& m = row.model;
  FRUGAL_TRY(o.Read(c.experts, ParseInt, m.experts));
  m.experts_per_token = m.experts > 1 ? 2 : 1;
  FRUGAL_TRY(o.Read(c.experts_per_token, ParseInt, m.experts_per_token));
  if (m.experts < 1 || m.experts_per_token < 1 || m.experts_per_token > m.experts) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("{}: experts {} and experts_per_token {} do not make a model", row.id,
                            m.experts, m.experts_per_token));
  }
  m.params = ArchitectureParams(m);
  FRUGAL_TRY(o.Read(c.sequence_parallel, ParseBool, t.sequence_parallel));
  FRUGAL_TRY(o.Read(c.global_batch, ParseInt, t.global_batch));
  FRUGAL_TRY(o.Read(c.network_gbps, ParseDouble, row.network_gbps));
  FRUGAL_TRY(o.Read(c.attention, ParseAttention, t.attention));
  FRUGAL_TRY(o.Read(c.loss, ParseLoss, t.loss));
  FRUGAL_TRY(o.Read(c.offload, ParseOffload, t.offload));
  FRUGAL_TRY(o.Read(c.optimizer_in_backward, ParseBool, t.optimizer_in_backward));
  return {};
}

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
  const auto gpu = std::find_if(gpus.begin(), gpus.end(),
                                [&](const catalog::GpuSpec& g) { return g.name == r.Text(20); });
  if (gpu == gpus.end()) return Fail(r.At(20, Error{ErrorCode::kBadInput, "unknown GPU"}));
  row.gpu = &*gpu;
  row.tokens = FRUGAL_TRY(r.Number(22));
  row.published = FRUGAL_TRY(r.Number(23));
  if (!(row.published > 0)) return Fail(r.At(23, Error{ErrorCode::kBadInput, "must be positive"}));
  if (!IsMemoryKind(row.kind) && !(row.tokens > 0)) {
    return Fail(r.At(22, Error{ErrorCode::kBadInput, "a time row needs tokens"}));
  }
  row.source = r.Text(24);
  row.confidence = r.Text(25);
  return row;
}

}  // namespace

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

Result<std::vector<CalibrationRow>> ReadCalibration(const std::filesystem::path& path,
                                                    const std::vector<catalog::GpuSpec>& gpus) {
  const CsvTable table = FRUGAL_TRY(CsvTable::Load(path));
  std::vector<size_t> index;
  for (size_t c = 0; c < kColumnCount; ++c)
    index.push_back(FRUGAL_TRY(table.RequireColumn(kColumns[c])));
  const OptionalColumns optional = FindOptionalColumns(table);
  std::vector<CalibrationRow> rows;
  for (const CsvRecord& record : table.rows()) {
    const RowReader reader(table, record, index);
    CalibrationRow row = FRUGAL_TRY(ReadRow(reader, gpus));
    FRUGAL_TRY(ReadOptional(OptionalReader(table, record), optional, row));
    FRUGAL_TRY(reader.Get(17, row.training.Validate()));
    rows.push_back(std::move(row));
  }
  return rows;
}

Result<std::vector<CalibrationResult>> EvaluateCalibration(
    const std::vector<CalibrationRow>& rows) {
  std::vector<CalibrationResult> out;
  for (const CalibrationRow& row : rows) {
    const auto wrap = [&](Error error) { return error.Wrap(row.id); };
    Hardware hw = FRUGAL_TRY(HardwareFor(*row.gpu, row.training.precision).map_error(wrap));
    hw.network_gbps = row.network_gbps;
    const bool memory = IsMemoryKind(row.kind);
    const double tokens = memory ? 1.0 : row.tokens;
    const Estimate e =
        FRUGAL_TRY(EstimateTraining(row.model, row.training, hw, tokens).map_error(wrap));
    CalibrationResult r;
    r.row = &row;
    r.family = row.gpu->architecture;
    switch (row.kind) {
      case CalibrationKind::kMemoryGbAllocated:
        r.is_memory = true;
        r.predicted = MemoryInBasis(e.memory, MemoryBasis::kAllocated) / 1e9;
        r.published = row.published;
        break;
      case CalibrationKind::kMemoryGibReserved:
        r.is_memory = true;
        r.predicted = MemoryInBasis(e.memory, MemoryBasis::kReserved) / kBytesPerGib;
        r.published = row.published;
        break;
      case CalibrationKind::kMemoryGibNvidiaSmi:
        r.is_memory = true;
        r.predicted = MemoryInBasis(e.memory, MemoryBasis::kNvidiaSmi) / kBytesPerGib;
        r.published = row.published;
        break;
      case CalibrationKind::kGpuHours:
        r.predicted = e.GpuHours();
        r.published = row.published;
        break;
      case CalibrationKind::kTokensPerSecondPerGpu:
        r.predicted = e.GpuHours();
        r.published = row.tokens / (row.published * 3600.0);
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

double MedianAbsLog(const std::vector<CalibrationResult>& results, bool memory) {
  std::vector<double> errors;
  for (const auto& r : results) {
    if (r.is_memory == memory) errors.push_back(std::abs(std::log(r.Ratio())));
  }
  return Median(errors);
}

std::optional<double> LeaveOneFamilyOutRatio(const std::vector<CalibrationResult>& results,
                                             size_t index) {
  const CalibrationResult& target = results[index];
  if (target.is_memory) return target.Ratio();
  std::vector<double> others;
  for (const CalibrationResult& r : results) {
    if (!r.is_memory && r.family == target.family && r.row->family != target.row->family)
      others.push_back(r.Ratio());
  }
  if (others.empty()) return std::nullopt;
  return target.Ratio() / Median(others);
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
