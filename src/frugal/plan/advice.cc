#include "frugal/plan/advice.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "frugal/core/duration.h"
#include "frugal/plan/knob_search.h"
#include "frugal/plan/knob_table.h"
#include "frugal/plan/planner.h"

namespace frugal::plan {
namespace {

namespace est = estimate;

std::string Hours(double h) { return FormatDuration(FromHours(h)); }

std::string Where(const Option& o) {
  return o.offer->gpu.empty() ? o.offer->Id()
                              : fmt::format("{} x{} ({})", o.offer->gpu, o.gpus, o.offer->Id());
}

/// What the knob changes cost in speed or in what is trained.
std::string TradeOff(const est::Training& t, const est::Training& base) {
  std::vector<std::string> parts;
  if (t.recompute == est::Recompute::kFull && base.recompute != est::Recompute::kFull) {
    parts.emplace_back("full recompute runs the forward pass twice (about a third more compute)");
  } else if (t.recompute == est::Recompute::kSelective && base.recompute == est::Recompute::kNone) {
    parts.emplace_back("selective recompute costs about 3% in speed");
  }
  if (t.micro_batch < base.micro_batch) {
    parts.push_back(fmt::format("{} accumulation steps per optimizer step, same global batch",
                                t.AccumulationSteps()));
  }
  if (t.zero_stage > base.zero_stage)
    parts.push_back(fmt::format("ZeRO-{} adds communication per step", t.zero_stage));
  if (t.method != base.method) {
    parts.push_back(fmt::format("{} trains rank-{} adapters, not every weight",
                                est::MethodName(t.method), t.lora_rank));
  }
  if (t.precision == est::Precision::kFp16 && base.precision != est::Precision::kFp16) {
    parts.emplace_back("fp16 needs loss scaling");
  }
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : "; ") + p;
  return out.empty() ? "no slower" : out;
}

void KnobAdvice(const JobSpec& spec, const std::vector<Option>& ranked,
                const std::vector<BaselineCost>& baselines, std::vector<std::string>& out) {
  if (ranked.empty() || ranked.front().measured) return;
  const Option& best = ranked.front();
  est::Training base = spec.baseline;
  base.gpus = best.knobs.gpus;
  base.global_batch = best.knobs.global_batch;
  const std::string changes = DescribeKnobs(best.knobs, base, Describe::kOnlyChanges);
  if (changes.empty()) return;
  const BaselineCost* cheapest = nullptr;
  for (const BaselineCost& b : baselines) {
    if (b.meets_deadline && (cheapest == nullptr || b.cost < cheapest->cost)) cheapest = &b;
  }
  const std::string where = fmt::format("{} {:g}GB", best.offer->gpu, best.capacity_gib);
  if (cheapest == nullptr) {
    out.push_back(fmt::format(
        "The knobs as written fit no offer that meets the constraints; {} fits on {}: {} "
        "({}).",
        changes, where, best.expected_cost.ToString(), TradeOff(best.knobs, base)));
  } else if (best.expected_cost < cheapest->cost) {
    out.push_back(fmt::format(
        "{} fits on {}: {} in {} instead of {} in {} with the knobs as written on {} x{} ({}).",
        changes, where, best.expected_cost.ToString(), Hours(best.wall_hours),
        cheapest->cost.ToString(), Hours(cheapest->hours), cheapest->offer->gpu, cheapest->gpus,
        TradeOff(best.knobs, base)));
  }
}

void DeadlineAdvice(const Plan& plan, const std::vector<Option>& ranked,
                    std::vector<std::string>& out) {
  if (!plan.deadline_hours || ranked.empty() || ranked.front().meets_deadline) return;
  const auto fastest = std::min_element(
      ranked.begin(), ranked.end(),
      [](const Option& a, const Option& b) { return a.wall_hours < b.wall_hours; });
  out.push_back(fmt::format(
      "Nothing meets the {} deadline. The fastest option, {}, takes {} for {}; a deadline of "
      "{} or more, or more GPUs (constraints.max_gpus), would be met.",
      Hours(*plan.deadline_hours), Where(*fastest), Hours(fastest->wall_hours),
      fastest->expected_cost.ToString(), Hours(std::ceil(fastest->wall_hours * 4) / 4)));
}

void BudgetAdvice(const Plan& plan, const std::vector<Option>& ranked,
                  const std::map<std::string, size_t>& excluded, std::vector<std::string>& out) {
  if (!plan.budget || !ranked.empty()) return;
  for (const auto& [reason, count] : excluded) {
    if (reason.rfind("over the", 0) == 0) {
      out.push_back(fmt::format(
          "Every option that fits costs more than the {} budget ({} options); raise the "
          "budget, allow spot (constraints.tiers), or a later deadline.",
          plan.budget->ToString(), count));
      return;
    }
  }
}

void SpotAdvice(const std::vector<Option>& ranked, std::vector<std::string>& out) {
  if (ranked.empty() || ranked.front().kind != RunKind::kPlain) return;
  const Option& best = ranked.front();
  for (const Option& o : ranked) {
    if ((o.kind == RunKind::kSpot || o.kind == RunKind::kFallback) &&
        o.expected_cost < best.expected_cost) {
      out.push_back(
          fmt::format("Spot on {} would cost {} expected ({:.0f}% risk of missing the deadline{}).",
                      Where(o), o.expected_cost.ToString(), 100 * o.deadline_miss_probability,
                      o.kind == RunKind::kFallback ? ", none with the on-demand fallback" : ""));
      return;
    }
  }
}

}  // namespace

