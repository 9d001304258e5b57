#include "frugal/tune/study.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "frugal/core/log.h"
#include "frugal/tune/trial.h"

namespace frugal::tune {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}  // namespace

double Study::Loss(double value) const {
  return spec_.objective.direction == Direction::kMaximize ? -value : value;
}

bool Study::MayStart() const {
  if (stopping_ || endgame_ || !stop_reason_.empty()) return false;
  return gate_.MayStartTrial(static_cast<int64_t>(trials_.size()));
}

void Study::StopOnIdenticalFailures(const Trial& failed, const std::string& failure) {
  if (failure.empty() || failed.last_value) return;
  // Only while nothing has reported: once a trial has, the command works, and a failure is
  // the configuration's.
  size_t same = 0;
  for (const Trial& t : trials_) {
    if (t.last_value) return;
    if (t.state == TrialState::kFailed) ++same;
  }
  if (first_failure_.empty()) first_failure_ = failure;
  failures_differ_ = failures_differ_ || first_failure_ != failure;
  if (failures_differ_) return;  // they failed in different ways: the configurations differ
  const size_t needed = std::min<size_t>(
      kIdenticalFailures, static_cast<size_t>(spec_.gates.max_trials.value_or(kIdenticalFailures)));
  // A "budget" close is the endgame's, which reopens starts around each probe: the failures
  // say more than it does. Any other reason already ends the study.
  if (same < needed || (!stop_reason_.empty() && stop_reason_ != "budget")) return;
  stop_reason_ = fmt::format(
      "the first {} trials all failed the same way ({}) before their first report: the trial "
      "command fails whatever the configuration; run it alone to see why, fix it, and start "
      "the study again",
      same, failure);
  log::Warning("study '{}': {}", spec_.name, stop_reason_);
}

void Study::CloseStarts(const std::string& reason) {
  if (stop_reason_.empty()) stop_reason_ = reason;
}

std::optional<double> Study::RateOf(const Trial& trial) const {
  // A trial's own pace is the best predictor of its next segment (batch size, model size).
  if (trial.last_fidelity > kEps && trial.cost_seconds > 0)
    return trial.cost_seconds / trial.last_fidelity;
  return estimator_.SecondsPerUnit();
}

std::optional<double> Study::ReservedSeconds() const {
  double reserved = 0.0;
  for (int64_t id : running_) {
    const Trial& t = trials_[static_cast<size_t>(id)];
    if (!RateOf(t)) return std::nullopt;  // a probe in flight: its cost is not known yet
    reserved += SegmentSeconds(t, RungFidelity(t, t.target_rung));
  }
  return reserved;
}

double Study::RungFidelity(const Trial& trial, int rung) const {
  return spec_.RungFidelity(ladder_, trial.config, rung);
}

std::vector<Observation> Study::History() const {
  // TPE learns what the scheduler has learned: a trial that reached a deeper rung ranks above
  // every trial that stopped short of it, and trials at the same rung rank by their result
  // there. Learning from the shallowest rung alone (where most results are) teaches TPE what
  // learns fast, which is not what ends best when early ranks mislead.
  std::vector<std::vector<double>> at(ladder_.fidelities.size());
  for (const Trial& t : trials_) {
    for (size_t k = 0; k < t.rung_losses.size() && k < at.size(); ++k)
      if (!std::isnan(t.rung_losses[k])) at[k].push_back(t.rung_losses[k]);
  }
  for (auto& losses : at) std::sort(losses.begin(), losses.end());
  std::vector<Observation> history;
  for (const Trial& t : trials_) {
    int deepest = -1;
    for (size_t k = 0; k < t.rung_losses.size() && k < at.size(); ++k)
      if (!std::isnan(t.rung_losses[k])) deepest = static_cast<int>(k);
    if (deepest < 0) continue;
    const auto& losses = at[static_cast<size_t>(deepest)];
    const double share =
        static_cast<double>(std::lower_bound(losses.begin(), losses.end(),
                                             t.rung_losses[static_cast<size_t>(deepest)]) -
                            losses.begin()) /
        static_cast<double>(losses.size());
    history.push_back(Observation{t.point, static_cast<double>(ladder_.top() - deepest) + share});
  }
  return history;
}

