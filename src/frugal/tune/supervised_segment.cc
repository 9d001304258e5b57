// The thread side of the supervised runner: one trial segment's supervisor invocations (with
// relaunches after preemptions), its configuration, its ledger recorder, and the preemption
// sources the tuner adds (its own stop request, the study's shared chaos budget).

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>

#include "frugal/core/log.h"
#include "frugal/run/ledger_catch_up.h"
#include "frugal/run/ledger_recorder.h"
#include "frugal/run/preemption_source.h"
#include "frugal/run/run_journal.h"
#include "frugal/run/run_session.h"
#include "frugal/tune/supervised_runner.h"
#include "frugal/tune/supervised_runner_internal.h"

namespace frugal::tune {

namespace {

/// The tuner asking a segment to checkpoint and stop (a pause at a rung, Stop, a cap, or the
/// tuner being interrupted), delivered the way a spot notice is: the supervisor polls its
/// sources every tick.
class StopRequest final : public run::PreemptionSource {
 public:
  StopRequest(const std::atomic<bool>& flag, const std::atomic<bool>& halting)
      : flag_(flag), halting_(halting) {}
  void SegmentStarted(run::SteadyTime /*now*/) override {}
  std::optional<run::PreemptionNotice> Poll(run::SteadyTime /*now*/) override {
    if (fired_ || !(flag_.load() || halting_.load())) return std::nullopt;
    fired_ = true;
    return run::PreemptionNotice{"tuner", "checkpoint and stop", true};
  }
  [[nodiscard]] bool fired() const { return fired_; }

 private:
  const std::atomic<bool>& flag_;
  const std::atomic<bool>& halting_;
  bool fired_ = false;
};

/// Injected preemptions under the study's shared limit: a notice is delivered only while the
/// study's count of fired ones is under `max` (0: no limit), so concurrent trials together
/// never exceed it.
class SharedChaos final : public run::PreemptionSource {
 public:
  SharedChaos(Duration every, uint64_t seed, int max, std::atomic<int>& fired_total)
      : inner_(every, seed, 1), max_(max), fired_total_(fired_total) {}
  void SegmentStarted(run::SteadyTime now) override { inner_.SegmentStarted(now); }
  void ProgressReported(const run::ProgressReport& report, run::SteadyTime at) override {
    inner_.ProgressReported(report, at);  // a trial's chaos arms at its first progress
  }
  std::optional<run::PreemptionNotice> Poll(run::SteadyTime now) override {
    std::optional<run::PreemptionNotice> notice = inner_.Poll(now);
    if (!notice || max_ == 0) return notice;
    int seen = fired_total_.load();
    while (seen < max_) {
      if (fired_total_.compare_exchange_weak(seen, seen + 1)) return notice;
    }
    return std::nullopt;
  }
  /// Whether this source delivered its notice.
  [[nodiscard]] bool fired() const { return inner_.fired() > 0; }
  /// Gives the notice's place under the study's limit back: the supervisor took it back (it came
  /// as the command finished, so nothing was preempted), and `max` counts preemptions.
  void GiveBack() { fired_total_.fetch_sub(1); }

