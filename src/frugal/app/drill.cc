#include "frugal/app/drill.h"

#include <fmt/format.h>

#include <chrono>

#include "frugal/core/file_name.h"
#include "frugal/core/log.h"
#include "frugal/ledger/ledger.h"
#include "frugal/run/run_session.h"

namespace frugal::app {
namespace {

namespace fs = std::filesystem;

/// The record's name: --name, else the spec's name, else the script or program's stem.
std::string RecordName(const DrillRequest& o, const run::SupervisorConfig& config) {
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

/// The two runs on `db`, judged.
Result<DrillResult> DrillOn(ledger::Ledger& db, const DrillRequest& o, const SuperviseSetup& setup,
                            Duration backoff) {
  const run::SupervisorConfig& base = setup.config;
  DrillResult result;
  const run::SupervisorConfig baseline = BaselineConfig(base);
  log::Info("drill: the uninterrupted run");
  const run::RunResult before = FRUGAL_TRY(RunBaseline(baseline, setup, db, &result.baseline_run));
  if (before.outcome != run::RunOutcome::kFinished) {
    return Fail(ErrorCode::kFailed,
                "drill: the uninterrupted run did not finish: " + before.message);
  }

  const run::SupervisorConfig drilled = DrilledConfig(base, o.preemptions, backoff);
  const Duration load = before.first_progress.value_or(Duration(0));
  auto source = std::make_unique<run::DrillPreemptions>(o.preemptions, before.last_step, load,
                                                        before.usage.wall - load, o.seed);
  log::Info("drill: the run with {} injected preemptions", o.preemptions);
  const std::unique_ptr<run::RunSession> session = FRUGAL_TRY(OpenSession(drilled, setup, db));
  run::DrillObserver observer(session->recorder());
  run::Supervisor& supervisor = session->NewSupervisor(&observer);
  supervisor.AddPreemptionSource(std::move(source));
  const run::RunResult after = FRUGAL_TRY(supervisor.Run());
  session->Flush();
  result.drilled_run = session->ledger_run_id();

  result.findings = run::AssessDrill(before, after, observer, o.preemptions);
  const std::string name = RecordName(o, base);
  result.record =
      run::DrillRecordJson(name, base.command, result.findings, std::chrono::system_clock::now());
  result.stored = FRUGAL_TRY(run::SaveDrillRecord(name, result.record));
  NoteFindingsInLedger(db, result.drilled_run, result.record);
  return result;
}

}  // namespace

Result<DrillResult> Drill(DrillRequest o, const SuperviseContext& context) {
  if (o.preemptions < 1)
    return Fail(ErrorCode::kBadInput, "option --preemptions: must be at least 1");
  SuperviseRequest& so = o.supervise;
  if (so.price.empty() && so.offer.empty() && so.gpu.empty() && so.spec.empty())
    so.price = "0/h";  // a local drill
  SuperviseSetup setup = FRUGAL_TRY(SetUpSupervisedRun(so, context));
  run::SupervisorConfig& base = setup.config;
  base.child_stdout = run::ChildStdout::kToStderr;  // the report owns stdout
  if (fs::exists(base.run_dir / "baseline") || fs::exists(base.run_dir / "drill")) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("{} holds an earlier drill; give a new --run-id or --run-dir",
                            base.run_dir.string()));
  }
  // Checked before the drill runs: the record it ends with is a file of that name.
  FRUGAL_TRY(CheckFileName(RecordName(o, base),
                           o.name.empty() ? "the drill's name (give --name)" : "option --name"));
  Result<Duration> backoff = ParseDuration(o.restart_backoff);
  if (!backoff)
    return Fail(ErrorCode::kBadInput, "option --restart-backoff: " + backoff.error().message);
  DrillResult result;
  FRUGAL_TRY(
      context.ledger(ledger::CreateMode::kCreateIfMissing, [&](ledger::Ledger& db) -> Result<void> {
        Result<DrillResult> drilled = DrillOn(db, o, setup, *backoff);
        if (!drilled) return Fail(drilled.error());
        result = std::move(*drilled);
        return {};
      }));
  return result;
}

nlohmann::json DrillJson(const DrillResult& r) {
  nlohmann::json doc = r.record;
  doc.erase("v");
  doc["stored"] = r.stored.string();
  doc["ledger_runs"] = {
      {"baseline", r.baseline_run ? nlohmann::json(*r.baseline_run) : nlohmann::json()},
      {"preempted", r.drilled_run ? nlohmann::json(*r.drilled_run) : nlohmann::json()}};
  return doc;
}

}  // namespace frugal::app