bool Study::PickConfig(Trial& trial, bool alone) {
  const size_t dims = std::max<size_t>(1, spec_.space.dimensions());
  const std::vector<Observation> history =
      SamplerLearns(spec_.sampler) ? History() : std::vector<Observation>{};
  if (table_ == nullptr) {
    std::vector<double> point = sampler_->Propose(dims, history);
    trial.config = spec_.space.ToConfig(point);
    trial.point = std::move(point);
    return true;
  }
  // An opaque table's rows are visited in the study's own shuffled order: the file's row order
  // (often grouped or sorted upstream) must not steer the search.
  std::vector<size_t> unused;
  for (size_t i : table_order_) {
    if (table_used_[i] == 0) unused.push_back(i);
  }
  if (unused.empty()) return false;
  KeepAffordable(unused, alone);
  if (unused.empty()) return false;
  size_t chosen = 0;
  if (spec_.space.empty()) {
    // An opaque table: the one coordinate picks among the rows not yet tried.
    std::vector<double> point = sampler_->Propose(dims, history);
    chosen = unused[std::min(unused.size() - 1,
                             static_cast<size_t>(point[0] * static_cast<double>(unused.size())))];
    trial.point = std::move(point);
  } else {
    std::vector<std::vector<double>> pool;
    pool.reserve(unused.size());
    for (size_t i : unused) pool.push_back(table_points_[i]);
    chosen = unused[sampler_->Pick(dims, history, pool)];
    trial.point = table_points_[chosen];
  }
  table_used_[chosen] = 1;
  const ReplayConfig& row = table_->configs()[chosen];
  trial.source_id = row.id;
  trial.config = row.params;
  return true;
}

Result<void> Study::Launch(Trial& trial) {
  trial.state = TrialState::kRunning;
  if (std::erase(parked_, trial.id) > 0) {
    // Promoted while its process still trains: it goes on in the same segment.
    running_.push_back(trial.id);
    return {};
  }
  trial.segment_rung = std::max(trial.target_rung, scheduler_->PauseRungFrom(trial.target_rung));
  if (trial.run_name.empty()) trial.run_name = runner_.RunName(trial.id);
  FRUGAL_TRY(
      runner_.Launch(trial, trial.checkpoint_fidelity, RungFidelity(trial, trial.segment_rung)));
  running_.push_back(trial.id);
  return {};
}

Result<bool> Study::TryStart(const Job& job) {
  // The configuration is not chosen yet: reserve for the longest schedule the rung allows.
  const double to = ladder_.fidelities[static_cast<size_t>(job.target_rung)];
  // The configuration, and so its pace, is not known yet: the dearest pace seen so far is what
  // it may cost (a mean would let a dear one overrun and eat the leader's reserve).
  auto rate = estimator_.SecondsPerUnit();
  if (rate) rate = std::max(*rate, pace_.MaxPace());
  // Without pruning a trial's one segment is its whole run, and reserving that at the dearest
  // pace seen would let one dear configuration close the study: its first report is what a
  // start must pay. Past it, the trial trains on only while the budget can pay its finish
  // beside those ahead of it (StopWhatCannotFinish), so a configuration too dear to complete
  // costs one report and another is tried.
  const double units = spec_.scheduler == SchedulerKind::kNone ? pace_.FirstReportUnits(to) : to;
  const auto reserved = ReservedSeconds();
  bool alone = false;  // started alone with what is left (LoneProbeFits)
  if (!rate || !reserved) {
    // Nothing is known about cost yet: one probe runs alone until its first report.
    if (!running_.empty()) return false;
  } else if (const double finish = FinishReserve(-1);
             !gate_.Fits(*rate * units, *reserved + finish)) {
    if (gate_.Fits(*rate * units, finish)) return false;  // fits once running segments settle
    // Without pruning nothing waits to be promoted: the leader's finish alone in the way, the
    // workers wait for it to complete (or prove too dear) and exploring may go on after.
    if (spec_.scheduler == SchedulerKind::kNone && gate_.Fits(*rate * units, 0.0)) return false;
    alone = LoneProbeFits(units);
    if (!alone) {
      // Exploring further would eat the money that finishes the leader: stop exploring, and
      // spend the rest on promotions, best first.
      endgame_ = true;
      CloseStarts("budget");
      return true;
    }
  }
  Trial trial;
  trial.id = static_cast<int64_t>(trials_.size());
  trial.bracket = job.bracket;
  trial.target_rung = job.target_rung;
  trial.rung_losses.assign(ladder_.fidelities.size(), kNaN);
  if (!PickConfig(trial, alone)) {
    CloseStarts("search space exhausted");
    return true;
  }
  trials_.push_back(std::move(trial));
  Trial& stored = trials_.back();
  scheduler_->OnStart(stored);
  FRUGAL_TRY(Launch(stored));
  return true;
}

