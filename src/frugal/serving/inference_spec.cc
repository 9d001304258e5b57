#include "frugal/serving/inference_spec.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "frugal/catalog/gpu_names.h"
#include "frugal/core/text.h"
#include "frugal/core/yaml.h"
#include "frugal/core/yaml_bounds.h"
#include "frugal/serving/served_model.h"

namespace frugal::serving {
namespace {

using YAML::Node;

constexpr double kMaxRps = 1e9;
/// One request in about 12 days: below that, serving is a batch job.
constexpr double kMinRps = 1e-6;
/// The shortest serving day or week frugal prices: about half a minute.
constexpr double kMinServingShare = 0.01;
constexpr int kMaxTokens = 100'000'000;

/// An optional number in [low, high], low > 0: a positive figure so small that it cannot be
/// meant (rps: 1e-300) would price to infinity or a $0 bill.
Result<std::optional<double>> Positive(const YamlDoc& doc, const Node& map, std::string_view key,
                                       double low, double high) {
  auto v = FRUGAL_TRY(doc.OptionalDouble(map, key));
  if (v && !(*v >= low && *v <= high)) {
    return Fail(doc.ErrorAt(map[std::string(key)], key,
                            fmt::format("must be between {:g} and {:g}, got {:g}", low, high, *v)));
  }
  return v;
}

/// An optional positive duration, in seconds.
Result<std::optional<double>> Seconds(const YamlDoc& doc, const Node& map, std::string_view key) {
  auto d = FRUGAL_TRY(doc.OptionalDuration(map, key));
  if (!d) return std::optional<double>();
  if (d->count() <= 0) return Fail(doc.ErrorAt(map[std::string(key)], key, "must be positive"));
  return std::optional<double>(ToSeconds(*d));
}

Result<std::string> ResolveGpu(const YamlDoc& doc, const Node& node, std::string_view key,
                               const std::string& name, const std::vector<std::string>& known) {
  if (ToLower(name) == "cpu") return std::string("cpu");
  const auto names = catalog::ResolveGpuName(name, known);
  if (names.size() == 1) return names.front();
  return Fail(doc.ErrorAt(node, key,
                          names.empty()
                              ? fmt::format("unknown GPU '{}'{}", name, DidYouMean(name, known))
                              : fmt::format("'{}' is ambiguous; name the exact part", name)));
}

Result<std::vector<double>> ReadShape(const YamlDoc& doc, const Node& w) {
  std::vector<double> shape;
  const Node n = w["daily_shape"];
  if (!n.IsDefined() || n.IsNull()) return shape;
  if (!n.IsSequence() || n.size() != 24) {
    return Fail(doc.ErrorAt(n, "daily_shape",
                            "expected a list of 24 values: requests per second in each hour"));
  }
  for (const auto& item : n) {
    auto v = item.IsScalar() ? ParseDouble(item.Scalar()) : Result<double>(-1.0);
    if (!v || !(*v >= 0 && *v <= kMaxRps)) {
      return Fail(doc.ErrorAt(item, "daily_shape", "expected requests per second, at least 0"));
    }
    shape.push_back(*v);
  }
  if (*std::max_element(shape.begin(), shape.end()) <= 0)
    return Fail(doc.ErrorAt(n, "daily_shape", "every hour is zero"));
  return shape;
}

/// The point a replica is reported at: concurrency (decoder), batch (encoder, cnn) or an
/// offered load; at most one.
Result<void> ReadPoint(const YamlDoc& doc, const Node& n, Architecture a, Workload& w) {
  w.concurrency = FRUGAL_TRY(OptionalIntIn(doc, n, "concurrency", 1, 1'000'000));
  w.batch = FRUGAL_TRY(OptionalIntIn(doc, n, "batch", 1, 1'000'000));
  w.offered_rps = FRUGAL_TRY(Positive(doc, n, "offered_rps", kMinRps, kMaxRps));
  const bool decoder = a == Architecture::kDecoder;
  if (decoder && w.batch) {
    return Fail(doc.ErrorAt(n["batch"], "batch",
                            "only for an encoder or cnn; a decoder's point is its concurrency "
                            "(requests decoded at a time)"));
  }
  if (!decoder && w.concurrency) {
    return Fail(doc.ErrorAt(n["concurrency"], "concurrency",
                            "only for a decoder; an encoder or cnn gives batch (items per "
                            "forward pass)"));
  }
  const int given = (w.concurrency ? 1 : 0) + (w.batch ? 1 : 0) + (w.offered_rps ? 1 : 0);
  if (given > 1) {
    return Fail(doc.ErrorAt(n["offered_rps"], "offered_rps",
                            "give one point to report at: concurrency (or batch), or "
                            "offered_rps, not both"));
  }
  return {};
}

Result<Workload> ReadWorkload(const YamlDoc& doc, const Node& root, const ServedModel& model) {
  const Node n = root["workload"];
  if (!n.IsDefined()) return Fail(doc.ErrorAt(root, "workload", "missing (rps, or daily_shape)"));
  FRUGAL_TRY(doc.CheckKeys(
      n, "workload",
      {"rps", "peak_rps", "daily_shape", "input_tokens", "output_tokens", "items_per_request",
       "tokens_per_item", "concurrency", "batch", "offered_rps"}));
  Workload w;
  w.daily_shape = FRUGAL_TRY(ReadShape(doc, n));
  FRUGAL_TRY(ReadPoint(doc, n, model.architecture, w));
  // Without a traffic figure, the offered load is the traffic.
  auto rps = FRUGAL_TRY(Positive(doc, n, "rps", kMinRps, kMaxRps));
  if (!rps && w.daily_shape.empty()) rps = w.offered_rps;
  const auto peak = FRUGAL_TRY(Positive(doc, n, "peak_rps", kMinRps, kMaxRps));
  if (!w.daily_shape.empty()) {
    w.peak_rps = *std::max_element(w.daily_shape.begin(), w.daily_shape.end());
    w.mean_rps = std::accumulate(w.daily_shape.begin(), w.daily_shape.end(), 0.0) / 24;
    if (n["rps"].IsDefined() || peak) {
      return Fail(doc.ErrorAt(n[rps ? "rps" : "peak_rps"], rps ? "rps" : "peak_rps",
                              "give either daily_shape or rps/peak_rps, not both"));
    }
  } else {
    if (!rps) return Fail(doc.ErrorAt(n, "rps", "missing (mean requests per second)"));
    w.mean_rps = *rps;
    w.peak_rps = peak.value_or(*rps);
    if (w.peak_rps < w.mean_rps) {
      return Fail(
          doc.ErrorAt(n["peak_rps"], "peak_rps",
                      fmt::format("{:g} is below the mean rps {:g}", w.peak_rps, w.mean_rps)));
    }
  }
  const bool decoder = model.architecture == Architecture::kDecoder;
  w.input_tokens = FRUGAL_TRY(OptionalIntIn(doc, n, "input_tokens", 1, kMaxTokens)).value_or(0);
  w.output_tokens = FRUGAL_TRY(OptionalIntIn(doc, n, "output_tokens", 1, kMaxTokens)).value_or(0);
  if (decoder && (w.input_tokens == 0 || w.output_tokens == 0)) {
    return Fail(doc.ErrorAt(n, w.input_tokens == 0 ? "input_tokens" : "output_tokens",
                            "missing: a decoder needs input_tokens and output_tokens per request"));
  }
  if (!decoder && (w.input_tokens > 0 || w.output_tokens > 0)) {
    const char* key = w.input_tokens > 0 ? "input_tokens" : "output_tokens";
    return Fail(doc.ErrorAt(n[key], key,
                            "only for a decoder (model.type: decoder); an encoder or cnn "
                            "takes items_per_request and tokens_per_item"));
  }
  w.items_per_request = FRUGAL_TRY(Positive(doc, n, "items_per_request", 1e-3, 1e6)).value_or(1.0);
  w.tokens_per_item =
      FRUGAL_TRY(OptionalIntIn(doc, n, "tokens_per_item", 1, kMaxTokens)).value_or(model.shape.seq);
  const int context = w.input_tokens + w.output_tokens;
  if (decoder && context > model.shape.seq && n["input_tokens"].IsDefined() &&
      root["model"]["seq"].IsDefined()) {
    return Fail(doc.ErrorAt(
        n["input_tokens"], "input_tokens",
        fmt::format("input + output tokens ({}) exceed model.seq {}", context, model.shape.seq)));
  }
  return w;
}

Result<LatencyObjective> ReadLatency(const YamlDoc& doc, const Node& n) {
  LatencyObjective l;
  if (!n.IsDefined() || n.IsNull()) return l;
  FRUGAL_TRY(doc.CheckKeys(
      n, "latency",
      {"ttft_p50", "ttft_p95", "tpot_p50", "tpot_p95", "request_p50", "request_p95"}));
  l.ttft_p50 = FRUGAL_TRY(Seconds(doc, n, "ttft_p50"));
  l.ttft_p95 = FRUGAL_TRY(Seconds(doc, n, "ttft_p95"));
  l.tpot_p50 = FRUGAL_TRY(Seconds(doc, n, "tpot_p50"));
  l.tpot_p95 = FRUGAL_TRY(Seconds(doc, n, "tpot_p95"));
  l.request_p50 = FRUGAL_TRY(Seconds(doc, n, "request_p50"));
  l.request_p95 = FRUGAL_TRY(Seconds(doc, n, "request_p95"));
  return l;
}

Result<void> CheckLatencyFits(const YamlDoc& doc, const Node& n, Architecture a) {
  if (!n.IsDefined() || !n.IsMap()) return {};
  const bool decoder = a == Architecture::kDecoder;
  for (const char* key : {"ttft_p50", "ttft_p95", "tpot_p50", "tpot_p95"}) {
    if (!decoder && n[key].IsDefined())
      return Fail(doc.ErrorAt(n[key], key, "only for a decoder; an encoder or cnn has request_*"));
  }
  for (const char* key : {"request_p50", "request_p95"}) {
    if (decoder && n[key].IsDefined())
      return Fail(doc.ErrorAt(n[key], key, "not for a decoder: give ttft_* and tpot_*"));
  }
  return {};
}

Result<ServingSchedule> ReadSchedule(const YamlDoc& doc, const Node& root) {
  ServingSchedule s;
  const Node n = root["serving"];
  if (!n.IsDefined() || n.IsNull()) return s;
  FRUGAL_TRY(doc.CheckKeys(n, "serving",
                           {"hours", "hours_per_day", "days_per_week", "lifetime_months",
                            "interruptible", "headroom", "restart"}));
  double per_day = 24;
  double per_week = 7;
  if (auto hours = FRUGAL_TRY(doc.OptionalString(n, "hours"))) {
    const std::string h = ToLower(*hours);
    if (h == "24/7" || h == "always") {
      s.label = "24/7";
    } else if (h == "business" || h == "business_hours" || h == "business hours") {
      per_day = 10;
      per_week = 5;
    } else {
      return Fail(doc.ErrorAt(n["hours"], "hours",
                              fmt::format("unknown '{}' (expected 24/7 or business; or give "
                                          "hours_per_day and days_per_week)",
                                          *hours)));
    }
  }
  if (auto d = FRUGAL_TRY(Positive(doc, n, "hours_per_day", kMinServingShare, 24))) per_day = *d;
  if (auto w = FRUGAL_TRY(Positive(doc, n, "days_per_week", kMinServingShare, 7))) per_week = *w;
  s.hours_per_month = 730.0 * per_day * per_week / 168.0;
  if (per_day < 24 || per_week < 7) {
    s.label = fmt::format("{:g} h/day x {:g} days/week", per_day, per_week);
  }
  s.lifetime_months = FRUGAL_TRY(OptionalIntIn(doc, n, "lifetime_months", 1, 600)).value_or(12);
  s.interruptible = FRUGAL_TRY(doc.OptionalBool(n, "interruptible")).value_or(false);
  if (auto h = FRUGAL_TRY(doc.OptionalDouble(n, "headroom"))) {
    if (!(*h >= 0 && *h <= 10))
      return Fail(doc.ErrorAt(n["headroom"], "headroom", "expected a share in [0, 10]"));
    s.headroom = *h;
  }
  if (auto r = FRUGAL_TRY(Seconds(doc, n, "restart"))) s.restart_hours = *r / 3600;
  return s;
}

Result<MeasuredServing> ReadProfile(const YamlDoc& doc, const Node& n,
                                    const std::vector<std::string>& known, Architecture a) {
  FRUGAL_TRY(doc.CheckKeys(
      n, "measured",
      {"offer", "gpu", "gpus", "output_tokens_per_second", "items_per_second", "concurrency",
       "ttft_p50", "ttft_p95", "tpot_p50", "tpot_p95", "request_p50", "request_p95"}));
  MeasuredServing p;
  p.where = doc.Where(n);
  p.offer = FRUGAL_TRY(doc.OptionalString(n, "offer")).value_or("");
  if (auto gpu = FRUGAL_TRY(doc.OptionalString(n, "gpu")))
    p.gpu = FRUGAL_TRY(ResolveGpu(doc, n["gpu"], "gpu", *gpu, known));
  if (p.offer.empty() == p.gpu.empty()) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("{}: measured: give exactly one of 'offer' and 'gpu'", p.where));
  }
  p.gpus = FRUGAL_TRY(OptionalIntIn(doc, n, "gpus", 1, 64)).value_or(0);
  const bool decoder = a == Architecture::kDecoder;
  const char* key = decoder ? "output_tokens_per_second" : "items_per_second";
  const char* other = decoder ? "items_per_second" : "output_tokens_per_second";
  if (n[other].IsDefined()) {
    return Fail(doc.ErrorAt(n[other], other,
                            fmt::format("this model is a {}: give {}", ArchitectureName(a), key)));
  }
  const auto rate = FRUGAL_TRY(Positive(doc, n, key, 1e-6, 1e12));
  if (!rate) return Fail(doc.ErrorAt(n, key, "missing: the measured throughput per replica"));
  p.per_second = *rate;
  p.concurrency = FRUGAL_TRY(OptionalIntIn(doc, n, "concurrency", 1, 1'000'000));
  p.latency.ttft_p50 = FRUGAL_TRY(Seconds(doc, n, "ttft_p50"));
  p.latency.ttft_p95 = FRUGAL_TRY(Seconds(doc, n, "ttft_p95"));
  p.latency.tpot_p50 = FRUGAL_TRY(Seconds(doc, n, "tpot_p50"));
  p.latency.tpot_p95 = FRUGAL_TRY(Seconds(doc, n, "tpot_p95"));
  p.latency.request_p50 = FRUGAL_TRY(Seconds(doc, n, "request_p50"));
  p.latency.request_p95 = FRUGAL_TRY(Seconds(doc, n, "request_p95"));
  FRUGAL_TRY(CheckLatencyFits(doc, n, a));
  return p;
}

