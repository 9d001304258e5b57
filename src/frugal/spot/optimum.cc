#include "frugal/spot/optimum.h"

#include <algorithm>
#include <limits>
#include <vector>

namespace frugal::spot {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

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

}  // namespace

OptimumResult SolveOptimum(const StepTrace& trace, int start, const StepJob& job) {
  const int C = job.compute;
  const int D = job.deadline;
  const int d = job.changeover;
  const int c = job.checkpoint_cost;
  OptimumResult result;
  if (C + d > D) return result;  // not even on-demand from the first step can make it
  const Layout L(job);
  const int S = L.total;
  const int n = trace.steps();
  std::vector<double> next(static_cast<size_t>((C + 1) * S), kInf);
  std::vector<double> cur(next.size(), kInf);
  int next_lo = C;  // layer D: nothing below C is finished
  for (int t = D - 1; t >= 0; --t) {
    const int g = start + t;
    const bool a = g < n && trace.available[static_cast<size_t>(g)] != 0;
    const auto pi = static_cast<size_t>(std::clamp(g, 0, n - 1));
    const double cost[2] = {trace.spot_cost[pi], trace.on_demand_cost[pi]};
    const int lo = std::max(0, C - (D - t));
    const int hi = std::min(t, C - 1);
    auto N = [&](int p, int s) -> double {
      if (p >= C) return 0;
      if (p < next_lo) return kInf;
      return next[static_cast<size_t>(p * S + s)];
    };
    for (int p = lo; p <= hi; ++p) {
      double* v = &cur[static_cast<size_t>(p * S)];
      auto work_step = [&](int m) { return cost[m] + N(p + 1, L.AfterWork(m)); };
      auto save_step = [&](int m, int s_left) {
        return cost[m] + N(p, s_left > 0 ? L.Save(m, s_left) : L.Fresh(m));
      };
      auto enter = [&](int m) {
        if (m == 0 && !a) return kInf;
        if (d == 0) return work_step(m);
        return cost[m] + N(p, d - 1 > 0 ? L.Changeover(m, d - 1) : L.Fresh(m));
      };
      const double stay_idle = N(p, 0);
      const double enter_spot = enter(0);
      const double enter_od = enter(1);
      v[0] = std::min({stay_idle, enter_spot, enter_od});
      for (int m = 0; m < 2; ++m) {
        const double leave = std::min(stay_idle, m == 0 ? enter_od : enter_spot);
        if (m == 0 && !a) {
          // Preempted: ready or changing-over spot falls back to idle; unsaved work is lost,
          // which the optimum never allows.
          for (int r = 1; r <= L.changeover; ++r) v[L.Changeover(0, r)] = v[0];
          v[L.Fresh(0)] = v[0];
          if (L.has_work) {
            v[L.Work(0)] = kInf;
            for (int s = 1; s <= L.save; ++s) v[L.Save(0, s)] = kInf;
          }
          continue;
        }
        for (int r = 1; r <= L.changeover; ++r) {
          const double go_on = cost[m] + N(p, r - 1 > 0 ? L.Changeover(m, r - 1) : L.Fresh(m));
          v[L.Changeover(m, r)] = std::min(go_on, leave);
        }
        v[L.Fresh(m)] = std::min(work_step(m), leave);
        if (L.has_work) {
          v[L.Work(m)] = std::min(work_step(m), save_step(m, c - 1));
          for (int s = 1; s <= L.save; ++s) v[L.Save(m, s)] = save_step(m, s - 1);
        }
      }
    }
    std::swap(cur, next);
    next_lo = lo;
  }
  const double best = next_lo == 0 ? next[0] : kInf;
  if (best < kInf) {
    result.feasible = true;
    result.cost_usd = best;
  }
  return result;
}

}  // namespace frugal::spot
