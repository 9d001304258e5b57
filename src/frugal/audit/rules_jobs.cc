// Rules over what a job does with its GPUs and its data: tensor cores left unused in training,
// data read from another region than the compute, preprocessing recomputed by every run of a
// family.

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "frugal/audit/audit_data.h"
#include "frugal/core/text.h"

namespace frugal::audit {
namespace {

using ledger::Segment;

/// The GPU segment the run spent longest on in the window, or null.
const Segment* MainSegment(const RunFacts& r, const AuditOptions& o) {
  const Segment* main = nullptr;
  for (const Segment& s : r.segments) {
    if (s.offer.gpu_count == 0) continue;
    if (main == nullptr || InWindow(s, o) > InWindow(*main, o)) main = &s;
  }
  return main;
}

/// What the run paid for GPU segments in the window, and for how long.
std::pair<Money, Duration> GpuSpend(const RunFacts& r, const AuditOptions& o) {
  Money paid;
  Duration time(0);
  for (const Segment& s : r.segments) {
    if (s.offer.gpu_count == 0) continue;
    paid += s.offer.price.For(InWindow(s, o));
    time += InWindow(s, o);
  }
  return {paid, time};
}

/// The GPU's fastest dense tensor-core rate: BF16, else FP16, else TF32.
std::optional<std::pair<catalog::Precision, double>> TensorTflops(const catalog::GpuSpec& g) {
  for (catalog::Precision p :
       {catalog::Precision::kBf16, catalog::Precision::kFp16, catalog::Precision::kTf32}) {
    if (auto t = g.DenseTflops(p)) return std::pair{p, *t};
  }
  return std::nullopt;
}

void TensorFinding(const RunFacts& r, double sm, double tensor, const AuditOptions& o,
                   AuditResult& out) {
  const Segment* main = MainSegment(r, o);
  const auto [paid, time] = GpuSpend(r, o);
  if (main == nullptr || ToHours(time) * 60 < o.thresholds.underutil_min_minutes) return;
  Finding f;
  f.rule = kTensorCoresUnused;
  f.subject = r.Label();
  f.runs = {r.run.id};
  f.evidence = fmt::format("SMs active {:.0f}% but tensor pipes {:.1f}% over {} on {}x {}", sm,
                           tensor, FormatDuration(time), main->offer.gpu_count, main->offer.gpu);
  f.facts = {{"sm_active_pct", sm},
             {"tensor_active_pct", tensor},
             {"paid", paid.ToPlainString()},
             {"gpu", main->offer.gpu}};
  f.action =
      "train in mixed precision (bf16 autocast) or allow TF32 matmuls, so matrix math runs "
      "on the tensor cores";
  const catalog::GpuSpec* gpu =
      o.catalog == nullptr ? nullptr : o.catalog->FindGpu(main->offer.gpu);
  const std::optional<double> fp32 =
      gpu ? gpu->DenseTflops(catalog::Precision::kFp32) : std::nullopt;
  const auto fast = gpu ? TensorTflops(*gpu) : std::nullopt;
  if (!fp32 || !fast || fast->second <= *fp32) {
    f.saving_basis = fmt::format(
        "not computed: the catalog has no FP32 and tensor-core TFLOPS for '{}'", main->offer.gpu);
    out.findings.push_back(std::move(f));
    return;
  }
  // The matrix-math share of the busy time runs fast/fp32 times faster on tensor cores.
  const double share = sm / 100 * o.thresholds.tensor_matmul_share_pct / 100;
  const double cut = share * (1 - *fp32 / fast->second);
  const Money saving = paid.Scaled(cut);
  f.saving_per_month = PerMonth(saving, o);
  f.saving_basis = fmt::format(
      "{} paid × {:.0f}% SM-active × {}% of it matrix math × (1 − {} FP32 / {} {} TFLOPS) = {}, "
      "× {} / window days",
      paid.ToString(), sm, o.thresholds.tensor_matmul_share_pct, *fp32, fast->second,
      catalog::PrecisionName(fast->first), saving.ToString(), o.thresholds.month_days);
  f.facts["saving_share"] = cut;
  out.findings.push_back(std::move(f));
}

struct FarGroup {
  std::string data_cloud, data_region, cloud, region;
  std::vector<const RunFacts*> runs;
};

void FarFinding(const FarGroup& g, const AuditOptions& o, AuditResult& out) {
  Finding f;
  f.rule = kDataFarFromCompute;
  f.subject = fmt::format("data in {} {}, compute in {} {}", g.data_cloud, g.data_region, g.cloud,
                          g.region);
  double total_gb = 0;
  double dataset_gb = 0;
  std::string missing;
  for (const RunFacts* r : g.runs) {
    f.runs.push_back(r->run.id);
    if (!r->data.size_gb) {
      missing = fmt::format("data.size_gb in the spec of {}", r->Label());
      continue;
    }
    total_gb += *r->data.size_gb;
    dataset_gb = std::max(dataset_gb, *r->data.size_gb);
  }
  f.evidence = fmt::format("{} read their data from another {}; {:.0f} GB moved",
                           Counted(static_cast<int64_t>(g.runs.size()), "run"),
                           g.data_cloud == g.cloud ? "region" : "cloud", total_gb);
  f.facts = {{"runs", g.runs.size()}, {"gb_moved", total_gb}};
  f.action = fmt::format("keep a copy of the dataset in {} {} (or run in {} {})", g.cloud, g.region,
                         g.data_cloud, g.data_region);
  const std::optional<Money> egress =
      o.transfer ? o.transfer->EgressPerGb(g.data_cloud, g.data_region, g.cloud, g.region)
                 : std::nullopt;
  const catalog::CloudTransferPrices* there = o.transfer ? o.transfer->Find(g.cloud) : nullptr;
  if (missing.empty() && !egress) missing = "transfer prices for " + g.data_cloud;
  if (missing.empty() && there == nullptr) missing = "storage prices for " + g.cloud;
  if (!missing.empty()) {
    f.saving_basis = "not computed: missing " + missing;
    out.findings.push_back(std::move(f));
    return;
  }
  const double window_months = ToHours(o.now - o.since) / 24 / o.thresholds.month_days;
  const Money paid = egress->Scaled(total_gb);
  const Money copy = egress->Scaled(dataset_gb);
  const Money storage = there->storage_per_gb_month.Scaled(dataset_gb * window_months);
  const Money saving = paid - copy - storage;
  if (saving <= Money()) {
    out.notes.push_back(fmt::format(
        "{}: {}: {} paid {} egress, less than a copy there would cost in this window ({} "
        "to move, {} to keep)",
        kDataFarFromCompute, f.subject, Counted(static_cast<int64_t>(g.runs.size()), "run"),
        paid.ToString(), copy.ToString(), storage.ToString()));
    return;
  }
  f.facts["egress_paid"] = paid.ToPlainString();
  f.saving_per_month = PerMonth(saving, o);
  f.saving_basis = fmt::format(
      "{:.0f} GB × {}/GB egress = {} paid, − one copy {} − keeping {:.0f} GB there {} "
      "({}/GB-month) = {}, × {} / window days",
      total_gb, egress->ToString(), paid.ToString(), copy.ToString(), dataset_gb,
      storage.ToString(), there->storage_per_gb_month.ToString(), saving.ToString(),
      o.thresholds.month_days);
  out.findings.push_back(std::move(f));
}

}  // namespace

void TensorCoresUnused(const AuditData& data, const AuditOptions& o, AuditResult& out) {
  bool any_counters = false;
  for (const RunFacts& r : data.runs) {
    double sm = 0;
    double tensor = 0;
    int n = 0;
    for (const ledger::Sample& s : r.samples) {
      if (!s.sm_active || !s.tensor_active) continue;
      sm += *s.sm_active;
      tensor += *s.tensor_active;
      ++n;
    }
    if (n == 0) continue;
    any_counters = true;
    sm /= n;
    tensor /= n;
    if (sm >= o.thresholds.tensor_min_sm_active_pct && tensor < o.thresholds.tensor_unused_pct) {
      TensorFinding(r, sm, tensor, o, out);
    }
  }
  if (!any_counters && !data.runs.empty()) {
    out.notes.push_back(fmt::format(
        "{}: no run has SM-active and tensor-active samples (NVML GPM counters, Hopper and newer)",
        kTensorCoresUnused));
  }
}

void DataFarFromCompute(const AuditData& data, const AuditOptions& o, AuditResult& out) {
  std::map<std::tuple<std::string, std::string, std::string, std::string>, FarGroup> groups;
  for (const RunFacts& r : data.runs) {
    if (r.data.region.empty()) continue;
    if (r.data.size_gb && *r.data.size_gb < o.thresholds.data_far_min_gb) continue;
    const Segment* main = MainSegment(r, o);
    if (main == nullptr) continue;
    const std::string data_cloud = r.data.cloud.empty() ? main->offer.cloud : r.data.cloud;
    if (data_cloud == main->offer.cloud && r.data.region == main->offer.region) continue;
    FarGroup& g = groups[{data_cloud, r.data.region, main->offer.cloud, main->offer.region}];
    if (g.runs.empty()) {
      g.data_cloud = data_cloud;
      g.data_region = r.data.region;
      g.cloud = main->offer.cloud;
      g.region = main->offer.region;
    }
    g.runs.push_back(&r);
  }
  for (const auto& [key, g] : groups) FarFinding(g, o, out);
}

void PreprocessingRecomputed(const AuditData& data, const AuditOptions& o, AuditResult& out) {
  std::map<std::string, std::vector<const RunFacts*>> families;
  for (const RunFacts& r : data.runs) {
    if (!r.data.cache_key.empty() && r.data.cache.empty() && MainSegment(r, o) != nullptr) {
      families[r.data.cache_key].push_back(&r);
    }
  }
  for (auto& [key, runs] : families) {
    if (static_cast<double>(runs.size()) < o.thresholds.preprocess_min_runs) continue;
    std::sort(runs.begin(), runs.end(),
              [](auto* a, auto* b) { return a->run.start < b->run.start; });
    Finding f;
    f.rule = kPreprocessingRecomputed;
    f.subject = fmt::format("cache key {}", key);
    Money repeated;
    std::string missing;
    for (size_t k = 0; k < runs.size(); ++k) {
      f.runs.push_back(runs[k]->run.id);
      if (k == 0) continue;  // the first run has to compute it
      if (!runs[k]->data.preprocess_hours) {
        missing = fmt::format("data.preprocessing.duration in the spec of {}", runs[k]->Label());
        continue;
      }
      repeated += MainSegment(*runs[k], o)->offer.price.ForHours(*runs[k]->data.preprocess_hours);
    }
    f.evidence = fmt::format("{} runs declare cache key '{}' and no cache: each recomputed it",
                             runs.size(), key);
    f.facts = {{"runs", runs.size()}, {"cache_key", key}};
    f.action = fmt::format(
        "store the preprocessed output keyed by '{}' (data.preprocessing.cache) and reuse it", key);
    if (!missing.empty()) {
      f.saving_basis = "not computed: missing " + missing;
    } else {
      f.saving_per_month = PerMonth(repeated, o);
      f.saving_basis = fmt::format(
          "{} after the first × their preprocessing time at their price = {}, × {} / window "
          "days",
          Counted(static_cast<int64_t>(runs.size()) - 1, "run"), repeated.ToString(),
          o.thresholds.month_days);
    }
    out.findings.push_back(std::move(f));
  }
}

}  // namespace frugal::audit
