#include "frugal/queue/simulation.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <random>

#include "frugal/core/text.h"
#include "frugal/spot/live_advice.h"

namespace frugal::queue {
namespace {

enum class State { kPending, kWaiting, kRunning, kDone };

/// Seconds until a running job's expected end, `hours_left` of it. The hours left are a sum of
/// shares of a step: rounding noise (3000.0000001 s) must not make a whole second more than the
/// live loop counts from the job's start (queue_service.cc), or the two would place alike jobs
/// differently.
Seconds EndIn(double hours_left) {
  return static_cast<Seconds>(std::ceil(hours_left * 3600 - 1e-6));
}

struct SimJob {
  const JobRequest* request = nullptr;
  State state = State::kPending;
  double progress = 0;   ///< share of the work done, checkpointed or not
  double committed = 0;  ///< share safe in a checkpoint
  int pool = -1;
  double changeover_left_hours = 0;
  bool spot_allowed = true;
  bool paid_allowed = true;
  Seconds recheck_at = 0;  ///< when to ask the spot policy again while waiting for spot
  Seconds ready_at = -1;   ///< arrived with its dependencies done
  Seconds first_start = -1;
  Seconds finished = -1;
  Seconds stint_start = 0;                      ///< start of the current stretch on spot
  Seconds preempted_at = -1;                    ///< the last preemption, while waiting after it
  std::vector<spot::AvailabilitySpan> history;  ///< the job's own spot history
  bool flagged_late = false;
};

/// Spot availability of one pool over simulated time.
struct Availability {
  const spot::Trace* trace = nullptr;  ///< null: always available
  int offset = 0;
  [[nodiscard]] bool At(Seconds since_start) const {
    if (trace == nullptr || trace->launchable.empty()) return true;
    const auto tick =
        static_cast<size_t>((offset + since_start / trace->gap_seconds) % trace->ticks());
    return trace->launchable[tick] > 0;
  }
};

class Simulator {
 public:
  Simulator(const Workload& w, const Capacity& cap, std::vector<Availability> avail,
            SchedulerOptions opts, std::string name, int step_seconds,
            std::vector<SimulatedPlacement>* log)
      : w_(w), cap_(cap), avail_(std::move(avail)), opts_(opts), step_(step_seconds), log_(log) {
    result_.name = std::move(name);
    result_.jobs = static_cast<int>(w.jobs.size());
    for (const JobRequest& r : w.jobs) {
      SimJob j;
      j.request = &r;
      jobs_.push_back(std::move(j));
      index_[r.name] = jobs_.size() - 1;
    }
    up_.assign(cap.pools.size(), true);
  }

  PolicyResult Run() {
    // Run until every job is done, or a month past the horizon (a stuck job counts as a miss).
    const Seconds stop = w_.horizon_end + 30 * 86400;
    for (now_ = w_.start; now_ < stop && done_ < jobs_.size(); now_ += step_) {
      UpdateSpot();
      GuardSpotDeadlines();
      Admit();
      Place();
      Advance();
    }
    Finish();
    return result_;
  }

 private:
  [[nodiscard]] bool Frugal() const { return opts_.choice == Choice::kCheapest; }
  [[nodiscard]] double Runtime(const SimJob& j, int pool) const {
    return j.request->RuntimeOn(cap_.pools[static_cast<size_t>(pool)]).value_or(1.0);
  }

  /// The job's hours of work on the fastest non-spot pool: what on-demand would need.
  [[nodiscard]] double OnDemandRuntime(const SimJob& j) const {
    double best = 1e18;
    for (const Pool& p : cap_.pools) {
      if (p.tier == CapacityTier::kSpot) continue;
      if (const auto r = j.request->RuntimeOn(p)) best = std::min(best, *r);
    }
    return best < 1e18 ? best : j.request->runtime_hours;
  }

