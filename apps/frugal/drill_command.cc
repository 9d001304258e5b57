// frugal drill: run a job uninterrupted, then with injected preemptions, and judge whether it
// is ready for spot capacity. See src/frugal/app/drill.h.

#include <fmt/format.h>

#include <limits>

#include "commands.h"
#include "frugal/app/drill.h"
#include "run_support.h"

namespace frugal::cli {
namespace {

namespace fs = std::filesystem;

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

Result<void> RunDrill(const app::DrillRequest& o, const GlobalOptions& global, Streams& s) {
  const app::DrillResult r = FRUGAL_TRY(app::Drill(o, SuperviseContextOf(global)));
  if (global.json) {
    WriteJson(s, app::DrillJson(r));
  } else {
    PrintFindings(s.out, r.findings, r.stored);
  }
  if (!r.findings.spot_ready) return Fail(ErrorCode::kFailed, "the job is not spot-ready");
  return {};
}

}  // namespace

void RegisterDrill(CLI::App& app, GlobalOptions& global, Action& action) {
  auto opts = std::make_shared<app::DrillRequest>();
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
