#include "frugal/spot/optimum.h"

#include <algorithm>
#include <limits>
#include <vector>

namespace frugal::spot {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The cost to finish from a state, and the spot steps billed on the way (for reporting the
// optimum's spot share). Among plans of equal cost the one with more spot is kept.
struct Value {
  double cost = kInf;
  int spot_steps = 0;
  bool operator<(const Value& o) const {
    return cost < o.cost || (cost == o.cost && spot_steps > o.spot_steps);
  }
};
constexpr Value kNever{kInf, 0};
constexpr Value kDone{0, 0};

// One billed step in mode m (0 spot, 1 on-demand) followed by `then`.
Value Step(int m, double step_cost, Value then) {
  return {step_cost + then.cost, then.spot_steps + (m == 0 ? 1 : 0)};
}

// Indices of the states of one progress value.
struct Layout {
  int changeover = 0;  ///< changeover states per mode: r = 1 .. changeover
  int save = 0;        ///< checkpoint-writing states per mode: s = 1 .. save
  bool has_work = false;
  int per_mode = 0;
  int total = 0;

  explicit Layout(const StepJob& job)
      : changeover(std::max(job.changeover - 1, 0)),
        save(std::max(job.checkpoint_cost - 1, 0)),
        has_work(job.checkpoint_cost > 0),
        per_mode(changeover + 1 + (has_work ? 1 : 0) + save),
        total(1 + 2 * per_mode) {}
  // m: 0 spot, 1 on-demand.
  [[nodiscard]] int Base(int m) const { return 1 + m * per_mode; }
  [[nodiscard]] int Changeover(int m, int r) const { return Base(m) + r - 1; }
  [[nodiscard]] int Fresh(int m) const { return Base(m) + changeover; }
  [[nodiscard]] int Work(int m) const { return Fresh(m) + 1; }
  [[nodiscard]] int Save(int m, int s) const { return Fresh(m) + 1 + s; }
  // The state after a work step: unsaved work when checkpoints cost time.
  [[nodiscard]] int AfterWork(int m) const { return has_work ? Work(m) : Fresh(m); }
};

// One time step of the backward induction: the value of every state of a progress value,
// read from the values one step later (`next`, which holds progress `next_lo` and up).
class StepLayer {
 public:
  StepLayer(const Layout& layout, const StepJob& job, const std::vector<Value>& next, int next_lo,
            bool spot_available, double spot_cost, double on_demand_cost)
      : layout_(layout),
        job_(job),
        next_(next),
        next_lo_(next_lo),
        spot_available_(spot_available),
        cost_{spot_cost, on_demand_cost} {}

  // Fills v[0 .. layout.total) for progress p.
  void Fill(int p, Value* v) const {
    const Value stay_idle = Next(p, 0);
    const Value enter_spot = Enter(p, 0);
    const Value enter_od = Enter(p, 1);
    v[0] = std::min(stay_idle, std::min(enter_spot, enter_od));
    for (int m = 0; m < 2; ++m) {
      const Value leave = std::min(stay_idle, m == 0 ? enter_od : enter_spot);
      if (m == 0 && !spot_available_) {
        FillPreemptedSpot(v);
      } else {
        FillMode(p, m, leave, v);
      }
    }
  }

 private:
  // The value one step later of state s at progress p.
  [[nodiscard]] Value Next(int p, int s) const {
    if (p >= job_.compute) return kDone;
    if (p < next_lo_) return kNever;
    return next_[static_cast<size_t>(p) * static_cast<size_t>(layout_.total) +
                 static_cast<size_t>(s)];
  }
  [[nodiscard]] Value WorkStep(int p, int m) const {
    return Step(m, cost_[m], Next(p + 1, layout_.AfterWork(m)));
  }
  [[nodiscard]] Value SaveStep(int p, int m, int s_left) const {
    return Step(m, cost_[m], Next(p, s_left > 0 ? layout_.Save(m, s_left) : layout_.Fresh(m)));
  }
  [[nodiscard]] Value Enter(int p, int m) const {
    const int d = job_.changeover;
    if (m == 0 && !spot_available_) return kNever;
    if (d == 0) return WorkStep(p, m);
    return Step(m, cost_[m], Next(p, d - 1 > 0 ? layout_.Changeover(m, d - 1) : layout_.Fresh(m)));
  }

  // Preempted: ready or changing-over spot falls back to idle; unsaved work is lost, which the
  // optimum never allows.
  void FillPreemptedSpot(Value* v) const {
    for (int r = 1; r <= layout_.changeover; ++r) v[layout_.Changeover(0, r)] = v[0];
    v[layout_.Fresh(0)] = v[0];
    if (layout_.has_work) {
      v[layout_.Work(0)] = kNever;
      for (int s = 1; s <= layout_.save; ++s) v[layout_.Save(0, s)] = kNever;
    }
  }

  // The states of mode m, which may go on or `leave` (to idle or the other mode).
  void FillMode(int p, int m, Value leave, Value* v) const {
    const Layout& l = layout_;
    for (int r = 1; r <= l.changeover; ++r) {
      const Value go_on =
          Step(m, cost_[m], Next(p, r - 1 > 0 ? l.Changeover(m, r - 1) : l.Fresh(m)));
      v[l.Changeover(m, r)] = std::min(go_on, leave);
    }
    v[l.Fresh(m)] = std::min(WorkStep(p, m), leave);
    if (l.has_work) {
      v[l.Work(m)] = std::min(WorkStep(p, m), SaveStep(p, m, job_.checkpoint_cost - 1));
      for (int s = 1; s <= l.save; ++s) v[l.Save(m, s)] = SaveStep(p, m, s - 1);
    }
  }

  const Layout& layout_;
  const StepJob& job_;
  const std::vector<Value>& next_;
  int next_lo_;
  bool spot_available_;
  double cost_[2];  // m: 0 spot, 1 on-demand
};

}  // namespace

OptimumResult SolveOptimum(const StepTrace& trace, int start, const StepJob& job) {
  const int compute = job.compute;
  const int deadline = job.deadline;
  OptimumResult result;
  // Not even on-demand from the first step can make it.
  if (compute + job.changeover > deadline) return result;
  const Layout layout(job);
  const auto states = static_cast<size_t>(layout.total);
  const int n = trace.steps();
  std::vector<Value> next(static_cast<size_t>(compute + 1) * states, kNever);
  std::vector<Value> cur(next.size(), kNever);
  int next_lo = compute;  // the layer at the deadline: nothing below compute is finished
  for (int t = deadline - 1; t >= 0; --t) {
    const int g = start + t;
    const bool a = g < n && trace.available[static_cast<size_t>(g)] != 0;
    const auto pi = static_cast<size_t>(std::clamp(g, 0, n - 1));
    const StepLayer layer(layout, job, next, next_lo, a, trace.spot_cost[pi],
                          trace.on_demand_cost[pi]);
    const int lo = std::max(0, compute - (deadline - t));
    const int hi = std::min(t, compute - 1);
    for (int p = lo; p <= hi; ++p) layer.Fill(p, &cur[static_cast<size_t>(p) * states]);
    std::swap(cur, next);
    next_lo = lo;
  }
  const Value best = next_lo == 0 ? next[0] : kNever;
  if (best.cost < kInf) {
    result.feasible = true;
    result.cost_usd = best.cost;
    result.spot_steps = best.spot_steps;
  }
  return result;
}

}  // namespace frugal::spot
