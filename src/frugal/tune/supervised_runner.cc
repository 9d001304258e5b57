#include "frugal/tune/supervised_runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "frugal/core/log.h"
#include "frugal/run/preemption_source.h"
#include "frugal/run/run_journal.h"

namespace frugal::tune {

namespace {

constexpr double kEps = 1e-9;
constexpr auto kPoll = std::chrono::milliseconds(50);
/// How long a child that reported its target may take to checkpoint and exit by itself before
/// it is asked to (a command that ignores FRUGAL_TRIAL_TARGET).
constexpr auto kExitOnTargetGrace = std::chrono::seconds(3);
using SteadyClock = std::chrono::steady_clock;

double SecondsSince(SteadyClock::time_point t) {
  return std::chrono::duration<double>(SteadyClock::now() - t).count();
}

/// The tuner asking a segment to checkpoint and stop (a pause at a rung, or Stop), delivered
/// the way a spot notice is: the supervisor polls its sources every tick.
class StopRequest final : public run::PreemptionSource {
 public:
  explicit StopRequest(const std::atomic<bool>& flag) : flag_(flag) {}
  void SegmentStarted(run::SteadyTime /*now*/) override {}
  std::optional<run::PreemptionNotice> Poll(run::SteadyTime /*now*/) override {
    if (fired_ || !flag_.load()) return std::nullopt;
    fired_ = true;
    return run::PreemptionNotice{"tuner", "checkpoint and stop at the rung"};
  }
  [[nodiscard]] bool fired() const { return fired_; }