Result<std::vector<MeasuredServing>> ReadMeasured(const YamlDoc& doc, const Node& root,
                                                  const std::vector<std::string>& known,
                                                  Architecture a) {
  std::vector<MeasuredServing> out;
  const Node n = root["measured"];
  if (!n.IsDefined() || n.IsNull()) return out;
  if (!n.IsSequence()) return Fail(doc.ErrorAt(n, "measured", "expected a list of profiles"));
  for (const auto& item : n) {
    MeasuredServing p = FRUGAL_TRY(ReadProfile(doc, item, known, a));
    // Two figures for one replica shape: one of them would be used and the other dropped.
    for (const MeasuredServing& o : out) {
      if (o.offer == p.offer && o.gpu == p.gpu && o.gpus == p.gpus &&
          o.concurrency == p.concurrency) {
        const std::string shape =
            (p.offer.empty() ? p.gpu : p.offer) + (p.gpus > 0 ? fmt::format(" x{}", p.gpus) : "");
        return Fail(doc.ErrorAt(item, "measured",
                                fmt::format("{} is measured twice (first at {}): give one figure "
                                            "per replica shape",
                                            shape, o.where)));
      }
    }
    out.push_back(std::move(p));
  }
  return out;
}

Result<ServingConstraints> ReadConstraints(const YamlDoc& doc, const Node& root,
                                           const std::vector<std::string>& known) {
  ServingConstraints c;
  const Node n = root["constraints"];
  if (!n.IsDefined() || n.IsNull()) return c;
  FRUGAL_TRY(doc.CheckKeys(n, "constraints",
                           {"clouds", "regions", "tiers", "gpus", "max_gpus_per_replica",
                            "gpus_per_replica", "replicas_per_instance"}));
  c.clouds = FRUGAL_TRY(doc.StringList(n, "clouds"));
  for (auto& cloud : c.clouds) cloud = ToLower(cloud);
  c.regions = FRUGAL_TRY(doc.StringList(n, "regions"));
  for (const auto& t : FRUGAL_TRY(doc.StringList(n, "tiers"))) {
    auto tier = ParseRentedTier(t);
    if (!tier) return Fail(doc.ErrorAt(n["tiers"], "tiers", tier.error().message));
    c.tiers.push_back(*tier);
  }
  for (const auto& g : FRUGAL_TRY(doc.StringList(n, "gpus")))
    c.gpus.push_back(FRUGAL_TRY(ResolveGpu(doc, n["gpus"], "gpus", g, known)));
  c.max_gpus_per_replica = FRUGAL_TRY(OptionalIntIn(doc, n, "max_gpus_per_replica", 1, 64))
                               .value_or(c.max_gpus_per_replica);
  c.gpus_per_replica = FRUGAL_TRY(OptionalIntIn(doc, n, "gpus_per_replica", 1, 64));
  if (c.gpus_per_replica && *c.gpus_per_replica > c.max_gpus_per_replica) {
    if (n["max_gpus_per_replica"].IsDefined()) {
      return Fail(doc.ErrorAt(n["gpus_per_replica"], "gpus_per_replica",
                              fmt::format("{} is above max_gpus_per_replica {}",
                                          *c.gpus_per_replica, c.max_gpus_per_replica)));
    }
    c.max_gpus_per_replica = *c.gpus_per_replica;
  }
  c.replicas_per_instance = FRUGAL_TRY(OptionalIntIn(doc, n, "replicas_per_instance", 1, 64));
  return c;
}

