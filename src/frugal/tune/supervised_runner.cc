// The tuner's side of the supervised runner: starting segments up to the worker count, turning
// their report files into Progress events, finishing and stopping them, and the saved state.
// The threads' side is supervised_segment.cc.

#include "frugal/tune/supervised_runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "frugal/core/log.h"
#include "frugal/tune/supervised_runner_internal.h"
#include "frugal/tune/trial.h"

namespace frugal::tune {

namespace {

/// Below this, what the study was told of a trial already matches its journal (milliseconds).
constexpr double kToldSlack = 1e-4;
constexpr auto kPoll = std::chrono::milliseconds(50);
/// How long a child that reported its target may take to checkpoint and exit by itself before
/// it is asked to (a command that ignores FRUGAL_TRIAL_TARGET).
constexpr auto kExitOnTargetGrace = std::chrono::seconds(3);
double SecondsBetween(SteadyTime from, SteadyTime to) {
  return std::chrono::duration<double>(to - from).count();
}

/// (fidelity, objective) of a progress report that carries the objective.
std::optional<std::pair<double, double>> ObjectiveOf(const run::ReportMessage& m,
                                                     const SupervisedRunnerOptions& o) {
  const auto* progress = std::get_if<run::ProgressReport>(&m);
  if (progress == nullptr) return std::nullopt;
  const auto value = progress->metrics.find(o.objective_metric);
  if (value == progress->metrics.end()) return std::nullopt;
  const auto fid = progress->metrics.find(o.fidelity_metric);
  const double f =
      fid != progress->metrics.end() ? fid->second : static_cast<double>(progress->step);
  return std::make_pair(f, value->second);
}

}  // namespace

SupervisedRunnerOptions SupervisedRunnerOptions::ForSpec(const StudySpec& spec,
                                                         std::filesystem::path workdir,
                                                         std::filesystem::path study_dir) {
  SupervisedRunnerOptions o;
  o.command = spec.command;
  o.workdir = std::move(workdir);
  o.study_dir = std::move(study_dir);
  o.study = spec.name;
  o.run_prefix = spec.name;
  o.fidelity_metric = spec.fidelity.name;
  o.objective_metric = spec.objective.metric;
  o.max_fidelity = spec.Ladder().fidelities.back();
  o.fidelity = spec.fidelity;
  const Money per_gpu =
      spec.resources.price_per_gpu_hour ? spec.resources.price_per_gpu_hour->per_hour : Money{};
  o.price = Rate{per_gpu * spec.resources.gpus};
  o.gpus = spec.resources.gpus;
  o.tier = spec.resources.tier;
  o.offer = spec.resources.offer_id.empty() ? spec.resources.offer : spec.resources.offer_id;
  o.workers = spec.resources.workers;
  o.tags = spec.tags;
  o.record = spec.resources.record;
  o.record.gpu_count = spec.resources.gpus;
  o.record.tier = spec.resources.tier.value_or(CapacityTier::kOnDemand);
  o.record.price = o.price;
  o.trial_max_wall = spec.gates.trial_max_wall;
  o.chaos = spec.chaos;
  o.seed = spec.seed;
  return o;
}

SupervisedRunner::SupervisedRunner(SupervisedRunnerOptions options)
    : options_(std::move(options)), started_(options_.clock->Steady()) {}

SupervisedRunner::~SupervisedRunner() {
  for (auto& [id, a] : active_) a->stop_requested = true;
  for (auto& [id, a] : active_) JoinActive(*a);
}

std::filesystem::path SupervisedRunner::TrialDir(int64_t id) const {
  return options_.study_dir / "trials" / std::to_string(id);
}

double SupervisedRunner::Now() const {
  return elapsed_before_ + SecondsBetween(started_, options_.clock->Steady());
}

Result<void> SupervisedRunner::Launch(const Trial& trial, double /*from_fidelity*/,
                                      double to_fidelity) {
  // The checkpoint store, not the tuner's record, says where a resumed segment starts.
  recorded_states_.erase(trial.id);  // the run is open again
  queue_.push_back(Pending{trial, to_fidelity});
  StartQueued();
  return {};
}

void SupervisedRunner::ReadEarlierReports(Active& a) {
  // Reports of the trial's earlier segments were consumed when they ran: skip them, but keep
  // the furthest objective report in case the tuner was killed before it saw it.
  std::error_code ec;
  for (const auto& entry :
       std::filesystem::directory_iterator(TrialDir(a.pending.trial.id) / "reports", ec)) {
    auto reader = std::make_unique<run::ReportReader>(entry.path());
    for (const run::ReportMessage& m : reader->Poll()) {
      const auto objective = ObjectiveOf(m, options_);
      if (objective && (!a.earlier || objective->first >= a.earlier->first)) a.earlier = objective;
    }
    a.readers[entry.path()] = std::move(reader);
  }
}

void SupervisedRunner::StartQueued() {
  while (static_cast<int>(active_.size()) < std::max(1, options_.workers) && !halting_) {
    // A trial whose released segment is still checkpointing resumes once it has ended.
    const auto next = std::find_if(queue_.begin(), queue_.end(), [this](const Pending& p) {
      return !active_.contains(p.trial.id);
    });
    if (next == queue_.end()) break;
    if (!signals_) signals_.emplace();  // SIGINT between two invocations must not kill us
    auto active = std::make_unique<Active>();
    Active& a = *active;
    a.pending = std::move(*next);
    queue_.erase(next);
    a.config = ConfigFor(a.pending);
    a.first_invocation = invocations_;
    a.last_event = options_.clock->Steady();
    ReadEarlierReports(a);
    const int64_t id = a.pending.trial.id;
    active_[id] = std::move(active);
    a.thread = std::thread([this, &a] { SuperviseLoop(a); });
    peak_concurrency_ = std::max(peak_concurrency_, static_cast<int>(active_.size()));
  }
}

void SupervisedRunner::JoinActive(Active& a) {
  if (!a.thread.joinable()) return;
  a.thread.join();
  preemptions_ += a.preemptions;
  invocations_ += a.invocations;
}

Progress SupervisedRunner::TimeEvent(Active& a, SegmentEnd end) {
  Progress p;
  p.trial_id = a.pending.trial.id;
  p.fidelity = a.fidelity;
  const auto now = options_.clock->Steady();
  p.wall_seconds = std::chrono::duration<double>(now - a.last_event).count();
  a.last_event = now;
  p.end = end;
  return p;
}

Progress SupervisedRunner::Emit(Progress p) {
  told_seconds_[p.trial_id] += p.wall_seconds;
  return p;
}

void SupervisedRunner::PollReports(Active& a) {
  // Each supervisor segment writes its own reports/segment-N.jsonl; read every one in order.
  std::error_code ec;
  const std::filesystem::path dir = TrialDir(a.pending.trial.id) / "reports";
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (!a.readers.contains(entry.path())) {
      a.readers[entry.path()] = std::make_unique<run::ReportReader>(entry.path());
    }
  }
  for (auto& [path, reader] : a.readers) {
    for (run::ReportMessage& m : reader->Poll()) {
      const auto objective = ObjectiveOf(m, options_);
      if (!objective) continue;
      if (a.released) {
        if (!a.after_release || objective->first > a.after_release->first)
          a.after_release = objective;
        continue;
      }
      Progress p = TimeEvent(a, SegmentEnd::kNone);
      p.fidelity = objective->first;
      p.value = objective->second;
      a.fidelity = p.fidelity;
      a.reported = true;
      ready_.push_back(p);
    }
  }
  // A command that does not stop at FRUGAL_TRIAL_TARGET by itself is asked to.
  if (!a.released && a.reported && a.fidelity >= a.pending.to_fidelity - kEps) {
    const auto now = options_.clock->Steady();
    if (!a.reached_at) a.reached_at = now;
    if (now - *a.reached_at >= kExitOnTargetGrace) a.stop_requested = true;
  }
}