 private:
  const std::atomic<bool>& flag_;
  bool fired_ = false;
};

}  // namespace

/// The segment in flight: a thread running supervisor invocations for one trial, and what the
/// tuner has read of its reports.
struct SupervisedRunner::Active {
  Pending pending;
  std::thread thread;
  std::atomic<bool> stop_requested{false};  ///< the tuner asked (pause or Stop)
  std::atomic<bool> done{false};
  std::mutex mutex;
  std::condition_variable cv;
  Result<run::RunResult> result = Fail(ErrorCode::kFailed, "not run");
  int chaos_fired = 0;   ///< written by the thread, read after join
  int preemptions = 0;   ///< likewise
  int invocations = 0;   ///< likewise
  std::map<std::filesystem::path, std::unique_ptr<run::ReportReader>> readers;
  SteadyClock::time_point last_event;
  double fidelity = 0.0;  ///< the last fidelity reported with the objective
  bool reported = false;  ///< any objective report at all
  std::optional<SteadyClock::time_point> reached_at;  ///< when the target was reported
  /// The furthest objective report in the trial's earlier report files, which the tuner may
  /// not have seen (it was killed while the trial reported): (fidelity, value).
  std::optional<std::pair<double, double>> earlier;
};

SupervisedRunnerOptions SupervisedRunnerOptions::ForSpec(const StudySpec& spec,
                                                         std::filesystem::path workdir,
                                                         std::filesystem::path study_dir) {
  SupervisedRunnerOptions o;
  o.command = spec.command;
  o.workdir = std::move(workdir);
  o.study_dir = std::move(study_dir);
  o.run_prefix = spec.name;
  o.tags = spec.tags;
  o.fidelity_metric = spec.fidelity.name;
  o.objective_metric = spec.objective.metric;
  o.max_fidelity = spec.Ladder().fidelities.back();
  const Money per_gpu = spec.resources.price_per_gpu_hour
                            ? spec.resources.price_per_gpu_hour->per_hour
                            : Money{};
  o.price = Rate{per_gpu * spec.resources.gpus};
  o.gpus = spec.resources.gpus;
  o.tier = spec.resources.tier;
  o.offer = spec.resources.offer;
  o.trial_max_wall = spec.gates.trial_max_wall;
  o.chaos = spec.chaos;
  o.seed = spec.seed;
  return o;
}

SupervisedRunner::SupervisedRunner(SupervisedRunnerOptions options)
    : options_(std::move(options)), started_(SteadyClock::now()) {}

SupervisedRunner::~SupervisedRunner() {
  if (active_) {
    active_->stop_requested = true;
    JoinActive();
  }
}

std::filesystem::path SupervisedRunner::TrialDir(int64_t id) const {
  return options_.study_dir / "trials" / std::to_string(id);
}

double SupervisedRunner::Now() const { return elapsed_before_ + SecondsSince(started_); }

Result<void> SupervisedRunner::Launch(const Trial& trial, double /*from_fidelity*/,
                                      double to_fidelity) {
  // The checkpoint store, not the tuner's record, says where a resumed segment starts.
  queue_.push_back(Pending{trial, to_fidelity});
  if (!active_) StartNext();
  return {};
}

run::SupervisorConfig SupervisedRunner::ConfigFor(const Pending& p) const {
  run::SupervisorConfig c;
  c.command = {"env", "-C", options_.workdir.string(),
               "FRUGAL_TRIAL_ID=" + std::to_string(p.trial.id),
               "FRUGAL_TRIAL_CONFIG=" + ConfigToJson(p.trial.config).dump(),
               fmt::format("FRUGAL_TRIAL_TARGET={}", p.to_fidelity),
               fmt::format("FRUGAL_TRIAL_MAX={}", options_.max_fidelity)};
  c.command.insert(c.command.end(), options_.command.begin(), options_.command.end());
  c.run_id = fmt::format("{}-t{}", options_.run_prefix, p.trial.id);
  c.run_dir = TrialDir(p.trial.id);
  c.tags = options_.tags;  // the study's team/project/owner attribute its trials' spend
  c.tags["study"] = options_.run_prefix;
  c.tags["trial"] = std::to_string(p.trial.id);
  c.offer = options_.offer;
  c.tier = options_.tier;
  c.price = options_.price;
  c.gpus = options_.gpus;
  c.accrual_interval = options_.accrual_interval;
  c.checkpoint_grace = options_.checkpoint_grace;
  c.stop_grace = options_.stop_grace;
  c.restart = run::RestartPolicy::kRequeue;  // this runner relaunches after a preemption
  c.child_stdout = options_.child_stdout;
  c.caps.wall = options_.trial_max_wall;
  if (gate_ != nullptr && std::isfinite(gate_->cap_gpu_seconds())) {
    // The trial's share: what it has already spent plus everything the study has left.
    const run::JournalHistory h = run::ReadJournalHistory(c.run_dir / "journal.jsonl");
    const double left_gpu_s = std::max(0.0, gate_->cap_gpu_seconds() - gate_->spent_gpu_seconds());
    const double left_wall_s = left_gpu_s / std::max(1, options_.gpus);
    c.caps.gpu_hours = h.usage.gpu_hours + left_gpu_s / 3600.0;
    if (options_.price.per_hour.micros() > 0) {
      c.caps.dollars = h.usage.spent + options_.price.For(FromSeconds(left_wall_s));
    }
  }
  return c;
}

void SupervisedRunner::SuperviseLoop(Active& a) {
  const run::SupervisorConfig config = ConfigFor(a.pending);
  std::error_code ec;
  std::filesystem::create_directories(config.run_dir, ec);
  for (int attempt = 0;; ++attempt) {
    run::RunJournal journal(config.run_dir / "journal.jsonl");
    run::Supervisor supervisor(config, journal);
    auto stop = std::make_unique<StopRequest>(a.stop_requested);
    const StopRequest* stop_source = stop.get();
    supervisor.AddPreemptionSource(std::move(stop));
    run::ChaosPreemptions* chaos = nullptr;
    const auto& spec = options_.chaos;
    if (spec && (spec->max == 0 || chaos_fired_ + a.chaos_fired < spec->max)) {
      const uint64_t trial = static_cast<uint64_t>(a.pending.trial.id);
      const uint64_t nth = static_cast<uint64_t>(invocations_) + static_cast<uint64_t>(a.invocations);
      const uint64_t seed = options_.seed * uint64_t{1000003} + trial * uint64_t{7919} + nth;
      auto source = std::make_unique<run::ChaosPreemptions>(spec->every, seed, 1);
      chaos = source.get();
      supervisor.AddPreemptionSource(std::move(source));
    }
    ++a.invocations;
    a.result = supervisor.Run();
    if (chaos != nullptr) a.chaos_fired += chaos->fired();
    if (!a.result) break;
    // Preemptions proper: spot notices and injected ones, not the tuner's own stop request.
    a.preemptions += a.result->preemptions - (stop_source->fired() ? 1 : 0);
    const bool preempted = a.result->outcome == run::RunOutcome::kPreempted;
    if (!preempted || a.stop_requested || attempt >= options_.max_restarts) break;
    log::Info("trial {}: preempted; resuming from its newest checkpoint", a.pending.trial.id);
  }
  {
    std::lock_guard lock(a.mutex);
    a.done = true;
  }
  a.cv.notify_all();
}

void SupervisedRunner::StartNext() {
  if (queue_.empty()) return;
  active_ = std::make_unique<Active>();
  active_->pending = std::move(queue_.front());
  queue_.pop_front();
  active_->last_event = SteadyClock::now();
  Active& a = *active_;
  // Reports of the trial's earlier segments were consumed when they ran: skip them.
  std::error_code ec;
  for (const auto& entry :
       std::filesystem::directory_iterator(TrialDir(a.pending.trial.id) / "reports", ec)) {
    auto reader = std::make_unique<run::ReportReader>(entry.path());
    for (const run::ReportMessage& m : reader->Poll()) {
      const auto* progress = std::get_if<run::ProgressReport>(&m);
      if (progress == nullptr) continue;
      const auto value = progress->metrics.find(options_.objective_metric);
      const auto fid = progress->metrics.find(options_.fidelity_metric);
      if (value == progress->metrics.end()) continue;
      const double f =
          fid != progress->metrics.end() ? fid->second : static_cast<double>(progress->step);
      if (!a.earlier || f >= a.earlier->first) a.earlier = std::make_pair(f, value->second);
    }
    a.readers[entry.path()] = std::move(reader);
  }
  a.thread = std::thread([this, &a] { SuperviseLoop(a); });
}

void SupervisedRunner::JoinActive() {
  if (active_ && active_->thread.joinable()) active_->thread.join();
  if (!active_) return;
  chaos_fired_ += active_->chaos_fired;
  preemptions_ += active_->preemptions;
  invocations_ += active_->invocations;
}

Progress SupervisedRunner::TimeEvent(Active& a, SegmentEnd end) {
  Progress p;
  p.trial_id = a.pending.trial.id;
  p.fidelity = a.fidelity;
  const auto now = SteadyClock::now();
  p.wall_seconds = std::chrono::duration<double>(now - a.last_event).count();
  a.last_event = now;
  p.end = end;
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
      const auto* progress = std::get_if<run::ProgressReport>(&m);
      if (progress == nullptr) continue;
      const auto value = progress->metrics.find(options_.objective_metric);
      if (value == progress->metrics.end()) continue;
      const auto fid = progress->metrics.find(options_.fidelity_metric);
      Progress p = TimeEvent(a, SegmentEnd::kNone);
      p.fidelity = fid != progress->metrics.end() ? fid->second
                                                  : static_cast<double>(progress->step);
      p.value = value->second;
      a.fidelity = p.fidelity;
      a.reported = true;
      ready_.push_back(p);
    }
  }
  // A command that does not stop at FRUGAL_TRIAL_TARGET by itself is asked to.
  if (a.reported && a.fidelity >= a.pending.to_fidelity - kEps) {
    const auto now = SteadyClock::now();
    if (!a.reached_at) a.reached_at = now;
    if (now - *a.reached_at >= kExitOnTargetGrace) a.stop_requested = true;
  }
}

