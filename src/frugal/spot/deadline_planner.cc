#include "frugal/spot/deadline_planner.h"

#include <algorithm>

namespace frugal::spot {
namespace {

// A value no plan reaches: the deadline cannot be met from the state. Finite, so that a
// probability of 0 times it is 0.
constexpr float kInfeasible = 1e30f;
constexpr float kInfeasibleAbove = 1e29f;

// Groups of states per (spare, work): each holds one value per age.
//   0 idle in an outage, 1 idle with spot available,
//   spot with c changeover steps left (c = 0 .. last), then on-demand (c, a) pairs.
// Changeover states with c = changeover are never decision points (entering pays a step at
// once), so c runs to changeover − 1.
struct Groups {
  int last = 0;  ///< the largest changeover count kept
  int count = 0;
  explicit Groups(int changeover)
      : last(std::max(changeover - 1, 0)), count(5 + 3 * std::max(changeover - 1, 0)) {}
  [[nodiscard]] int Idle(int a) const { return a; }
  [[nodiscard]] int Spot(int c) const { return 2 + c; }
  [[nodiscard]] int OnDemand(int c, int a) const { return 3 + last + 2 * c + a; }
};

// Decision codes: 2 bits per decision state, the Mode's value.
constexpr int kIdleDownShift = 0;
constexpr int kIdleUpShift = 2;
constexpr int kOnDemandDownShift = 4;
constexpr int kOnDemandUpShift = 6;
constexpr int kSpotShift = 8;

// out[k] = cost + stay[k] · same[min(k + 1, ages − 1)] + (1 − stay[k]) · flip_first: one step
// in which the run of age k + 1 goes on (one step older) or ends (the other state, age 1).
void Expect(float* out, const float* stay, const float* same, float flip_first, float cost,
            int ages) {
  for (int k = 0; k + 1 < ages; ++k) {
    out[k] = cost + stay[k] * same[k + 1] + (1.0f - stay[k]) * flip_first;
  }
  const int k = ages - 1;
  out[k] = cost + stay[k] * same[k] + (1.0f - stay[k]) * flip_first;
}

void Fill(float* out, int ages) { std::fill(out, out + ages, kInfeasible); }

// Keeps the cheaper option; ties keep the earlier one (the mode the job is in).
void Consider(float value, unsigned code, float& best, unsigned& pick) {
  if (value < best) {
    best = value;
    pick = code;
  }
}

// The expected cost of each option of one (spare, work) cell, per age.
struct Options {
  const float* idle[2];  ///< a step idle, in an outage / with spot available
  const float* spot_enter;
  const float* spot_work;
  const float* od_enter[2];
  const float* od_work[2];
};

// The values of the decision states of the cell, written per age.
struct Values {
  float* idle_down;
  float* idle_up;
  float* od_down;
  float* od_up;
  float* spot;
};

// The cheapest option of every decision state, per age, and its code.
void Choose(const Options& q, const Values& v, uint16_t* decisions, int ages) {
  for (int k = 0; k < ages; ++k) {
    unsigned code = 0;
    // Idle in an outage: wait, or on-demand (also when both are out of reach).
    const bool wait = q.idle[0][k] < q.od_enter[0][k] && q.idle[0][k] < kInfeasibleAbove;
    v.idle_down[k] = wait ? q.idle[0][k] : q.od_enter[0][k];
    code |= (wait ? 0u : 2u) << kIdleDownShift;
    // Idle with spot available: wait, enter spot or enter on-demand.
    float best = q.od_enter[1][k];
    unsigned pick = 2;
    if (q.spot_enter[k] <= best && q.spot_enter[k] < kInfeasibleAbove) {
      best = q.spot_enter[k];
      pick = 1;
    }
    Consider(q.idle[1][k], 0, best, pick);
    v.idle_up[k] = best;
    code |= pick << kIdleUpShift;
    // On on-demand in an outage: carry on, or go idle.
    const bool leave = q.idle[0][k] < q.od_work[0][k];
    v.od_down[k] = leave ? q.idle[0][k] : q.od_work[0][k];
    code |= (leave ? 0u : 2u) << kOnDemandDownShift;
    // On on-demand with spot available: carry on, move to spot, or go idle.
    best = q.od_work[1][k];
    pick = 2;
    Consider(q.spot_enter[k], 1, best, pick);
    Consider(q.idle[1][k], 0, best, pick);
    v.od_up[k] = best;
    code |= pick << kOnDemandUpShift;
    // On spot: carry on, move to on-demand, or go idle.
    best = q.spot_work[k];
    pick = 1;
    Consider(q.od_enter[1][k], 2, best, pick);
    Consider(q.idle[1][k], 0, best, pick);
    v.spot[k] = best;
    code |= pick << kSpotShift;
    decisions[k] = static_cast<uint16_t>(code);
  }
}

/// One step back from a (spare, work) cell: into the cell's value rows after a work step
/// (`after_work`) or after a step of spare time (`after_spare`, null without spare left).
struct CellStep {
  const Groups& g;
  int ages;
  float ratio;           ///< on-demand's price per step, spot's being 1
  const float* stay[2];  ///< the chance a run goes on, in an outage / with spot available
  const float* after_work;
  const float* after_spare;

