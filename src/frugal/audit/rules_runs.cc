// Rules over single runs: idle GPUs, under-utilized jobs, spot candidates, spot runs without
// checkpoints.

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "frugal/audit/audit_data.h"

namespace frugal::audit {
namespace {

using ledger::Segment;
using ledger::Timestamp;

constexpr double kBytesPerGib = 1024.0 * 1024.0 * 1024.0;

/// The segment with a GPU covering `t`, or null.
const Segment* SegmentAt(const RunFacts& r, Timestamp t, const AuditOptions& o) {
  for (const Segment& s : r.segments) {
    if (s.offer.gpu_count > 0 && s.start <= t && t < s.end.value_or(o.now)) return &s;
  }
  return nullptr;
}

/// The hours a run's GPUs sat idle: how many clock hours, what they cost and when they were
/// (adjacent hours merged into one period).
struct Idle {
  int hours = 0;
  Money cost;
  std::vector<std::pair<Timestamp, Timestamp>> periods;
};

/// The run's idle hours and what they cost (each idle hour at the price of its segment).
Idle IdleHours(const RunFacts& r, const AuditOptions& o) {
  Idle idle;
  for (const auto& [hour, util] : HourlyGpuUtil(r)) {
    if (util >= o.thresholds.idle_gpu_util_pct) continue;
    const Timestamp start = ledger::FromMillis(hour * 3'600'000);
    // The hour counts for the part of it its segment covers.
    const Segment* s = SegmentAt(r, start, o);
    if (s == nullptr) continue;
    const Timestamp end = std::min({start + std::chrono::hours(1), s->end.value_or(o.now), o.now});
    ++idle.hours;
    idle.cost += s->offer.price.For(end - start);
    if (!idle.periods.empty() && idle.periods.back().second == start) {
      idle.periods.back().second = end;
    } else {
      idle.periods.emplace_back(start, end);
    }
  }
  return idle;
}

std::string PeriodText(const std::pair<Timestamp, Timestamp>& p) {
  return fmt::format("{} to {} ({})", ledger::FormatTimestamp(p.first),
                     ledger::FormatTimestamp(p.second),
                     FormatDuration(std::chrono::duration_cast<Duration>(p.second - p.first)));
}

/// The idle periods a finding charges: all of them when few, else the first and the last.
std::string PeriodsText(const Idle& idle) {
  constexpr size_t kListed = 3;
  const auto& p = idle.periods;
  if (p.size() <= kListed) {
    std::string text;
    for (size_t i = 0; i < p.size(); ++i) text += (i ? ", " : "") + PeriodText(p[i]);
    return text;
  }
  return fmt::format("{} idle periods, the first {}, the last {}", p.size(), PeriodText(p.front()),
                     PeriodText(p.back()));
}

Finding IdleFinding(const RunFacts& r, const Idle& idle, const AuditOptions& o) {
  Finding f;
  f.rule = kIdleGpu;
  f.subject = r.Label();
  f.runs = {r.run.id};
  f.evidence =
      fmt::format("{} clock hours with mean GPU utilization under {}%, costing {}: {}", idle.hours,
                  o.thresholds.idle_gpu_util_pct, idle.cost.ToString(), PeriodsText(idle));
  nlohmann::json periods = nlohmann::json::array();
  for (const auto& [start, end] : idle.periods) {
    periods.push_back(
        {{"start", ledger::FormatTimestamp(start)}, {"end", ledger::FormatTimestamp(end)}});
  }
  f.facts = {{"idle_hours", idle.hours},
             {"idle_cost", idle.cost.ToPlainString()},
             {"idle_periods", periods}};
  f.saving_per_month = PerMonth(idle.cost, o);
  f.saving_basis = fmt::format("{} paid for idle hours in the window, × {} / window days",
                               idle.cost.ToString(), o.thresholds.month_days);
  f.action = "stop the run or its instance when the GPU goes idle (an idle timeout in the job)";
  return f;
}

/// The precision a run on `g` most likely trains in (the first of bf16, fp16, fp32 it has),
/// with its dense TFLOPS there.
std::optional<std::pair<catalog::Precision, double>> Tflops(const catalog::GpuSpec& g) {
  for (catalog::Precision p :
       {catalog::Precision::kBf16, catalog::Precision::kFp16, catalog::Precision::kFp32}) {
    if (p == catalog::Precision::kBf16 && !g.supports_bf16) continue;
    if (auto t = g.DenseTflops(p)) return std::pair{p, *t};
  }
  return std::nullopt;
}

/// The cheapest catalog offer on the segment's cloud, tier and GPU count whose GPU has the
/// memory and the compute the run used; "" in `missing` says why there is none.
const catalog::Offer* CheaperOffer(const Segment& s, double peak_bytes, double mean_util,
                                   const AuditOptions& o, std::string& missing) {
  const catalog::GpuSpec* current = o.catalog->FindGpu(s.offer.gpu);
  if (current == nullptr) {
    missing = fmt::format("GPU '{}' is not in the catalog", s.offer.gpu);
    return nullptr;
  }
  // Compared in the precision the run trains in: a GPU without it (a T4 has no bf16) cannot
  // take the run over, whatever its other TFLOPS.
  const auto current_tflops = Tflops(*current);
  const double need_bytes = peak_bytes * (1 + o.thresholds.memory_headroom_pct / 100);
  const catalog::Offer* best = nullptr;
  for (const catalog::Offer& offer : o.catalog->offers()) {
    if (offer.cloud != s.offer.cloud || offer.gpu_count != s.offer.gpu_count ||
        offer.gpu == current->name || offer.tier != s.offer.tier || offer.price >= s.offer.price) {
      continue;
    }
    const catalog::GpuSpec* gpu = o.catalog->FindGpu(offer.gpu);
    if (gpu == nullptr || gpu->memory_gib * kBytesPerGib < need_bytes) continue;
    if (!current_tflops) continue;
    if (current_tflops->first == catalog::Precision::kBf16 && !gpu->supports_bf16) continue;
    const std::optional<double> tflops = gpu->DenseTflops(current_tflops->first);
    if (!tflops || *tflops < current_tflops->second * mean_util / 100) continue;
    if (best == nullptr || offer.price < best->price) best = &offer;
  }
  if (best == nullptr) {
    missing =
        fmt::format("no cheaper {} offer on {} has {:.1f} GiB per GPU and the compute the run used",
                    CapacityTierName(s.offer.tier), s.offer.cloud, need_bytes / kBytesPerGib);
  }
  return best;
}

/// How busy a run kept its GPUs: mean SM-active where the samples carry it (the share of
/// time the SMs had work, which GPU utilization overstates), else mean GPU utilization.
struct Busy {
  double mean_pct = 0;
  bool sm_active = false;
  [[nodiscard]] std::string_view Metric() const {
    return sm_active ? "SM-active" : "GPU utilization";
  }
};

std::optional<Busy> MeanBusy(const RunFacts& r) {
  double util_sum = 0;
  double sm_sum = 0;
  int util_n = 0;
  int sm_n = 0;
  for (const ledger::Sample& s : r.samples) {
    if (s.gpu_util) {
      util_sum += *s.gpu_util;
      ++util_n;
    }
    if (s.sm_active) {
      sm_sum += *s.sm_active;
      ++sm_n;
    }
  }
  if (sm_n > 0) return Busy{sm_sum / sm_n, true};
  if (util_n > 0) return Busy{util_sum / util_n, false};
  return std::nullopt;
}

/// The GPU segment the run spent longest on (it names the configuration to replace), and the
/// run's GPU time in the window.
struct MainGpuUse {
  const Segment* segment = nullptr;
  Duration gpu_time{0};
};

MainGpuUse MainGpuSegment(const RunFacts& r, const AuditOptions& o) {
  MainGpuUse use;
  for (const Segment& s : r.segments) {
    if (s.offer.gpu_count == 0) continue;
    use.gpu_time += InWindow(s, o);
    if (use.segment == nullptr || InWindow(s, o) > InWindow(*use.segment, o)) use.segment = &s;
  }
  return use;
}

std::optional<double> PeakGpuMemBytes(const RunFacts& r) {
  std::optional<double> peak_bytes;
  for (const ledger::Sample& s : r.samples) {
    if (s.gpu_mem_bytes) peak_bytes = std::max(peak_bytes.value_or(0), *s.gpu_mem_bytes);
  }
  return peak_bytes;
}

/// A cheaper offer the run fits, or null with `missing` saying why none could be looked for
/// or found.
const catalog::Offer* CheaperOfferFor(const Segment& main_segment, std::optional<double> peak_bytes,
                                      double mean_util, const AuditOptions& o,
                                      std::string& missing) {
  if (o.catalog == nullptr) {
    missing = "no catalog loaded";
    return nullptr;
  }
  if (!peak_bytes) {
    missing = "no GPU memory samples, so no smaller GPU can be shown to fit";
    return nullptr;
  }
  return CheaperOffer(main_segment, *peak_bytes, mean_util, o, missing);
}

/// The saving and action of moving the run's main GPU segments to `cheaper`.
void PriceOnCheaperOffer(Finding& f, const RunFacts& r, const MainGpuUse& use,
                         const catalog::Offer& cheaper, const std::string& peak_text,
                         double mean_util, const AuditOptions& o) {
  const Segment& main_segment = *use.segment;
  Money saving;
  for (const Segment& s : r.segments) {
    if (s.offer.gpu == main_segment.offer.gpu && s.offer.price > cheaper.price) {
      saving += s.offer.price.For(InWindow(s, o)) - cheaper.price.For(InWindow(s, o));
    }
  }
  f.saving_per_month = PerMonth(saving, o);
  f.saving_basis = fmt::format(
      "({} paid − {} for {}) × {} in the window = {}, × {} / window days; same run time "
      "assumed: {} has the memory (+{}%) and the TFLOPS the run used",
      main_segment.offer.price.ToString(), cheaper.price.ToString(), cheaper.Id(),
      FormatDuration(use.gpu_time), saving.ToString(), o.thresholds.month_days, cheaper.gpu,
      o.thresholds.memory_headroom_pct);
  f.action = fmt::format("peaks at {} and {:.0f}% on {}: run it on {} ({}, {}) — saves {} per run",
                         peak_text, mean_util, main_segment.offer.gpu, cheaper.gpu, cheaper.Id(),
                         cheaper.price.ToString(), saving.ToString());
  f.facts["cheaper_offer"] = cheaper.Id();
}

void UnderutilizedFinding(const RunFacts& r, Busy busy, const AuditOptions& o, AuditResult& out) {
  const double mean_util = busy.mean_pct;
  const MainGpuUse use = MainGpuSegment(r, o);
  if (use.segment == nullptr || ToHours(use.gpu_time) * 60 < o.thresholds.underutil_min_minutes) {
    return;
  }
  const Segment& main_segment = *use.segment;
  const std::optional<double> peak_bytes = PeakGpuMemBytes(r);
  Finding f;
  f.rule = kUnderutilized;
  f.subject = r.Label();
  f.runs = {r.run.id};
  const std::string peak_text =
      peak_bytes ? fmt::format("{:.1f} GiB", *peak_bytes / kBytesPerGib) : "unknown";
  f.evidence = fmt::format("mean {} {:.0f}% over {} on {}x {}; peak memory {}", busy.Metric(),
                           mean_util, FormatDuration(use.gpu_time), main_segment.offer.gpu_count,
                           main_segment.offer.gpu, peak_text);
  f.facts = {{busy.sm_active ? "mean_sm_active_pct" : "mean_gpu_util_pct", mean_util},
             {"gpu_hours", ToHours(use.gpu_time) * main_segment.offer.gpu_count},
             {"gpu", main_segment.offer.gpu}};
  if (peak_bytes) f.facts["peak_gpu_mem_bytes"] = *peak_bytes;
  std::string missing;
  const catalog::Offer* cheaper = CheaperOfferFor(main_segment, peak_bytes, mean_util, o, missing);
  if (cheaper == nullptr) {
    f.saving_basis = "not computed: " + missing;
    f.action =
        "raise utilization (larger batch, more data-loader workers) or move to a smaller GPU";
  } else {
    PriceOnCheaperOffer(f, r, use, *cheaper, peak_text, mean_util, o);
  }
  out.findings.push_back(std::move(f));
}

/// Whether spot would have served the run: finished, checkpointed, not a drill's, on on-demand
/// GPUs only and shorter than spot_max_run_hours.
bool IsSpotCandidate(const RunFacts& r, const AuditOptions& o) {
  if (!r.run.end || r.segments.empty() || r.Checkpoints() == 0) return false;
  // A drill's runs are a measurement of the job on spot (the baseline runs uninterrupted on
  // purpose): `frugal plan` reads the verdict, and moving them is no saving.
  if (!r.run.tags.Get("drill").empty()) return false;
  const bool all_on_demand = std::all_of(r.segments.begin(), r.segments.end(), [](auto& s) {
    return s.offer.tier == CapacityTier::kOnDemand && s.offer.gpu_count > 0;
  });
  const double wall_hours = ToHours(*r.run.end - r.run.start);
  if (!all_on_demand || wall_hours >= o.thresholds.spot_max_run_hours) return false;
  return true;
}

/// The catalog's spot offer of the segment's instance type and region: one in its zone when
/// there is one, else the cheapest; null when there is none.
const catalog::Offer* SpotTwin(const Segment& s, const AuditOptions& o) {
  const catalog::Offer* spot = nullptr;
  if (o.catalog == nullptr) return spot;
  for (const catalog::Offer& offer : o.catalog->offers()) {
    if (offer.tier != CapacityTier::kSpot || offer.cloud != s.offer.cloud ||
        offer.instance_type != s.offer.instance_type || offer.region != s.offer.region) {
      continue;
    }
    const bool better = spot == nullptr || (offer.zone == s.offer.zone) ||
                        (spot->zone != s.offer.zone && offer.price < spot->price);
    if (better) spot = &offer;
  }
  return spot;
}

/// The saving of running on `spot` what cost `paid` over `length` on demand; false when spot
/// would cost as much or more.
bool PriceOnSpot(Finding& f, const RunFacts& r, const catalog::Offer& spot, Money paid,
                 Duration length, const AuditOptions& o) {
  // Each expected preemption loses half a checkpoint interval of work plus the restart.
  const double hours = ToHours(length);
  const double interval_hours = hours / r.Checkpoints();
  const double preemptions = spot.preemptions_per_hour * hours;
  const double overhead_hours =
      preemptions * (interval_hours / 2 + o.thresholds.spot_restart_minutes / 60);
  const Money spot_cost = spot.price.ForHours(hours + overhead_hours);
  if (spot_cost >= paid) return false;
  f.saving_per_month = PerMonth(paid - spot_cost, o);
  f.saving_basis = fmt::format(
      "{} paid − {} × ({:.2f} h + {:.2f} expected preemptions × ({:.2f} h half-interval + {} "
      "min restart)) = {}, × {} / window days",
      paid.ToString(), spot.price.ToString(), hours, preemptions, interval_hours / 2,
      o.thresholds.spot_restart_minutes, (paid - spot_cost).ToString(), o.thresholds.month_days);
  f.facts["spot_offer"] = spot.Id();
  return true;
}

void SpotCandidateFinding(const RunFacts& r, const AuditOptions& o, AuditResult& out) {
  const Segment& s = r.segments.front();
  Money paid;
  Duration length(0);
  for (const Segment& seg : r.segments) {
    paid += seg.offer.price.For(InWindow(seg, o));
    length += InWindow(seg, o);
  }
  Finding f;
  f.rule = kSpotCandidate;
  f.subject = r.Label();
  f.runs = {r.run.id};
  f.evidence = fmt::format("{} on on-demand {} {} ({}), {} checkpoints, cost {}",
                           FormatDuration(length), s.offer.cloud, s.offer.instance_type,
                           s.offer.region, r.Checkpoints(), paid.ToString());
  f.facts = {
      {"hours", ToHours(length)}, {"checkpoints", r.Checkpoints()}, {"paid", paid.ToPlainString()}};
  const catalog::Offer* spot = SpotTwin(s, o);
  f.action = "run it on spot with `frugal run` (it checkpoints, so a preemption costs little)";
  if (spot == nullptr) {
    f.saving_basis = fmt::format("not computed: no spot offer for {} in {} in the catalog",
                                 s.offer.instance_type, s.offer.region);
    out.findings.push_back(std::move(f));
    return;
  }
  if (PriceOnSpot(f, r, *spot, paid, length, o)) out.findings.push_back(std::move(f));
}

}  // namespace

void IdleAndUnderutilized(const AuditData& data, const AuditOptions& o, AuditResult& out) {
  for (const RunFacts& r : data.runs) {
    const Idle idle = IdleHours(r, o);
    if (idle.hours >= o.thresholds.idle_min_hours) {
      // An idle run is reported once, as idle: its low mean utilization is the same waste.
      out.findings.push_back(IdleFinding(r, idle, o));
      continue;
    }
    const std::optional<Busy> busy = MeanBusy(r);
    if (busy && busy->mean_pct < o.thresholds.underutil_gpu_util_pct) {
      UnderutilizedFinding(r, *busy, o, out);
    }
  }
}

void SpotCandidates(const AuditData& data, const AuditOptions& o, AuditResult& out) {
  for (const RunFacts& r : data.runs) {
    if (IsSpotCandidate(r, o)) SpotCandidateFinding(r, o, out);
  }
}

void SpotWithoutCheckpoints(const AuditData& data, const AuditOptions& o, AuditResult& out) {
  for (const RunFacts& r : data.runs) {
    const bool on_spot = std::any_of(r.segments.begin(), r.segments.end(),
                                     [](auto& s) { return s.offer.tier == CapacityTier::kSpot; });
    if (!on_spot || r.Checkpoints() > 0) continue;
    // Without a checkpoint, a preempted segment's whole work is redone.
    Money lost;
    int preemptions = 0;
    Duration spot_time(0);
    for (const Segment& s : r.segments) {
      if (s.offer.tier == CapacityTier::kSpot && s.end) spot_time += *s.end - s.start;
      if (s.end_reason == ledger::EndReason::kPreempted) {
        lost += s.offer.price.For(InWindow(s, o));
        ++preemptions;
      }
    }
    // A run that died within seconds of its start (an import error) had no checkpoint due.
    const bool died_at_start_up =
        r.run.end && preemptions == 0 &&
        ToHours(spot_time) * 60 < o.thresholds.spot_checkpoint_min_minutes;
    if (died_at_start_up) continue;
    Finding f;
    f.rule = kSpotNoCheckpoint;
    f.subject = r.Label();
    f.runs = {r.run.id};
    f.evidence =
        fmt::format("ran on spot with no checkpoint committed; {} preemptions", preemptions);
    f.facts = {{"preemptions", preemptions}, {"lost", lost.ToPlainString()}};
    f.saving_per_month = PerMonth(lost, o);
    f.saving_basis =
        preemptions == 0
            ? std::string("no preemption in the window yet: the risk is the whole segment")
            : fmt::format("{} paid for preempted segments whose work was lost, × {} / window days",
                          lost.ToString(), o.thresholds.month_days);
    f.action = "checkpoint (the job protocol's checkpoint request) or run it on demand";
    out.findings.push_back(std::move(f));
  }
}

}  // namespace frugal::audit