Result<Progress> SupervisedRunner::FinishActive() {
  JoinActive();
  Active& a = *active_;
  PollReports(a);
  const int64_t id = a.pending.trial.id;
  if (!a.reported && a.earlier && a.earlier->first >= a.pending.to_fidelity - kEps) {
    // It had reached the target before the tuner stopped (its checkpoint is there): that
    // report is the rung's result.
    Progress p = TimeEvent(a, SegmentEnd::kNone);
    p.fidelity = a.earlier->first;
    p.value = a.earlier->second;
    a.fidelity = p.fidelity;
    a.reported = true;
    ready_.push_back(p);
  }
  SegmentEnd end = SegmentEnd::kFailed;
  if (!a.result) {
    log::Warning("trial {}: {}", id, a.result.error().message);
  } else {
    const run::RunResult& r = *a.result;
    const bool reached = a.reported && a.fidelity >= a.pending.to_fidelity - kEps;
    switch (r.outcome) {
      case run::RunOutcome::kFinished:
      case run::RunOutcome::kPreempted:  // our own pause request, or restarts exhausted
        if (reached) {
          end = SegmentEnd::kReachedTarget;
        } else if (r.outcome == run::RunOutcome::kFinished && a.reported) {
          end = SegmentEnd::kScheduleEnded;  // its own schedule is shorter than the ladder
        } else {
          log::Warning("trial {}: {} before reporting '{}' at {} {}", id, r.message,
                       options_.objective_metric, options_.fidelity_metric,
                       a.pending.to_fidelity);
        }
        break;
      case run::RunOutcome::kBudgetStop:
        end = SegmentEnd::kBudgetStopped;
        break;
      case run::RunOutcome::kInterrupted:
        return Fail(ErrorCode::kInterrupted,
                    fmt::format("interrupted; trial {} checkpointed; resume with 'frugal tune "
                                "resume {}'",
                                id, options_.run_prefix));
      case run::RunOutcome::kFailed:
        log::Warning("trial {}: {}", id, r.message);
        break;
    }
  }
  Progress p = TimeEvent(a, end);
  return p;
}