  void UpdateSpot() {
    for (size_t p = 0; p < cap_.pools.size(); ++p) {
      up_[p] = avail_[p].At(now_ - w_.start);
    }
    for (SimJob& j : jobs_) {
      if (j.state != State::kRunning || up_[static_cast<size_t>(j.pool)]) continue;
      ++result_.preemptions;
      j.history.push_back({true, std::chrono::seconds(now_ - j.stint_start)});
      StopRunning(j, j.request->checkpoints ? j.committed : 0.0);
      j.preempted_at = now_;
      AfterPreemption(j);
    }
    for (SimJob& j : jobs_) {
      if (j.state == State::kWaiting && !j.paid_allowed && now_ >= j.recheck_at) AfterPreemption(j);
    }
  }

  void StopRunning(SimJob& j, double keep) {
    j.progress = keep;
    j.committed = keep;
    j.state = State::kWaiting;
    j.pool = -1;
  }

  /// After a preemption (and again every hour while waiting): the spot policy decides.
  void AfterPreemption(SimJob& j) {
    if (opts_.spot == SpotUse::kGreedy) {
      j.spot_allowed = false;  // the fallback: on-demand from now on
      ++result_.moved_to_on_demand;
      return;
    }
    bool spot_up = false;
    for (size_t p = 0; p < cap_.pools.size(); ++p) {
      if (cap_.pools[p].tier == CapacityTier::kSpot && up_[p]) spot_up = true;
    }
    j.paid_allowed = true;
    if (spot_up || !Frugal() || !j.spot_allowed) return;
    const JobRequest& r = *j.request;
    spot::Mode mode = spot::Mode::kIdle;
    if (r.deadline == kNever) {
      // No deadline: waiting costs nothing but time; a day without spot is enough.
      if (now_ - j.preempted_at >= 86400) mode = spot::Mode::kOnDemand;
    } else {
      mode = Advise(j);
    }
    if (mode == spot::Mode::kOnDemand) {
      j.spot_allowed = false;
      ++result_.moved_to_on_demand;
    } else {
      j.paid_allowed = false;
      j.recheck_at = now_ + 3600;
    }
  }

  spot::Mode Advise(const SimJob& j) const {
    const JobRequest& r = *j.request;
    double od_price = 0;
    double spot_price = 0;
    for (const Pool& p : cap_.pools) {
      if (!r.RuntimeOn(p)) continue;
      if (p.tier == CapacityTier::kOnDemand && (od_price == 0 || p.PriceAt(now_) < od_price))
        od_price = p.PriceAt(now_);
      if (p.tier == CapacityTier::kSpot && (spot_price == 0 || p.PriceAt(now_) < spot_price))
        spot_price = p.PriceAt(now_);
    }
    spot::LiveJob live;
    const double work = OnDemandRuntime(j);
    live.compute = FromHours(work);
    live.deadline = std::chrono::seconds(std::max<Seconds>(1, r.deadline - j.ready_at));
    live.changeover = FromHours(r.restart_hours + SoonestPaidStart(j).second);
    live.price_ratio = spot_price > 0 ? std::max(1.0, od_price / spot_price) : 3.0;
    std::vector<spot::AvailabilitySpan> history = j.history;
    history.push_back({false, std::chrono::seconds(now_ - j.preempted_at)});
    spot::LiveState state;
    state.elapsed = std::chrono::seconds(now_ - j.ready_at);
    state.work_done = FromHours(j.committed * work);
    if (state.elapsed < state.work_done) state.elapsed = state.work_done;
    if (live.deadline <= state.elapsed || live.compute <= state.work_done)
      return spot::Mode::kOnDemand;
    auto advice = spot::AdviseLive(live, history, state);
    return advice ? advice->mode : spot::Mode::kOnDemand;
  }

  /// When `j` could start on the soonest owned or on-demand pool it fits, by the expected
  /// ends of what runs now, and that pool's changeover.
  [[nodiscard]] std::pair<Seconds, double> SoonestPaidStart(const SimJob& j) const {
    Seconds best = kNever;
    double changeover = 0;
    for (size_t p = 0; p < cap_.pools.size(); ++p) {
      const Pool& pool = cap_.pools[p];
      if (pool.tier == CapacityTier::kSpot || !j.request->RuntimeOn(pool)) continue;
      std::vector<Seconds> ends;
      for (const SimJob& o : jobs_) {
        if (o.state != State::kRunning || o.pool != static_cast<int>(p)) continue;
        const double left = o.changeover_left_hours + (1 - o.progress) * Runtime(o, o.pool);
        ends.insert(ends.end(), static_cast<size_t>(o.request->units), now_ + EndIn(left));
      }
      std::sort(ends.begin(), ends.end());
      const int idle = pool.units() - static_cast<int>(ends.size());
      Seconds t = now_;
      if (idle < j.request->units) t = ends[static_cast<size_t>(j.request->units - idle - 1)];
      if (t < best) {
        best = t;
        changeover = ToHours(pool.changeover);
      }
    }
    return {best, changeover};
  }

