#include "frugal/plan/job_spec.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "frugal/catalog/gpu_names.h"
#include "frugal/core/file_name.h"
#include "frugal/core/text.h"
#include "frugal/core/yaml.h"
#include "frugal/core/yaml_bounds.h"
#include "frugal/core/yaml_guard.h"
#include "frugal/estimate/model_yaml.h"
#include "frugal/plan/drill_record.h"
#include "frugal/plan/job_spec_sections.h"

namespace frugal::plan {
namespace {

namespace est = estimate;
using YAML::Node;

constexpr int64_t kMaxBatch = 1 << 20;

/// A scalar or list of values, each parsed by `parse`, with the error at the offending item.
template <typename T, typename Parse>
Result<std::vector<T>> ParsedList(const YamlDoc& doc, const Node& map, std::string_view key,
                                  Parse parse) {
  std::vector<T> out;
  const Node node = map[std::string(key)];
  if (!node.IsDefined() || node.IsNull()) return out;
  std::vector<Node> items;
  if (node.IsSequence()) {
    for (const auto& item : node) items.push_back(item);
  } else {
    items.push_back(node);
  }
  for (const Node& item : items) {
    if (!item.IsScalar())
      return Fail(doc.ErrorAt(item, key, "expected a value or a list of values"));
    auto value = parse(item.Scalar());
    if (!value) return Fail(doc.ErrorAt(item, key, value.error().message));
    out.push_back(*value);
  }
  return out;
}

Result<int> ParseBatchValue(const std::string& text) {
  const int64_t v = FRUGAL_TRY(ParseInt(text));
  if (v < 1 || v > kMaxBatch)
    return Fail(ErrorCode::kBadInput, fmt::format("must be at least 1, got {}", text));
  return static_cast<int>(v);
}

Result<int> ParseZeroValue(const std::string& text) {
  const int64_t v = FRUGAL_TRY(ParseInt(text));
  if (v < 0 || v > 3)
    return Fail(ErrorCode::kBadInput, fmt::format("ZeRO stage must be 0-3, got {}", text));
  return static_cast<int>(v);
}

Result<est::Model> ReadModel(const YamlDoc& doc, const Node& root, JobSpec& job) {
  const Node m = FRUGAL_TRY(est::ModelSection(doc, root));
  FRUGAL_TRY(est::CheckModelKeys(doc, m, "family"));
  job.family = FRUGAL_TRY(ReadFamily(doc, m));
  if (job.family != est::ModelFamily::kTransformer) {
    // Other families are planned from measured profiles; a parameter count sizes the
    // gradient all-reduce when a profile is carried to more GPUs.
    job.modelled = false;
    est::Model other;
    other.params = FRUGAL_TRY(doc.OptionalCount(m, "params")).value_or(0);
    other.layers = 0;
    return other;
  }
  return est::ReadModelShape(doc, m);
}

template <typename T, typename Parse>
Result<void> ReadEnum(const YamlDoc& doc, const Node& t, std::string_view key, Parse parse,
                      T& out) {
  if (auto text = FRUGAL_TRY(doc.OptionalString(t, key))) {
    auto parsed = parse(*text);
    if (!parsed) return Fail(doc.ErrorAt(t[std::string(key)], key, parsed.error().message));
    out = *parsed;
  }
  return {};
}

/// Parallelism and memory-saving settings of `training` (docs/job-spec.md, docs/estimate.md).
Result<void> ReadParallelism(const YamlDoc& doc, const Node& n, est::Training& t) {
  t.tensor_parallel = FRUGAL_TRY(OptionalIntIn(doc, n, "tensor_parallel", 1, 4096)).value_or(1);
  t.pipeline_parallel = FRUGAL_TRY(OptionalIntIn(doc, n, "pipeline_parallel", 1, 4096)).value_or(1);
  t.virtual_stages = FRUGAL_TRY(OptionalIntIn(doc, n, "virtual_stages", 1, 4096)).value_or(1);
  t.expert_parallel = FRUGAL_TRY(OptionalIntIn(doc, n, "expert_parallel", 1, 4096)).value_or(1);
  t.context_parallel = FRUGAL_TRY(OptionalIntIn(doc, n, "context_parallel", 1, 4096)).value_or(1);
  t.sequence_parallel = FRUGAL_TRY(doc.OptionalBool(n, "sequence_parallel")).value_or(false);
  if (t.sequence_parallel && t.tensor_parallel < 2) {
    return Fail(doc.ErrorAt(n["sequence_parallel"], "sequence_parallel",
                            "needs tensor_parallel of 2 or more"));
  }
  FRUGAL_TRY(ReadEnum(doc, n, "attention", est::ParseAttention, t.attention));
  FRUGAL_TRY(ReadEnum(doc, n, "loss", est::ParseLoss, t.loss));
  FRUGAL_TRY(ReadEnum(doc, n, "offload", est::ParseOffload, t.offload));
  FRUGAL_TRY(ReadEnum(doc, n, "memory_basis", est::ParseMemoryBasis, t.memory_basis));
  t.optimizer_in_backward =
      FRUGAL_TRY(doc.OptionalBool(n, "optimizer_in_backward")).value_or(false);
  return {};
}

Result<est::Training> ReadTraining(const YamlDoc& doc, const Node& root, const est::Model& model) {
  est::Training t;
  // Unstated, recompute is what the frameworks of models this size default to.
  t.recompute = est::DefaultRecompute(model.params);
  const Node n = root["training"];
  if (!n.IsDefined()) return t;
  FRUGAL_TRY(doc.CheckKeys(n, "training", {"precision",        "optimizer",
                                           "method",           "lora_rank",
                                           "lora_targets",     "master_weights",
                                           "micro_batch",      "global_batch",
                                           "recompute",        "zero",
                                           "tensor_parallel",  "pipeline_parallel",
                                           "virtual_stages",   "expert_parallel",
                                           "context_parallel", "sequence_parallel",
                                           "attention",        "loss",
                                           "offload",          "optimizer_in_backward",
                                           "network_gbps",     "memory_headroom",
                                           "memory_basis"}));
  FRUGAL_TRY(ReadParallelism(doc, n, t));
  FRUGAL_TRY(ReadEnum(doc, n, "precision", catalog::ParsePrecision, t.precision));
  FRUGAL_TRY(ReadEnum(doc, n, "optimizer", est::ParseOptimizer, t.optimizer));
  FRUGAL_TRY(ReadEnum(doc, n, "method", est::ParseMethod, t.method));
  FRUGAL_TRY(ReadEnum(doc, n, "lora_targets", est::ParseLoraTargets, t.lora_targets));
  FRUGAL_TRY(ReadEnum(doc, n, "master_weights", est::ParseMasterWeights, t.master_weights));
  FRUGAL_TRY(ReadEnum(doc, n, "recompute", est::ParseRecompute, t.recompute));
  t.lora_rank = FRUGAL_TRY(OptionalIntIn(doc, n, "lora_rank", 1, 65'536)).value_or(t.lora_rank);
  t.micro_batch =
      FRUGAL_TRY(OptionalIntIn(doc, n, "micro_batch", 1, kMaxBatch)).value_or(t.micro_batch);
  t.global_batch = FRUGAL_TRY(OptionalIntIn(doc, n, "global_batch", 1, kMaxBatch)).value_or(0);
  t.zero_stage = FRUGAL_TRY(OptionalIntIn(doc, n, "zero", 0, 3)).value_or(0);
  if (t.global_batch > 0 && t.global_batch % t.micro_batch != 0) {
    return Fail(doc.ErrorAt(
        n["global_batch"], "global_batch",
        fmt::format("{} is not a multiple of micro_batch {}", t.global_batch, t.micro_batch)));
  }
  return t;
}

/// kBadInput at the first micro-batch that cannot divide the global batch per GPU on any GPU
/// count: the planner would have no valid combination with it. Unset, the global batch is
/// micro_batch × GPUs, so its per-GPU share is micro_batch; set, it is at most global_batch.
Result<void> CheckMicroBatches(const YamlDoc& doc, const Node& knobs, const est::Training& base) {
  const Node list = knobs["micro_batch"];
  if (!list.IsDefined() || list.IsNull()) return {};
  const int per_gpu = base.global_batch > 0 ? base.global_batch : base.micro_batch;
  std::vector<Node> items;
  if (list.IsSequence()) {
    for (const auto& item : list) items.push_back(item);
  } else {
    items.push_back(list);
  }
  for (const Node& item : items) {
    const int mb = FRUGAL_TRY(ParseBatchValue(item.Scalar()));
    if (per_gpu % mb == 0) continue;
    return Fail(doc.ErrorAt(
        item, "micro_batch",
        base.global_batch > 0
            ? fmt::format("{} does not divide training.global_batch {}", mb, base.global_batch)
            : fmt::format("{} does not divide the global batch per GPU ({}: with no "
                          "training.global_batch it is training.micro_batch {} per GPU)",
                          mb, per_gpu, base.micro_batch)));
  }
  return {};
}

Result<KnobSpace> ReadKnobs(const YamlDoc& doc, const Node& root, const est::Training& base) {
  KnobSpace k;
  const Node n = root["knobs"];
  if (n.IsDefined()) {
    FRUGAL_TRY(
        doc.CheckKeys(n, "knobs", {"precision", "recompute", "micro_batch", "zero", "method"}));
    for (const char* key : {"precision", "recompute", "micro_batch", "zero", "method"}) {
      const Node list = n[key];
      if (list.IsDefined() && list.IsSequence() && list.size() == 0) {
        return Fail(doc.ErrorAt(list, key,
                                "empty list: give at least one value, or leave the "
                                "key out to let the planner choose"));
      }
    }
    k.precisions =
        FRUGAL_TRY(ParsedList<est::Precision>(doc, n, "precision", catalog::ParsePrecision));
    k.recomputes = FRUGAL_TRY(ParsedList<est::Recompute>(doc, n, "recompute", est::ParseRecompute));
    k.micro_batches = FRUGAL_TRY(ParsedList<int>(doc, n, "micro_batch", ParseBatchValue));
    k.zero_stages = FRUGAL_TRY(ParsedList<int>(doc, n, "zero", ParseZeroValue));
    k.methods = FRUGAL_TRY(ParsedList<est::Method>(doc, n, "method", est::ParseMethod));
    FRUGAL_TRY(CheckMicroBatches(doc, n, base));
  }
  // Unset knobs: the user's value first, then what the planner may try.
  if (k.precisions.empty()) {
    k.precisions = {base.precision};
    if (base.precision == est::Precision::kBf16) k.precisions.push_back(est::Precision::kFp16);
  }
  if (k.recomputes.empty())
    k.recomputes = {est::Recompute::kNone, est::Recompute::kSelective, est::Recompute::kFull};
  if (k.micro_batches.empty()) k.micro_batches = {1, 2, 4, 8, 16, 32};
  if (k.zero_stages.empty()) k.zero_stages = {0, 1, 2, 3};
  if (k.methods.empty()) k.methods = {base.method};
  return k;
}

Result<est::Work> ReadWork(const YamlDoc& doc, const Node& root, const est::Model& model,
                           const est::Training& t, bool modelled) {
  const Node n = root["work"];
  // A job known only by measured runtimes needs no amount of work.
  if (!n.IsDefined() && !modelled) return est::Work{};
  if (!n.IsDefined())
    return Fail(doc.ErrorAt(root, "work", "missing (tokens, samples and epochs, or steps)"));
  FRUGAL_TRY(
      doc.CheckKeys(n, "work", {"tokens", "samples", "epochs", "tokens_per_sample", "steps"}));
  est::Work w;
  w.tokens = FRUGAL_TRY(doc.OptionalCount(n, "tokens"));
  w.samples = FRUGAL_TRY(doc.OptionalCount(n, "samples"));
  w.epochs = FRUGAL_TRY(doc.OptionalDouble(n, "epochs")).value_or(1.0);
  w.tokens_per_sample = FRUGAL_TRY(doc.OptionalCount(n, "tokens_per_sample"));
  w.steps = FRUGAL_TRY(doc.OptionalCount(n, "steps"));
  if (!(w.epochs > 0)) return Fail(doc.ErrorAt(n["epochs"], "epochs", "must be positive"));
  if (!modelled) {
    if (w.tokens_per_sample) {
      return Fail(
          doc.ErrorAt(n["tokens_per_sample"], "tokens_per_sample", "only for a transformer model"));
    }
    const int forms = (w.tokens ? 1 : 0) + (w.samples ? 1 : 0) + (w.steps ? 1 : 0);
    if (forms > 1) return Fail(doc.ErrorAt(n, "work", "give only one of tokens, samples or steps"));
    return w;
  }
  auto tokens = est::WorkTokens(w, model, t);
  if (!tokens) return Fail(doc.ErrorAt(n, "work", tokens.error().message));
  return w;
}

Result<std::string> ResolveGpu(const YamlDoc& doc, const Node& node, std::string_view key,
                               const std::string& name, const std::vector<std::string>& known) {
  const auto names = catalog::ResolveGpuName(name, known);
  if (names.size() == 1) return names.front();
  return Fail(doc.ErrorAt(
      node, key,
      names.empty() ? fmt::format("unknown GPU '{}'{}", Abbreviate(name), DidYouMean(name, known))
                    : catalog::AmbiguousGpuMessage(name, names)));
}

Result<MeasuredProfile> ReadProfile(const YamlDoc& doc, const Node& n,
                                    const std::vector<std::string>& known,
                                    const std::filesystem::path& profiles_dir) {
  FRUGAL_TRY(doc.CheckKeys(n, "measured",
                           {"offer", "gpu", "gpus", "runtime", "tokens_per_second",
                            "samples_per_second", "peak_memory_gib", "profile"}));
  MeasuredProfile p;
  // `profile: NAME`: the throughput `frugal profile --name NAME` recorded.
  if (auto name = FRUGAL_TRY(doc.OptionalString(n, "profile"))) {
    FRUGAL_TRY(ReadRecordedProfile(doc, n["profile"], *name, profiles_dir, p));
  }
  p.where = doc.Where(n);
  p.offer = FRUGAL_TRY(doc.OptionalString(n, "offer")).value_or("");
  if (auto gpu = FRUGAL_TRY(doc.OptionalString(n, "gpu")))
    p.gpu = FRUGAL_TRY(ResolveGpu(doc, n["gpu"], "gpu", *gpu, known));
  p.gpus = FRUGAL_TRY(OptionalIntIn(doc, n, "gpus", 1, 100'000)).value_or(0);
  p.gpus_where = p.gpus > 0 ? doc.Where(n["gpus"]) : p.gpu.empty() ? p.where : doc.Where(n["gpu"]);
  if (p.offer.empty() == p.gpu.empty()) {
    return Fail(
        ErrorCode::kBadInput,
        fmt::format("{}: measured profile: give exactly one of 'offer' and 'gpu'", p.where));
  }
  if (auto runtime = FRUGAL_TRY(doc.OptionalDuration(n, "runtime"))) {
    if (runtime->count() <= 0)
      return Fail(doc.ErrorAt(n["runtime"], "runtime", "must be positive"));
    p.runtime_hours = ToHours(*runtime);
  }
  if (auto t = FRUGAL_TRY(doc.OptionalDouble(n, "tokens_per_second"))) p.tokens_per_second = t;
  if (p.tokens_per_second && !(*p.tokens_per_second > 0)) {
    return Fail(doc.ErrorAt(n["tokens_per_second"], "tokens_per_second", "must be positive"));
  }
  if (auto v = FRUGAL_TRY(doc.OptionalDouble(n, "samples_per_second"))) {
    if (p.samples_per_second) {
      return Fail(doc.ErrorAt(n["samples_per_second"], "samples_per_second",
                              "given with 'profile', which already measured it"));
    }
    p.samples_per_second = v;
  }
  if (p.samples_per_second && !(*p.samples_per_second > 0)) {
    return Fail(doc.ErrorAt(n["samples_per_second"], "samples_per_second", "must be positive"));
  }
  const int forms =
      (p.runtime_hours ? 1 : 0) + (p.tokens_per_second ? 1 : 0) + (p.samples_per_second ? 1 : 0);
  if (forms != 1) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("{}: measured profile: give exactly one of 'runtime', "
                            "'tokens_per_second' and 'samples_per_second'",
                            p.where));
  }
  p.peak_memory_gib = FRUGAL_TRY(doc.OptionalDouble(n, "peak_memory_gib"));
  if (p.peak_memory_gib && !(*p.peak_memory_gib > 0)) {
    return Fail(doc.ErrorAt(n["peak_memory_gib"], "peak_memory_gib", "must be positive"));
  }
  return p;
}

Result<std::vector<MeasuredProfile>> ReadMeasured(const YamlDoc& doc, const Node& root,
                                                  const std::vector<std::string>& known,
                                                  const std::filesystem::path& profiles_dir) {
  std::vector<MeasuredProfile> out;
  const Node n = root["measured"];
  if (!n.IsDefined() || n.IsNull()) return out;
  if (!n.IsSequence()) return Fail(doc.ErrorAt(n, "measured", "expected a list of profiles"));
  for (const auto& item : n) {
    out.push_back(FRUGAL_TRY(ReadProfile(doc, item, known, profiles_dir)));
  }
  return out;
}

Result<Constraints> ReadConstraints(const YamlDoc& doc, const Node& root,
                                    const std::vector<std::string>& known) {
  Constraints c;
  const Node n = root["constraints"];
  if (!n.IsDefined()) return c;
  FRUGAL_TRY(doc.CheckKeys(n, "constraints",
                           {"deadline", "budget", "max_gpu_hours", "clouds", "regions", "tiers",
                            "gpus", "max_gpus", "reserved_utilization", "fewer_gpus_within"}));
  if (auto d = FRUGAL_TRY(doc.OptionalDuration(n, "deadline"))) {
    if (d->count() <= 0) return Fail(doc.ErrorAt(n["deadline"], "deadline", "must be positive"));
    c.deadline_hours = ToHours(*d);
  }
  c.budget = FRUGAL_TRY(doc.OptionalMoney(n, "budget"));
  if (c.budget && *c.budget <= Money())
    return Fail(doc.ErrorAt(n["budget"], "budget", "must be positive"));
  c.max_gpu_hours = FRUGAL_TRY(doc.OptionalDouble(n, "max_gpu_hours"));
  if (c.max_gpu_hours && !(*c.max_gpu_hours > 0)) {
    return Fail(doc.ErrorAt(n["max_gpu_hours"], "max_gpu_hours", "must be positive"));
  }
  c.clouds = FRUGAL_TRY(doc.StringList(n, "clouds"));
  for (auto& cloud : c.clouds) cloud = ToLower(cloud);
  // Checked against the catalog by the planner (custom offers may add clouds); kept for that.
  if (const Node list = n["clouds"]; list.IsDefined() && list.IsSequence()) {
    for (const auto& item : list) c.clouds_where.push_back(doc.Where(item));
  } else if (!c.clouds.empty()) {
    c.clouds_where.push_back(doc.Where(list));
  }
  c.regions = FRUGAL_TRY(doc.StringList(n, "regions"));
  c.tiers = FRUGAL_TRY(ParsedList<CapacityTier>(doc, n, "tiers", ParseRentedTier));
  for (const auto& g : FRUGAL_TRY(doc.StringList(n, "gpus"))) {
    c.gpus.push_back(FRUGAL_TRY(ResolveGpu(doc, n["gpus"], "gpus", g, known)));
  }
  c.max_gpus = FRUGAL_TRY(OptionalIntIn(doc, n, "max_gpus", 1, 100'000)).value_or(c.max_gpus);
  c.reserved_utilization = FRUGAL_TRY(doc.OptionalDouble(n, "reserved_utilization"));
  if (c.reserved_utilization && !(*c.reserved_utilization > 0 && *c.reserved_utilization <= 1)) {
    return Fail(
        doc.ErrorAt(n["reserved_utilization"], "reserved_utilization", "must be in (0, 1]"));
  }
  c.fewer_gpus_within = FRUGAL_TRY(doc.OptionalDouble(n, "fewer_gpus_within"));
  if (c.fewer_gpus_within && !(*c.fewer_gpus_within >= 0 && *c.fewer_gpus_within < 1)) {
    return Fail(doc.ErrorAt(n["fewer_gpus_within"], "fewer_gpus_within",
                            "must be a share of the cheapest option's cost in [0, 1), e.g. 0.05"));
  }
  return c;
}

/// Lays a drill record's measurements over the defaults (the spec's own keys come after).
void ApplyDrill(const DrillRecord& d, FaultTolerance& ft) {
  ft.drill = d.name;
  ft.drill_measured_at = d.measured_at;
  if (d.checkpoint_write_max) ft.checkpoint_write_hours = *d.checkpoint_write_max / 3600;
  if (d.restart_max) ft.restart_hours = *d.restart_max / 3600 + ft.boot_hours;
  ft.checkpoint_on_notice = d.checkpoint_on_notice;
  if (!d.spot_ready) {
    ft.not_spot_ready = d.reasons.empty() ? std::string("no reason recorded")
                                          : fmt::format("{}", fmt::join(d.reasons, "; "));
  }
}

/// The drill record for this job: the one `fault_tolerance.drill` names (it must exist), else
/// the one named like the job, else like the spec file (the drill's default name), else none.
Result<std::optional<DrillRecord>> FindDrill(const YamlDoc& doc, const Node& n,
                                             const std::string& job_name,
                                             const std::filesystem::path& drills_dir) {
  std::optional<std::string> named;
  if (n.IsDefined()) named = FRUGAL_TRY(doc.OptionalString(n, "drill"));
  if (drills_dir.empty()) return std::nullopt;
  std::error_code ec;
  if (named) {
    FRUGAL_TRY(CheckFileName(*named, fmt::format("{}: field 'drill'", doc.Where(n["drill"]))));
    const std::filesystem::path path = drills_dir / (*named + ".json");
    if (std::filesystem::exists(path, ec)) return FRUGAL_TRY(ReadDrillRecord(path));
    return Fail(doc.ErrorAt(n["drill"], "drill",
                            fmt::format("no drill record '{}' (run `frugal drill --name {}` "
                                        "first)",
                                        path.string(), *named)));
  }
  for (const std::string& name : {job_name, std::filesystem::path(doc.source()).stem().string()}) {
    const std::filesystem::path path = drills_dir / (name + ".json");
    if (CheckFileName(name, "").has_value() && std::filesystem::exists(path, ec)) {
      return FRUGAL_TRY(ReadDrillRecord(path));
    }
  }
  return std::nullopt;
}

Result<FaultTolerance> ReadFaultTolerance(const YamlDoc& doc, const Node& root,
                                          const std::string& job_name,
                                          const std::filesystem::path& drills_dir) {
  FaultTolerance ft;
  const Node n = root["fault_tolerance"];
  if (n.IsDefined()) {
    FRUGAL_TRY(doc.CheckKeys(n, "fault_tolerance",
                             {"checkpoints", "checkpoint_write", "restart", "checkpoint_on_notice",
                              "notice", "boot", "drill"}));
    if (auto d = FRUGAL_TRY(doc.OptionalDuration(n, "boot"))) ft.boot_hours = ToHours(*d);
  }
  if (auto drill = FRUGAL_TRY(FindDrill(doc, n, job_name, drills_dir))) {
    ApplyDrill(*drill, ft);
    ft.source = CheckpointSource::kDrill;
  }
  if (!n.IsDefined()) {
    // Nothing says the job can resume: priced on spot as restarting from scratch.
    if (ft.source != CheckpointSource::kDrill) {
      ft.source = CheckpointSource::kAssumedNone;
      ft.resumes = false;
    }
    return ft;
  }
  if (ft.source != CheckpointSource::kDrill) ft.source = CheckpointSource::kDeclared;
  if (auto b = FRUGAL_TRY(doc.OptionalBool(n, "checkpoints"))) ft.resumes = *b;
  if (auto d = FRUGAL_TRY(doc.OptionalDuration(n, "checkpoint_write")))
    ft.checkpoint_write_hours = ToHours(*d);
  if (auto d = FRUGAL_TRY(doc.OptionalDuration(n, "restart"))) ft.restart_hours = ToHours(*d);
  if (auto d = FRUGAL_TRY(doc.OptionalDuration(n, "notice"))) ft.notice_hours = ToHours(*d);
  if (auto b = FRUGAL_TRY(doc.OptionalBool(n, "checkpoint_on_notice")))
    ft.checkpoint_on_notice = *b;
  return ft;
}

/// A profile measured in tokens or samples per second needs the work in the same units.
Result<void> CheckWorkForProfiles(const JobSpec& spec) {
  for (const MeasuredProfile& p : spec.measured) {
    if (p.samples_per_second && !spec.work.samples) {
      return Fail(ErrorCode::kBadInput,
                  fmt::format("{}: measured profile: samples_per_second needs work.samples (and "
                              "epochs)",
                              p.where));
    }
    if (p.tokens_per_second && !spec.modelled && !spec.work.tokens) {
      return Fail(
          ErrorCode::kBadInput,
          fmt::format("{}: measured profile: tokens_per_second needs work.tokens", p.where));
    }
  }
  // A job of another family with no `measured:` entry is checked when planned: the ledger may
  // hold what an earlier run of it measured (planner.h).
  return {};
}

Result<JobSpec> ReadSpec(const YamlDoc& doc, const std::filesystem::path& base_dir,
                         const std::vector<std::string>& known,
                         const std::filesystem::path& drills_dir) {
  const Node& root = doc.root();
  FRUGAL_TRY(doc.CheckKeys(
      root, "job",
      {"apiVersion", "kind", "name", "tags", "catalog", "model", "training", "knobs", "work",
       "measured", "constraints", "fault_tolerance", "data", "memory", "fixed_costs"}));
  const std::string api = FRUGAL_TRY(doc.RequiredString(root, "apiVersion"));
  if (api != "frugal/v1")
    return Fail(doc.ErrorAt(root["apiVersion"], "apiVersion",
                            fmt::format("unsupported '{}' (expected frugal/v1)", api)));
  if (auto kind = FRUGAL_TRY(doc.OptionalString(root, "kind")); kind && *kind != "Job") {
    return Fail(doc.ErrorAt(root["kind"], "kind", fmt::format("expected Job, got '{}'", *kind)));
  }
  JobSpec spec;
  spec.source = doc.source();
  const std::optional<std::string> name = FRUGAL_TRY(doc.OptionalString(root, "name"));
  // The job's measurements and drill records are files named after it.
  if (name)
    FRUGAL_TRY(CheckFileName(*name, fmt::format("{}: field 'name'", doc.Where(root["name"]))));
  spec.name = name.value_or("job");
  spec.measurement_name = name ? *name : std::filesystem::path(spec.source).stem().string();
  // Any tags: team, project and owner are what reports group by; a policy may require others.
  spec.tags = FRUGAL_TRY(doc.StringMap(root, "tags"));
  for (const auto& file : FRUGAL_TRY(doc.StringList(root, "catalog")))
    spec.catalog_files.push_back(base_dir / file);
  if (!spec.catalog_files.empty()) spec.catalog_where = doc.Where(root["catalog"]);
  spec.model = FRUGAL_TRY(ReadModel(doc, root, spec));
  spec.baseline = FRUGAL_TRY(ReadTraining(doc, root, spec.model));
  if (const Node training = root["training"]; training.IsDefined()) {
    if (auto gbps = FRUGAL_TRY(doc.OptionalDouble(training, "network_gbps"))) {
      if (!(*gbps > 0))
        return Fail(doc.ErrorAt(training["network_gbps"], "network_gbps", "must be positive"));
      spec.network_gbps = *gbps;
    }
    if (auto share = FRUGAL_TRY(doc.OptionalDouble(training, "memory_headroom"))) {
      if (!(*share >= 0 && *share < 0.5)) {
        return Fail(doc.ErrorAt(training["memory_headroom"], "memory_headroom",
                                "must be a share of usable GPU memory in [0, 0.5), e.g. 0.1"));
      }
      spec.memory_headroom = *share;
    }
  }
  spec.knobs = FRUGAL_TRY(ReadKnobs(doc, root, spec.baseline));
  spec.work = FRUGAL_TRY(ReadWork(doc, root, spec.model, spec.baseline, spec.modelled));
  // Recorded profiles live beside the drill records in the data directory.
  const std::filesystem::path profiles_dir =
      drills_dir.empty() ? std::filesystem::path() : drills_dir.parent_path() / "profiles";
  spec.measured = FRUGAL_TRY(ReadMeasured(doc, root, known, profiles_dir));
  spec.host_ram_gib = FRUGAL_TRY(ReadHostRam(doc, root));
  spec.launch = FRUGAL_TRY(ReadFixedCosts(doc, root));
  FRUGAL_TRY(CheckWorkForProfiles(spec));
  spec.constraints = FRUGAL_TRY(ReadConstraints(doc, root, known));
  spec.fault_tolerance = FRUGAL_TRY(ReadFaultTolerance(doc, root, spec.name, drills_dir));
  spec.data = FRUGAL_TRY(ReadData(doc, root));
  return spec;
}

}  // namespace

Result<JobSpec> LoadJobSpec(const std::filesystem::path& path,
                            const std::vector<std::string>& gpu_names,
                            const std::filesystem::path& drills_dir) {
  const YamlDoc doc = FRUGAL_TRY(YamlDoc::Load(path));
  JobSpec spec = FRUGAL_TRY(GuardYaml(
      doc.source(), [&] { return ReadSpec(doc, path.parent_path(), gpu_names, drills_dir); }));
  // Name the spec's line, not only the missing file: the path is relative to the spec.
  for (const std::filesystem::path& file : spec.catalog_files) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(file, ec)) {
      return Fail(ErrorCode::kBadInput,
                  fmt::format("{}: field 'catalog': no offers file '{}' (paths are relative to "
                              "the spec's folder)",
                              spec.catalog_where, file.string()));
    }
  }
  return spec;
}

Result<JobSpec> ParseJobSpec(std::string_view text, const std::string& source,
                             const std::filesystem::path& base_dir,
                             const std::vector<std::string>& gpu_names,
                             const std::filesystem::path& drills_dir) {
  const YamlDoc doc = FRUGAL_TRY(YamlDoc::Parse(text, source));
  return GuardYaml(doc.source(), [&] { return ReadSpec(doc, base_dir, gpu_names, drills_dir); });
}

Result<DataSpec> ParseDataSection(std::string_view text, const std::string& source) {
  const YamlDoc doc = FRUGAL_TRY(YamlDoc::Parse(text, source));
  if (!doc.root().IsMap()) return DataSpec{};
  return GuardYaml(doc.source(), [&] { return ReadData(doc, doc.root()); });
}

}  // namespace frugal::plan
