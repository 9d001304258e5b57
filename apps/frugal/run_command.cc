// frugal run: supervise a training command under budget caps, preemptions and checkpoints.

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "commands.h"
#include "frugal/core/log.h"
#include "frugal/core/paths.h"
#include "frugal/ledger/ledger.h"
#include "frugal/run/profile.h"
#include "frugal/run/run_session.h"
#include "frugal/run/run_text.h"
#include "policy_gate.h"
#include "run_support.h"

namespace frugal::cli {
namespace {

struct RunOptions {
  app::SuperviseRequest supervise;
  std::string restart = "requeue";
  int max_restarts = 3;
  std::string restart_backoff = "1s";
  std::string chaos_every;
  int chaos_max = 0;
  uint64_t seed = 1;
  std::optional<std::string> override_reason;
  std::string deadline, compute, changeover = "5m", checkpoint_cost = "0s";
  std::string spot_lifetime = "2h", spot_outage = "1h";
  double price_ratio = 3;
};

/// The run as the policy judges it: what it will run on (the offer chosen, its tier), its
/// tags and dollar cap, and the spec's fault tolerance. The supervisor checkpoints on notice
/// (it forwards the preemption notice to the job), so the interval rule holds on spot.
Result<PolicyCheck> CheckRunAgainstPolicy(const RunOptions& o, const app::SuperviseSetup& setup,
                                          const GlobalOptions& global, Streams& s) {
  PolicyCheck check;
  const catalog::Catalog catalog = FRUGAL_TRY(LoadCatalog(global));
  check.policy = FRUGAL_TRY(PolicyInEffect(global, catalog));
  if (!check.policy) return check;
  const run::SupervisorConfig& c = setup.config;
  policy::Subject subject;
  std::string label = "run " + c.run_id;
  if (!o.supervise.spec.empty()) {
    subject = FRUGAL_TRY(policy::LoadSubject(o.supervise.spec, catalog));
    label += " (job " + subject.name + ")";
  } else {
    subject.kind = "Run";
    subject.name = c.run_id;
    subject.fault_tolerant = setup.offer.tier == CapacityTier::kSpot;  // chosen to be interruptible
  }
  subject.checkpoint_on_notice = true;
  subject.gpus.clear();
  if (!setup.offer.gpu.empty()) subject.gpus.push_back(setup.offer.gpu);
  subject.tiers = {setup.offer.tier};
  subject.tags = c.tags;
  subject.budget = c.caps.dollars;
  check.enforcement = {"run", label, subject.tags, policy::Check(check.policy->policy, subject),
                       o.override_reason};
  FRUGAL_TRY(RefuseUnlessOverridden(check.enforcement, *check.policy, global, s));
  return check;
}

/// The deadline policy's configuration from --deadline/--compute and friends; nullopt when no
/// deadline is given.
Result<std::optional<run::DeadlineAdviceConfig>> DeadlineAdviceOf(const RunOptions& o) {
  if (o.deadline.empty() && o.compute.empty()) return std::nullopt;
  if (o.deadline.empty() || o.compute.empty()) {
    return Fail(ErrorCode::kBadInput, "options --deadline and --compute: give both (or neither)");
  }
  run::DeadlineAdviceConfig c;
  const std::pair<const char*, std::pair<const std::string*, Duration*>> fields[] = {
      {"--deadline", {&o.deadline, &c.deadline}},
      {"--compute", {&o.compute, &c.compute}},
      {"--changeover", {&o.changeover, &c.changeover}},
      {"--checkpoint-cost", {&o.checkpoint_cost, &c.checkpoint_cost}},
      {"--spot-lifetime", {&o.spot_lifetime, &c.prior_lifetime}},
      {"--spot-outage", {&o.spot_outage, &c.prior_outage}}};
  for (const auto& [flag, field] : fields) {
    Result<Duration> d = ParseDuration(*field.first);
    if (!d || d->count() < 0) {
      return Fail(ErrorCode::kBadInput,
                  fmt::format("option {}: '{}' is not a duration like 36h", flag, *field.first));
    }
    *field.second = *d;
  }
  if (c.deadline.count() <= 0 || c.compute.count() <= 0) {
    return Fail(ErrorCode::kBadInput, "options --deadline and --compute: must be positive");
  }
  if (!(o.price_ratio >= 1)) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("option --price-ratio: {} is not at least 1", o.price_ratio));
  }
  c.price_ratio = o.price_ratio;
  return c;
}