 private:
  run::ChaosPreemptions inner_;
  int max_;
  std::atomic<int>& fired_total_;
};

/// Records the run `run_id` in the ledger as its journal's first attempt started it, when the
/// ledger never got it (its writes failed from the trial's start on). Only a journal of that
/// run counts. Returns whether the run is in the ledger now.
bool BeginRunFromJournal(ledger::Ledger& ledger, const std::string& run_id,
                         const std::filesystem::path& journal, const ledger::SegmentOffer& offer) {
  for (const nlohmann::json& r : run::ReadJournal(journal)) {
    if (r.value("record", "") != "run_started") continue;
    const std::optional<run::WallTime> at = run::ParseWallTime(r.value("at", ""));
    if (r.value("run_id", "") != run_id || !at) return false;
    run::RunStart start;
    start.run_id = run_id;
    start.attempt = 1;
    start.at = *at;
    try {
      start.command = r.value("command", std::vector<std::string>{});
      start.tags = r.value("tags", std::map<std::string, std::string>{});
      const nlohmann::json caps = r.value("caps", nlohmann::json::object());
      if (caps.contains("dollars_micros"))
        start.caps.dollars = Money::FromMicros(caps.at("dollars_micros").get<int64_t>());
      if (caps.contains("gpu_hours")) start.caps.gpu_hours = caps.at("gpu_hours").get<double>();
    } catch (const nlohmann::json::exception&) {
      return false;  // a record this frugal did not write: leave the run to its own ledger
    }
    run::LedgerRecorder recorder(ledger, run_id, offer);
    recorder.RunStarted(start);
    return recorder.Flush();
  }
  return false;
}

/// Brings the ledger's run of a trial up to the trial's journal, as `frugal run` does before a
/// relaunch: what an earlier supervisor could not write there (a full disk, a dead server) is
/// in the journal, the run's start included. A ledger that still fails is warned about; the
/// trial goes on.
void CatchUpTrial(ledger::Ledger& ledger, const std::string& run_id,
                  const std::filesystem::path& journal, const ledger::SegmentOffer& offer) {
  std::error_code ec;
  if (!std::filesystem::exists(journal, ec)) return;
  if (const Result<std::optional<ledger::Run>> found = run::FindRunByName(ledger, run_id);
      found && !*found && BeginRunFromJournal(ledger, run_id, journal, offer)) {
    log::Warning("{}: the ledger had missed the trial's run; recorded from its journal", run_id);
  }
  const Result<run::LedgerCatchUp> caught = run::CatchUpFromJournal(ledger, run_id, journal, offer);
  if (!caught) {
    log::Warning("{}: the ledger could not be brought up to the trial's journal: {}", run_id,
                 caught.error().message);
  } else if (caught->Any()) {
    log::Warning("{}: the ledger had missed part of the trial's run; from its journal: {}", run_id,
                 caught->Describe());
  }
}

/// The trial's ledger, when one is configured and opens; null: the trial is journaled only.
std::unique_ptr<ledger::Ledger> OpenTrialLedger(const SupervisedRunnerOptions& options,
                                                const std::string& run_id) {
  if (!options.open_ledger) return nullptr;
  Result<std::unique_ptr<ledger::Ledger>> opened = options.open_ledger();
  if (!opened) {
    log::Warning("{}: the ledger cannot be opened ({}); the trial is journaled only", run_id,
                 opened.error().message);
    return nullptr;
  }
  return std::move(*opened);
}

}  // namespace

std::string SupervisedRunner::RunName(int64_t trial_id) const {
  return fmt::format("{}-t{}", options_.run_prefix, trial_id);
}

run::SupervisorConfig SupervisedRunner::ConfigFor(const Pending& p) const {
  run::SupervisorConfig c;
  c.command = {
      "env",
      "-C",
      options_.workdir.string(),
      "FRUGAL_TRIAL_ID=" + std::to_string(p.trial.id),
      "FRUGAL_TRIAL_CONFIG=" + ConfigToJson(p.trial.config).dump(),
      fmt::format("FRUGAL_TRIAL_TARGET={}", p.to_fidelity),
      fmt::format("FRUGAL_TRIAL_MAX={}",
                  options_.fidelity.LengthOf(p.trial.config).value_or(options_.max_fidelity))};
  c.command.insert(c.command.end(), options_.command.begin(), options_.command.end());
  c.run_id = RunName(p.trial.id);
  c.run_dir = TrialDir(p.trial.id);
  c.tags = options_.tags;
  c.tags["study"] = options_.study;
  c.tags["trial"] = std::to_string(p.trial.id);
  c.offer = options_.offer;
  c.tier = options_.tier;
  c.price = options_.price;
  c.gpus = options_.gpus;
  c.accrual_interval = options_.accrual_interval;
  // A killed tuner's trial is costed to its last heartbeat: keep that within one accrual.
  c.heartbeat_interval = options_.accrual_interval;
  c.checkpoint_grace = options_.checkpoint_grace;
  c.stop_grace = options_.stop_grace;
  c.restart = run::RestartPolicy::kRequeue;  // this runner relaunches after a preemption
  c.interrupt_pauses = true;                 // a Ctrl-C pauses the study; its resume resumes it
  c.child_stdout = options_.child_stdout;
  c.caps.wall = options_.trial_max_wall;
  if (gate_ != nullptr && std::isfinite(gate_->cap_gpu_seconds())) {
    // The trial's backstop: what it has already spent plus everything the study has left.
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

std::optional<ChargedCost> SupervisedRunner::Charged(int64_t trial_id) const {
  const run::JournalHistory h = run::ReadJournalHistory(TrialDir(trial_id) / "journal.jsonl");
  return ChargedCost{h.recorded.spent, ToSeconds(h.recorded.wall)};
}

double SupervisedRunner::JournaledSeconds(int64_t trial_id) const {
  return ToSeconds(run::ReadJournalHistory(TrialDir(trial_id) / "journal.jsonl").recorded.wall);
}

void SupervisedRunner::CloseLostAttempts() {
  std::unique_ptr<ledger::Ledger> ledger;
  if (options_.open_ledger) {
    Result<std::unique_ptr<ledger::Ledger>> opened = options_.open_ledger();
    if (opened) {
      ledger = std::move(*opened);
    } else {
      log::Warning(
          "{}: the ledger cannot be opened ({}); the runs of trials the stopped tuner "
          "left open are closed in their journals only",
          options_.study, opened.error().message);
    }
  }
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(options_.study_dir / "trials", ec)) {
    const std::string name = entry.path().filename().string();
    int64_t id = 0;
    const auto [end, parsed] = std::from_chars(name.data(), name.data() + name.size(), id);
    if (parsed != std::errc() || end != name.data() + name.size()) continue;
    const std::filesystem::path path = entry.path() / "journal.jsonl";
    const std::string run_id = RunName(id);
    // Before the trial is counted or relaunched, the ledger gets what its journal has and it
    // missed (the tuner may have been killed while ledger writes were failing).
    if (ledger) CatchUpTrial(*ledger, run_id, path, options_.record);
    const run::JournalHistory h = run::ReadJournalHistory(path);
    if (!h.unfinished_attempt) continue;
    // Closed where a killed `frugal run` is closed (its journal's last record), in the journal
    // and the ledger alike: the journal's usage counts to there and its last checkpoints are
    // dated up to there, so the seconds the study is told (JournaledSeconds) are the seconds
    // the ledger prices, and the ledger keeps no event past the run's end.
    std::optional<run::LedgerRecorder> to_ledger;
    if (ledger) to_ledger.emplace(*ledger, run_id, options_.record);
    run::RunJournal journal(path);
    std::optional<run::TeeRecorder> tee;
    run::RunRecorder* recorder = &journal;
    if (to_ledger) recorder = &tee.emplace(journal, *to_ledger);
    run::CloseLostAttemptAtLastRecord(h, *recorder);
    if (to_ledger && !to_ledger->Flush()) {
      log::Warning("{}: {} record(s) could not be written to the ledger", run_id,
                   to_ledger->pending());
    }
    log::Warning(
        "trial {}: its supervisor died with the tuner; run {} closed as lost at its last "
        "journal record",
        id, run_id);
  }
}

void SupervisedRunner::SuperviseLoop(Active& a) {
  const run::SupervisorConfig& config = a.config;
  std::error_code ec;
  std::filesystem::create_directories(config.run_dir, ec);
  const std::unique_ptr<ledger::Ledger> ledger = OpenTrialLedger(options_, config.run_id);
  // The study's lock covers its trials; the study decides what a failed launch means.
  run::RunSessionOptions session_options;
  session_options.hold = run::RunHold::kCallerHolds;
  session_options.sampling = run::RunSampling::kNone;
  session_options.journal_check = run::JournalCheck::kWarnOnly;
  session_options.offer = options_.record;
  session_options.catch_up = [this, &config](ledger::Ledger& l) {
    CatchUpTrial(l, config.run_id, config.run_dir / "journal.jsonl", options_.record);
  };
  Result<std::unique_ptr<run::RunSession>> opened =
      run::RunSession::Open(config, ledger.get(), std::move(session_options), *options_.clock);
  if (opened) {
    SuperviseAttempts(a, **opened);
  } else {
    a.result = Fail(opened.error());
  }
  {
    std::lock_guard lock(wake_mutex_);
    a.done = true;
  }
  wake_.notify_all();
}

void SupervisedRunner::SuperviseAttempts(Active& a, run::RunSession& session) {
  const run::SupervisorConfig& config = a.config;
  for (int attempt = 0;; ++attempt) {
    run::Supervisor& supervisor = session.NewSupervisor();
    auto stop = std::make_unique<StopRequest>(a.stop_requested, halting_);
    const StopRequest* stop_source = stop.get();
    supervisor.AddPreemptionSource(std::move(stop));
    SharedChaos* chaos_source = nullptr;
    if (const auto& chaos = options_.chaos;
        chaos && (chaos->max == 0 || chaos_fired_.load() < chaos->max)) {
      const auto trial = static_cast<uint64_t>(a.pending.trial.id);
      const auto nth =
          static_cast<uint64_t>(a.first_invocation) + static_cast<uint64_t>(a.invocations);
      const uint64_t seed = options_.seed * uint64_t{1000003} + trial * uint64_t{7919} + nth;
      auto source = std::make_unique<SharedChaos>(chaos->every, seed, static_cast<int>(chaos->max),
                                                  chaos_fired_);
      chaos_source = source.get();
      supervisor.AddPreemptionSource(std::move(source));
    }
    ++a.invocations;
    a.result = supervisor.Run();
    if (!a.result) break;
    // What the ledger prices: the trial's segments, not the supervisor's start-up around them.
    a.run_seconds =
        ToSeconds(run::ReadJournalHistory(config.run_dir / "journal.jsonl").recorded.wall);
    // Preemptions proper: spot notices and injected ones, not the tuner's own stop request. A
    // stop that came as the command finished was never counted (the supervisor takes back a
    // notice whose segment finished), so there is nothing to take back twice.
    const int preemptions = std::max(0, a.result->preemptions - (stop_source->fired() ? 1 : 0));
    a.preemptions += preemptions;
    // An injected notice the supervisor took back preempted nothing: another may take its place.
    if (chaos_source != nullptr && chaos_source->fired() && preemptions == 0) {
      chaos_source->GiveBack();
    }
    const bool preempted = a.result->outcome == run::RunOutcome::kPreempted;
    if (!preempted || a.stop_requested || halting_ || attempt >= options_.max_restarts) break;
    log::Info("trial {}: preempted; resuming from its newest checkpoint", a.pending.trial.id);
  }
  // The supervisor records the tuner's own stop (a pause, a cap, an interrupt) as a preemption,
  // which leaves the ledger run open for a requeue that may never come: close it as what it
  // was (interrupted with its study, it waits on its checkpoint for the study's resume: paused).
  // A promotion or a resume reopens it, like any requeued run.
  const bool tuner_stopped = a.result && a.result->outcome == run::RunOutcome::kPreempted &&
                             (a.stop_requested || halting_);
  if (run::LedgerRecorder* to_ledger = session.ledger_recorder(); to_ledger && tuner_stopped) {
    run::RunFinish finish;
    finish.at = options_.clock->Wall();
    finish.outcome = halting_ ? "paused" : "finished";
    to_ledger->RunFinished(finish);
  }
  if (!session.Flush()) {
    log::Warning("{}: {} record(s) could not be written to the ledger", config.run_id,
                 session.pending());
  }
}

std::optional<std::filesystem::path> FindTrialJournal(const std::filesystem::path& studies_dir,
                                                      const std::string& run_name) {
  // A trial's run is "<prefix>-t<trial>", its prefix "<study>@<instance>" (or the study's name).
  const size_t dash = run_name.rfind("-t");
  if (dash == std::string::npos || dash + 2 >= run_name.size()) return std::nullopt;
  const std::string trial = run_name.substr(dash + 2);
  if (!std::all_of(trial.begin(), trial.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  const std::string study = run_name.substr(0, std::min(run_name.find('@'), dash));
  if (study.empty()) return std::nullopt;
  // The study's own folder, then those of earlier studies of its name kept as "<study>@n".
  std::vector<std::filesystem::path> folders = {studies_dir / study};
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(studies_dir, ec)) {
    if (entry.path().filename().string().starts_with(study + "@")) folders.push_back(entry.path());
  }
  for (const std::filesystem::path& folder : folders) {
    const std::filesystem::path journal = folder / "trials" / trial / "journal.jsonl";
    if (!std::filesystem::exists(journal, ec)) continue;
    // The folder may hold a later study's trial of the same number: the journal says whose.
    for (const nlohmann::json& r : run::ReadJournal(journal)) {
      if (r.value("record", "") != "run_started") continue;
      if (r.value("run_id", "") == run_name) return journal;
      break;
    }
  }
  return std::nullopt;
}

}  // namespace frugal::tune
