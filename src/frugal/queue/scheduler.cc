#include "frugal/queue/scheduler.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>

#include "frugal/core/duration.h"
#include "frugal/plan/checkpointing.h"

namespace frugal::queue {
namespace {

constexpr double kCheckpointWriteHours = 1.0 / 60;

/// A pool during one pass: its capacity, its bookings sorted, and the hours its price drops.
struct PoolView {
  const Pool* pool = nullptr;
  PoolState* state = nullptr;
  std::vector<int> drop_hours;  ///< hours of the week cheaper than the hour before
};

struct Option {
  int pool = -1;
  Seconds start = 0;
  Seconds finish = 0;
  double cost = 0;
  double risk = 0;
  bool meets = false;
  int leftover = 0;  ///< idle units left on the pool at the start (packing)
};

Seconds EarliestFor(const PoolView& v, int units, Seconds now) {
  const auto& busy = v.state->busy_until;
  const int idle = v.pool->units() - static_cast<int>(busy.size());
  Seconds t = now;
  if (idle < units) {
    const auto k = static_cast<size_t>(units - idle - 1);
    if (k >= busy.size()) return kNever;
    t = std::max(t, busy[k]);
  }
  const auto& jobs = v.state->jobs_until;
  const auto max_jobs = static_cast<size_t>(v.pool->max_jobs);
  if (max_jobs > 0 && jobs.size() >= max_jobs) t = std::max(t, jobs[jobs.size() - max_jobs]);
  return t;
}

/// The first moment at or after `t` in `window` (kNever when the window is empty).
Seconds NextInWindow(Seconds t, const std::optional<HourSet>& window) {
  if (!window || window->test(static_cast<size_t>(HourOfWeek(t)))) return t;
  Seconds hour = (t / 3600 + 1) * 3600;
  for (int i = 0; i < kHoursPerWeek; ++i, hour += 3600) {
    if (window->test(static_cast<size_t>(HourOfWeek(hour)))) return hour;
  }
  return kNever;
}

void Book(PoolView& v, int units, Seconds start, Seconds end) {
  auto& busy = v.state->busy_until;
  const int idle = v.pool->units() - static_cast<int>(busy.size());
  const int from_busy = std::max(0, units - std::max(0, idle));
  // The units released earliest are the ones EarliestFor counted on.
  busy.erase(busy.begin(), busy.begin() + std::min<ptrdiff_t>(from_busy, std::ssize(busy)));
  busy.insert(std::upper_bound(busy.begin(), busy.end(), end), static_cast<size_t>(units), end);
  auto& jobs = v.state->jobs_until;
  const auto max_jobs = static_cast<size_t>(v.pool->max_jobs);
  if (max_jobs > 0 && jobs.size() >= max_jobs && !jobs.empty() && jobs.front() <= start) {
    jobs.erase(jobs.begin());
  }
  jobs.insert(std::upper_bound(jobs.begin(), jobs.end(), end), end);
}

bool SpotFor(const JobRequest& job, const WaitingJob& w, SpotUse use) {
  if (!w.spot_allowed) return false;
  switch (use) {
    case SpotUse::kOff:
      return false;
    case SpotUse::kCheckpointing:
      return job.checkpoints;
    case SpotUse::kGreedy:
      return true;
  }
  return false;
}

/// Prices the job on `v` starting at `start`.
std::optional<Option> Evaluate(const WaitingJob& w, const PoolView& v, int pool_index,
                               Seconds start, double runtime_hours, const SchedulerOptions& opts) {
  const JobRequest& job = *w.request;
  const Pool& pool = *v.pool;
  const double work = w.work_left * runtime_hours;
  const double changeover = ToHours(pool.changeover);
  Option o;
  o.pool = pool_index;
  o.start = start;
  double wall = changeover + work;
  if (pool.tier == CapacityTier::kSpot && job.checkpoints) {
    const int nodes = std::max(1, (job.units + pool.units_per_node() - 1) / pool.units_per_node());
    plan::FaultTolerance ft;
    ft.checkpoint_write_hours = kCheckpointWriteHours;
    ft.restart_hours = job.restart_hours;
    std::optional<double> deadline_hours;
    if (job.deadline != kNever) {
      deadline_hours = static_cast<double>(job.deadline - start) / 3600.0 - changeover;
      if (*deadline_hours <= 0) deadline_hours = 1e-6;
    }
    const plan::SpotRun run =
        plan::ModelSpotRun(work, pool.preemptions_per_hour * nodes, ft, deadline_hours);
    if (!run.viable) return std::nullopt;
    wall = changeover + run.expected_wall_hours;
    o.risk = job.deadline == kNever ? 0 : run.deadline_miss_probability;
  }
  o.finish = start + static_cast<Seconds>(std::ceil(wall * 3600));
  o.cost = pool.tier == CapacityTier::kOwned ? 0 : pool.UnitCost(start, o.finish) * job.units;
  o.meets = (job.deadline == kNever || o.finish + opts.safety_seconds <= job.deadline) &&
            o.risk <= opts.max_deadline_risk;
  o.leftover = pool.units() - static_cast<int>(v.state->busy_until.size()) - job.units;
  return o;
}

int TierRank(CapacityTier tier) {
  switch (tier) {
    case CapacityTier::kOwned:
      return 0;
    case CapacityTier::kSpot:
      return 1;
    case CapacityTier::kOnDemand:
    case CapacityTier::kReserved1y:  // a pool is never reserved (capacity.h)
    case CapacityTier::kReserved3y:
      return 2;
  }
  return 3;
}

bool Better(const Option& a, const Option& b, const std::vector<PoolView>& views, Choice choice) {
  if (choice == Choice::kFirstFit) {
    if (a.start != b.start) return a.start < b.start;
    const int ra = TierRank(views[static_cast<size_t>(a.pool)].pool->tier);
    const int rb = TierRank(views[static_cast<size_t>(b.pool)].pool->tier);
    if (ra != rb) return ra < rb;
    return a.cost < b.cost;
  }
  if (a.meets != b.meets) return a.meets;
  if (a.meets) {
    // Cents apart is the same price: then the sooner finish, then the tighter fit.
    if (std::abs(a.cost - b.cost) > 0.005) return a.cost < b.cost;
  }
  if (a.finish != b.finish) return a.finish < b.finish;
  return a.leftover < b.leftover;
}

/// Candidate starts on one pool: the earliest, and (cheapest choice, a price schedule) each
/// later hour where the price drops, up to the latest start that still meets the deadline.
void Candidates(const WaitingJob& w, const PoolView& v, Seconds earliest, double runtime_hours,
                const ScheduleInput& in, std::vector<Seconds>& out) {
  out.clear();
  out.push_back(earliest);
  if (in.options.choice != Choice::kCheapest || v.drop_hours.empty()) return;
  const JobRequest& job = *w.request;
  const double wall_hours = ToHours(v.pool->changeover) + w.work_left * runtime_hours;
  const Seconds latest =
      job.deadline == kNever
          ? in.now + in.options.max_defer_seconds
          : job.deadline - static_cast<Seconds>(wall_hours * 3600) - in.options.safety_seconds;
  const Seconds week_start = earliest / 3600 * 3600 - HourOfWeek(earliest) * Seconds{3600};
  for (int week = 0; week < 2; ++week) {
    for (int h : v.drop_hours) {
      const Seconds t = week_start + (week * kHoursPerWeek + h) * Seconds{3600};
      if (t <= earliest) continue;
      if (t > latest || out.size() >= 8) return;
      if (NextInWindow(t, job.window) == t) out.push_back(t);
    }
  }
}

std::string DescribeChoice(const Option& o, const std::vector<PoolView>& views, Seconds now,
                           double od_cost) {
  const Pool& pool = *views[static_cast<size_t>(o.pool)].pool;
  std::string s = fmt::format("{} ({}) ", pool.name, CapacityTierName(pool.tier));
  if (o.start > now) s += fmt::format("from {} ", FormatUtcTime(o.start));
  s += fmt::format("${:.2f}", o.cost);
  if (od_cost >= 0 && pool.tier != CapacityTier::kOnDemand)
    s += fmt::format(" vs on-demand now ${:.2f}", od_cost);
  if (o.risk > 0) s += fmt::format(", deadline risk {:.1f}%", 100 * o.risk);
  return s;
}

std::vector<size_t> OrderJobs(const ScheduleInput& in) {
  std::vector<size_t> order(in.jobs.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::vector<double> usage(in.jobs.size(), 0);
  for (size_t i = 0; i < in.jobs.size(); ++i) {
    const auto it = in.usage_gpu_hours.find(in.jobs[i].request->Team());
    if (it != in.usage_gpu_hours.end()) usage[i] = it->second;
  }
  const bool edf = in.options.order == Order::kEdf;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const JobRequest& x = *in.jobs[a].request;
    const JobRequest& y = *in.jobs[b].request;
    if (edf && x.deadline != y.deadline) return x.deadline < y.deadline;
    if (edf && x.priority != y.priority) return x.priority > y.priority;
    if (edf && usage[a] != usage[b]) return usage[a] < usage[b];
    return x.arrival < y.arrival;
  });
  return order;
}

/// The budget a placement of `cost` would break, as the arithmetic; "" when none.
std::string BudgetBreach(const ScheduleInput& in, const JobRequest& job, double cost) {
  const Money add = Money::FromDollars(cost);
  if (job.budget && add > *job.budget) {
    return fmt::format("expected ${:.2f} > the job's budget {}", cost, job.budget->ToString());
  }
  for (const TeamBudget& b : in.capacity->budgets) {
    const auto tag = job.tags.find(b.tag_key);
    if (tag == job.tags.end() || tag->second != b.tag_value) continue;
    const std::string key = b.tag_key + "=" + b.tag_value;
    const auto it = in.committed.find(key);
    const Money spent = it == in.committed.end() ? Money() : it->second;
    if (spent + add > b.limit) {
      return fmt::format("{} {} budget {}: {} committed + {} expected = {} > {}", key,
                         PeriodName(b.period), b.limit.ToString(), spent.ToString(), add.ToString(),
                         (spent + add).ToString(), b.limit.ToString());
    }
  }
  return {};
}

Action ActionFor(const Placement& pl, const Pool& pool, Seconds now) {
  if (pl.verdict == Verdict::kStart) return Action::kStartNow;
  if (pl.verdict == Verdict::kLate && pl.start <= now) return Action::kStartNow;
  const bool later = pl.verdict == Verdict::kDefer || pl.verdict == Verdict::kLate;
  return later && pool.kind == PoolKind::kSlurm ? Action::kStartHeld : Action::kNone;
}

/// Why a job is late, by the margin it misses: a finish past the deadline is a miss; one
/// before it that leaves less than the safety margin is said as such, not as a miss.
std::string LateReason(const JobRequest& job, const Option& best, const SchedulerOptions& opts) {
  const auto span = [](Seconds s) { return FormatDuration(std::chrono::seconds(s)); };
  const std::string risk = best.risk > opts.max_deadline_risk
                               ? fmt::format(", deadline risk {:.1f}%", 100 * best.risk)
                               : "";
  if (best.finish > job.deadline) {
    return fmt::format(
        "cannot meet its deadline {} on any pool; soonest finish {} ({} after it) on ",
        FormatUtcTime(job.deadline), FormatUtcTime(best.finish), span(best.finish - job.deadline));
  }
  return fmt::format(
      "cannot keep the {} margin before its deadline {} on any pool; soonest finish {} ({} "
      "before it{}) on ",
      span(opts.safety_seconds), FormatUtcTime(job.deadline), FormatUtcTime(best.finish),
      span(job.deadline - best.finish), risk);
}

/// The pools as one pass sees them: bookings sorted, and the hours of the week a pool's
/// price drops.
std::vector<PoolView> ViewPools(ScheduleInput& in) {
  std::vector<PoolView> views(in.pools.size());
  for (size_t p = 0; p < views.size(); ++p) {
    PoolView& v = views[p];
    v.pool = &in.capacity->pools[p];
    v.state = &in.pools[p];
    std::sort(v.state->busy_until.begin(), v.state->busy_until.end());
    std::sort(v.state->jobs_until.begin(), v.state->jobs_until.end());
    for (int h = 0; h < kHoursPerWeek && v.pool->HasSchedule(); ++h) {
      const int before = (h + kHoursPerWeek - 1) % kHoursPerWeek;
      if (v.pool->hourly[static_cast<size_t>(h)] < v.pool->hourly[static_cast<size_t>(before)]) {
        v.drop_hours.push_back(h);
      }
    }
  }
  return views;
}

/// The best start of a job over every pool it may use, and what on-demand would cost it at
/// the earliest start (-1 without an on-demand option).
struct BestOption {
  std::optional<Option> best;
  double od_cost = -1;
};

/// `starts` is scratch space, kept from job to job.
BestOption FindBestOption(const WaitingJob& w, const std::vector<PoolView>& views,
                          const ScheduleInput& in, std::vector<Seconds>& starts) {
  const SchedulerOptions& opts = in.options;
  const JobRequest& job = *w.request;
  const bool spot_ok = SpotFor(job, w, opts.spot);
  BestOption found;
  for (size_t p = 0; p < views.size(); ++p) {
    const PoolView& v = views[p];
    const CapacityTier tier = v.pool->tier;
    if (tier == CapacityTier::kSpot && (!spot_ok || !v.state->available)) continue;
    if (tier == CapacityTier::kOnDemand && !w.paid_allowed) continue;
    const std::optional<double> runtime = job.RuntimeOn(*v.pool);
    if (!runtime) continue;
    Seconds earliest = EarliestFor(v, job.units, std::max(in.now, job.not_before));
    earliest = NextInWindow(earliest, job.window);
    if (earliest >= kNever) continue;
    // Spot capacity is known only now: a later start on it cannot be promised.
    if (tier == CapacityTier::kSpot && earliest > in.now) continue;
    Candidates(w, v, earliest, *runtime, in, starts);
    for (Seconds start : starts) {
      const std::optional<Option> o = Evaluate(w, v, static_cast<int>(p), start, *runtime, opts);
      if (!o) continue;
      if (tier == CapacityTier::kOnDemand && start == earliest &&
          (found.od_cost < 0 || o->cost < found.od_cost)) {
        found.od_cost = o->cost;
      }
      if (!found.best || Better(*o, *found.best, views, opts.choice)) found.best = o;
    }
  }
  return found;
}

/// The verdict on job `j` given its best option; a placement that goes ahead is booked on its
/// pool and its cost committed to the job's budgets.
Placement PlaceJob(size_t j, const BestOption& found, std::vector<PoolView>& views,
                   ScheduleInput& in) {
  const WaitingJob& w = in.jobs[j];
  const JobRequest& job = *w.request;
  Placement pl;
  pl.job = j;
  pl.on_demand_cost_usd = found.od_cost;
  if (!found.best) {
    pl.reason = w.paid_allowed ? "no pool fits it now" : "waiting for spot capacity to return";
    return pl;
  }
  const Option& best = *found.best;
  pl.pool = best.pool;
  pl.start = best.start;
  pl.finish = best.finish;
  pl.cost_usd = best.cost;
  pl.deadline_risk = best.risk;
  const std::string breach = BudgetBreach(in, job, best.cost);
  if (!breach.empty() && job.override_reason.empty()) {
    pl.verdict = Verdict::kOverBudget;
    pl.reason = breach;
    return pl;
  }
  pl.verdict = !best.meets            ? Verdict::kLate
               : best.start <= in.now ? Verdict::kStart
                                      : Verdict::kDefer;
  pl.action = ActionFor(pl, *views[static_cast<size_t>(best.pool)].pool, in.now);
  pl.reason = DescribeChoice(best, views, in.now, found.od_cost);
  if (pl.verdict == Verdict::kLate) pl.reason = LateReason(job, best, in.options) + pl.reason;
  if (!breach.empty()) pl.reason += "; over budget by override: " + job.override_reason;
  Book(views[static_cast<size_t>(best.pool)], job.units, best.start, best.finish);
  for (const std::string& key : BudgetKeys(*in.capacity, job)) {
    in.committed[key] += Money::FromDollars(best.cost);
  }
  return pl;
}

}  // namespace