std::optional<double> SupervisedRunner::Correction(const Active& a) const {
  if (!a.run_seconds) return std::nullopt;
  const auto told = told_seconds_.find(a.pending.trial.id);
  return *a.run_seconds - (told == told_seconds_.end() ? 0.0 : told->second);
}

Progress SupervisedRunner::ReleasedEnd(Active& a) {
  // Whatever ended it (its checkpoint and exit, an interruption, a failure), the study has
  // already decided the trial: only the time is left to tell.
  Progress p = TimeEvent(a, SegmentEnd::kReleased);
  p.wall_seconds += a.released_seconds;
  if (a.after_release) {
    p.fidelity = a.after_release->first;
    p.value = a.after_release->second;
  }
  if (const auto correction = Correction(a)) p.wall_seconds = *correction;
  return p;
}

void SupervisedRunner::TellEarlierTargetReport(Active& a) {
  const bool reached_before =
      !a.reported && a.earlier && a.earlier->first >= a.pending.to_fidelity - kEps;
  if (!reached_before) return;
  // It had reached the target before the tuner stopped (its checkpoint is there): that
  // report is the rung's result.
  Progress p = TimeEvent(a, SegmentEnd::kNone);
  p.fidelity = a.earlier->first;
  p.value = a.earlier->second;
  a.fidelity = p.fidelity;
  a.reported = true;
  ready_.push_back(p);
}

