#include "frugal/plan/knob_search.h"

#include <fmt/format.h>

#include <tuple>
#include <vector>

#include "frugal/estimate/hardware.h"

namespace frugal::plan {
namespace {

namespace est = estimate;

std::optional<double> MeasuredPeakGib(const JobSpec& spec, int gpus) {
  for (const MeasuredProfile& p : spec.measured) {
    if (p.peak_memory_gib && (p.gpus == gpus || (p.gpus == 0 && gpus == 1)))
      return p.peak_memory_gib;
  }
  return std::nullopt;
}

bool ValidBatch(const est::Training& t) {
  return t.global_batch <= 0 || t.global_batch % (t.micro_batch * t.DataParallel()) == 0;
}

/// Orders fitting candidates: faster, then lower ZeRO, larger micro-batch, lighter recompute.
bool Better(const est::Estimate& a, const est::Estimate& b) {
  const auto key = [](const est::Estimate& e) {
    return std::make_tuple(e.wall_seconds, e.training.zero_stage, -e.training.micro_batch,
                           static_cast<int>(e.training.recompute));
  };
  return key(a) < key(b);
}

}  // namespace

KnobResult SearchKnobs(const JobSpec& spec, const catalog::GpuSpec& gpu, int gpus, double tokens,
                       double network_gbps, double headroom) {
  KnobResult r;
  const double network = spec.network_gbps > 0 ? spec.network_gbps : network_gbps;
  est::Training base = spec.baseline;
  base.gpus = gpus;
  if (base.global_batch <= 0) base.global_batch = spec.baseline.micro_batch * base.DataParallel();
  auto base_hw = est::HardwareFor(gpu, base.precision);
  if (base_hw) {
    base_hw->network_gbps = network;
    auto e = est::EstimateTraining(spec.model, base, *base_hw, tokens);
    if (e) r.baseline = *e;
  }
  if (auto measured = MeasuredPeakGib(spec, gpus); measured && r.baseline) {
    r.memory_correction = *measured * est::kBytesPerGib / r.baseline->memory.Total();
  }
  if (r.baseline) {
    r.baseline->fits =
        r.baseline->memory.Total() * r.memory_correction <= r.baseline->capacity_bytes;
  }
  for (const est::Precision p : spec.knobs.precisions) {
    auto hw = est::HardwareFor(gpu, p);
    if (!hw) {
      if (r.unsupported.empty()) r.unsupported = hw.error().message;
      continue;
    }
    hw->network_gbps = network;
    est::Training t = base;
    t.precision = p;
    for (const est::Method m : spec.knobs.methods) {
      t.method = m;
      for (const est::Recompute rc : spec.knobs.recomputes) {
        t.recompute = rc;
        for (const int mb : spec.knobs.micro_batches) {
          t.micro_batch = mb;
          if (!ValidBatch(t)) continue;
          for (const int z : spec.knobs.zero_stages) {
            if (gpus == 1 && z > 0) continue;  // nothing to shard across
            t.zero_stage = z;
            auto e = est::EstimateTraining(spec.model, t, *hw, tokens);
            if (!e) continue;
            ++r.evaluated;
            const double peak = e->memory.Total() * r.memory_correction;
            r.min_peak_bytes = std::min(r.min_peak_bytes, peak);
            e->fits = peak <= e->capacity_bytes;
            if (!e->fits) continue;
            // Leaving the headroom free beats any speed; inside it only when nothing leaves it.
            const bool tight = peak > e->capacity_bytes * (1.0 - headroom);
            const bool take = !r.best || (r.best_inside_headroom && !tight) ||
                              (r.best_inside_headroom == tight && Better(*e, *r.best));
            if (take) {
              r.best = *e;
              r.best_inside_headroom = tight;
            }
          }
        }
      }
    }
  }
  if (r.evaluated > 0) r.unsupported.clear();
  return r;
}

std::string DescribeKnobs(const est::Training& t, const est::Training& base, Describe what) {
  std::vector<std::string> parts;
  const bool all = what == Describe::kAll;
  if (all || t.method != base.method) {
    parts.push_back(t.method == est::Method::kFull
                        ? "full training"
                        : fmt::format("{} rank {}", est::MethodName(t.method), t.lora_rank));
  }
  if (all || t.precision != base.precision) parts.emplace_back(catalog::PrecisionName(t.precision));
  if (all || t.recompute != base.recompute) {
    parts.push_back(t.recompute == est::Recompute::kNone
                        ? "no recompute"
                        : fmt::format("{} recompute", est::RecomputeName(t.recompute)));
  }
  if (all || t.micro_batch != base.micro_batch) {
    parts.push_back(
        fmt::format("micro-batch {} (x{} accumulation)", t.micro_batch, t.AccumulationSteps()));
  }
  if (all || t.zero_stage != base.zero_stage) parts.push_back(fmt::format("ZeRO-{}", t.zero_stage));
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

}  // namespace frugal::plan
