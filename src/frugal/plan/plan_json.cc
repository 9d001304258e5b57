#include "frugal/plan/plan_json.h"

#include <chrono>

#include "frugal/core/text.h"

namespace frugal::plan {
namespace {

nlohmann::json KnobsJson(const estimate::Training& t) {
  return {{"method", estimate::MethodName(t.method)},
          {"lora_rank",
           t.method == estimate::Method::kFull ? nlohmann::json() : nlohmann::json(t.lora_rank)},
          {"precision", catalog::PrecisionName(t.precision)},
          {"recompute", estimate::RecomputeName(t.recompute)},
          {"micro_batch", t.micro_batch},
          {"accumulation_steps", t.AccumulationSteps()},
          {"zero", t.zero_stage}};
}

nlohmann::json SpotJson(const Option& o) {
  if (o.kind != RunKind::kSpot && o.kind != RunKind::kFallback) return nullptr;
  const SpotRun& s = o.spot;
  nlohmann::json j = {
      {"strategy", CheckpointStrategyName(s.strategy)},
      {"checkpoint_interval_hours", s.strategy == CheckpointStrategy::kPeriodic
                                        ? nlohmann::json(s.interval_hours)
                                        : nlohmann::json()},
      {"preemptions_per_hour", o.offer->preemptions_per_hour * o.instances},
      {"expected_preemptions", s.expected_preemptions},
      {"checkpoint_hours", s.checkpoint_hours},
      {"restart_hours", s.restart_hours},
      {"lost_work_hours", s.lost_work_hours},
      {"time_inflation", s.Inflation(o.work_hours)},
      {"cost_inflation", o.expected_cost.dollars() / (o.offer->PlannedRate().per_hour.dollars() *
                                                      o.instances * o.work_hours)},
      {"deadline_miss_probability_spot_only", s.deadline_miss_probability},
      {"price_outlier", o.offer->spot_outlier.has_value()},
      {"listed_price_per_hour", o.offer->price.per_hour.dollars() * o.instances},
      {"planned_price_per_hour", o.offer->PlannedRate().per_hour.dollars() * o.instances},
      {"peer_median_price_per_hour",
       o.offer->spot_outlier ? nlohmann::json(o.offer->spot_outlier->median.dollars() * o.instances)
                             : nlohmann::json()},
      {"price_peers",
       o.offer->spot_outlier ? nlohmann::json(o.offer->spot_outlier->peers) : nlohmann::json()},
      {"capacity_available_share", o.offer->spot_risk.available_share},
      {"capacity_mean_outage_hours", o.offer->spot_risk.mean_outage_hours},
      {"capacity_wait_hours", o.capacity_wait_hours},
      {"capacity_wait_after_preemptions_hours", s.capacity_wait_hours},
      {"risk_basis", o.offer->spot_risk.basis()}};
  if (o.kind == RunKind::kFallback) {
    j["fallback"] = {{"on_demand_offer", o.fallback_offer->Id()},
                     {"switch_probability", o.fallback.switch_probability},
                     {"switch_at_hours", o.fallback.switch_at_hours},
                     {"on_demand_hours", o.fallback.on_demand_hours},
                     {"absorbed_preemptions", o.fallback.absorbed_preemptions},
                     {"planned_switch", o.fallback.planned_switch}};
  }
  return j;
}

nlohmann::json FaultToleranceJson(const FaultTolerance& ft) {
  return {{"checkpoints", CheckpointSourceName(ft.source)},
          {"resumes", ft.resumes},
          {"spot_assumption", CheckpointAssumption(ft)},
          {"checkpoint_write_hours", ft.checkpoint_write_hours},
          {"restart_hours", ft.restart_hours},
          {"checkpoint_on_notice", ft.checkpoint_on_notice},
          {"notice_hours", ft.notice_hours},
          {"drill", ft.drill.empty() ? nlohmann::json() : nlohmann::json(ft.drill)},
          {"drill_measured_at",
           ft.drill.empty() ? nlohmann::json() : nlohmann::json(ft.drill_measured_at)},
          {"not_spot_ready", ft.not_spot_ready ? nlohmann::json(*ft.not_spot_ready) : nullptr}};
}

/// How the option gets its data; null when the spec locates none.
nlohmann::json DataJson(const Option& o) {
  const DataCost& d = o.data;
  if (d.route == DataRoute::kNone) return nullptr;
  const bool copy = d.route == DataRoute::kCopy;
  return {{"route", DataRouteName(d.route)},
          {"gb", d.gb},
          {"reads", d.reads},
          {"egress_usd_per_gb", d.egress_per_gb.dollars()},
          {"copy_usd", copy ? nlohmann::json(d.copy_cost.dollars()) : nlohmann::json()},
          {"storage_usd", copy ? nlohmann::json(d.storage_cost.dollars()) : nlohmann::json()},
          {"transfer_seconds", d.transfer_hours * 3600},
          {"preprocess_seconds", d.preprocess_hours * 3600}};
}

/// Where runs read the data from; null when the spec says nothing of it.
nlohmann::json DataSourceJson(const DataSource& s) {
  if (!s.Priced() && !s.gb && s.preprocess_hours == 0) return nullptr;
  return {{"location", s.Priced() ? nlohmann::json(s.from.Label()) : nlohmann::json()},
          {"cloud", s.Priced() ? nlohmann::json(s.from.cloud) : nlohmann::json()},
          {"region", s.Priced() ? nlohmann::json(s.from.region) : nlohmann::json()},
          {"gb", s.gb ? nlohmann::json(*s.gb) : nlohmann::json()},
          {"from_cache", s.from_cache},
          {"runs", s.runs},
          {"keep_hours", s.keep_hours},
          {"preprocess_seconds", s.preprocess_hours * 3600}};
}

nlohmann::json OrNull(const std::string& s) {
  return s.empty() ? nlohmann::json() : nlohmann::json(s);
}

nlohmann::json RecordedJson(const RecordedUse& u) {
  const RecordedMeasurement& m = u.measurement;
  return {{"profile_id", m.profile_id},
          {"run_id", OrNull(m.run_id)},
          {"recorded_at", m.recorded_at},
          {"device", m.device},
          {"device_count", m.device_count},
          {"gpu", OrNull(u.gpu)},
          {"used", u.used},
          {"note", OrNull(u.note)}};
}

/// The newest recorded measurement the plan used: which run (or profile) and when.
nlohmann::json MeasuredFromJson(const JobSpec& spec) {
  for (const MeasuredProfile& p : spec.measured) {
    if (!p.recorded) continue;
    const RecordedMeasurement& m = *p.recorded;
    const bool samples = p.samples_per_second.has_value();
    return {{"run_id", OrNull(m.run_id)},
            {"profile_id", m.profile_id},
            {"recorded_at", m.recorded_at},
            {"device", m.device},
            {"gpu", p.gpu},
            {"gpus", p.gpus},
            {"units", samples ? "samples" : "tokens"},
            {"per_second", samples ? *p.samples_per_second : p.tokens_per_second.value_or(0)}};
  }
  return nullptr;
}

}  // namespace

std::optional<int> DaysSince(const std::string& date) {
  if (date.size() != 10 || date[4] != '-' || date[7] != '-') return std::nullopt;
  const auto y = ParseInt(date.substr(0, 4));
  const auto m = ParseInt(date.substr(5, 2));
  const auto d = ParseInt(date.substr(8, 2));
  if (!y || !m || !d) return std::nullopt;
  const std::chrono::year_month_day ymd{std::chrono::year(static_cast<int>(*y)),
                                        std::chrono::month(static_cast<unsigned>(*m)),
                                        std::chrono::day(static_cast<unsigned>(*d))};
  if (!ymd.ok()) return std::nullopt;
  const auto today = std::chrono::floor<std::chrono::days>(std::chrono::system_clock::now());
  return static_cast<int>((today - std::chrono::sys_days(ymd)).count());
}

nlohmann::json OptionJson(const Option& o, size_t rank) {
  const bool cpu = o.offer->gpu.empty();
  return {
      {"rank", rank},
      {"cloud", o.offer->cloud},
      {"instance_type", o.offer->instance_type},
      {"region", o.offer->region},
      {"zone", o.offer->zone.empty() ? nlohmann::json() : nlohmann::json(o.offer->zone)},
      {"tier", CapacityTierName(o.offer->tier)},
      {"run", RunKindName(o.kind)},
      {"gpu", cpu ? nlohmann::json() : nlohmann::json(o.offer->gpu)},
      {"gpu_count", o.gpus},
      {"instances", o.instances},
      {"knobs", KnobsJson(o.knobs)},
      {"measured", o.measured},
      {"fits", true},
      {"peak_memory_gib_per_gpu",
       cpu || !o.peak_known ? nlohmann::json() : nlohmann::json(o.peak_gib)},
      {"memory_basis",
       cpu ? nlohmann::json() : nlohmann::json(estimate::MemoryBasisName(o.knobs.memory_basis))},
      {"reported_memory_gib_per_gpu",
       cpu || !o.peak_known ? nlohmann::json() : nlohmann::json(o.reported_peak_gib)},
      {"headroom_gib", cpu || !o.peak_known ? nlohmann::json() : nlohmann::json(o.HeadroomGib())},
      {"usable_memory_gib_per_gpu", cpu ? nlohmann::json() : nlohmann::json(o.capacity_gib)},
      {"nameplate_memory_gib_per_gpu", cpu ? nlohmann::json() : nlohmann::json(o.nameplate_gib)},
      {"inside_memory_headroom", cpu ? nlohmann::json() : nlohmann::json(o.inside_headroom)},
      {"predicted_from",
       o.predicted_from.empty() ? nlohmann::json() : nlohmann::json(o.predicted_from)},
      {"work_hours", o.work_hours},
      {"launch_hours", o.launch_hours},
      {"data_cost_usd", o.data.cost.dollars()},
      {"data_seconds", o.data.Hours() * 3600},
      {"data", DataJson(o)},
      {"billed_hours", o.billed_hours},
      {"wall_hours", o.wall_hours},
      {"gpu_hours", o.gpu_hours},
      {"price_per_hour", o.offer->PlannedRate().per_hour.dollars() * o.instances},
      {"expected_cost_usd", o.expected_cost.dollars()},
      {"price_estimated", o.estimated_price},
      {"meets_deadline", o.meets_deadline},
      {"deadline_miss_probability", o.deadline_miss_probability},
      {"spot", SpotJson(o)}};
}

nlohmann::json PlanJson(const JobSpec& spec, const Plan& p, const std::string& objective) {
  nlohmann::json options = nlohmann::json::array();
  for (size_t i = 0; i < p.options.size(); ++i) options.push_back(OptionJson(p.options[i], i + 1));
  nlohmann::json excluded = nlohmann::json::array();
  for (const auto& e : p.excluded)
    excluded.push_back({{"reason", e.reason}, {"options", e.offers}});
  nlohmann::json recorded = nlohmann::json::array();
  for (const RecordedUse& u : spec.recorded_measurements) recorded.push_back(RecordedJson(u));
  return {
      {"job", spec.name},
      {"tokens", p.tokens},
      {"objective", objective},
      {"deadline_hours", p.deadline_hours ? nlohmann::json(*p.deadline_hours) : nlohmann::json()},
      {"budget_usd", p.budget ? nlohmann::json(p.budget->dollars()) : nlohmann::json()},
      {"memory_headroom_share", p.memory_headroom},
      {"fewer_gpus_within", p.fewer_gpus_within},
      {"prices_as_of", p.prices_as_of.empty() ? nlohmann::json() : nlohmann::json(p.prices_as_of)},
      {"price_age_days",
       DaysSince(p.prices_as_of) ? nlohmann::json(*DaysSince(p.prices_as_of)) : nlohmann::json()},
      {"fault_tolerance", FaultToleranceJson(spec.fault_tolerance)},
      {"data", DataSourceJson(p.data)},
      {"measured_from", MeasuredFromJson(spec)},
      {"recorded_measurements", recorded},
      {"options", options},
      {"excluded", excluded},
      {"advice", p.advice},
      {"ranked_options", p.ranked},
      {"evaluated_configurations", p.evaluated},
      {"policy", nullptr}};
}

}  // namespace frugal::plan