Study::Room Study::RoomToReach(const Trial& trial, int rung) const {
  const double to = RungFidelity(trial, rung);
  const double expected = SegmentSeconds(trial, to);
  const auto reserved = ReservedSeconds();
  if (!reserved) return Room::kLater;
  // A trial other than the leader may not spend what finishing the leader needs.
  const double finish = FinishReserve(trial.id);
  if (gate_.Fits(expected, *reserved + finish)) return Room::kNow;
  return gate_.Fits(expected, finish) ? Room::kLater : Room::kNever;
}

Result<bool> Study::TryResume(Trial& trial) {
  const double to = RungFidelity(trial, trial.target_rung);
  if (trial.last_value && to <= trial.last_fidelity + kEps) {
    // A short schedule is already past this rung's share of it: nothing to train.
    FRUGAL_TRY(PassRung(trial, RungPass::kAtSegmentEnd));
    return true;
  }
  switch (RoomToReach(trial, trial.target_rung)) {
    case Room::kLater:
      return false;
    case Room::kNever:
      if (spec_.scheduler == SchedulerKind::kAsha && !stopping_ && Leader() != &trial &&
          gate_.Fits(
              pace_.PaceAhead(trial.id, RateOf(trial), trial.state == TrialState::kCompleted) *
                  (to - trial.checkpoint_fidelity),
              0.0)) {
        // Only the leader's finish is in the way: it waits, paused, for what the leader
        // leaves (the drain promotes it then), and the study stops exploring.
        trial.target_rung = std::max(0, trial.RungReached());
        endgame_ = true;
        CloseStarts("budget");
        return true;
      }
      EndTrial(trial, TrialState::kStoppedAtBudget);
      CloseStarts("budget");
      return true;
    case Room::kNow:
      break;
  }
  ++promotions_;
  FRUGAL_TRY(Launch(trial));
  return true;
}

Result<void> Study::FillWorkers() {
  Result<void> filled = AssignFreeWorkers();
  SettleParked();
  return filled;
}

void Study::SettleParked() {
  for (int64_t id : parked_) StopDecided(trials_[static_cast<size_t>(id)]);
  parked_.clear();
}

void Study::StopDecided(Trial& trial) {
  if (runner_.StopInBackground(trial.id)) {
    released_.push_back(trial.id);
  } else {
    AccrueStop(trial);
  }
}

Result<void> Study::AssignFreeWorkers() {
  const auto workers = static_cast<size_t>(spec_.resources.workers);
  ReopenAfterTheEndgame();
  // Promotions the gate deferred come first: the scheduler already chose them.
  for (Trial& t : trials_) {
    if (running_.size() >= workers || stopping_) break;
    if (t.state == TrialState::kPaused && t.target_rung > t.RungReached()) {
      if (!FRUGAL_TRY(TryResume(t))) return {};
    }
  }
  while (running_.size() < workers && !stopping_) {
    // In the endgame the drain's order (deepest first) replaces the scheduler's quota.
    const Job job =
        endgame_ && Drains() ? Job{JobKind::kWait} : scheduler_->Next(trials_, MayStart());
    ApplyPruned();
    if (job.kind == JobKind::kStart) {
      if (!FRUGAL_TRY(TryStart(job))) return {};
    } else if (job.kind == JobKind::kResume) {
      Trial& t = trials_[static_cast<size_t>(job.trial_id)];
      t.target_rung = job.target_rung;
      if (!FRUGAL_TRY(TryResume(t))) return {};
    } else if (!Drains() || !FRUGAL_TRY(Drain())) {
      return {};
    }
  }
  return {};
}

