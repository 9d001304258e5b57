#include "frugal/plan/knob_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "frugal/estimate/hardware.h"
#include "frugal/estimate/memory.h"
#include "frugal/plan/knob_search.h"

namespace frugal::plan {
namespace {

namespace est = estimate;

auto Key(const est::Training& t) {
  return std::make_tuple(t.precision, t.method, t.recompute, t.micro_batch, t.zero_stage);
}

/// The GPUs the catalog rents, smallest memory first; among equal memory, the cheapest per
/// GPU-hour on demand (then by name).
std::vector<const catalog::GpuSpec*> RentedGpus(const catalog::Catalog& c) {
  std::map<std::string, Money> cheapest;  // GPU → lowest on-demand price per GPU-hour
  for (const catalog::Offer& o : c.offers()) {
    if (o.gpu.empty() || o.gpu_count <= 0) continue;
    const Money per_gpu = o.tier == CapacityTier::kOnDemand
                              ? o.price.per_hour.Scaled(1.0 / o.gpu_count)
                              : Money::FromDollars(1e9);  // rented, but not on demand: last
    auto [it, inserted] = cheapest.emplace(o.gpu, per_gpu);
    if (!inserted && per_gpu < it->second) it->second = per_gpu;
  }
  std::vector<std::pair<const catalog::GpuSpec*, Money>> gpus;
  for (const catalog::GpuSpec& g : c.gpus()) {
    if (auto it = cheapest.find(g.name); it != cheapest.end()) gpus.emplace_back(&g, it->second);
  }
  std::sort(gpus.begin(), gpus.end(), [](const auto& a, const auto& b) {
    const double ma = a.first->UsableMemoryGib();
    const double mb = b.first->UsableMemoryGib();
    return std::tie(ma, a.second, a.first->name) < std::tie(mb, b.second, b.first->name);
  });
  std::vector<const catalog::GpuSpec*> out;
  for (const auto& [g, price] : gpus) out.push_back(g);
  return out;
}

/// The settings to compare: as given, each knob changed alone, the lightest full training.
std::vector<std::pair<std::string, est::Training>> Settings(const est::Training& base) {
  std::vector<est::Training> list = {base};
  const auto with = [&](auto field, auto value) {
    est::Training t = base;
    t.*field = value;
    list.push_back(t);
  };
  for (const est::Precision p :
       {est::Precision::kBf16, est::Precision::kFp16, est::Precision::kFp32}) {
    if (p != base.precision) with(&est::Training::precision, p);
  }
  // Smaller micro-batches with more accumulation steps keep the global batch; one larger.
  for (int mb = base.micro_batch / 2; mb >= 1; mb /= 2) with(&est::Training::micro_batch, mb);
  with(&est::Training::micro_batch, base.micro_batch * 2);
  for (const est::Recompute r :
       {est::Recompute::kNone, est::Recompute::kSelective, est::Recompute::kFull}) {
    if (r != base.recompute) with(&est::Training::recompute, r);
  }
  for (const est::Method m : {est::Method::kFull, est::Method::kLora, est::Method::kQlora}) {
    if (m != base.method) with(&est::Training::method, m);
  }
  for (int z = 0; z <= 3 && base.DataParallel() > 1; ++z) {
    if (z != base.zero_stage) with(&est::Training::zero_stage, z);
  }
  // Every memory saver that keeps training every weight; then with QLoRA on top.
  const size_t singles = list.size();
  est::Training light = base;
  light.recompute = est::Recompute::kFull;
  light.micro_batch = 1;
  light.zero_stage = base.DataParallel() > 1 ? 3 : 0;
  if (light.precision == est::Precision::kFp32 || light.precision == est::Precision::kTf32)
    light.precision = est::Precision::kBf16;
  if (light.method == est::Method::kFull) list.push_back(light);
  est::Training qlora = light;
  qlora.method = est::Method::kQlora;
  list.push_back(qlora);
  std::vector<std::pair<std::string, est::Training>> out;
  for (size_t i = 0; i < list.size(); ++i) {
    const est::Training& t = list[i];
    if (!t.Validate()) continue;  // not at this GPU count or global batch
    const bool seen =
        std::any_of(out.begin(), out.end(), [&](const auto& o) { return Key(o.second) == Key(t); });
    if (seen) continue;
    std::string label = i == 0 ? "as given" : DescribeKnobs(t, base, Describe::kOnlyChanges);
    if (i >= singles) {
      label = (t.method == est::Method::kQlora ? "lightest: " : "lightest full training: ") + label;
    }
    out.emplace_back(std::move(label), t);
  }
  return out;
}

}  // namespace

bool RunsPrecision(const catalog::GpuSpec& gpu, est::Precision p) {
  if (p == est::Precision::kBf16 || p == est::Precision::kTf32) return gpu.supports_bf16;
  if (p == est::Precision::kFp8) return gpu.fp8_tflops.has_value();
  return true;
}

std::optional<est::Precision> PrecisionToUse(const catalog::GpuSpec& gpu, est::Precision p) {
  if (RunsPrecision(gpu, p)) return std::nullopt;
  if (p == est::Precision::kFp8 && gpu.supports_bf16) return est::Precision::kBf16;
  return est::Precision::kFp16;
}

namespace {

/// The fastest setting that fits, from the planner's own search over the default knob space;
/// `evaluated` counts the combinations it estimated.
std::optional<est::Training> FastestFitting(const KnobQuestion& q, const est::Training& base,
                                            size_t& evaluated) {
  JobSpec spec;
  spec.model = q.model;
  spec.baseline = base;
  spec.knobs.precisions = {base.precision};
  if (base.precision == est::Precision::kBf16)
    spec.knobs.precisions.push_back(est::Precision::kFp16);
  spec.knobs.recomputes = {est::Recompute::kNone, est::Recompute::kSelective,
                           est::Recompute::kFull};
  spec.knobs.micro_batches = {1, 2, 4, 8, 16, 32};
  spec.knobs.zero_stages = {0, 1, 2, 3};
  spec.knobs.methods = {base.method};
  const KnobResult best = SearchKnobs(spec, *q.gpu, base.gpus, *q.tokens, q.network_gbps);
  evaluated = best.evaluated;
  if (!best.best) return std::nullopt;
  return best.best->training;
}

/// Memory, fit, the smallest GPU and (with work, when it fits) time and cost of one setting.
KnobRow MakeRow(const KnobQuestion& q, const catalog::Catalog& c,
                const std::vector<const catalog::GpuSpec*>& rented, std::string label,
                const est::Training& t, const catalog::Offer*& offer) {
  KnobRow row;
  row.label = std::move(label);
  row.training = t;
  row.peak_bytes = est::EstimateMemory(q.model, t).Total();
  const bool runs = RunsPrecision(*q.gpu, t.precision);
  // Against usable memory (the nameplate less reservation and ECC), as the planner fits.
  row.fits = runs && row.peak_bytes <= q.gpu->UsableMemoryGib() * est::kBytesPerGib;
  for (const catalog::GpuSpec* g : rented) {
    if (RunsPrecision(*g, t.precision) &&
        row.peak_bytes <= g->UsableMemoryGib() * est::kBytesPerGib) {
      row.smallest_gpu = g->name;
      row.smallest_gpu_memory_gib = g->memory_gib;
      break;
    }
  }
  if (!runs) {
    row.note = fmt::format("{} cannot run {}", q.gpu->name, catalog::PrecisionName(t.precision));
    return row;
  }
  if (!row.fits || !q.tokens) return row;
  auto hw = est::HardwareFor(*q.gpu, t.precision);
  if (!hw) {
    row.note = hw.error().message;
    return row;
  }
  hw->network_gbps = q.network_gbps;
  auto e = est::EstimateTraining(q.model, t, *hw, *q.tokens);
  if (!e) {
    row.note = e.error().message;
    return row;
  }
  row.wall_hours = e->WallHours();
  if (q.offer != nullptr) {
    row.cost = est::PriceOffer(*q.offer, t.gpus, *row.wall_hours).cost;
    offer = q.offer;
    return row;
  }
  for (const est::TierCost& tc : est::CheapestPerTier(c, q.gpu->name, t.gpus, *row.wall_hours)) {
    if (tc.offer->tier != q.tier) continue;
    row.cost = tc.cost;
    offer = tc.offer;
  }
  return row;
}

}  // namespace

Result<KnobComparison> CompareKnobs(const KnobQuestion& q, const catalog::Catalog& c) {
  FRUGAL_CHECK(q.gpu != nullptr);
  est::Training base = q.base;
  base.global_batch = base.GlobalBatch();  // accumulation keeps it across micro-batches
  FRUGAL_TRY(base.Validate());
  KnobComparison k;
  auto settings = Settings(base);
  if (q.tokens) {
    if (auto t = FastestFitting(q, base, k.evaluated)) {
      const bool seen = std::any_of(settings.begin(), settings.end(),
                                    [&](const auto& s) { return Key(s.second) == Key(*t); });
      if (!seen) {
        settings.emplace_back(fmt::format("fastest that fits {}: {}", q.gpu->name,
                                          DescribeKnobs(*t, base, Describe::kOnlyChanges)),
                              *t);
      }
    }
  }
  const std::vector<const catalog::GpuSpec*> rented = RentedGpus(c);
  for (auto& [label, t] : settings) k.rows.push_back(MakeRow(q, c, rented, label, t, k.offer));
  return k;
}

nlohmann::json KnobRowJson(const KnobRow& r) {
  const est::Training& t = r.training;
  return {
      {"label", r.label},
      {"knobs",
       {{"precision", catalog::PrecisionName(t.precision)},
        {"method", est::MethodName(t.method)},
        {"lora_rank",
         t.method == est::Method::kFull ? nlohmann::json() : nlohmann::json(t.lora_rank)},
        {"recompute", est::RecomputeName(t.recompute)},
        {"micro_batch", t.micro_batch},
        {"accumulation_steps", t.AccumulationSteps()},
        {"global_batch", t.GlobalBatch()},
        {"zero", t.zero_stage}}},
      {"peak_memory_gib_per_gpu", r.peak_bytes / est::kBytesPerGib},
      {"fits", r.fits},
      {"wall_hours", r.wall_hours ? nlohmann::json(*r.wall_hours) : nlohmann::json()},
      {"cost_usd", r.cost ? nlohmann::json(r.cost->dollars()) : nlohmann::json()},
      {"smallest_gpu", r.smallest_gpu.empty() ? nlohmann::json() : nlohmann::json(r.smallest_gpu)},
      {"smallest_gpu_memory_gib",
       r.smallest_gpu.empty() ? nlohmann::json() : nlohmann::json(r.smallest_gpu_memory_gib)},
      {"note", r.note.empty() ? nlohmann::json() : nlohmann::json(r.note)}};
}

nlohmann::json KnobComparisonJson(const KnobQuestion& q, const KnobComparison& k) {
  nlohmann::json rows = nlohmann::json::array();
  for (const KnobRow& r : k.rows) rows.push_back(KnobRowJson(r));
  return {{"gpu", q.gpu->name},
          {"gpus", q.base.gpus},
          {"capacity_gib_per_gpu", q.gpu->UsableMemoryGib()},
          {"nameplate_gib_per_gpu", q.gpu->memory_gib},
          {"tokens", q.tokens ? nlohmann::json(*q.tokens) : nlohmann::json()},
          {"tier", CapacityTierName(q.tier)},
          {"offer", k.offer ? nlohmann::json(k.offer->Id()) : nlohmann::json()},
          {"evaluated_configurations", k.evaluated},
          {"rows", rows}};
}

std::vector<const KnobRow*> WaysToFit(const KnobComparison& k, size_t n) {
  std::vector<const KnobRow*> out;
  for (size_t i = 1; i < k.rows.size(); ++i) {
    if (k.rows[i].fits) out.push_back(&k.rows[i]);
  }
  std::stable_sort(out.begin(), out.end(), [](const KnobRow* a, const KnobRow* b) {
    if (a->wall_hours && b->wall_hours) return *a->wall_hours < *b->wall_hours;
    if (a->wall_hours.has_value() != b->wall_hours.has_value()) return a->wall_hours.has_value();
    return a->peak_bytes < b->peak_bytes;
  });
  if (out.size() > n) out.resize(n);
  return out;
}

}  // namespace frugal::plan
