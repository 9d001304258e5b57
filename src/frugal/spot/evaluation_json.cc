#include "frugal/spot/evaluation_json.h"

#include "frugal/core/duration.h"
#include "frugal/core/money.h"

namespace frugal::spot {
namespace {

double Dollars(double usd) { return Money::FromDollars(usd).dollars(); }

nlohmann::json StatsJson(const RatioStats& s, bool optimum) {
  nlohmann::json j;
  j["runs"] = s.runs;
  j["deadline_misses"] = s.deadline_misses;
  j["mean_cost_usd"] = Dollars(s.mean_cost_usd);
  j["spot_share"] = s.spot_share;
  if (optimum) {
    // No run with a ratio (every optimum infeasible, or every deadline missed): no ratio.
    const auto ratio = [&](double x) { return s.ratio_runs > 0 ? nlohmann::json(x) : nullptr; };
    j["ratio_runs"] = s.ratio_runs;
    j["mean_cost_ratio"] = ratio(s.mean_ratio);
    j["median_cost_ratio"] = ratio(s.median_ratio);
    j["p90_cost_ratio"] = ratio(s.p90_ratio);
    j["spot_vs_optimum"] = s.spot_vs_optimum;
  }
  return j;
}

nlohmann::json RunJson(const RunResult& r, double step_hours) {
  return {{"cost_usd", Dollars(r.cost_usd)},
          {"spot_hours", r.spot_steps * step_hours},
          {"on_demand_hours", r.on_demand_steps * step_hours},
          {"changeovers", r.changeovers},
          {"preemptions", r.preemptions},
          {"lost_work_hours", r.lost_steps * step_hours},
          {"finish_hours", r.finish_step * step_hours},
          {"deadline_met", r.deadline_met}};
}

}  // namespace

nlohmann::json EvaluationJson(const Evaluation& eval, const EvaluationConfig& config,
                              bool per_run) {
  nlohmann::json doc;
  const double step_hours = eval.step_seconds / 3600.0;
  doc["job"] = {{"compute_hours", ToHours(config.job.compute)},
                {"deadline_hours", ToHours(config.job.deadline)},
                {"changeover_hours", ToHours(config.job.changeover)},
                {"checkpoint_cost_hours", ToHours(config.job.checkpoint_cost)},
                {"checkpoint_every_hours", eval.first_job.checkpoint_every * step_hours},
                {"notice_seconds", ToSeconds(config.job.notice)},
                {"gang", config.gang}};
  doc["step_seconds"] = eval.step_seconds;
  doc["runs"] = static_cast<int>(eval.rows.size());
  if (config.optimum) doc["infeasible_runs"] = eval.infeasible;
  nlohmann::json policies = nlohmann::json::object();
  for (const PolicySummary& s : eval.summaries) {
    nlohmann::json p = StatsJson(s.all, config.optimum);
    if (s.has_gap_closed) p["greedy_gap_closed"] = s.gap_closed;
    for (const auto& [name, stats] : s.strata) p["strata"][name] = StatsJson(stats, config.optimum);
    policies[s.name] = std::move(p);
  }
  doc["policies"] = std::move(policies);
  if (per_run) {
    nlohmann::json rows = nlohmann::json::array();
    for (const RunRow& row : eval.rows) {
      nlohmann::json r = {{"trace", row.trace},
                          {"start_hours", row.start_step * step_hours},
                          {"window_availability", row.window_availability},
                          {"stratum", StratumOf(row)}};
      if (config.optimum && row.optimum_feasible)
        r["optimum_cost_usd"] = Dollars(row.optimum_cost_usd);
      for (size_t i = 0; i < row.runs.size(); ++i) {
        r["policies"][config.policies[i]] = RunJson(row.runs[i], step_hours);
      }
      rows.push_back(std::move(r));
    }
    doc["per_run"] = std::move(rows);
  }
  return doc;
}

}  // namespace frugal::spot