/// How long a supervisor about to exit keeps retrying ledger writes that failed.
constexpr Duration kLedgerPatienceAtExit = std::chrono::seconds(5);

/// Says what a run's last records could not be written to, and so what is really kept: both
/// the ledger and the journal keep a prefix of the same records (each lands whole or not at
/// all), so the last min(of the two) are in neither.
void WarnUnwritten(size_t ledger_missing, size_t journal_missing, const std::string& ledger_at,
                   const std::filesystem::path& journal_at, const std::string& run_id, Streams& s) {
  if (journal_missing == 0) {
    if (ledger_missing == 0) return;
    s.err << fmt::format(
        "frugal: warning: {} record(s) could not be written to the ledger {}; the journal {} has "
        "them, and the next `frugal run --run-id {}` brings the ledger up to it\n",
        ledger_missing, ledger_at, journal_at.string(), run_id);
    return;
  }
  if (ledger_missing == 0) {
    s.err << fmt::format(
        "frugal: warning: the run's last {} record(s) could not be written to its journal {} "
        "(disk full?); the ledger {} has them, and the journal keeps every record before them "
        "whole\n",
        journal_missing, journal_at.string(), ledger_at);
    return;
  }
  s.err << fmt::format(
      "frugal: warning: the run's last {} record(s) are in neither its journal {} nor the ledger "
      "{} (disk full?) and are lost; {} more are in the journal only, and the next `frugal run "
      "--run-id {}` brings the ledger up to it\n",
      std::min(ledger_missing, journal_missing), journal_at.string(), ledger_at,
      ledger_missing > journal_missing ? ledger_missing - journal_missing : 0, run_id);
}

/// Records what the run measured of its job for the next plan; a run too short to measure, or
/// a ledger that fails, is a note on stderr: the run itself went as it went.
void RecordProfile(ledger::Ledger& db, const run::RunProfiler& profiler,
                   const run::RunResult& result, std::optional<ledger::RunId> run_id, Streams& s) {
  Result<ledger::Profile> stored =
      run::RecordRunProfile(db, profiler, result, run_id, UserDataDir() / "profiles");
  if (!stored) {
    s.err << fmt::format("frugal: note: no measurement of job '{}' recorded: {}\n", profiler.name(),
                         stored.error().message);
    return;
  }
  const ledger::NewProfile& r = stored->record;
  const double rate =
      r.samples_per_second.value_or(r.tokens_per_second.value_or(r.steps_per_second));
  const char* units = r.samples_per_second ? "samples" : r.tokens_per_second ? "tokens" : "steps";
  s.err << fmt::format(
      "frugal: measured {:.4g} {}/s on {} (profile {} of job '{}'); the next `frugal plan` of the "
      "spec uses it\n",
      rate, units, r.device, stored->id, r.name);
}

/// The flags' texts as the ledger and the journal can keep them, and the --override reason.
Result<void> CheckRunFlagTexts(const RunOptions& o) {
  const std::string override_text = o.override_reason.value_or("");
  for (const auto& [flag, value] :
       {std::pair<const char*, const std::string&>{"--restart", o.restart},
        {"--restart-backoff", o.restart_backoff},
        {"--chaos-preempt-every", o.chaos_every},
        {"--deadline", o.deadline},
        {"--compute", o.compute},
        {"--changeover", o.changeover},
        {"--checkpoint-cost", o.checkpoint_cost},
        {"--spot-lifetime", o.spot_lifetime},
        {"--spot-outage", o.spot_outage},
        {"--override", override_text}}) {
    FRUGAL_TRY(run::CheckFlagText(flag, value));
  }
  FRUGAL_TRY(CheckOverrideReason(o.override_reason));
  return {};
}

