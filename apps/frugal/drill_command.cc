// frugal drill: run a job uninterrupted, then with injected preemptions, and judge whether it
// is ready for spot capacity. See src/frugal/run/drill.h.

#include <fmt/format.h>

#include <limits>

#include "commands.h"
#include "frugal/core/file_name.h"
#include "frugal/core/log.h"
#include "frugal/ledger/ledger.h"
#include "frugal/run/drill.h"
#include "frugal/run/run_session.h"
#include "run_support.h"

namespace frugal::cli {
namespace {

namespace fs = std::filesystem;

struct DrillOptions {
  SuperviseOptions supervise;
  int preemptions = 3;
  uint64_t seed = 1;
  std::string name;
  std::string restart_backoff = "200ms";
};

/// The record's name: --name, else the spec's name, else the script or program's stem.
std::string RecordName(const DrillOptions& o, const run::SupervisorConfig& config) {
  if (!o.name.empty()) return o.name;
  if (!o.supervise.spec.empty()) return fs::path(o.supervise.spec).stem().string();
  for (const std::string& arg : config.command) {
    const fs::path p(arg);
    if (p.has_extension() && arg.find('=') == std::string::npos) return p.stem().string();
  }
  return fs::path(config.command.front()).filename().string();
}

/// Opens the session of one of the drill's two runs (its lock, claim, journal and recorders).
Result<std::unique_ptr<run::RunSession>> OpenSession(const run::SupervisorConfig& config,
                                                     const SuperviseSetup& setup,
                                                     ledger::Ledger& db) {
  run::RunSessionOptions options;
  options.offer = setup.offer;
  options.spec_text = setup.spec_text;
  return run::RunSession::Open(config, &db, std::move(options));
}

/// Runs the command once, uninterrupted, recorded in its journal and the ledger.
Result<run::RunResult> RunBaseline(const run::SupervisorConfig& config, const SuperviseSetup& setup,
                                   ledger::Ledger& db, std::optional<ledger::RunId>* ledger_run) {
  const std::unique_ptr<run::RunSession> session = FRUGAL_TRY(OpenSession(config, setup, db));
  Result<run::RunResult> result = session->NewSupervisor().Run();
  session->Flush();
  *ledger_run = session->ledger_run_id();
  return result;
}

std::string Stat(const std::vector<Duration>& values) {
  if (values.empty()) return "-";
  Duration max{0}, sum{0};
  for (Duration d : values) {
    max = std::max(max, d);
    sum += d;
  }
  return fmt::format(
      "max {:.2f}s, mean {:.2f}s (n={})", std::chrono::duration<double>(max).count(),
      std::chrono::duration<double>(sum).count() / static_cast<double>(values.size()),
      values.size());
}

void PrintFindings(std::ostream& out, const run::DrillFindings& f, const fs::path& stored) {
  auto yes = [](bool b) { return b ? "yes" : "no"; };
  int64_t lost_max = 0;
  for (int64_t s : f.lost_steps) lost_max = std::max(lost_max, s);
  out << fmt::format("Drill: {} of {} preemptions injected\n", f.preemptions,
                     f.preemptions_planned);
  out << fmt::format("  uninterrupted run          {}\n", FormatDuration(f.baseline_wall));
  out << fmt::format("  preempted run              {} ({})\n", FormatDuration(f.drilled_wall),
                     f.finished ? "finished" : "did not finish");
  out << fmt::format(
      "  load to first progress     {}\n",
      f.load ? fmt::format("{:.2f}s", std::chrono::duration<double>(*f.load).count()) : "-");
  out << fmt::format(
      "  notice to checkpoint       {}{}\n", Stat(f.checkpoint_write),
      f.checkpoint_misses > 0 ? fmt::format("; {} notice(s) got none", f.checkpoint_misses) : "");
  out << fmt::format("  checkpoint commit          {}\n", Stat(f.commit));
  out << fmt::format("  restart to first progress  {}\n", Stat(f.restart));
  out << fmt::format("  work lost per preemption   {} (at most {} steps)\n", Stat(f.lost_work),
                     lost_max);
  out << fmt::format("  final result               {}\n",
                     !f.result_matches   ? "not reported by both runs"
                     : *f.result_matches ? "equals the uninterrupted run's"
                                         : "DIFFERS: " + f.result_detail);
  out << fmt::format("Verdict: {}\n", f.spot_ready ? "spot-ready" : "not spot-ready");
  for (const std::string& r : f.reasons) out << "  - " << r << "\n";
  out << fmt::format("  checkpoints within a 30 s notice: {}; within a 120 s notice: {}\n",
                     yes(f.checkpoint_within_30s), yes(f.checkpoint_within_120s));
  out << fmt::format("Stored for `frugal plan`: {}\n", stored.string());
}

/// The uninterrupted run's config: the base one under its own id, folder and tag.
run::SupervisorConfig BaselineConfig(const run::SupervisorConfig& base) {
  run::SupervisorConfig baseline = base;
  baseline.run_id = base.run_id + "-baseline";
  baseline.run_dir = base.run_dir / "baseline";
  baseline.tags["drill"] = "baseline";
  baseline.restart = run::RestartPolicy::kRequeue;
  return baseline;
}

/// The preempted run's config: restarted locally after each of the `preemptions`.
run::SupervisorConfig DrilledConfig(const run::SupervisorConfig& base, int preemptions,
                                    Duration backoff) {
  run::SupervisorConfig drilled = base;
  drilled.run_id = base.run_id + "-drill";
  drilled.run_dir = base.run_dir / "drill";
  drilled.tags["drill"] = "preempted";
  drilled.restart = run::RestartPolicy::kLocal;
  drilled.max_restarts = preemptions;
  drilled.restart_backoff = backoff;
  return drilled;
}

/// Keeps the findings as a note on the preempted run; a ledger that fails is a warning.
void NoteFindingsInLedger(ledger::Ledger& db, std::optional<ledger::RunId> drilled_run,
                          const nlohmann::json& record) {
  if (!drilled_run) return;
  nlohmann::json payload = record;
  payload["kind"] = "drill";
  if (auto added =
          db.AddEvent(*drilled_run, std::nullopt, ledger::EventType::kNote, ledger::Now(), payload);
      !added) {
    log::Warning("ledger: the drill's findings not recorded: {}", added.error().message);
  }
}

void ReportDrill(const nlohmann::json& record, const run::DrillFindings& findings,
                 const fs::path& stored, std::optional<ledger::RunId> baseline_run,
                 std::optional<ledger::RunId> drilled_run, const GlobalOptions& global,
                 Streams& s) {
  if (global.json) {
    nlohmann::json doc = record;
    doc.erase("v");
    doc["stored"] = stored.string();
    doc["ledger_runs"] = {
        {"baseline", baseline_run ? nlohmann::json(*baseline_run) : nlohmann::json()},
        {"preempted", drilled_run ? nlohmann::json(*drilled_run) : nlohmann::json()}};
    WriteJson(s, doc);
  } else {
    PrintFindings(s.out, findings, stored);
  }
}

Result<void> RunDrill(DrillOptions o, const GlobalOptions& global, Streams& s) {
  if (o.preemptions < 1)
    return Fail(ErrorCode::kBadInput, "option --preemptions: must be at least 1");
  SuperviseOptions& so = o.supervise;
  if (so.price.empty() && so.offer.empty() && so.gpu.empty() && so.spec.empty())
    so.price = "0/h";  // a local drill
  SuperviseSetup setup = FRUGAL_TRY(BuildSupervisorConfig(so, global));
  run::SupervisorConfig& base = setup.config;
  base.child_stdout = run::ChildStdout::kToStderr;  // the report owns stdout
  if (fs::exists(base.run_dir / "baseline") || fs::exists(base.run_dir / "drill")) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("{} holds an earlier drill; give a new --run-id or --run-dir",
                            base.run_dir.string()));
  }
  const std::string name = RecordName(o, base);
  // Checked before the drill runs: the record it ends with is a file of that name.
  FRUGAL_TRY(
      CheckFileName(name, o.name.empty() ? "the drill's name (give --name)" : "option --name"));
  Result<Duration> backoff = ParseDuration(o.restart_backoff);
  if (!backoff)
    return Fail(ErrorCode::kBadInput, "option --restart-backoff: " + backoff.error().message);
  std::unique_ptr<ledger::Ledger> db =
      FRUGAL_TRY(ledger::OpenForCommand(global.db, ledger::CreateMode::kCreateIfMissing));

