// The study's endgame: money is kept to take the leader to full fidelity, exploring stops when
// it would eat that money, free workers then promote paused trials best first (also once the
// search space is exhausted or the trial cap is reached), and at the cap the trials furthest
// behind stop first so that the leaders finish. See docs/study-spec.md, "The budget gate".

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

#include "frugal/tune/study.h"
#include "frugal/tune/trial.h"

namespace frugal::tune {

bool Study::Ahead(const Trial& a, const Trial& b) const {
  const auto key = [&](const Trial& t) {
    const int rung = t.RungReached();
    const double loss = rung >= 0 ? t.rung_losses[static_cast<size_t>(rung)]
                                  : std::numeric_limits<double>::infinity();
    const double full = RungFidelity(t, ladder_.top());
    const double progress = full > 0 ? t.last_fidelity / full : 0.0;
    return std::make_tuple(-rung, std::isnan(loss) ? std::numeric_limits<double>::infinity() : loss,
                           -progress, t.id);
  };
  return key(a) < key(b);
}

double Study::SegmentSeconds(const Trial& trial, double to) const {
  const double from = std::max(trial.last_fidelity, trial.checkpoint_fidelity);
  return pace_.Seconds(trial.id, RateOf(trial), trial.state == TrialState::kCompleted, from, to);
}

double Study::FinishSeconds(const Trial& trial) const {
  return SegmentSeconds(trial, RungFidelity(trial, ladder_.top()));
}

const Trial* Study::Leader() const {
  // The first in rank whose finish the rest of the budget can pay: one it cannot would hold
  // back money that could finish another.
  // Running segments' reservations count against it: a trial that becomes first in rank
  // while the money is already promised elsewhere does not displace the one it was kept for.
  const double running = ReservedSeconds().value_or(0.0);
  const Trial* affordable = nullptr;
  const Trial* cheapest = nullptr;  // when none fits: the one nearest to fitting
  double cheapest_seconds = 0.0;
  for (const Trial& t : trials_) {
    if (t.state != TrialState::kRunning && t.state != TrialState::kPaused) continue;
    const double own =
        t.state == TrialState::kRunning ? SegmentSeconds(t, RungFidelity(t, t.target_rung)) : 0.0;
    const double finish = FinishSeconds(t) - own;
    if (cheapest == nullptr || finish < cheapest_seconds) {
      cheapest = &t;
      cheapest_seconds = finish;
    }
    if (affordable != nullptr && !Ahead(t, *affordable)) continue;
    if (gate_.Fits(finish + own, std::max(0.0, running - own))) affordable = &t;
  }
  // Some trial is always kept insured: when running segments have promised the money, the one
  // cheapest to finish holds the rest until they settle.
  return affordable != nullptr ? affordable : cheapest;
}

double Study::FinishReserve(int64_t except) const {
  // sha and hyperband decide who goes on at each bracket's barrier; a reserve beside them
  // would stop the members a bracket is waiting for.
  if (spec_.scheduler == SchedulerKind::kSha || spec_.scheduler == SchedulerKind::kHyperband)
    return 0.0;
  const Trial* leader = Leader();
  if (leader == nullptr || leader->id == except) return 0.0;
  double need = FinishSeconds(*leader);
  // Until a trial has completed, the study has nothing to show but partial results: the
  // leader's finish is insured against its pace growing to the bound taken for noise, so that
  // explorers cannot eat the one answer a small budget can buy.
  if (improvements_.empty()) need *= kMaxPaceGrowth;
  if (leader->state == TrialState::kRunning) {
    // Its segment's reservation (ReservedSeconds) already holds part of it.
    need -= SegmentSeconds(*leader, RungFidelity(*leader, leader->target_rung));
  }
  return std::max(0.0, need);
}

bool Study::Drains() const {
  // Only asha pauses trials outside brackets; sha and hyperband close their own brackets.
  return spec_.scheduler == SchedulerKind::kAsha && !stopping_ && !MayStart();
}

bool Study::InRungCut(const Trial& trial, int rung) const {
  const auto k = static_cast<size_t>(rung);
  const double loss = trial.rung_losses[k];
  if (std::isnan(loss)) return false;
  size_t results = 0;
  size_t better = 0;
  for (const Trial& t : trials_) {
    if (t.rung_losses.size() <= k || std::isnan(t.rung_losses[k])) continue;
    ++results;
    if (t.rung_losses[k] < loss) ++better;
  }
  const double keep =
      std::max(1.0, std::ceil(static_cast<double>(results) / ladder_.reduction_factor));
  return static_cast<double>(better) < keep;
}

Result<bool> Study::Drain() {
  std::vector<Trial*> candidates;
  // When starts closed with money to spare (max_trials, an exhausted space), only those that
  // could still matter: a trial far behind at its rung (a diverged one) keeps its pause, and
  // the money its promotion would cost is kept. When the budget closed them, the drain spends
  // what is left best first, as the budget evaluations measured (bench/RESULTS.md).
  const bool budget_bound = endgame_ || stop_reason_ == "budget";
  for (Trial& t : trials_) {
    const int rung = t.RungReached();
    if (t.state == TrialState::kPaused && rung >= 0 && rung < ladder_.top() &&
        t.target_rung <= rung && (budget_bound || InRungCut(t, rung))) {
      candidates.push_back(&t);
    }
  }
  // Those the rest of the budget can take to full fidelity first, best first; then the rest,
  // whose next rung can still improve the best partial result.
  const double running = ReservedSeconds().value_or(0.0);
  std::stable_sort(candidates.begin(), candidates.end(), [&](const Trial* a, const Trial* b) {
    const bool fa = gate_.Fits(FinishSeconds(*a), running);
    const bool fb = gate_.Fits(FinishSeconds(*b), running);
    return fa != fb ? fa : Ahead(*a, *b);
  });
  for (Trial* t : candidates) {
    const int before = t->target_rung;
    t->target_rung = t->RungReached() + 1;
    switch (RoomToReach(*t, t->target_rung)) {
      case Room::kNow:
        return TryResume(*t);
      case Room::kLater:
        t->target_rung = before;
        return false;  // money frees up as running segments settle
      case Room::kNever:
        t->target_rung = before;  // a cheaper one further down may still fit
        break;
    }
  }
  return false;
}

double Study::NextIntervals(double fallback) const {
  double total = fallback * static_cast<double>(released_.size());
  for (int64_t id : running_) total += pace_.Interval(id).value_or(fallback);
  return total;
}

void Study::StopAtTheCap(double fallback) {
  std::vector<int64_t> order = running_;
  std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return Ahead(trials_[static_cast<size_t>(a)], trials_[static_cast<size_t>(b)]);
  });
  // The leaders keep running while the rest of the budget pays their next intervals; the
  // first that does not fit, and every trial behind it, checkpoints and stops.
  double kept = fallback * static_cast<double>(released_.size());
  std::vector<int64_t> stop;
  for (int64_t id : order) {
    const double next = pace_.Interval(id).value_or(fallback);
    if (stop.empty() && gate_.CoversNextInterval(kept + next)) {
      kept += next;
    } else {
      stop.push_back(id);
    }
  }
  for (int64_t id : stop) runner_.RequestStop(id);
  for (int64_t id : stop) StopAtCap(trials_[static_cast<size_t>(id)], TrialState::kStoppedAtBudget);
  endgame_ = true;
  CloseStarts("budget");
}

