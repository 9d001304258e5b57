// frugal report: spend by team/project/owner/gpu/tier/cloud, spot share and savings, cost per
// successful run, month-end forecast.

#include <fmt/format.h>

#include "commands.h"
#include "frugal/app/report.h"
#include "frugal/audit/thresholds.h"
#include "frugal/ledger/ledger.h"
#include "frugal/ledger/report.h"

namespace frugal::cli {
namespace {

struct ReportCommandOptions {
  std::string by;
  std::string since = "30d";
  std::string until;
  std::string thresholds;
  std::string format = "table";
};

Result<void> RunReport(const ReportCommandOptions& o, const GlobalOptions& global, Streams& s) {
  app::ReportRequest request;
  request.by = o.by;
  request.since = o.since;
  request.until = o.until;
  request.prefix = "--";
  request.now = ledger::Now();
  request.burn_window = FRUGAL_TRY(audit::ResolveThresholds(o.thresholds)).BudgetBurnWindow();
  auto db = FRUGAL_TRY(ledger::OpenForCommand(global.db, ledger::CreateMode::kMustExist));
  const ledger::Report report = FRUGAL_TRY(app::BuildReport(*db, request));
  if (global.json || o.format == "json") {
    WriteJson(s, ledger::ReportToJson(report));
  } else if (o.format == "csv") {
    ledger::WriteReportCsv(report, s.out);
  } else {
    ledger::WriteReportTable(report, s.out);
  }
  return {};
}

}  // namespace

void RegisterReport(CLI::App& app, GlobalOptions& global, Action& action) {
  auto opts = std::make_shared<ReportCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "report", "Spend, GPU-hours, spot share and savings, cost per successful run, forecast");
  cmd->add_option("--by", opts->by,
                  "Group by: team,project,owner,gpu,tier,cloud,workload (comma list)");
  cmd->add_option("--since", opts->since, "Start: a duration back (30d) or a date (default 30d)");
  cmd->add_option("--until", opts->until,
                  "End (exclusive): a duration back or a date; default now");
  cmd->add_option("--thresholds", opts->thresholds,
                  "YAML file whose budget_burn_days is the forecast's burn window, as the audit's "
                  "(default: audit.yaml in the config dir)");
  cmd->add_option("--format", opts->format, "table, csv or json")
      ->check(CLI::IsMember({"table", "csv", "json"}));
  cmd->callback(
      [&, opts] { action = [&global, opts](Streams& s) { return RunReport(*opts, global, s); }; });
}

}  // namespace frugal::cli