Result<TrainingSource> ReadTraining(const YamlDoc& doc, const Node& root,
                                    const std::filesystem::path& base_dir) {
  TrainingSource t;
  const Node n = root["training"];
  if (!n.IsDefined() || n.IsNull()) return t;
  FRUGAL_TRY(doc.CheckKeys(
      n, "training", {"job", "cost", "run", "study", "retrain_every_months", "retrain_cost"}));
  t.where = doc.Where(n);
  if (auto job = FRUGAL_TRY(doc.OptionalString(n, "job"))) t.job = base_dir / *job;
  t.cost = FRUGAL_TRY(doc.OptionalMoney(n, "cost"));
  if (t.cost && *t.cost < Money())
    return Fail(doc.ErrorAt(n["cost"], "cost", "must not be negative"));
  t.run = FRUGAL_TRY(doc.OptionalString(n, "run")).value_or("");
  t.study = FRUGAL_TRY(doc.OptionalString(n, "study")).value_or("");
  const int sources = (t.job.empty() ? 0 : 1) + (t.cost ? 1 : 0) + (t.run.empty() ? 0 : 1) +
                      (t.study.empty() ? 0 : 1);
  if (sources != 1) {
    return Fail(
        ErrorCode::kBadInput,
        fmt::format("{}: field 'training': give exactly one of job, cost, run and study", t.where));
  }
  t.retrain_every_months = FRUGAL_TRY(OptionalIntIn(doc, n, "retrain_every_months", 1, 600));
  t.retrain_cost = FRUGAL_TRY(doc.OptionalMoney(n, "retrain_cost"));
  if (t.retrain_cost && *t.retrain_cost < Money())
    return Fail(doc.ErrorAt(n["retrain_cost"], "retrain_cost", "must not be negative"));
  return t;
}

