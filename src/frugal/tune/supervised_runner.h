#pragma once
// A TrialRunner that trains real trials: each segment runs the study's trial command under the
// run supervisor (frugal run's protocol, checkpoint store, budget guard), one trial at a time.
//
// Mapping onto the seam (trial_runner.h):
// - Launch: the command runs in the spec's directory with the protocol environment plus
//   FRUGAL_TRIAL_ID, FRUGAL_TRIAL_CONFIG (the configuration as JSON), FRUGAL_TRIAL_TARGET (the
//   fidelity this segment runs to) and FRUGAL_TRIAL_MAX (the top of the ladder). Each trial has
//   its own run directory (<study dir>/trials/<id>), so a resumed segment starts from the
//   trial's newest committed checkpoint (FRUGAL_RESUME_FROM), like any requeued run.
// - Progress: a progress line carrying the objective metric becomes a Progress at the fidelity
//   named by the fidelity metric (else the step); between them, one time-only Progress per
//   accrual interval keeps the study's budget accounting and gates live.
// - Pause at a rung: the child checkpoints and exits at FRUGAL_TRIAL_TARGET; a command that
//   ignores it is asked to checkpoint and stop once it reports the target.
// - Stop: "checkpoint now, then stop" through the supervisor; returns the seconds it took.
// - Spot preemptions (real notices, or the spec's chaos source) end a supervisor invocation;
//   the runner relaunches it, which resumes from the newest committed checkpoint.
// - Each invocation gets a dollar cap: what the trial has spent plus what the study has left,
//   and the spec's trial_max_wall; the supervisor stops the trial there even if the tuner
//   lags.
// Workers: the supervisor owns process-wide signal handlers and reaps every exited child, so
// one supervisor runs at a time; segments launched together run one after another.

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "frugal/core/duration.h"
#include "frugal/core/money.h"
#include "frugal/run/report_channel.h"
#include "frugal/run/supervisor.h"
#include "frugal/tune/budget_gate.h"
#include "frugal/tune/study_spec.h"
#include "frugal/tune/trial_runner.h"

namespace frugal::tune {

struct SupervisedRunnerOptions {
  std::vector<std::string> command;
  std::filesystem::path workdir;    ///< the trial command runs here (the spec's directory)
  std::filesystem::path study_dir;  ///< trials/<id>/ (checkpoints, journal, reports)
  std::string run_prefix;           ///< run ids are <prefix>-t<id>
  std::map<std::string, std::string> tags;  ///< the study's tags, on every trial's run
  std::string fidelity_metric = "epoch";
  std::string objective_metric;
  double max_fidelity = 0.0;
  Rate price;  ///< per hour of one trial (price per GPU-hour × GPUs)
  int gpus = 1;
  std::string tier;
  std::string offer;
  std::optional<Duration> trial_max_wall;
  std::optional<ChaosSpec> chaos;
  uint64_t seed = 1;
  Duration accrual_interval = std::chrono::seconds(1);
  Duration checkpoint_grace = std::chrono::seconds(30);
  Duration stop_grace = std::chrono::seconds(10);
  int max_restarts = 10;  ///< preemptions one segment survives before its trial fails
  run::ChildStdout child_stdout = run::ChildStdout::kToStderr;

  /// The options for a spec whose trial is a command; study_dir is where its trials live.
  static SupervisedRunnerOptions ForSpec(const StudySpec& spec, std::filesystem::path workdir,
                                         std::filesystem::path study_dir);
};

class SupervisedRunner final : public TrialRunner {
 public:
  explicit SupervisedRunner(SupervisedRunnerOptions options);
  ~SupervisedRunner() override;
  SupervisedRunner(const SupervisedRunner&) = delete;
  SupervisedRunner& operator=(const SupervisedRunner&) = delete;

  /// The gate the per-invocation dollar and GPU-hour caps are derived from (may be null).
  void BindGate(const BudgetGate* gate) { gate_ = gate; }

  [[nodiscard]] Result<void> Launch(const Trial& trial, double from_fidelity,
                                    double to_fidelity) override;
  [[nodiscard]] Result<std::optional<Progress>> WaitNext() override;
  double Stop(int64_t trial_id) override;
  double Now() const override;
  std::optional<double> FullFidelitySeconds(const Trial&) const override { return std::nullopt; }
  nlohmann::json Save() const override;
  [[nodiscard]] Result<void> Load(const nlohmann::json& state) override;

  /// Preemptions seen by every supervisor invocation so far (injected or real).
  int preemptions() const { return preemptions_; }
  /// Supervisor invocations started (segments of trials, restarts included).
  int invocations() const { return invocations_; }
  /// Where trial `id` keeps its run (journal, reports, checkpoints).
  std::filesystem::path TrialDir(int64_t id) const;

 private:
  struct Pending {
    Trial trial;
    double to_fidelity = 0.0;
  };
  struct Active;

  void StartNext();
  void SuperviseLoop(Active& active);
  [[nodiscard]] run::SupervisorConfig ConfigFor(const Pending& p) const;
  void PollReports(Active& active);
  Progress TimeEvent(Active& active, SegmentEnd end);
  [[nodiscard]] Result<Progress> FinishActive();
  void JoinActive();

  SupervisedRunnerOptions options_;
  const BudgetGate* gate_ = nullptr;
  std::deque<Pending> queue_;
  std::unique_ptr<Active> active_;
  std::deque<Progress> ready_;
  std::chrono::steady_clock::time_point started_;
  double elapsed_before_ = 0.0;  ///< study clock carried over from an earlier tuner process
  int preemptions_ = 0;          ///< over every invocation in this process
  int chaos_fired_ = 0;          ///< injected ones, against chaos.max (saved)
  int invocations_ = 0;
};

}  // namespace frugal::tune