  const run::SupervisorConfig baseline = BaselineConfig(base);
  log::Info("drill: the uninterrupted run");
  std::optional<ledger::RunId> baseline_run;
  const run::RunResult before = FRUGAL_TRY(RunBaseline(baseline, setup, *db, &baseline_run));
  if (before.outcome != run::RunOutcome::kFinished) {
    return Fail(ErrorCode::kFailed,
                "drill: the uninterrupted run did not finish: " + before.message);
  }

  const run::SupervisorConfig drilled = DrilledConfig(base, o.preemptions, *backoff);
  const Duration load = before.first_progress.value_or(Duration(0));
  auto source = std::make_unique<run::DrillPreemptions>(o.preemptions, before.last_step, load,
                                                        before.usage.wall - load, o.seed);
  log::Info("drill: the run with {} injected preemptions", o.preemptions);
  const std::unique_ptr<run::RunSession> session = FRUGAL_TRY(OpenSession(drilled, setup, *db));
  run::DrillObserver observer(session->recorder());
  run::Supervisor& supervisor = session->NewSupervisor(&observer);
  supervisor.AddPreemptionSource(std::move(source));
  const run::RunResult after = FRUGAL_TRY(supervisor.Run());
  session->Flush();
  const std::optional<ledger::RunId> drilled_run = session->ledger_run_id();