void Study::StopWhatCannotFinish() {
  if (spec_.scheduler == SchedulerKind::kSha || spec_.scheduler == SchedulerKind::kHyperband)
    return;
  const int top = ladder_.top();
  // Each at the pace it has shown, the cheaper of its average (start-up included) and its last
  // interval's: a trial is stopped only when even that cannot be paid.
  const auto left = [&](const Trial& t) {
    double pace = t.cost_seconds / t.last_fidelity;
    if (const auto recent = pace_.RecentPace(t.id)) pace = std::min(pace, *recent);
    const double from = std::max(t.last_fidelity, t.checkpoint_fidelity);
    return pace * std::max(0.0, RungFidelity(t, top) - from);
  };
  std::vector<std::pair<double, int64_t>> order;
  for (int64_t id : running_) {
    const Trial& t = trials_[static_cast<size_t>(id)];
    if (t.segment_rung == top && t.last_fidelity > kEps && t.cost_seconds > 0)
      order.emplace_back(left(t), id);
  }
  // Best first once there is a result to beat (and rungs to rank by). Without one, or without
  // pruning (no rung says who is better), the cheapest to finish first: the most completed
  // trials the money can buy, and the first answer soonest.
  const bool cheapest_first = improvements_.empty() || spec_.scheduler == SchedulerKind::kNone;
  std::sort(order.begin(), order.end(), [&](const auto& a, const auto& b) {
    if (cheapest_first && a.first != b.first) return a.first < b.first;
    return Ahead(trials_[static_cast<size_t>(a.second)], trials_[static_cast<size_t>(b.second)]);
  });
  double kept = 0.0;
  std::vector<int64_t> stop;
  for (const auto& [need, id] : order) {
    if (gate_.Fits(kept + need, 0.0)) {
      kept += need;
    } else {
      stop.push_back(id);
    }
  }
  for (int64_t id : stop) runner_.RequestStop(id);
  for (int64_t id : stop) StopAtCap(trials_[static_cast<size_t>(id)], TrialState::kStoppedAtBudget);
}