/// --restart, --max-restarts, --restart-backoff and the deadline policy into `config`.
Result<void> ApplyRestartOptions(const RunOptions& o, run::SupervisorConfig& config) {
  if (o.restart != "requeue" && o.restart != "local") {
    return Fail(ErrorCode::kBadInput,
                fmt::format("option --restart: '{}' is not requeue or local", o.restart));
  }
  config.restart = o.restart == "local" ? run::RestartPolicy::kLocal : run::RestartPolicy::kRequeue;
  if (o.max_restarts < 0)
    return Fail(ErrorCode::kBadInput, "option --max-restarts: must not be negative");
  config.max_restarts = o.max_restarts;
  Result<Duration> backoff = ParseDuration(o.restart_backoff);
  if (!backoff)
    return Fail(ErrorCode::kBadInput, "option --restart-backoff: " + backoff.error().message);
  config.restart_backoff = *backoff;
  config.deadline_advice = FRUGAL_TRY(DeadlineAdviceOf(o));
  return {};
}

/// Adds the preemptions --chaos-preempt-every makes up and those the cloud's metadata announces;
/// true when the run can be preempted (on spot, or with either source).
Result<bool> AddPreemptionSources(const RunOptions& o, const app::SuperviseSetup& setup,
                                  run::Supervisor& supervisor) {
  bool preemptible = setup.offer.tier == CapacityTier::kSpot;
  if (!o.chaos_every.empty()) {
    Result<Duration> every = ParseDuration(o.chaos_every);
    if (!every || every->count() <= 0) {
      return Fail(ErrorCode::kBadInput,
                  fmt::format("option --chaos-preempt-every: '{}' is not a positive duration",
                              o.chaos_every));
    }
    supervisor.AddPreemptionSource(
        std::make_unique<run::ChaosPreemptions>(*every, o.seed, o.chaos_max));
    preemptible = true;
  }
  if (auto metadata = FRUGAL_TRY(app::MetadataSource(o.supervise))) {
    supervisor.AddPreemptionSource(std::move(metadata));
    preemptible = true;
  }
  return preemptible;
}

/// Links the recorded policy override to the run the ledger now holds; a failure is a warning.
void LinkOverrideToRun(ledger::Ledger& db, std::optional<ledger::OverrideId> override_id,
                       const run::RunSession& session, Streams& s) {
  if (!override_id || !session.ledger_run_id()) return;
  if (auto linked = db.LinkOverride(*override_id, session.ledger_run_id(), std::nullopt); !linked) {
    s.err << fmt::format("frugal: warning: override {} not linked to its run: {}\n", *override_id,
                         linked.error().message);
  }
}

/// What follows a run that ran: its records written as far as they go, its measurement kept,
/// its summary, and its exit code as the command's.
Result<void> FinishRun(const run::RunResult& result, const run::SupervisorConfig& config,
                       run::RunSession& session, ledger::Ledger& db,
                       const std::optional<run::RunProfiler>& profiler, bool preemptible,
                       const GlobalOptions& global, Streams& s) {
  const bool ledger_behind = !session.Flush(kLedgerPatienceAtExit);
  session.journal().Retry();
  WarnUnwritten(ledger_behind ? session.pending() : 0, session.journal().pending(),
                ledger::ResolveLocation(global.db), session.journal().path(), config.run_id, s);
  if (profiler) RecordProfile(db, *profiler, result, session.ledger_run_id(), s);
  const auto checks = run::RunSelfChecks(result, preemptible);
  if (global.json) {
    WriteJson(s, RunSummaryJson(config, result, checks));
  } else {
    PrintRunSummary(s.out, config, result, checks);
  }
  if (result.exit_code == 0) return {};
  return Fail(static_cast<ErrorCode>(result.exit_code), result.message);
}