  /// Whether a job off on-demand must go there now: finishing on the soonest owned or
  /// on-demand start (restart and changeover included) leaves less than `margin` before its
  /// deadline.
  [[nodiscard]] bool MustLeaveSpot(const SimJob& j, double progress, Seconds margin) const {
    const auto [start, changeover] = SoonestPaidStart(j);
    if (start >= kNever) return false;
    const double need_hours =
        (1 - progress) * OnDemandRuntime(j) + j.request->restart_hours + changeover;
    return start + static_cast<Seconds>(need_hours * 3600) + margin >= j.request->deadline;
  }

  /// A running spot job whose spare time before the deadline is nearly gone checkpoints and
  /// moves, as the spot policy's guard does; so does one waiting for spot to return.
  void GuardSpotDeadlines() {
    if (!Frugal()) return;
    for (SimJob& j : jobs_) {
      if (j.request->deadline == kNever) continue;
      if (j.state == State::kWaiting && !j.paid_allowed &&
          MustLeaveSpot(j, j.committed, 1800 + 3 * step_)) {
        j.paid_allowed = true;
        j.spot_allowed = false;
        ++result_.moved_to_on_demand;
        continue;
      }
      if (j.state != State::kRunning) continue;
      if (cap_.pools[static_cast<size_t>(j.pool)].tier != CapacityTier::kSpot) continue;
      if (!MustLeaveSpot(j, j.progress, 3 * step_)) continue;
      j.history.push_back({true, std::chrono::seconds(now_ - j.stint_start)});
      StopRunning(j, j.progress);  // a checkpoint on the way out
      j.spot_allowed = false;
      ++result_.moved_to_on_demand;
    }
  }

  void Admit() {
    for (SimJob& j : jobs_) {
      if (j.state != State::kPending || j.request->arrival > now_) continue;
      bool ready = true;
      for (const std::string& dep : j.request->depends_on) {
        const auto it = index_.find(dep);
        if (it != index_.end() && jobs_[it->second].state != State::kDone) ready = false;
      }
      if (!ready) continue;
      j.state = State::kWaiting;
      j.ready_at = now_;
    }
  }

  void Place() {
    ScheduleInput in;
    in.now = now_;
    in.capacity = &cap_;
    in.options = opts_;
    in.pools.resize(cap_.pools.size());
    for (size_t p = 0; p < cap_.pools.size(); ++p) in.pools[p].available = up_[p];
    std::vector<size_t> waiting;
    for (size_t i = 0; i < jobs_.size(); ++i) {
      SimJob& j = jobs_[i];
      if (j.state == State::kRunning) {
        const double left = j.changeover_left_hours + (1 - j.progress) * Runtime(j, j.pool);
        const Seconds end = now_ + EndIn(left);
        PoolState& ps = in.pools[static_cast<size_t>(j.pool)];
        ps.busy_until.insert(ps.busy_until.end(), static_cast<size_t>(j.request->units), end);
        ps.jobs_until.push_back(end);
      } else if (j.state == State::kWaiting) {
        waiting.push_back(i);
        in.jobs.push_back({j.request, 1 - j.committed, j.spot_allowed, j.paid_allowed});
      }
    }
    if (waiting.empty()) return;
    in.usage_gpu_hours = usage_;
    for (const Placement& pl : Schedule(in)) {
      SimJob& j = jobs_[waiting[pl.job]];
      if (pl.verdict == Verdict::kLate) j.flagged_late = true;
      if (log_ != nullptr) log_->push_back({now_, j.request->name, pl});
      // The live loop's rule (Placement::action). No pool here holds a start for later, as
      // Slurm's --begin does: such a job is placed again each step until its start is now.
      if (pl.action == Action::kStartNow) Start(j, pl.pool);
    }
  }

