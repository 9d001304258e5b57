// How `frugal plan INFERENCE.yaml` shows a serving plan (app/plan.h plans it): serving options
// (GPU model and count per replica, replicas for the peak, or CPU instances) priced by tier and
// ranked.

#include "inference_command.h"

#include <fmt/format.h>

#include "commands.h"
#include "frugal/core/table.h"
#include "frugal/serving/lifetime.h"
#include "frugal/serving/serving_plan.h"

namespace frugal::cli {
namespace {

using serving::ServingOption;

constexpr double kGib = 1024.0 * 1024.0 * 1024.0;

/// "7.0B", "365M", "22K" parameters.
std::string FormatCount(double n) {
  if (n >= 1e12) return fmt::format("{:.3g}T", n / 1e12);
  if (n >= 1e9) return fmt::format("{:.3g}B", n / 1e9);
  if (n >= 1e6) return fmt::format("{:.3g}M", n / 1e6);
  return fmt::format("{:.3g}K", n / 1e3);
}

std::string LatencyCell(const ServingOption& o) {
  const serving::LatencyObjective& l = o.perf.latency;
  const std::string text =
      l.tpot_p95 ? fmt::format("ttft {:.0f}ms tpot {:.0f}ms", *l.ttft_p95 * 1e3, *l.tpot_p95 * 1e3)
                 : fmt::format("p95 {:.1f}ms", l.request_p95.value_or(0) * 1e3);
  return text + (o.perf.meets_latency ? "" : " MISS");
}

void PrintOptions(const serving::InferenceSpec& spec, const serving::ServingPlan& p,
                  std::ostream& out) {
  Table t({{"#", Align::kRight},
           {"HARDWARE"},
           {"REPLICAS", Align::kRight},
           {"TIER"},
           {"PER REPLICA", Align::kRight},
           {"LATENCY"},
           {"MEM GiB", Align::kRight},
           {"$/MONTH", Align::kRight},
           {"LIFETIME", Align::kRight},
           {fmt::format("$/M {}", p.unit == "items" ? "ITEMS" : "TOKENS"), Align::kRight}});
  for (size_t i = 0; i < p.options.size(); ++i) {
    const ServingOption& o = p.options[i];
    const std::string hw = o.gpu == "cpu" ? "cpu " + o.offer->instance_type
                                          : fmt::format("{} x{}", o.gpu, o.gpus_per_replica);
    const std::string tier =
        o.tier + (o.autoscaled ? " autoscaled" : "") + (o.estimated_price ? " (est.)" : "");
    t.AddRow(
        {std::to_string(i + 1), hw,
         o.base_replicas > 0 ? fmt::format("{}+{}", o.base_replicas, o.replicas - o.base_replicas)
                             : std::to_string(o.replicas),
         tier,
         fmt::format("{:.4g}/s{}{}", o.perf.per_second, o.perf.measured ? " (meas.)" : "",
                     o.perf.saturated ? " (saturated)" : ""),
         LatencyCell(o),
         fmt::format("{:.1f}/{:.0f}", o.perf.memory.total() / kGib, o.perf.memory.capacity / kGib),
         o.monthly.ToString(), o.lifetime.ToString(),
         fmt::format("{:.4g}", o.usd_per_million_units)});
  }
  t.Render(out);
  out << fmt::format("Best: {} at {} a month, {} over {} months.\n",
                     serving::DescribeOption(p.options.front()),
                     p.options.front().monthly.ToString(), p.options.front().lifetime.ToString(),
                     spec.schedule.lifetime_months);
  int shown = 0;
  for (const ServingOption& o : p.options) {
    if (o.break_even_utilization && o.base_replicas == 0 && shown++ < 3) {
      out << fmt::format("  {} {}: pays off when used more than {:.0f}% of the hours\n",
                         o.offer->Id(), o.tier, 100 * *o.break_even_utilization);
    }
  }
}

}  // namespace

void PrintServingPlan(const serving::InferenceSpec& spec, const serving::ServingPlan& p,
                      Streams& s) {
  const serving::Workload& w = spec.workload;
  s.out << fmt::format(
      "Inference {}: {} of {} parameters, {} weights ({:.1f} GiB); {:.3g} rps mean, {:.3g} peak; "
      "{} ({:.4g} h/month) for {} months\n",
      spec.name, serving::ArchitectureName(spec.model.architecture),
      FormatCount(spec.model.shape.params), serving::WeightFormatName(spec.model.weights),
      serving::ModelWeightBytes(spec.model) / kGib, w.mean_rps, w.peak_rps, spec.schedule.label,
      spec.schedule.hours_per_month, spec.schedule.lifetime_months);
  if (w.concurrency || w.batch || w.offered_rps) {
    s.out << (w.concurrency
                  ? fmt::format("Each replica at {} concurrent requests.\n", *w.concurrency)
              : w.batch
                  ? fmt::format("Each replica at batches of {} items.\n", *w.batch)
                  : fmt::format("Each replica at {:.4g} requests/s offered.\n", *w.offered_rps));
  }
  if (p.options.empty()) {
    s.out << "No option can serve this model.\n";
  } else {
    PrintOptions(spec, p, s.out);
  }
  bool header = false;
  for (size_t i = 1; i < p.options.size(); ++i) {
    if (p.options[i].lost_because.empty()) continue;
    if (!header) s.out << "\nWhy the others lost:\n";
    header = true;
    s.out << fmt::format("  #{} {}: {}\n", i + 1, serving::DescribeOption(p.options[i]),
                         p.options[i].lost_because);
  }
  if (!p.excluded.empty()) {
    s.out << (header ? "" : "\nWhy the others lost:\n");
    for (const auto& e : p.excluded) {
      s.out << fmt::format("  {} [{} offer{}]\n", e.reason, e.offers, e.offers == 1 ? "" : "s");
    }
  }
}

}  // namespace frugal::cli