Result<SegmentEnd> SupervisedRunner::SegmentEndOf(const Active& a) const {
  const int64_t id = a.pending.trial.id;
  if (!a.result) {
    log::Warning("trial {}: {}", id, a.result.error().message);
    return SegmentEnd::kFailed;
  }
  const run::RunResult& r = *a.result;
  const bool reached = a.reported && a.fidelity >= a.pending.to_fidelity - kEps;
  switch (r.outcome) {
    case run::RunOutcome::kFinished:
    case run::RunOutcome::kPreempted:  // our own pause request, or restarts exhausted
      if (reached) return SegmentEnd::kReachedTarget;
      if (r.outcome == run::RunOutcome::kFinished && a.reported) {
        return SegmentEnd::kScheduleEnded;  // its own schedule is shorter than the ladder
      }
      if (halting_ && r.outcome == run::RunOutcome::kPreempted) {
        return Fail(ErrorCode::kInterrupted, "the tuner was interrupted");
      }
      log::Warning("trial {}: {} before reporting '{}' at {} {}", id, r.message,
                   options_.objective_metric, options_.fidelity_metric, a.pending.to_fidelity);
      return SegmentEnd::kFailed;
    case run::RunOutcome::kBudgetStop:
      // The trial's own wall cap is no budget: the study goes on without it.
      return r.cap == run::CapKind::kWall ? SegmentEnd::kWallStopped : SegmentEnd::kBudgetStopped;
    case run::RunOutcome::kInterrupted:
      return Fail(ErrorCode::kInterrupted, "interrupted");
    case run::RunOutcome::kFailed:
      log::Warning("trial {}: {}", id, r.message);
      return SegmentEnd::kFailed;
  }
  return SegmentEnd::kFailed;
}

Result<Progress> SupervisedRunner::FinishActive(Active& a) {
  JoinActive(a);
  PollReports(a);
  const int64_t id = a.pending.trial.id;
  if (a.released) return ReleasedEnd(a);
  TellEarlierTargetReport(a);
  const SegmentEnd end = FRUGAL_TRY(SegmentEndOf(a));
  Progress p = TimeEvent(a, end);
  if (end == SegmentEnd::kFailed) {
    p.failure = !a.result              ? a.result.error().message
                : a.result->child_exit ? a.result->child_exit->Describe()
                                       : a.result->message;
  }
  // The segment's reports are ahead of it in ready_ and will be told before it: the trial's
  // total must come out at the supervisor's own figure.
  double queued = 0.0;
  for (const Progress& q : ready_) queued += q.trial_id == id ? q.wall_seconds : 0.0;
  if (const auto correction = Correction(a)) p.wall_seconds = *correction - queued;
  return p;
}