  void Start(SimJob& j, int pool) {
    j.state = State::kRunning;
    j.pool = pool;
    const Pool& p = cap_.pools[static_cast<size_t>(pool)];
    j.changeover_left_hours = ToHours(p.changeover);
    if (j.progress > 0) j.changeover_left_hours += j.request->restart_hours;
    if (j.first_start < 0) j.first_start = now_;
    j.stint_start = now_;
  }

  void Advance() {
    const double h = static_cast<double>(step_) / 3600.0;
    std::vector<int> used(cap_.pools.size(), 0);
    for (SimJob& j : jobs_) {
      if (j.state != State::kRunning) continue;
      const Pool& p = cap_.pools[static_cast<size_t>(j.pool)];
      used[static_cast<size_t>(j.pool)] += j.request->units;
      const double gpu_hours = h * j.request->units;
      if (p.tier == CapacityTier::kOwned) result_.owned_gpu_hours += gpu_hours;
      if (p.tier == CapacityTier::kSpot) result_.spot_gpu_hours += gpu_hours;
      if (p.tier == CapacityTier::kOnDemand) result_.on_demand_gpu_hours += gpu_hours;
      usage_[j.request->Team()] += gpu_hours;
      double work_h = h;
      const double change = std::min(work_h, j.changeover_left_hours);
      j.changeover_left_hours -= change;
      work_h -= change;
      const double runtime = Runtime(j, j.pool);
      const double before = j.progress;
      j.progress = std::min(1.0, j.progress + work_h / runtime);
      // Billed for the part of the step it ran.
      const double ran_h = change + (j.progress - before) * runtime;
      if (p.tier != CapacityTier::kOwned)
        result_.cost_usd += p.PriceAt(now_) * ran_h * j.request->units;
      if (j.request->checkpoints &&
          (j.progress - j.committed) * runtime >= j.request->checkpoint_every_hours) {
        j.committed = j.progress;
      }
      if (j.progress >= 1.0) {
        j.state = State::kDone;
        j.finished = now_ + static_cast<Seconds>(std::ceil(ran_h * 3600));
        ++done_;
      }
    }
    if (now_ >= w_.horizon_end) return;
    const double in_horizon =
        std::min<double>(h, static_cast<double>(w_.horizon_end - now_) / 3600.0);
    for (size_t p = 0; p < cap_.pools.size(); ++p) {
      if (cap_.pools[p].tier != CapacityTier::kOwned || cap_.pools[p].gpu.empty()) continue;
      result_.idle_owned_gpu_hours += (cap_.pools[p].units() - used[p]) * in_horizon;
    }
  }

  void Finish() {
    double wait = 0;
    int started = 0;
    for (const SimJob& j : jobs_) {
      if (j.state == State::kDone) ++result_.jobs_completed;
      const bool late = j.state != State::kDone || j.finished > j.request->deadline;
      if (late && (j.request->deadline != kNever || j.state != State::kDone)) {
        ++result_.deadline_misses;
        result_.missed.push_back(j.request->name);
      }
      if (j.flagged_late) ++result_.flagged_late;
      if (j.first_start >= 0) {
        wait += static_cast<double>(j.first_start - j.ready_at) / 3600.0;
        ++started;
      }
      if (j.finished >= 0) {
        result_.makespan_hours =
            std::max(result_.makespan_hours, static_cast<double>(j.finished - w_.start) / 3600.0);
      }
    }
    result_.mean_wait_hours = started > 0 ? wait / started : 0;
    result_.cost_usd = std::round(result_.cost_usd * 100) / 100;
  }