void Study::ApplyPruned() {
  for (int64_t id : scheduler_->TakePruned()) {
    Trial& t = trials_[static_cast<size_t>(id)];
    if (t.state == TrialState::kPaused) t.state = TrialState::kPruned;
  }
}

void Study::EndTrial(Trial& trial, TrialState state) {
  trial.state = state;
  std::erase(running_, trial.id);
  scheduler_->OnEnd(trial);
}

void Study::UpdateIncumbent(const Trial& trial) {
  if (!trial.last_value) return;
  const double loss = Loss(*trial.last_value);
  if (trial.state == TrialState::kCompleted)
    pace_.LearnGrowth(trial.id, trial.cost_seconds, trial.last_fidelity);
  if (improvements_.empty() || loss < Loss(improvements_.back().value)) {
    improvements_.push_back(Improvement{gate_.spend(), *trial.last_value});
  }
  const double epsilon = spec_.gates.plateau ? spec_.gates.plateau->epsilon : 0.0;
  if (!incumbent_loss_ || loss < *incumbent_loss_ - epsilon) {
    incumbent_loss_ = loss;
    incumbent_trials_started_ = static_cast<int64_t>(trials_.size());
    incumbent_gpu_seconds_ = gate_.spent_gpu_seconds();
  } else if (loss < *incumbent_loss_) {
    incumbent_loss_ = loss;  // better, but not by ε: the plateau clock keeps running
  }
}

void Study::KeepTrainedPast(Trial& trial, const Progress& p) {
  // A trial stopped in flight trains on until it stops (a fast epoch, a slow checkpoint): what
  // it reached was paid for. A later promotion resumes from there, and a trial that reached
  // its full fidelity is complete, whatever the rung decided before it got there.
  if (!p.value || p.fidelity <= trial.last_fidelity + kEps) return;
  trial.last_value = p.value;
  trial.last_fidelity = p.fidelity;
  trial.checkpoint_fidelity = std::max(trial.checkpoint_fidelity, p.fidelity);
  const int top = ladder_.top();
  // Stopping at a cap (running, or ended already when it stops in the background), too: it
  // finished before the stop reached it.
  const bool waiting = trial.state == TrialState::kPaused || trial.state == TrialState::kPruned ||
                       trial.state == TrialState::kRunning ||
                       trial.state == TrialState::kStoppedAtBudget ||
                       trial.state == TrialState::kStoppedAtWall;
  if (!waiting || p.fidelity < RungFidelity(trial, top) - kEps) return;
  trial.rung_losses[static_cast<size_t>(top)] = Loss(*p.value);
  trial.state = TrialState::kCompleted;
  UpdateIncumbent(trial);
}

void Study::StopAtCap(Trial& trial, TrialState cap_state) {
  AccrueStop(trial);
  EndTrial(trial, trial.state == TrialState::kCompleted ? TrialState::kCompleted : cap_state);
}

void Study::AccrueStop(Trial& trial) {
  // A real trial keeps paying while it checkpoints and exits: that time is its spend too, and
  // what it reported meanwhile it keeps.
  const Progress tail = runner_.Stop(trial.id);
  trial.cost_seconds += tail.wall_seconds;
  gate_.Accrue(tail.wall_seconds);
  trial.spend = SpendOf(trial, SegmentNow::kEnded);
  KeepTrainedPast(trial, tail);
}

bool Study::AccrueReleased(Trial& trial, const Progress& p) {
  const auto it = std::find(released_.begin(), released_.end(), trial.id);
  if (it == released_.end()) return false;
  // A segment stopped in the background: its checkpoint and exit are the trial's spend.
  trial.cost_seconds += p.wall_seconds;
  gate_.Accrue(p.wall_seconds);
  trial.spend =
      SpendOf(trial, p.end != SegmentEnd::kNone ? SegmentNow::kEnded : SegmentNow::kRunning);
  if (p.end != SegmentEnd::kNone) {
    released_.erase(it);
    KeepTrainedPast(trial, p);
  }
  return true;
}

