#include "frugal/spot/job.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "frugal/core/checkpoint_interval.h"

namespace frugal::spot {
namespace {

int64_t Seconds(Duration d) { return d.count() / 1000; }

int CeilSteps(Duration d, int step_seconds) {
  const int64_t ms = d.count();
  const int64_t step_ms = int64_t{step_seconds} * 1000;
  return static_cast<int>((ms + step_ms - 1) / step_ms);
}

int FloorSteps(Duration d, int step_seconds) {
  return static_cast<int>(d.count() / (int64_t{step_seconds} * 1000));
}

}  // namespace

const char* ModeName(Mode mode) {
  switch (mode) {
    case Mode::kIdle:
      return "idle";
    case Mode::kSpot:
      return "spot";
    case Mode::kOnDemand:
      return "on_demand";
  }
  return "?";
}

int ChooseStepSeconds(int tick_seconds, const JobSpec& job) {
  constexpr int kMinStepSeconds = 60;
  int64_t step = tick_seconds;
  for (Duration d : {job.changeover, job.checkpoint_cost}) {
    if (d.count() > 0 && d.count() % 1000 == 0) step = std::gcd(step, Seconds(d));
  }
  if (step >= kMinStepSeconds) return static_cast<int>(step);
  // Too fine: take the smallest divisor of the tick that is at least a minute.
  for (int s = kMinStepSeconds; s <= tick_seconds; ++s) {
    if (tick_seconds % s == 0) return s;
  }
  return tick_seconds;
}

Result<StepJob> ToSteps(const JobSpec& job, int step_seconds, double mean_lifetime_steps) {
  StepJob s;
  s.step_seconds = step_seconds;
  s.compute = CeilSteps(job.compute, step_seconds);
  s.deadline = FloorSteps(job.deadline, step_seconds);
  s.changeover = CeilSteps(job.changeover, step_seconds);
  s.checkpoint_cost = CeilSteps(job.checkpoint_cost, step_seconds);
  s.notice = FloorSteps(job.notice, step_seconds);
  if (s.compute <= 0) return Fail(ErrorCode::kBadInput, "field 'compute': must be positive");
  if (s.deadline <= 0) return Fail(ErrorCode::kBadInput, "field 'deadline': must be positive");
  if (s.checkpoint_cost > 0) {
    if (job.checkpoint_every.count() > 0) {
      s.checkpoint_every = std::max(
          1, static_cast<int>(std::lround(static_cast<double>(job.checkpoint_every.count()) /
                                          (step_seconds * 1000.0))));
    } else {
      // Young's rule: the interval that balances checkpoint time against expected lost work.
      s.checkpoint_every =
          std::max(1, static_cast<int>(std::lround(
                          YoungInterval(s.checkpoint_cost, std::max(1.0, mean_lifetime_steps)))));
    }
  }
  return s;
}

StepTrace ToStepTrace(const Trace& trace, int step_seconds, int gang, const FlatPrices& flat) {
  const int per_tick = std::max(1, trace.gap_seconds / step_seconds);
  const double step_hours = step_seconds / 3600.0;
  const auto total = static_cast<size_t>(trace.ticks()) * static_cast<size_t>(per_tick);
  StepTrace out;
  out.available.resize(total);
  out.spot_cost.resize(total);
  out.on_demand_cost.resize(total);
  const double flat_od = flat.on_demand_per_hour * gang * step_hours;
  const double flat_spot = flat_od / flat.ratio;
  size_t k = 0;
  for (size_t i = 0; i < trace.launchable.size(); ++i) {
    const uint8_t up = trace.launchable[i] >= gang ? 1 : 0;
    const double od = trace.HasPrices() ? trace.on_demand_price[i] * gang * step_hours : flat_od;
    const double sp = trace.HasPrices() ? trace.spot_price[i] * gang * step_hours : flat_spot;
    for (int j = 0; j < per_tick; ++j, ++k) {
      out.available[k] = up;
      out.on_demand_cost[k] = od;
      out.spot_cost[k] = sp;
    }
  }
  return out;
}

double MeanLifetimeSteps(const std::vector<uint8_t>& available, int begin, int end,
                         double fallback) {
  begin = std::max(begin, 0);
  end = std::min(end, static_cast<int>(available.size()));
  int64_t up = 0;
  int runs = 0;
  for (int i = begin; i < end; ++i) {
    if (available[static_cast<size_t>(i)] == 0) continue;
    ++up;
    if (i == begin || available[static_cast<size_t>(i - 1)] == 0) ++runs;
  }
  return runs == 0 ? fallback : static_cast<double>(up) / runs;
}

}  // namespace frugal::spot