  const Workload& w_;
  const Capacity& cap_;
  std::vector<Availability> avail_;
  SchedulerOptions opts_;
  Seconds step_;
  std::vector<SimulatedPlacement>* log_;  ///< borrowed; may be null
  Seconds now_ = 0;
  std::vector<SimJob> jobs_;
  std::map<std::string, size_t> index_;
  std::vector<bool> up_;
  std::map<std::string, double> usage_;
  size_t done_ = 0;
  PolicyResult result_;
};

Result<void> CheckFits(const Workload& w, const Capacity& cap) {
  for (const JobRequest& j : w.jobs) {
    bool fits = false;
    for (const Pool& p : cap.pools) {
      if (p.tier != CapacityTier::kSpot && j.RuntimeOn(p)) fits = true;
    }
    if (!fits) {
      return Fail(ErrorCode::kBadInput,
                  fmt::format("{}: job '{}' fits no owned or on-demand pool of {} ({} {} {})",
                              w.source, j.name, cap.source, j.units,
                              j.cpu_only ? "CPU slots" : "GPUs", j.gpu.empty() ? "" : j.gpu));
    }
  }
  return {};
}

}  // namespace

const std::vector<std::string>& SimulationPolicyNames() {
  static const std::vector<std::string> names = {"frugal", "fifo_on_demand", "edf_on_demand",
                                                 "greedy_spot"};
  return names;
}

Result<SchedulerOptions> PolicyOptions(const std::string& name) {
  SchedulerOptions o;
  if (name == "frugal") return o;
  o.choice = Choice::kFirstFit;
  if (name == "fifo_on_demand" || name == "edf_on_demand") {
    o.order = name == "fifo_on_demand" ? Order::kFifo : Order::kEdf;
    o.spot = SpotUse::kOff;
    return o;
  }
  if (name == "greedy_spot") {
    o.order = Order::kFifo;
    o.spot = SpotUse::kGreedy;
    return o;
  }
  return Fail(ErrorCode::kBadInput, fmt::format("unknown policy '{}'{}", name,
                                                DidYouMean(name, SimulationPolicyNames())));
}

Result<std::vector<PolicyResult>> SimulateWorkload(const Workload& workload,
                                                   const Capacity& capacity,
                                                   const SimulationConfig& config) {
  FRUGAL_TRY(CheckFits(workload, capacity));
  Capacity cap = capacity;
  cap.budgets.clear();
  // Traces: --trace files in spot-pool order, else each pool's own file.
  std::vector<spot::Trace> own;
  for (const Pool& p : cap.pools) {
    if (p.tier == CapacityTier::kSpot && config.traces.empty() && !p.trace.empty()) {
      // A relative path is read beside the capacity file first, then from the working folder.
      std::filesystem::path path = p.trace;
      const std::filesystem::path beside = std::filesystem::path(cap.source).parent_path() / path;
      if (path.is_relative() && std::filesystem::exists(beside)) path = beside;
      Result<spot::Trace> trace = spot::LoadTrace(path);
      if (!trace)
        return Fail(p.trace_where.empty() ? trace.error() : trace.error().Wrap(p.trace_where));
      own.push_back(std::move(*trace));
    }
  }
  const std::vector<spot::Trace>& traces = config.traces.empty() ? own : config.traces;
  std::mt19937_64 rng(config.seed);
  std::vector<Availability> avail(cap.pools.size());
  size_t next = 0;
  for (size_t p = 0; p < cap.pools.size(); ++p) {
    if (cap.pools[p].tier != CapacityTier::kSpot || traces.empty()) continue;
    if (config.traces.empty() && cap.pools[p].trace.empty()) continue;
    const spot::Trace& t = traces[next++ % traces.size()];
    if (t.launchable.empty() || t.gap_seconds <= 0) continue;
    avail[p].trace = &t;
    avail[p].offset = static_cast<int>(rng() % static_cast<uint64_t>(t.ticks()));
  }
  std::vector<PolicyResult> results;
  const std::vector<std::string>& names =
      config.policies.empty() ? SimulationPolicyNames() : config.policies;
  for (const std::string& name : names) {
    const SchedulerOptions opts = FRUGAL_TRY(PolicyOptions(name));
    Simulator sim(workload, cap, avail, opts, name, config.step_seconds, config.placements);
    results.push_back(sim.Run());
  }
  return results;
}

}  // namespace frugal::queue