Result<std::optional<Progress>> SupervisedRunner::WaitNext() {
  while (true) {
    if (!ready_.empty()) {
      Progress p = ready_.front();
      ready_.pop_front();
      return std::optional<Progress>(p);
    }
    if (!active_) {
      if (queue_.empty()) return std::optional<Progress>();
      StartNext();
    }
    Active& a = *active_;
    PollReports(a);
    if (!ready_.empty()) continue;
    if (a.done) {
      Result<Progress> end = FinishActive();
      active_.reset();
      if (!end) return Fail(end.error());
      ready_.push_back(*end);  // after the segment's last reports
      continue;
    }
    if (SteadyClock::now() - a.last_event >= options_.accrual_interval) {
      return std::optional<Progress>(TimeEvent(a, SegmentEnd::kNone));
    }
    std::unique_lock lock(a.mutex);
    a.cv.wait_for(lock, kPoll, [&a] { return a.done.load(); });
  }
}

double SupervisedRunner::Stop(int64_t trial_id) {
  std::erase_if(queue_, [trial_id](const Pending& p) { return p.trial.id == trial_id; });
  std::erase_if(ready_, [trial_id](const Progress& p) { return p.trial_id == trial_id; });
  if (!active_ || active_->pending.trial.id != trial_id) return 0.0;
  active_->stop_requested = true;
  JoinActive();
  const double tail = SecondsSince(active_->last_event);
  active_.reset();
  StartNext();
  return tail;
}

nlohmann::json SupervisedRunner::Save() const {
  nlohmann::json segments = nlohmann::json::array();
  auto add = [&segments](const Pending& p) {
    segments.push_back({{"trial", TrialToJson(p.trial)}, {"to_fidelity", p.to_fidelity}});
  };
  if (active_) add(active_->pending);
  for (const Pending& p : queue_) add(p);
  return {{"kind", "supervised"},
          {"elapsed_seconds", Now()},
          {"chaos_fired", chaos_fired_ + (active_ ? active_->chaos_fired : 0)},
          {"segments", segments}};
}

Result<void> SupervisedRunner::Load(const nlohmann::json& state) {
  try {
    if (state.value("kind", "") != "supervised") {
      return Fail(ErrorCode::kBadInput, "study state: the runner state is not a supervised one");
    }
    elapsed_before_ = state.at("elapsed_seconds").get<double>();
    started_ = SteadyClock::now();
    chaos_fired_ = state.at("chaos_fired").get<int>();
    // Segments in flight when the tuner stopped are relaunched from their checkpoints.
    for (const auto& j : state.at("segments")) {
      Trial t = FRUGAL_TRY(TrialFromJson(j.at("trial")));
      queue_.push_back(Pending{std::move(t), j.at("to_fidelity").get<double>()});
    }
  } catch (const nlohmann::json::exception& e) {
    return Fail(ErrorCode::kBadInput, std::string("supervised runner state: ") + e.what());
  }
  return {};
}

}  // namespace frugal::tune