double Study::PredictedPace(size_t row) const {
  // Each measured trial's pace, weighted by the inverse square of its distance to the row's
  // point, averaged in logs (paces spread over orders of magnitude).
  const std::vector<double>& point = cost_points_[row];
  double weights = 0.0;
  double sum = 0.0;
  for (const Trial& t : trials_) {
    const auto pace = RateOf(t);
    const auto at = table_->Find(t.source_id);
    if (t.last_fidelity <= kEps || !pace || *pace <= 0 || !at) continue;
    const std::vector<double>& other = cost_points_[*at];
    double d2 = 0.0;
    for (size_t k = 0; k < point.size() && k < other.size(); ++k)
      d2 += (point[k] - other[k]) * (point[k] - other[k]);
    const double w = 1.0 / (d2 + kEps);
    weights += w;
    sum += w * std::log(*pace);
  }
  return weights > 0 ? std::exp(sum / weights) : 0.0;
}

void Study::KeepAffordable(std::vector<size_t>& rows, bool alone) const {
  // Until a trial has completed, a configuration the rest of the budget cannot finish is
  // worth only a partial result: when the money left would not pay a typical one's full run,
  // the draw keeps to those whose predicted full run (the paces measured nearby, over the
  // row's own schedule) fits, or failing any, to the cheapest predicted half. A trial started
  // alone with what is left (LoneProbeFits) keeps to those predicted to fit, always.
  if (rows.empty() || (!alone && (!improvements_.empty() || rows.size() < 2))) return;
  const auto reserved = ReservedSeconds();
  if (!reserved) return;
  const double held = alone ? 0.0 : *reserved + FinishReserve(-1);
  std::vector<std::pair<double, size_t>> cost;
  for (size_t row : rows) {
    const double pace = PredictedPace(row);
    if (pace <= 0) return;  // nothing measured yet
    const Config& params = table_->configs()[row].params;
    const double full = spec_.fidelity.LengthOf(params).value_or(ladder_.fidelities.back());
    cost.emplace_back(pace * full, row);
  }
  // Ties keep the draw's own (shuffled) order.
  std::stable_sort(cost.begin(), cost.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  if (!alone && gate_.Fits(cost[cost.size() / 2].first, held)) return;  // a typical one fits
  std::vector<size_t> kept;
  for (const auto& [seconds, row] : cost)
    if (gate_.Fits(seconds, held)) kept.push_back(row);
  // None predicted to fit, and nothing completed: a random draw is the better bet until draws
  // have failed (two trials were stopped because the budget could not finish them), and a trial
  // started alone has nothing else to try; then the cheapest predicted half.
  const bool failed = std::count_if(trials_.begin(), trials_.end(), [](const Trial& t) {
                        return t.state == TrialState::kStoppedAtBudget;
                      }) >= 2;
  if (kept.empty() && improvements_.empty() && (alone || failed)) {
    for (size_t k = 0; k < (cost.size() + 1) / 2; ++k) kept.push_back(cost[k].second);
  }
  if (!kept.empty() || alone) rows = std::move(kept);
}

bool Study::LoneProbeFits(double units) const {
  // Only when the money has nothing else to do: no trial runs, stops or waits to be finished.
  if (!running_.empty() || !released_.empty() || !parked_.empty() || Leader() != nullptr)
    return false;
  // The dearest pace seen bounds what a new configuration may cost, and after one dear draw it
  // would end the study with money that pays for cheaper ones. One new trial may still start
  // alone: from a table, one of the configurations left whose full run is predicted to fit
  // (KeepAffordable); without one, when its first report fits at the study's mean pace. It
  // overruns by at most that report.
  if (table_ != nullptr) {
    std::vector<size_t> rows;
    for (size_t row = 0; row < table_used_.size(); ++row)
      if (table_used_[row] == 0) rows.push_back(row);
    KeepAffordable(rows, true);
    double pace = 0.0;
    for (size_t row : rows) {
      const double predicted = PredictedPace(row);
      if (predicted > 0 && (pace <= 0 || predicted < pace)) pace = predicted;
    }
    return pace > 0 && gate_.Fits(pace * units, 0.0);
  }
  const auto pace = estimator_.SecondsPerUnit();
  return pace && gate_.Fits(*pace * units, 0.0);
}

void Study::ReopenAfterTheEndgame() {
  if (!endgame_ || stop_reason_ != "budget" || stopping_) return;
  if (!running_.empty() || !parked_.empty() || !released_.empty()) return;
  for (const Trial& t : trials_)
    if (t.state == TrialState::kPaused && t.RungReached() < ladder_.top()) return;
  // Every trial the endgame kept money for has completed, failed or stopped: the money it
  // kept is free again, and the study explores with it (a start that no longer fits ends it).
  endgame_ = false;
  stop_reason_.clear();
}

}  // namespace frugal::tune