Result<std::optional<Deployment>> ReadDeployment(const YamlDoc& doc, const Node& root,
                                                 const std::vector<std::string>& known) {
  const Node n = root["deployment"];
  if (!n.IsDefined() || n.IsNull()) return std::optional<Deployment>();
  FRUGAL_TRY(
      doc.CheckKeys(n, "deployment", {"gpu", "offer", "gpus_per_replica", "replicas", "tier"}));
  Deployment d;
  d.where = doc.Where(n);
  if (auto gpu = FRUGAL_TRY(doc.OptionalString(n, "gpu")))
    d.gpu = FRUGAL_TRY(ResolveGpu(doc, n["gpu"], "gpu", *gpu, known));
  d.offer = FRUGAL_TRY(doc.OptionalString(n, "offer")).value_or("");
  if (d.gpu.empty() == d.offer.empty()) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("{}: deployment: give exactly one of 'gpu' and 'offer'", d.where));
  }
  d.gpus_per_replica = FRUGAL_TRY(OptionalIntIn(doc, n, "gpus_per_replica", 1, 64)).value_or(1);
  d.replicas = FRUGAL_TRY(OptionalIntIn(doc, n, "replicas", 1, 1'000'000)).value_or(1);
  if (auto tier = FRUGAL_TRY(doc.OptionalString(n, "tier"))) {
    auto t = ParseRentedTier(*tier);
    if (!t) return Fail(doc.ErrorAt(n["tier"], "tier", t.error().message));
    d.tier = *t;
  }
  return std::optional<Deployment>(d);
}

