#include "frugal/plan/checkpointing.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

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
  for (int64_t k = 1; static_cast<double>(k) <= k_max; ++k) {
    term *= mean / static_cast<double>(k);
    cdf += term;
  }
  return std::clamp(1.0 - cdf, 0.0, 1.0);
}

namespace {

// The deadline risk: P(N > n) for N ~ Poisson over the hours an instance runs (no preemption
// while waiting for capacity), n the preemptions the slack absorbs at `per_preemption_hours`.
void SetDeadlineRisk(SpotRun& run, double base_hours, double per_preemption_hours, double rate,
                     double running_hours, std::optional<double> deadline_hours) {
  if (!deadline_hours) return;
  if (!run.viable || *deadline_hours < base_hours) {
    run.deadline_miss_probability = 1.0;
    return;
  }
  const double absorbed = std::floor((*deadline_hours - base_hours) / per_preemption_hours);
  run.deadline_miss_probability = PoissonTail(rate * running_hours, absorbed);
}

// E[t | t < L] for t exponential at `rate`: where in a stretch of L hours a preemption that
// ends it lands on average.
double MeanLossWithin(double stretch_hours, double rate) {
  const double x = rate * stretch_hours;
  if (x < 1e-8) return stretch_hours / 2.0;
  return 1.0 / rate - stretch_hours / std::expm1(x);
}

// A job that cannot resume: every preemption throws away the attempt. Attempts fail
// geometrically with success probability e^(−λW).
SpotRun FromScratchRun(double work_hours, double rate, double restart_hours, double outage_hours,
                       std::optional<double> deadline_hours) {
  SpotRun run;
  run.strategy = CheckpointStrategy::kFromScratch;
  run.interval_hours = work_hours;
  const double exponent = rate * work_hours;
  // Past e^50 failed attempts the run never ends in any sense that matters.
  run.viable = exponent < 50;
  const double failures = run.viable ? std::expm1(exponent) : INFINITY;
  run.expected_wall_hours = run.viable ? failures * (1.0 / rate + restart_hours) : INFINITY;
  run.expected_preemptions = failures;
  run.restart_hours = failures * restart_hours;
  run.lost_work_hours = run.viable ? run.expected_wall_hours - work_hours - run.restart_hours : 0;
  run.capacity_wait_hours = run.viable ? failures * outage_hours : 0;
  run.expected_wall_hours += run.capacity_wait_hours;
  if (!deadline_hours) return run;
  if (!run.viable || *deadline_hours < work_hours) {
    run.deadline_miss_probability = 1.0;
    return run;
  }
  const double p_fail = -std::expm1(-exponent);
  const double lost_per_failure =
      1.0 / rate - work_hours * std::exp(-exponent) / std::max(p_fail, 1e-300);
  const double absorbed =
      std::floor((*deadline_hours - work_hours) /
                 std::max(lost_per_failure + restart_hours + outage_hours, 1e-9));
  run.deadline_miss_probability = std::pow(p_fail, absorbed + 1);
  return run;
}

}  // namespace

std::string_view CheckpointSourceName(CheckpointSource s) {
  switch (s) {
    case CheckpointSource::kDeclared:
      return "declared";
    case CheckpointSource::kDrill:
      return "drill";
    case CheckpointSource::kAssumedNone:
      return "none";
  }
  return "none";
}

std::string CheckpointAssumption(const FaultTolerance& ft) {
  if (!ft.resumes) {
    return ft.source == CheckpointSource::kAssumedNone
               ? "none declared (no fault_tolerance section or drill record): spot runs are "
                 "priced restarting from scratch at each preemption; declare fault_tolerance "
                 "(checkpoint_write, restart) if the job resumes from checkpoints"
               : "the spec says the job cannot resume (fault_tolerance.checkpoints: false): "
                 "spot runs are priced restarting from scratch at each preemption";
  }
  return ft.source == CheckpointSource::kDrill
             ? fmt::format("resumes from checkpoints, as drill '{}' measured", ft.drill)
             : "resumes from checkpoints, as the spec's fault_tolerance section declares";
}