  const run::DrillFindings findings = run::AssessDrill(before, after, observer, o.preemptions);
  const nlohmann::json record =
      run::DrillRecordJson(name, base.command, findings, std::chrono::system_clock::now());
  const fs::path stored = FRUGAL_TRY(run::SaveDrillRecord(name, record));
  NoteFindingsInLedger(*db, drilled_run, record);
  ReportDrill(record, findings, stored, baseline_run, drilled_run, global, s);
  if (!findings.spot_ready) return Fail(ErrorCode::kFailed, "the job is not spot-ready");
  return {};
}

}  // namespace

void RegisterDrill(CLI::App& app, GlobalOptions& global, Action& action) {
  auto opts = std::make_shared<DrillOptions>();
  CLI::App* cmd = app.add_subcommand(
      "drill",
      "Run a job uninterrupted, then with injected preemptions; say whether it is spot-ready: "
      "frugal drill [options] -- COMMAND...");
  AddSuperviseOptions(cmd, opts->supervise);
  cmd->add_option("--preemptions", opts->preemptions, "Preemptions to inject")
      ->capture_default_str();
  cmd->add_option("--seed", opts->seed, "Seed of the preemption moments")
      ->capture_default_str()
      ->check(WholeNumber(0, std::numeric_limits<int64_t>::max()));
  cmd->add_option("--name", opts->name,
                  "Name the findings are stored under (default: the spec's or script's)");
  cmd->add_option("--restart-backoff", opts->restart_backoff, "Delay before each restart")
      ->capture_default_str();
  cmd->callback([opts, &global, &action] {
    action = [opts, &global](Streams& s) -> Result<void> { return RunDrill(*opts, global, s); };
  });
}

}  // namespace frugal::cli