Result<InferenceSpec> ReadSpec(const YamlDoc& doc, const std::filesystem::path& base_dir,
                               const std::vector<std::string>& known) {
  const Node& root = doc.root();
  FRUGAL_TRY(
      doc.CheckKeys(root, "inference spec",
                    {"apiVersion", "kind", "name", "tags", "catalog", "model", "workload",
                     "latency", "serving", "measured", "constraints", "training", "deployment"}));
  const std::string api = FRUGAL_TRY(doc.RequiredString(root, "apiVersion"));
  if (api != "frugal/v1") {
    return Fail(doc.ErrorAt(root["apiVersion"], "apiVersion",
                            fmt::format("unsupported '{}' (expected frugal/v1)", api)));
  }
  const std::string kind = FRUGAL_TRY(doc.RequiredString(root, "kind"));
  if (kind != "Inference") {
    return Fail(
        doc.ErrorAt(root["kind"], "kind", fmt::format("expected Inference, got '{}'", kind)));
  }
  InferenceSpec spec;
  spec.source = doc.source();
  spec.name = FRUGAL_TRY(doc.OptionalString(root, "name")).value_or("inference");
  spec.tags = FRUGAL_TRY(doc.StringMap(root, "tags"));
  for (const auto& file : FRUGAL_TRY(doc.StringList(root, "catalog")))
    spec.catalog_files.push_back(base_dir / file);
  if (!spec.catalog_files.empty()) spec.catalog_where = doc.Where(root["catalog"]);
  spec.model = FRUGAL_TRY(ReadServedModel(doc, root));
  spec.workload = FRUGAL_TRY(ReadWorkload(doc, root, spec.model));
  spec.latency = FRUGAL_TRY(ReadLatency(doc, root["latency"]));
  FRUGAL_TRY(CheckLatencyFits(doc, root["latency"], spec.model.architecture));
  spec.schedule = FRUGAL_TRY(ReadSchedule(doc, root));
  spec.measured = FRUGAL_TRY(ReadMeasured(doc, root, known, spec.model.architecture));
  spec.constraints = FRUGAL_TRY(ReadConstraints(doc, root, known));
  spec.training = FRUGAL_TRY(ReadTraining(doc, root, base_dir));
  spec.deployment = FRUGAL_TRY(ReadDeployment(doc, root, known));
  return spec;
}