void SupervisedRunner::WatchSignals() {
  if (!signals_ || halting_) return;
  const bool interrupt = signals_->TakeInterrupt();
  const int preemption = signals_->TakePreemptionSignal();
  if (!interrupt && preemption == 0) return;
  log::Warning(
      "{}: every running trial checkpoints and stops; resume with 'frugal tune resume "
      "{}'",
      interrupt ? "interrupted" : run::SignalName(preemption) + " to the tuner", options_.study);
  halting_ = true;
  for (auto& [id, a] : active_) a->stop_requested = true;
}

Result<std::optional<Progress>> SupervisedRunner::NoTrialRunning() const {
  if (halting_) {
    return Fail(ErrorCode::kInterrupted,
                fmt::format("interrupted; the running trials were stopped (each resumes from its "
                            "newest committed checkpoint); resume with "
                            "'frugal tune resume {}'",
                            options_.study));
  }
  return std::optional<Progress>();
}

bool SupervisedRunner::FinishDoneSegment() {
  auto it = active_.begin();
  for (; it != active_.end(); ++it) {
    std::lock_guard lock(wake_mutex_);
    if (it->second->done) break;
  }
  if (it == active_.end()) return false;
  Active& a = *it->second;
  Result<Progress> end = FinishActive(a);
  if (end) {
    ready_.push_back(*end);  // after the segment's last reports
  } else {
    // Interrupted: the segment is relaunched from its checkpoint when the study resumes.
    const int64_t id = a.pending.trial.id;
    std::erase_if(ready_, [id](const Progress& p) { return p.trial_id == id; });
    queue_.push_front(std::move(a.pending));
    halting_ = true;
  }
  active_.erase(it);
  return true;
}

SupervisedRunner::Active* SupervisedRunner::DueForAccrual() {
  // The running trial that has gone longest without an event accrues one interval.
  Active* due = nullptr;
  for (auto& [id, a] : active_) {
    if (a->released || options_.clock->Steady() - a->last_event < options_.accrual_interval)
      continue;
    if (due == nullptr || a->last_event < due->last_event) due = a.get();
  }
  return due;
}

Result<std::optional<Progress>> SupervisedRunner::WaitNext() {
  while (true) {
    if (!ready_.empty()) {
      Progress p = ready_.front();
      ready_.pop_front();
      return std::optional<Progress>(Emit(p));
    }
    StartQueued();
    if (active_.empty()) return NoTrialRunning();
    WatchSignals();
    for (auto& [id, a] : active_) PollReports(*a);
    if (!ready_.empty()) continue;
    if (FinishDoneSegment()) continue;
    // While halting, only wait for the other segments to checkpoint too, then report the
    // interruption.
    if (!halting_) {
      if (Active* due = DueForAccrual()) {
        return std::optional<Progress>(Emit(TimeEvent(*due, SegmentEnd::kNone)));
      }
    }
    std::unique_lock lock(wake_mutex_);
    wake_.wait_for(lock, kPoll);
  }
}

void SupervisedRunner::Release(Active& a) {
  a.released = true;
  a.stop_requested = true;
  // Its reports not yet told are no longer rung results: their time is told with the
  // segment's end, and the furthest of them (or of any it makes while it stops) is kept.
  const int64_t id = a.pending.trial.id;
  std::erase_if(ready_, [&a, id](const Progress& p) {
    if (p.trial_id != id) return false;
    a.released_seconds += p.wall_seconds;
    if (p.value && (!a.after_release || p.fidelity > a.after_release->first)) {
      a.after_release = {p.fidelity, *p.value};
    }
    return true;
  });
}

bool SupervisedRunner::StopInBackground(int64_t trial_id) {
  const auto it = active_.find(trial_id);
  if (it == active_.end()) return false;
  Release(*it->second);
  return true;
}

void SupervisedRunner::RequestStop(int64_t trial_id) {
  if (const auto it = active_.find(trial_id); it != active_.end()) {
    it->second->stop_requested = true;
  }
}