  template <typename T>
  T* At(T* row, int group) const {
    return row + static_cast<size_t>(group) * static_cast<size_t>(ages);
  }
  // A step idle, in an outage (a = 0) or with spot available (a = 1).
  void Idle(float* out, int a) const {
    if (after_spare == nullptr) return Fill(out, ages);
    Expect(out, stay[a], At(after_spare, g.Idle(a)), At(after_spare, g.Idle(1 - a))[0], 0.0f, ages);
  }
  // One step on spot with c changeover steps left (spot available now).
  void Spot(float* out, int c) const {
    const float* row = c > 0 ? after_spare : after_work;
    if (row == nullptr) return Fill(out, ages);
    const int next = c > 0 ? c - 1 : 0;
    Expect(out, stay[1], At(row, g.Spot(next)), At(row, g.Idle(0))[0], 1.0f, ages);
  }
  void OnDemand(float* out, int c, int a) const {
    const float* row = c > 0 ? after_spare : after_work;
    if (row == nullptr) return Fill(out, ages);
    const int next = c > 0 ? c - 1 : 0;
    Expect(out, stay[a], At(row, g.OnDemand(next, a)), At(row, g.OnDemand(next, 1 - a))[0], ratio,
           ages);
  }
};

/// The values of one cell and its decisions: every option costed into `scratch` (8 rows of
/// `ages`), the changeover states carried on, the cheapest option of each decision state kept.
void SolveCell(const CellStep& step, int changeover, float* scratch, float* cell,
               uint16_t* decisions) {
  const Groups& g = step.g;
  const auto ages = static_cast<size_t>(step.ages);
  float* idle[2] = {scratch, scratch + ages};
  float* spot_enter = scratch + 2 * ages;
  float* spot_work = scratch + 3 * ages;
  float* od_enter[2] = {scratch + 4 * ages, scratch + 5 * ages};
  float* od_work[2] = {scratch + 6 * ages, scratch + 7 * ages};
  for (int a = 0; a < 2; ++a) {
    step.Idle(idle[a], a);
    step.OnDemand(od_enter[a], changeover, a);
    step.OnDemand(od_work[a], 0, a);
  }
  step.Spot(spot_enter, changeover);
  step.Spot(spot_work, 0);
  // Changeover states in progress just carry on.
  for (int c = 1; c <= g.last && changeover > 0; ++c) {
    step.Spot(step.At(cell, g.Spot(c)), c);
    step.OnDemand(step.At(cell, g.OnDemand(c, 0)), c, 0);
    step.OnDemand(step.At(cell, g.OnDemand(c, 1)), c, 1);
  }
  Choose(Options{{idle[0], idle[1]},
                 spot_enter,
                 spot_work,
                 {od_enter[0], od_enter[1]},
                 {od_work[0], od_work[1]}},
         Values{step.At(cell, g.Idle(0)), step.At(cell, g.Idle(1)), step.At(cell, g.OnDemand(0, 0)),
                step.At(cell, g.OnDemand(0, 1)), step.At(cell, g.Spot(0))},
         decisions, step.ages);
}

}  // namespace

int64_t DeadlinePlanner::Work(const PlannerInput& input) {
  const int unit = std::max(input.unit, 1);
  const int64_t spare_units = input.spare / unit + 1;
  const int64_t work_units = (input.compute + unit - 1) / unit + 1;
  const int changeover_units = (input.changeover + unit - 1) / unit;
  return spare_units * work_units * Groups(changeover_units).count * std::max(input.ages, 1);
}

void DeadlinePlanner::Solve(const PlannerInput& input) {
  unit_ = std::max(input.unit, 1);
  ages_ = std::max(input.ages, 1);
  spare_units_ = std::max(input.spare, 0) / unit_;
  work_units_ = (input.compute + unit_ - 1) / unit_;
  const int d = (input.changeover + unit_ - 1) / unit_;
  const Groups g(d);
  const int age_count = ages_;
  const auto block = static_cast<size_t>(g.count) * static_cast<size_t>(age_count);
  const auto ages = static_cast<size_t>(age_count);
  const auto row_size = static_cast<size_t>(work_units_ + 1) * block;
  std::vector<float> prev(row_size, kInfeasible);
  std::vector<float> cur(row_size, kInfeasible);
  table_.assign(static_cast<size_t>(spare_units_ + 1) * static_cast<size_t>(work_units_ + 1) *
                    static_cast<size_t>(age_count),
                0);
  const float ratio = static_cast<float>(input.price_ratio);
  const float* stay[2] = {input.stay_down.data(), input.stay_up.data()};
  std::vector<float> scratch(ages * 8);

  for (int s = 0; s <= spare_units_; ++s) {
    std::fill(cur.begin(), cur.begin() + static_cast<std::ptrdiff_t>(block), 0.0f);  // done
    for (int w = 1; w <= work_units_; ++w) {
      float* values = cur.data() + static_cast<size_t>(w) * block;
      const float* after_work =
          cur.data() + static_cast<size_t>(w - 1) * block;  // after a work step
      const float* after_spare = s > 0 ? prev.data() + static_cast<size_t>(w) * block : nullptr;
      uint16_t* decisions =
          table_.data() +
          (static_cast<size_t>(s) * static_cast<size_t>(work_units_ + 1) + static_cast<size_t>(w)) *
              static_cast<size_t>(age_count);
      SolveCell(CellStep{g, age_count, ratio, {stay[0], stay[1]}, after_work, after_spare}, d,
                scratch.data(), values, decisions);
    }
    std::swap(prev, cur);
  }
  // `prev` now holds the last row: the start (all spare, all work).
  const float* start = prev.data() + static_cast<size_t>(work_units_) * block;
  for (int a = 0; a < 2; ++a) {
    start_idle_[a].assign(start + static_cast<size_t>(g.Idle(a)) * ages,
                          start + static_cast<size_t>(g.Idle(a) + 1) * ages);
  }
}

Mode DeadlinePlanner::Decide(int spare, int work_left, Mode mode, bool available, int age) const {
  if (!solved() || spare < 0) return Mode::kOnDemand;
  const int w = std::clamp((work_left + unit_ - 1) / unit_, 0, work_units_);
  if (w == 0) return mode;
  const int s = std::min(spare / unit_, spare_units_);
  const int k = std::clamp((age + unit_ / 2) / unit_, 1, ages_) - 1;
  const unsigned code = table_[(static_cast<size_t>(s) * static_cast<size_t>(work_units_ + 1) +
                                static_cast<size_t>(w)) *
                                   static_cast<size_t>(ages_) +
                               static_cast<size_t>(k)];
  int shift = kSpotShift;
  if (mode == Mode::kIdle) shift = available ? kIdleUpShift : kIdleDownShift;
  if (mode == Mode::kOnDemand) shift = available ? kOnDemandUpShift : kOnDemandDownShift;
  if (mode == Mode::kSpot && !available) shift = kIdleDownShift;  // preempted: idle now
  return static_cast<Mode>((code >> shift) & 3u);
}

double DeadlinePlanner::ExpectedCostFromIdle(bool available, int age) const {
  const std::vector<float>& v = start_idle_[available ? 1 : 0];
  if (v.empty()) return kInfeasible;
  const int k = std::clamp((age + unit_ / 2) / unit_, 1, ages_) - 1;
  return v[static_cast<size_t>(k)];
}

}  // namespace frugal::spot
