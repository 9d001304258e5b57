#include "frugal/serving/serving_json.h"

#include "frugal/core/numbers.h"

namespace frugal::serving {
namespace {

nlohmann::json Seconds(const std::optional<double>& s) {
  return s ? nlohmann::json(*s) : nlohmann::json();
}

nlohmann::json LatencyJson(const LatencyObjective& l) {
  return {{"ttft_p50_s", Seconds(l.ttft_p50)},       {"ttft_p95_s", Seconds(l.ttft_p95)},
          {"tpot_p50_s", Seconds(l.tpot_p50)},       {"tpot_p95_s", Seconds(l.tpot_p95)},
          {"request_p50_s", Seconds(l.request_p50)}, {"request_p95_s", Seconds(l.request_p95)}};
}

template <typename T>
nlohmann::json Optional(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json();
}

}  // namespace

nlohmann::json ServingOptionJson(const ServingOption& o, size_t rank) {
  const MemoryFit& m = o.perf.memory;
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
      {"replicas_per_instance", o.replicas_per_instance},
      {"throughput_per_instance", o.perf.per_second * o.replicas_per_instance},
      {"capacity_per_replica", o.perf.capacity_per_second
                                   ? nlohmann::json(*o.perf.capacity_per_second)
                                   : nlohmann::json(o.perf.per_second)},
      {"saturated", o.perf.saturated},
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

nlohmann::json ServingPlanJson(const InferenceSpec& spec, const ServingPlan& p) {
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
  const Workload& w = spec.workload;
  return {{"kind", "Inference"},
          {"name", spec.name},
          {"model",
           {{"type", ArchitectureName(spec.model.architecture)},
            {"params", spec.model.shape.params},
            {"active_params", Optional(spec.model.active_params)},
            {"experts", spec.model.shape.experts},
            {"experts_per_token", spec.model.shape.experts_per_token},
            {"weights", WeightFormatName(spec.model.weights)},
            {"weights_gib", ModelWeightBytes(spec.model) / kGib}}},
          {"workload",
           {{"mean_rps", w.mean_rps},
            {"peak_rps", w.peak_rps},
            {"daily_shape", w.daily_shape},
            {"concurrency", Optional(w.concurrency)},
            {"batch", Optional(w.batch)},
            {"offered_rps", Optional(w.offered_rps)}}},
          {"hours_per_month", spec.schedule.hours_per_month},
          {"serving_hours", spec.schedule.label},
          {"lifetime_months", spec.schedule.lifetime_months},
          {"interruptible", spec.schedule.interruptible},
          {"requests_per_month", p.requests_per_month},
          {"throughput_unit", p.unit == "items" ? "items/s" : "output tokens/s"},
          {"calibration", p.scale},
          {"options", options},
          {"excluded", excluded},
          {"ranked_options", p.ranked}};
}

nlohmann::json LifetimeBillJson(const LifetimeBill& b) {
  nlohmann::json months = nlohmann::json::array();
  for (const MonthPoint& p : b.points) {
    months.push_back({{"month", p.month},
                      {"training_cumulative_usd", p.training.dollars()},
                      {"inference_cumulative_usd", p.inference.dollars()}});
  }
  nlohmann::json levers = nlohmann::json::array();
  for (const Lever& l : b.levers) {
    levers.push_back(
        {{"lever", l.name},
         {"available", l.available},
         {"monthly_saving_usd", l.available ? nlohmann::json(l.monthly_saving.dollars()) : nullptr},
         {"lifetime_saving_usd",
          l.available ? nlohmann::json(l.lifetime_saving.dollars()) : nullptr},
         {"detail", l.detail}});
  }
  return {{"lifetime_months", b.months},
          {"serving", ServingOptionJson(b.serving, 1)},
          {"serving_monthly_usd", b.serving.monthly.dollars()},
          {"training_usd", b.training.first.dollars()},
          {"training_source", b.training.source},
          {"retrain_every_months", b.training.retrain_every_months > 0
                                       ? nlohmann::json(b.training.retrain_every_months)
                                       : nullptr},
          {"retrain_usd", b.training.retrain.dollars()},
          {"retrains", b.retrains},
          {"training_total_usd", b.training_total.dollars()},
          {"inference_total_usd", b.inference_total.dollars()},
          {"lifetime_usd", b.total.dollars()},
          {"inference_to_training",
           b.inference_to_training > 0 ? nlohmann::json(b.inference_to_training) : nullptr},
          {"baseline", b.baseline_label},
          {"levers", levers},
          {"months", months}};
}

}  // namespace frugal::serving