Progress SupervisedRunner::Stop(int64_t trial_id) {
  Progress tail;
  tail.trial_id = trial_id;
  const bool queued =
      std::erase_if(queue_, [trial_id](const Pending& p) { return p.trial.id == trial_id; }) > 0;
  const auto it = active_.find(trial_id);
  if (it == active_.end()) {
    std::erase_if(ready_, [trial_id](const Progress& p) { return p.trial_id == trial_id; });
    if (!queued) return tail;
    // Not relaunched (after a resume, its run was closed at its last heartbeat): what its run
    // holds beyond what the study was told.
    tail.wall_seconds = JournaledSeconds(trial_id) - told_seconds_[trial_id];
    told_seconds_[trial_id] += tail.wall_seconds;
    return tail;
  }
  Active& a = *it->second;
  Release(a);
  JoinActive(a);
  PollReports(a);
  tail.wall_seconds = SecondsBetween(a.last_event, options_.clock->Steady()) + a.released_seconds;
  if (const auto correction = Correction(a)) tail.wall_seconds = *correction;
  if (a.after_release) {
    tail.fidelity = a.after_release->first;
    tail.value = a.after_release->second;
  }
  told_seconds_[trial_id] += tail.wall_seconds;
  active_.erase(it);
  StartQueued();
  return tail;
}

nlohmann::json SupervisedRunner::Save() const {
  nlohmann::json segments = nlohmann::json::array();
  auto add = [&segments](const Pending& p) {
    segments.push_back({{"trial", TrialToJson(p.trial)}, {"to_fidelity", p.to_fidelity}});
  };
  for (const auto& [id, a] : active_) {
    if (!a->released) add(a->pending);  // a released segment is not resumed
  }
  for (const Pending& p : queue_) add(p);
  nlohmann::json told = nlohmann::json::object();
  for (const auto& [id, seconds] : told_seconds_) told[std::to_string(id)] = seconds;
  return {{"kind", "supervised"},     {"run_prefix", options_.run_prefix},
          {"elapsed_seconds", Now()}, {"chaos_fired", chaos_fired_.load()},
          {"told_seconds", told},     {"segments", segments}};
}

Result<void> SupervisedRunner::Load(const nlohmann::json& state) {
  try {
    if (state.value("kind", "") != "supervised") {
      return Fail(ErrorCode::kBadInput, "study state: the runner state is not a supervised one");
    }
    if (const auto it = state.find("run_prefix"); it != state.end() && it->is_string()) {
      options_.run_prefix = it->get<std::string>();
    }
    elapsed_before_ = state.at("elapsed_seconds").get<double>();
    started_ = options_.clock->Steady();
    chaos_fired_ = state.at("chaos_fired").get<int>();
    if (state.contains("told_seconds")) {
      for (const auto& [id, seconds] : state.at("told_seconds").items()) {
        told_seconds_[std::stoll(id)] = seconds.get<double>();
      }
    }
    // Segments in flight when the tuner stopped are relaunched from their checkpoints.
    for (const auto& j : state.at("segments")) {
      Trial t = FRUGAL_TRY(TrialFromJson(j.at("trial")));
      queue_.push_back(Pending{std::move(t), j.at("to_fidelity").get<double>()});
    }
  } catch (const std::exception& e) {
    return Fail(ErrorCode::kBadInput, std::string("supervised runner state: ") + e.what());
  }
  CloseLostAttempts();
  // A trial the study will not relaunch (one stopped in flight, or whose last time was not
  // told before the tuner stopped) is told what its run holds beyond what the study has.
  for (const auto& [id, told] : told_seconds_) {
    const int64_t trial_id = id;
    if (std::any_of(queue_.begin(), queue_.end(),
                    [trial_id](const Pending& p) { return p.trial.id == trial_id; })) {
      continue;
    }
    const double correction = JournaledSeconds(trial_id) - told;
    if (std::abs(correction) < kToldSlack) continue;
    Progress p;
    p.trial_id = trial_id;
    p.wall_seconds = correction;
    ready_.push_back(p);
  }
  return {};
}

}  // namespace frugal::tune