void Study::Accrue(Trial& trial, const Progress& p) {
  const double units = p.fidelity - trial.last_fidelity;
  trial.cost_seconds += p.wall_seconds;
  gate_.Accrue(p.wall_seconds);
  // The pace is every second a trial costs over the fidelity it gained: the seconds between
  // reports (start-up, checkpoints, a slow epoch's heartbeats, work redone after a preemption)
  // are as much its price as the seconds that end in one.
  estimator_.Observe(std::max(units, 0.0), p.wall_seconds);
  trial.spend =
      SpendOf(trial, p.end != SegmentEnd::kNone ? SegmentNow::kEnded : SegmentNow::kRunning);
  pace_.ObserveInterval(trial.id, units, p.wall_seconds);
  if (p.value) {
    pace_.ObserveFirstReport(trial.id, trial.cost_seconds, p.fidelity);
    trial.last_value = p.value;
    trial.last_fidelity = p.fidelity;
  }
  trial.checkpoint_fidelity = std::max(trial.checkpoint_fidelity, p.fidelity);
}

Result<void> Study::Handle(const Progress& p) {
  Trial& trial = trials_[static_cast<size_t>(p.trial_id)];
  if (AccrueReleased(trial, p)) return {};
  Accrue(trial, p);
  // Rungs inside the segment are decided as the trial passes them, while it trains on. A
  // report that also ends the segment (a replayed curve's last point) is a rung result first.
  if (p.end != SegmentEnd::kReachedTarget && p.end != SegmentEnd::kBudgetStopped &&
      p.end != SegmentEnd::kWallStopped) {
    while (p.value && trial.state == TrialState::kRunning &&
           trial.target_rung < trial.segment_rung &&
           p.fidelity >= RungFidelity(trial, trial.target_rung) - kEps) {
      FRUGAL_TRY(PassRung(
          trial, p.end == SegmentEnd::kNone ? RungPass::kInFlight : RungPass::kAtLastReport));
    }
    if (trial.state != TrialState::kRunning) return {};
  }
  switch (p.end) {
    case SegmentEnd::kNone:
      HoldCapsAtAccrual(trial, p.wall_seconds);
      return {};
    case SegmentEnd::kFailed:
      EndTrial(trial, TrialState::kFailed);
      StopOnIdenticalFailures(trial, p.failure);
      return {};
    case SegmentEnd::kBudgetStopped:
      EndTrial(trial, TrialState::kStoppedAtBudget);
      CloseStarts("budget");
      return {};
    case SegmentEnd::kWallStopped:
      EndTrial(trial, TrialState::kStoppedAtWall);
      return {};
    case SegmentEnd::kReachedTarget:
    case SegmentEnd::kScheduleEnded:
    case SegmentEnd::kReleased:
      return OnSegmentEnd(trial, p);
  }
  return {};
}

void Study::HoldCapsAtAccrual(Trial& trial, double interval) {
  // The cap holds at every accrual: the rest of the budget must pay one more interval of
  // every running trial, else this one checkpoints and stops.
  // Each trial's next interval is sized by its own last one: per-step cost differs by
  // configuration, and the reporting trial's interval is no measure of the others'.
  pace_.SetInterval(trial.id, interval);
  if (!gate_.CoversNextInterval(NextIntervals(interval))) {
    StopAtTheCap(interval);
    if (trial.state != TrialState::kRunning) return;
  }
  const auto& wall = spec_.gates.trial_max_wall;
  if (wall && trial.cost_seconds + interval > ToSeconds(*wall)) {
    StopAtCap(trial, TrialState::kStoppedAtWall);
  }
  StopWhatCannotFinish();
}

Result<void> Study::OnSegmentEnd(Trial& trial, const Progress& p) {
  std::erase(running_, trial.id);
  if (p.end == SegmentEnd::kScheduleEnded) {
    // The trial's own schedule is shorter than the ladder: it is done training.
    EndTrial(trial, TrialState::kCompleted);
    UpdateIncumbent(trial);
    return {};
  }
  return PassRung(trial, RungPass::kAtSegmentEnd);
}

