// frugal plan INFERENCE.yaml: serving options (GPU model and count per replica, replicas for
// the peak, or CPU instances) priced by tier and ranked. Reached through `frugal plan` when
// the spec's kind is Inference.

#include "inference_command.h"

#include <fmt/format.h>

#include "commands.h"
#include "frugal/catalog/catalog.h"
#include "frugal/core/table.h"
#include "frugal/serving/lifetime.h"
#include "frugal/serving/serving_plan.h"

namespace frugal::cli {
namespace {

using serving::ServingOption;

nlohmann::json Seconds(const std::optional<double>& s) {
  return s ? nlohmann::json(*s) : nlohmann::json();
}

nlohmann::json LatencyJson(const serving::LatencyObjective& l) {
  return {{"ttft_p50_s", Seconds(l.ttft_p50)},       {"ttft_p95_s", Seconds(l.ttft_p95)},
          {"tpot_p50_s", Seconds(l.tpot_p50)},       {"tpot_p95_s", Seconds(l.tpot_p95)},
          {"request_p50_s", Seconds(l.request_p50)}, {"request_p95_s", Seconds(l.request_p95)}};
}

constexpr double kGib = 1024.0 * 1024.0 * 1024.0;

/// "7.0B", "365M", "22K" parameters.
std::string FormatCount(double n) {
  if (n >= 1e12) return fmt::format("{:.3g}T", n / 1e12);
  if (n >= 1e9) return fmt::format("{:.3g}B", n / 1e9);
  if (n >= 1e6) return fmt::format("{:.3g}M", n / 1e6);
  return fmt::format("{:.3g}K", n / 1e3);
}

}  // namespace

nlohmann::json ServingOptionJson(const ServingOption& o, size_t rank) {
  const serving::MemoryFit& m = o.perf.memory;
  return {
      {"rank", rank},
      {"gpu", o.gpu},
      {"gpus_per_replica", o.gpus_per_replica},
      {"replicas", o.replicas},
      {"tier", o.tier},
      {"autoscaled", o.autoscaled},
      {"base_replicas", o.base_replicas > 0 ? nlohmann::json(o.base_replicas) : nullptr},
      {"monthly_usd", o.monthly.dollars()},
      {"lifetime_usd", o.lifetime.dollars()},
      {"throughput_per_replica", o.perf.per_second},
      {"requests_per_second_per_replica", o.perf.requests_per_second},
      {"meets_latency", o.perf.meets_latency},
      {"latency_miss",
       o.perf.latency_miss.empty() ? nlohmann::json() : nlohmann::json(o.perf.latency_miss)},
      {"latency", LatencyJson(o.perf.latency)},
      {"batch", o.perf.batch},
      {"measured", o.perf.measured},
      {"memory_gib_per_device",
       {{"weights", m.weights / kGib},
        {"kv_cache_or_activations", m.kv_cache / kGib},
        {"overhead", m.overhead / kGib},
        {"total", m.total() / kGib},
        {"capacity", m.capacity / kGib}}},
      {"offer", o.offer->Id()},
      {"cloud", o.offer->cloud},
      {"instance_type", o.offer->instance_type},
      {"region", o.offer->region},
      {"peak_offer", o.peak_offer ? nlohmann::json(o.peak_offer->Id()) : nullptr},
      {"instances", o.instances},
      {"price_per_hour", o.offer->price.per_hour.dollars()},
      {"price_estimated", o.estimated_price},
      {"paid_hours_per_month", o.paid_hours_per_month},
      {"usd_per_million_requests", o.usd_per_million_requests},
      {"usd_per_million_units", o.usd_per_million_units},
      {"break_even_utilization",
       o.break_even_utilization ? nlohmann::json(*o.break_even_utilization) : nlohmann::json()},
      {"utilization", o.utilization},
      {"lost_because", o.lost_because.empty() ? nlohmann::json() : nlohmann::json(o.lost_because)}};
}

namespace {

void WriteServingJson(const serving::InferenceSpec& spec, const serving::ServingPlan& p,
                      Streams& s) {
  nlohmann::json options = nlohmann::json::array();
  for (size_t i = 0; i < p.options.size(); ++i) {
    nlohmann::json j = ServingOptionJson(p.options[i], i + 1);
    j[p.unit == "items" ? "usd_per_million_items" : "usd_per_million_output_tokens"] =
        p.options[i].usd_per_million_units;
    options.push_back(std::move(j));
  }
  nlohmann::json excluded = nlohmann::json::array();
  for (const auto& e : p.excluded)
    excluded.push_back({{"reason", e.reason}, {"options", e.offers}});
  const serving::Workload& w = spec.workload;
  WriteJson(s,
            {{"kind", "Inference"},
             {"name", spec.name},
             {"model",
              {{"type", serving::ArchitectureName(spec.model.architecture)},
               {"params", spec.model.shape.params},
               {"weights", serving::WeightFormatName(spec.model.weights)},
               {"weights_gib", serving::ModelWeightBytes(spec.model) / kGib}}},
             {"workload",
              {{"mean_rps", w.mean_rps}, {"peak_rps", w.peak_rps}, {"daily_shape", w.daily_shape}}},
             {"hours_per_month", spec.schedule.hours_per_month},
             {"serving_hours", spec.schedule.label},
             {"lifetime_months", spec.schedule.lifetime_months},
             {"interruptible", spec.schedule.interruptible},
             {"requests_per_month", p.requests_per_month},
             {"throughput_unit", p.unit == "items" ? "items/s" : "output tokens/s"},
             {"calibration", p.scale},
             {"options", options},
             {"excluded", excluded},
             {"ranked_options", p.ranked}});
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
         tier, fmt::format("{:.4g}/s{}", o.perf.per_second, o.perf.measured ? " (meas.)" : ""),
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

void PrintServing(const serving::InferenceSpec& spec, const serving::ServingPlan& p, Streams& s) {
  const serving::Workload& w = spec.workload;
  s.out << fmt::format(
      "Inference {}: {} of {} parameters, {} weights ({:.1f} GiB); {:.3g} rps mean, {:.3g} peak; "
      "{} ({:.4g} h/month) for {} months\n",
      spec.name, serving::ArchitectureName(spec.model.architecture),
      FormatCount(spec.model.shape.params), serving::WeightFormatName(spec.model.weights),
      serving::ModelWeightBytes(spec.model) / kGib, w.mean_rps, w.peak_rps, spec.schedule.label,
      spec.schedule.hours_per_month, spec.schedule.lifetime_months);
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

}  // namespace

Result<void> RunInferencePlan(const std::string& path, size_t top, const GlobalOptions& global,
                              Streams& s) {
  catalog::Catalog c = FRUGAL_TRY(LoadCatalog(global));
  const serving::InferenceSpec spec = FRUGAL_TRY(serving::LoadInferenceSpec(path, c.gpu_names()));
  if (!spec.catalog_files.empty()) c = FRUGAL_TRY(LoadCatalog(global, spec.catalog_files));
  const serving::ServingPlan p = FRUGAL_TRY(serving::PlanServing(spec, c, {top}));
  if (global.json) {
    WriteServingJson(spec, p, s);
  } else {
    PrintServing(spec, p, s);
  }
  return {};
}

}  // namespace frugal::cli