std::string_view CheckpointStrategyName(CheckpointStrategy s) {
  switch (s) {
    case CheckpointStrategy::kNone:
      return "none";
    case CheckpointStrategy::kPeriodic:
      return "periodic";
    case CheckpointStrategy::kOnNotice:
      return "checkpoint_on_notice";
    case CheckpointStrategy::kFromScratch:
      return "restart_from_scratch";
  }
  return "none";
}

SpotRun ModelSpotRun(double work_hours, double preemptions_per_hour, const FaultTolerance& ft,
                     std::optional<double> deadline_hours, double outage_hours) {
  SpotRun run;
  const double rate = preemptions_per_hour;
  if (rate <= 0) {
    run.expected_wall_hours = work_hours;
    run.deadline_miss_probability = deadline_hours && *deadline_hours < work_hours ? 1.0 : 0.0;
    return run;
  }
  if (!ft.resumes) {
    return FromScratchRun(work_hours, rate, ft.restart_hours, outage_hours, deadline_hours);
  }
  const double c = ft.checkpoint_write_hours;
  const double r = ft.restart_hours;
  if (SavesOnNotice(ft)) {
    run.strategy = CheckpointStrategy::kOnNotice;
    const double lost_share = rate * (r + c);  // each preemption costs a save and a restart
    run.viable = lost_share < 1.0;
    run.expected_wall_hours = run.viable ? work_hours / (1.0 - lost_share) : INFINITY;
    run.expected_preemptions = rate * run.expected_wall_hours;
    run.checkpoint_hours = run.expected_preemptions * c;
    run.restart_hours = run.expected_preemptions * r;
    const double running = run.expected_wall_hours;
    run.capacity_wait_hours = run.expected_preemptions * outage_hours;
    run.expected_wall_hours += run.capacity_wait_hours;
    SetDeadlineRisk(run, work_hours, r + c + outage_hours, rate, running, deadline_hours);
    return run;
  }
  run.strategy = CheckpointStrategy::kPeriodic;
  const double mtbf = 1.0 / rate;
  run.interval_hours = std::max(DalyInterval(c, mtbf), 1e-6);
  run.expected_wall_hours = ExpectedWallHours(work_hours, run.interval_hours, c, r, mtbf);
  run.viable = std::isfinite(run.expected_wall_hours);
  run.expected_preemptions = rate * run.expected_wall_hours;
  run.checkpoint_hours = work_hours / run.interval_hours * c;
  // A preemption lands in a restart (losing part of it) or in a segment of work and its write
  // (losing the work since the last commit). Per segment of L = τ + C the model expects
  // e^(λL) − 1 preemptions inside the segment out of e^(λR)·(e^(λL) − 1) in all: a share
  // e^(−λR), each losing E[t | t < L]. The rest of the overhead is restarts, so the parts add
  // up to the expected wall.
  const double stretch = run.interval_hours + c;
  const double segment_share = std::exp(-rate * r);
  const double overhead = run.expected_wall_hours - work_hours - run.checkpoint_hours;
  run.lost_work_hours =
      std::clamp(run.expected_preemptions * segment_share * MeanLossWithin(stretch, rate), 0.0,
                 std::max(0.0, overhead));
  run.restart_hours = std::max(0.0, overhead - run.lost_work_hours);
  const double running = run.expected_wall_hours;
  run.capacity_wait_hours = run.expected_preemptions * outage_hours;
  run.expected_wall_hours += run.capacity_wait_hours;
  SetDeadlineRisk(run, work_hours + run.checkpoint_hours,
                  r + outage_hours + (run.interval_hours + c) / 2.0, rate, running, deadline_hours);
  return run;
}