Result<void> Study::PassRung(Trial& trial, RungPass pass) {
  const int rung = trial.target_rung;
  const double loss = Loss(trial.last_value.value_or(std::numeric_limits<double>::infinity()));
  trial.rung_losses[static_cast<size_t>(rung)] = loss;
  const Verdict verdict = scheduler_->OnRung(trials_, trial, rung, loss);
  // A trial decided in flight still has a process to stop; at its last report it has none.
  const bool training = pass == RungPass::kInFlight;
  switch (verdict) {
    case Verdict::kComplete:
      trial.state = TrialState::kCompleted;
      UpdateIncumbent(trial);
      break;
    case Verdict::kStop:
      // The state first: a trial that finishes while it stops is complete (KeepTrainedPast).
      std::erase(running_, trial.id);
      trial.state = TrialState::kPruned;
      if (training) StopDecided(trial);
      break;
    case Verdict::kPause:
      // In flight it is parked: its worker is free, and unless the next job given to a free
      // worker is its own promotion, it is stopped once the jobs are given (SettleParked).
      if (training) parked_.push_back(trial.id);
      std::erase(running_, trial.id);
      trial.state = TrialState::kPaused;
      ++pauses_;
      break;
    case Verdict::kContinue: {
      trial.target_rung = rung + 1;
      if (pass == RungPass::kAtSegmentEnd) {
        trial.state = TrialState::kPaused;
        if (!stopping_) FRUGAL_TRY(TryResume(trial));
        break;
      }
      // Still in its segment: it goes on if the budget could have resumed it, exactly as a
      // paused trial would have been; else it checkpoints here, as it would have paused.
      const Room room = stopping_ ? Room::kLater : RoomToReach(trial, trial.target_rung);
      if (room == Room::kNow) {
        ++promotions_;
      } else if (room == Room::kLater) {
        std::erase(running_, trial.id);
        trial.state = TrialState::kPaused;
        if (training) StopDecided(trial);
      } else {
        EndTrial(trial, TrialState::kStoppedAtBudget);
        if (training) StopDecided(trial);
        CloseStarts("budget");
      }
      break;
    }
  }
  // After the trial's own state: the rung its report closed may have pruned it too.
  ApplyPruned();
  return {};
}

Result<StudySummary> Study::Run(const RunOptions& options) {
  const Clock& clock = *options.clock;
  SteadyTime last_save = clock.Steady();
  size_t trials_saved = trials_.size();
  int64_t handled = 0;
  while (true) {
    FRUGAL_TRY(FillWorkers());
    if (running_.empty() && released_.empty()) break;
    // Saved between FillWorkers and the next event, when no trial is parked.
    const bool started = options.save_after_start && trials_.size() > trials_saved;
    if (started || clock.Steady() - last_save >= std::chrono::milliseconds(options.save_every_ms)) {
      FRUGAL_TRY(Persist("running"));
      last_save = clock.Steady();
      trials_saved = trials_.size();
    }
    Result<std::optional<Progress>> next = runner_.WaitNext();
    if (!next) {
      // Interrupted (Ctrl-C reached a supervised trial, which checkpointed): keep what is known.
      if (next.error().code == ErrorCode::kInterrupted) FRUGAL_TRY(Persist("interrupted"));
      return Fail(next.error());
    }
    const std::optional<Progress> progress = *next;
    if (!progress) break;
    FRUGAL_TRY(Handle(*progress));
    ++events_;
    ++handled;
    if (options.on_event) options.on_event(*this);
    const auto& plateau = spec_.gates.plateau;
    if (plateau && incumbent_loss_ && !stopping_) {
      const bool by_trials =
          plateau->trials &&
          static_cast<int64_t>(trials_.size()) - incumbent_trials_started_ >= *plateau->trials;
      const bool by_spend =
          plateau->spend &&
          gate_.SpendFor((gate_.spent_gpu_seconds() - incumbent_gpu_seconds_) /
                         static_cast<double>(spec_.resources.gpus)) >= *plateau->spend;
      if (by_trials || by_spend) {
        stopping_ = true;
        CloseStarts("plateau");
      }
    }
    if (options.halt_after_events && handled >= *options.halt_after_events) {
      SettleParked();  // as a killed tuner's trials would be: checkpointed where they were
      FRUGAL_TRY(Persist("interrupted"));
      return Fail(ErrorCode::kInterrupted, "tuner halted after " + std::to_string(handled) +
                                               " events; resume with 'frugal tune resume " +
                                               spec_.name + "'");
    }
  }
  if (stop_reason_.empty()) stop_reason_ = "scheduler finished";
  FRUGAL_TRY(Persist("finished"));
  return Summary();
}

}  // namespace frugal::tune