std::vector<std::string> Advise(const JobSpec& spec, const Plan& plan,
                                const std::vector<Option>& ranked,
                                const std::vector<BaselineCost>& baselines,
                                const std::map<std::string, size_t>& excluded) {
  std::vector<std::string> out;
  if (ranked.empty()) {
    out.emplace_back("Nothing meets the constraints: see the excluded reasons.");
  }
  KnobAdvice(spec, ranked, baselines, out);
  DeadlineAdvice(plan, ranked, out);
  BudgetAdvice(plan, ranked, excluded, out);
  SpotAdvice(ranked, out);
  return out;
}

std::optional<std::string> FitAdvice(const JobSpec& spec, const catalog::Catalog& c,
                                     size_t ranked) {
  if (ranked > 0 || !spec.modelled) return std::nullopt;
  const catalog::GpuSpec* largest = nullptr;
  for (const catalog::Offer& o : c.offers()) {
    if (o.gpu.empty() || o.IsGpuShare()) continue;
    // The GPUs the constraints leave: a bigger one elsewhere is no answer to them.
    const auto in = [](const std::vector<std::string>& list, const std::string& v) {
      return list.empty() || std::find(list.begin(), list.end(), v) != list.end();
    };
    const Constraints& k = spec.constraints;
    if (!in(k.gpus, o.gpu) || !in(k.clouds, o.cloud) || !in(k.regions, o.region)) continue;
    const catalog::GpuSpec* g = c.FindGpu(o.gpu);
    if (g != nullptr && (largest == nullptr || g->UsableMemoryGib() > largest->UsableMemoryGib()))
      largest = g;
  }
  if (largest == nullptr) return std::nullopt;
  KnobQuestion q;
  q.model = spec.model;
  q.base = spec.baseline;
  q.base.gpus = 1;
  q.gpu = largest;
  auto compared = CompareKnobs(q, c);
  if (!compared) return std::nullopt;
  const std::vector<const KnobRow*> ways = WaysToFit(*compared, 2);
  if (ways.empty() || compared->rows.front().fits) return std::nullopt;
  std::string list;
  for (const KnobRow* w : ways) {
    list += fmt::format("{}{} ({:.1f} GiB)", list.empty() ? "" : "; or ", w->label,
                        w->peak_bytes / est::kBytesPerGib);
  }
  return fmt::format(
      "Nothing fits one {} ({:.1f} GiB usable) with the knobs the spec allows ({:.1f} GiB as "
      "given); it would fit with {}: set training.method or widen knobs "
      "(`frugal estimate --knobs` lists every setting).",
      largest->name, largest->UsableMemoryGib(),
      compared->rows.front().peak_bytes / est::kBytesPerGib, list);
}

}  // namespace frugal::plan