const char* VerdictName(Verdict verdict) {
  switch (verdict) {
    case Verdict::kStart:
      return "start";
    case Verdict::kDefer:
      return "defer";
    case Verdict::kLate:
      return "late";
    case Verdict::kOverBudget:
      return "over_budget";
    case Verdict::kWait:
      return "wait";
  }
  return "?";
}

std::vector<std::string> BudgetKeys(const Capacity& capacity, const JobRequest& job) {
  std::vector<std::string> keys;
  for (const TeamBudget& b : capacity.budgets) {
    const auto tag = job.tags.find(b.tag_key);
    if (tag != job.tags.end() && tag->second == b.tag_value)
      keys.push_back(b.tag_key + "=" + b.tag_value);
  }
  return keys;
}

std::vector<Placement> Schedule(ScheduleInput& in) {
  FRUGAL_CHECK(in.capacity != nullptr && in.pools.size() == in.capacity->pools.size());
  std::vector<PoolView> views = ViewPools(in);
  std::vector<Placement> out;
  out.reserve(in.jobs.size());
  std::vector<Seconds> starts;
  for (size_t j : OrderJobs(in)) {
    const BestOption found = FindBestOption(in.jobs[j], views, in, starts);
    out.push_back(PlaceJob(j, found, views, in));
  }
  return out;
}

}  // namespace frugal::queue