// One derivation, kept whole: both cases (a planned switch, or preemptions absorbed) read the
// same pace, loss and reserve, and split apart they would read as formulas without a source.
std::optional<FallbackRun> ModelFallback(double work_hours, const SpotRun& spot,
                                         double preemptions_per_hour, const FaultTolerance& ft,
                                         const FallbackPrices& prices, double deadline_hours) {
  const double lambda = preemptions_per_hour;
  const double c_write = ft.checkpoint_write_hours;
  const double r = ft.restart_hours;
  // A job that does not resume has nothing to carry over: the switch rule below assumes it.
  if (spot.strategy == CheckpointStrategy::kFromScratch) return std::nullopt;
  const bool periodic = spot.strategy == CheckpointStrategy::kPeriodic;
  // Spot progress per hour of uninterrupted wall, and the wall a preemption loses: on average,
  // and at worst (just before a checkpoint commits), which the switch rule keeps in reserve.
  const double pace = periodic ? spot.interval_hours / (spot.interval_hours + c_write) : 1.0;
  const double lost_max = periodic ? spot.interval_hours + c_write : c_write;
  const double lost = periodic ? lost_max / 2.0 : lost_max;
  const double per_preemption = r + lost;
  const double spot_base = work_hours / pace;
  const double od_work = prices.on_demand_work_hours;
  // The reserve left at the start: on-demand must still fit after the worst first loss.
  const double reserve = deadline_hours - lost_max - r - od_work;
  if (!spot.viable || lambda <= 0 || reserve < 0) return std::nullopt;
  const auto od_hours_after = [&](double spot_work_hours) {
    const double saved = std::clamp(spot_work_hours * pace, 0.0, work_hours);
    return r + (1.0 - saved / work_hours) * od_work;
  };

  FallbackRun f;
  const double slack = deadline_hours - r - std::max(spot_base, od_work) - lost_max;
  if (slack < 0) {
    // Spot cannot finish inside the reserve even undisturbed: it moves to on-demand at the
    // latest safe moment, when its surplus X = D − t − L_max − R − (on-demand rest) reaches 0.
    // X falls by δ = 1 − W_od/W' per hour of spot work and by c per preemption; on the
    // expected path (λ·t preemptions by wall time t) that is t = X0 / (δ·(1 − λc) + λc).
    const double drift = 1.0 - od_work / spot_base;
    const double spot_hours =
        reserve / (drift * (1.0 - lambda * per_preemption) + lambda * per_preemption);
    f.planned_switch = true;
    f.switch_probability = 1.0;
    f.switch_at_hours = spot_hours;
    f.on_demand_hours = od_hours_after(spot_hours * (1.0 - lambda * per_preemption));
  } else {
    const double k = std::floor(slack / per_preemption);
    f.absorbed_preemptions = k;
    const double horizon = spot_base + k * per_preemption;
    const double mean = lambda * horizon;
    f.switch_probability = PoissonTail(mean, k);
    const double p = f.switch_probability;
    f.switch_at_hours =
        p > 0 ? std::min(horizon, (k + 1) / lambda * PoissonTail(mean, k + 1) / p) : horizon;
    f.on_demand_hours = od_hours_after(f.switch_at_hours - k * per_preemption - lost);
    f.unswitched_hours = std::min(spot.expected_wall_hours, horizon);
  }
  const double p = f.switch_probability;
  // Spot's waits for capacity are in its wall but not on its bill, in the same share.
  const double billed_share = spot.expected_wall_hours > 0
                                  ? 1.0 - spot.capacity_wait_hours / spot.expected_wall_hours
                                  : 1.0;
  const double switched_cost = prices.spot_per_hour * f.switch_at_hours * billed_share +
                               prices.on_demand_per_hour * f.on_demand_hours;
  f.expected_cost_dollars =
      (1.0 - p) * prices.spot_per_hour * f.unswitched_hours * billed_share + p * switched_cost;
  f.unbilled_wait_hours =
      ((1.0 - p) * f.unswitched_hours + p * f.switch_at_hours) * (1.0 - billed_share);
  f.expected_wall_hours =
      (1.0 - p) * f.unswitched_hours + p * (f.switch_at_hours + f.on_demand_hours);
  return f;
}

}  // namespace frugal::plan