Result<void> RunRun(const RunOptions& o, const GlobalOptions& global, Streams& s) {
  FRUGAL_TRY(CheckRunFlagTexts(o));
  app::SuperviseSetup setup =
      FRUGAL_TRY(app::SetUpSupervisedRun(o.supervise, SuperviseContextOf(global)));
  run::SupervisorConfig& config = setup.config;
  FRUGAL_TRY(ApplyRestartOptions(o, config));

  // The policy before anything is written: a refused run leaves no ledger row and no run dir.
  const PolicyCheck policy_check = FRUGAL_TRY(CheckRunAgainstPolicy(o, setup, global, s));

  // The ledger first: a run that cannot be accounted for does not start (and leaves no run
  // folder behind).
  std::unique_ptr<ledger::Ledger> db =
      FRUGAL_TRY(ledger::OpenForCommand(global.db, ledger::CreateMode::kCreateIfMissing));
  // One supervisor per run (the host's lock and the ledger's claim), and not one whose journal
  // cannot be written (a full disk under --run-dir).
  run::RunSessionOptions session_options;
  session_options.offer = setup.offer;
  session_options.spec_text = setup.spec_text;
  const std::unique_ptr<run::RunSession> session =
      FRUGAL_TRY(run::RunSession::Open(config, db.get(), std::move(session_options)));
  std::optional<ledger::OverrideId> override_id;
  if (!policy_check.enforcement.violations.empty()) {
    override_id = FRUGAL_TRY(RecordOverride(*db, policy_check.enforcement, *policy_check.policy));
  }
  run::Supervisor& supervisor = session->NewSupervisor();
  const bool preemptible = FRUGAL_TRY(AddPreemptionSources(o, setup, supervisor));
  // A run of a job spec measures the job as `frugal profile` would, for its next plan.
  std::optional<run::RunProfiler> profiler;
  if (!setup.job_name.empty()) {
    profiler.emplace(setup.job_name, config.command);
    supervisor.AddPreemptionSource(profiler->TakeMeter());
  }
  StatusLine status(s);
  supervisor.SetStatusCallback([&status](const run::RunStatus& st) { status.Update(st); });

  Result<run::RunResult> ran = supervisor.Run();
  status.Clear();
  LinkOverrideToRun(*db, override_id, *session, s);
  if (!ran) return Fail(ran.error());
  return FinishRun(*ran, config, *session, *db, profiler, preemptible, global, s);
}

}  // namespace

void RegisterRun(CLI::App& app, GlobalOptions& global, Action& action) {
  auto opts = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand("run",
                                     "Run a training command under budget caps, surviving "
                                     "preemptions: frugal run [options] -- COMMAND...");
  AddSuperviseOptions(cmd, opts->supervise);
  cmd->add_option(
         "--restart", opts->restart,
         "After a preemption: requeue (exit 75 for an outer scheduler) or local (restart here)")
      ->capture_default_str();
  cmd->add_option("--max-restarts", opts->max_restarts, "Local restarts at most")
      ->capture_default_str();
  cmd->add_option("--restart-backoff", opts->restart_backoff,
                  "First restart delay; doubles, at most 60s")
      ->capture_default_str();
  cmd->add_option("--chaos-preempt-every", opts->chaos_every,
                  "Inject preemptions about this often (drills, tests)");
  cmd->add_option("--chaos-max", opts->chaos_max,
                  "Stop injecting after this many preemptions (0: never)");
  cmd->add_option("--seed", opts->seed, "Seed of the injected preemptions")
      ->capture_default_str()
      ->check(WholeNumber(0, std::numeric_limits<int64_t>::max()));
  AddOverrideOption(cmd, opts->override_reason);
  cmd->add_option(
      "--deadline", opts->deadline,
      "Deadline from the run's first start (with --compute): after a preemption, advise "
      "waiting for spot or moving to on-demand");
  cmd->add_option("--compute", opts->compute,
                  "Work the job needs in all, e.g. 48h (with --deadline)");
  cmd->add_option("--changeover", opts->changeover, "A new instance's launch + setup + restore")
      ->capture_default_str();
  cmd->add_option("--checkpoint-cost", opts->checkpoint_cost, "Time to write a checkpoint")
      ->capture_default_str();
  cmd->add_option("--price-ratio", opts->price_ratio, "On-demand ÷ spot price")
      ->capture_default_str();
  cmd->add_option("--spot-lifetime", opts->spot_lifetime,
                  "Mean spot lifetime believed before the run has seen one")
      ->capture_default_str();
  cmd->add_option("--spot-outage", opts->spot_outage,
                  "Mean wait for spot capacity believed before the run has seen one")
      ->capture_default_str();
  cmd->callback([opts, &global, &action] {
    action = [opts, &global](Streams& s) -> Result<void> { return RunRun(*opts, global, s); };
  });
}

}  // namespace frugal::cli
