#include "frugal/plan/checkpointing.h"

#include <algorithm>
#include <cmath>

namespace frugal::plan {

double DalyInterval(double checkpoint_hours, double mtbf_hours) {
  const double c = checkpoint_hours;
  const double m = mtbf_hours;
  if (c >= 2.0 * m) return m;
  const double x = c / (2.0 * m);
  return std::sqrt(2.0 * c * m) * (1.0 + std::sqrt(x) / 3.0 + x / 9.0) - c;
}

double ExpectedWallHours(double work_hours, double interval_hours, double checkpoint_hours,
                         double restart_hours, double mtbf_hours) {
  const double m = mtbf_hours;
  return m * std::exp(restart_hours / m) * std::expm1((interval_hours + checkpoint_hours) / m) *
         work_hours / interval_hours;
}

double PoissonTail(double mean, double n) {
  if (n < 0) return 1.0;
  if (mean <= 0) return 0.0;
  const double k_max = std::floor(n);
  if (k_max > mean + 40.0 * std::sqrt(mean) + 60.0) return 0.0;
  // Sum the CDF in log space term by term (k_max is small whenever the tail matters).
  double term = std::exp(-mean);
  double cdf = term;
  for (double k = 1; k <= k_max; ++k) {
    term *= mean / k;
    cdf += term;
  }
  return std::clamp(1.0 - cdf, 0.0, 1.0);
}

namespace {

void SetDeadlineRisk(SpotRun& run, double base_hours, double per_preemption_hours, double rate,
                     std::optional<double> deadline_hours) {
  if (!deadline_hours) return;
  if (!run.viable || *deadline_hours < base_hours) {
    run.deadline_miss_probability = 1.0;
    return;
  }
  const double absorbed = std::floor((*deadline_hours - base_hours) / per_preemption_hours);
  run.deadline_miss_probability = PoissonTail(rate * run.expected_wall_hours, absorbed);
}

}  // namespace

SpotRun ModelSpotRun(double work_hours, double preemptions_per_hour, const FaultTolerance& ft,
                     std::optional<double> deadline_hours) {
  SpotRun run;
  const double rate = preemptions_per_hour;
  if (rate <= 0) {
    run.expected_wall_hours = work_hours;
    run.deadline_miss_probability = deadline_hours && *deadline_hours < work_hours ? 1.0 : 0.0;
    return run;
  }
  const double c = ft.checkpoint_write_hours;
  const double r = ft.restart_hours;
  if (ft.checkpoint_on_notice && c <= ft.notice_hours) {
    run.strategy = CheckpointStrategy::kOnNotice;
    const double lost_share = rate * (r + c);  // each preemption costs a save and a restart
    run.viable = lost_share < 1.0;
    run.expected_wall_hours = run.viable ? work_hours / (1.0 - lost_share) : INFINITY;
    run.expected_preemptions = rate * run.expected_wall_hours;
    run.checkpoint_hours = run.expected_preemptions * c;
    run.restart_hours = run.expected_preemptions * r;
    SetDeadlineRisk(run, work_hours, r + c, rate, deadline_hours);
    return run;
  }
  run.strategy = CheckpointStrategy::kPeriodic;
  const double mtbf = 1.0 / rate;
  run.interval_hours = std::max(DalyInterval(c, mtbf), 1e-6);
  run.expected_wall_hours = ExpectedWallHours(work_hours, run.interval_hours, c, r, mtbf);
  run.viable = std::isfinite(run.expected_wall_hours);
  run.expected_preemptions = rate * run.expected_wall_hours;
  run.checkpoint_hours = work_hours / run.interval_hours * c;
  run.restart_hours = run.expected_preemptions * r;
  run.lost_work_hours = std::max(
      0.0, run.expected_wall_hours - work_hours - run.checkpoint_hours - run.restart_hours);
  SetDeadlineRisk(run, work_hours + run.checkpoint_hours, r + (run.interval_hours + c) / 2.0, rate,
                  deadline_hours);
  return run;
}

FallbackRun ModelFallback(double work_hours, const SpotRun& spot, double spot_rate_dollars,
                          double on_demand_rate_dollars, double deadline_hours) {
  FallbackRun f;
  const double spot_cost = spot_rate_dollars * spot.expected_wall_hours;
  f.switch_probability = spot.deadline_miss_probability;
  const double progress_per_hour = spot.viable ? work_hours / spot.expected_wall_hours : 0.0;
  f.switch_at_hours = progress_per_hour < 1.0
                          ? std::max(0.0, (deadline_hours - work_hours) / (1.0 - progress_per_hour))
                          : 0.0;
  f.switch_at_hours = std::min(f.switch_at_hours, deadline_hours);
  const double switched_cost = spot_rate_dollars * f.switch_at_hours +
                               on_demand_rate_dollars * (deadline_hours - f.switch_at_hours);
  const double p = f.switch_probability;
  f.expected_cost_dollars = (1.0 - p) * (spot.viable ? spot_cost : 0.0) + p * switched_cost;
  f.expected_wall_hours =
      (1.0 - p) * (spot.viable ? spot.expected_wall_hours : 0.0) + p * deadline_hours;
  return f;
}

}  // namespace frugal::plan