Result<void> CheckFile(const std::filesystem::path& file, const std::string& where,
                       std::string_view field) {
  std::error_code ec;
  if (std::filesystem::is_regular_file(file, ec)) return {};
  return Fail(ErrorCode::kBadInput,
              fmt::format("{}: field '{}': no file '{}' (paths are relative to the spec's folder)",
                          where, field, file.string()));
}

}  // namespace

Result<bool> IsInferenceSpec(const std::filesystem::path& path) {
  const YamlDoc doc = FRUGAL_TRY(YamlDoc::Load(path));
  if (!doc.root().IsMap()) return false;
  const YAML::Node kind = doc.root()["kind"];
  return kind.IsDefined() && kind.IsScalar() && kind.Scalar() == "Inference";
}

Result<InferenceSpec> LoadInferenceSpec(const std::filesystem::path& path,
                                        const std::vector<std::string>& gpu_names) {
  const YamlDoc doc = FRUGAL_TRY(YamlDoc::Load(path));
  InferenceSpec spec = FRUGAL_TRY(ReadSpec(doc, path.parent_path(), gpu_names));
  for (const std::filesystem::path& file : spec.catalog_files)
    FRUGAL_TRY(CheckFile(file, spec.catalog_where, "catalog"));
  if (!spec.training.job.empty())
    FRUGAL_TRY(CheckFile(spec.training.job, spec.training.where, "training.job"));
  return spec;
}

Result<InferenceSpec> ParseInferenceSpec(std::string_view text, const std::string& source,
                                         const std::filesystem::path& base_dir,
                                         const std::vector<std::string>& gpu_names) {
  const YamlDoc doc = FRUGAL_TRY(YamlDoc::Parse(text, source));
  return ReadSpec(doc, base_dir, gpu_names);
}

}  // namespace frugal::serving
