// frugal audit: find waste in the ledger and imported bills, ranked by saving per month.

#include <fmt/format.h>

#include <sstream>

#include "commands.h"
#include "frugal/app/audit.h"
#include "frugal/audit/audit.h"
#include "frugal/audit/audit_output.h"
#include "frugal/catalog/catalog.h"
#include "frugal/core/atomic_file.h"
#include "frugal/core/paths.h"
#include "frugal/ledger/focus.h"
#include "frugal/ledger/ledger.h"

namespace frugal::cli {
namespace {

struct AuditCommandOptions {
  std::string since = "90d";
  std::vector<std::string> billing;
  std::string inventory;
  std::string thresholds;
  std::string format = "table";
  std::string output;
};

Result<void> RunAuditCommand(const AuditCommandOptions& o, const GlobalOptions& global,
                             Streams& s) {
  app::AuditRequest request;
  request.since = o.since;
  request.prefix = "--";
  audit::AuditOptions& options = request.options;
  options.now = ledger::Now();
  options.thresholds = FRUGAL_TRY(audit::ResolveThresholds(o.thresholds));
  const catalog::Catalog catalog = FRUGAL_TRY(LoadCatalog(global));
  options.catalog = &catalog;
  const catalog::TransferPrices transfer = FRUGAL_TRY(catalog::LoadShippedTransferPrices());
  options.transfer = &transfer;
  std::optional<audit::Inventory> inventory;
  if (!o.inventory.empty()) {
    inventory = FRUGAL_TRY(audit::LoadInventory(o.inventory, catalog, options.now));
    options.inventory = &*inventory;
  }
  // Bills are imported into the ledger first (re-importing a file adds nothing), so later
  // audits see them too.
  auto db = FRUGAL_TRY(
      ledger::OpenForCommand(global.db, o.billing.empty() ? ledger::CreateMode::kMustExist
                                                          : ledger::CreateMode::kCreateIfMissing));
  for (const std::string& file : o.billing) {
    const ledger::FocusImportSummary sum = FRUGAL_TRY(ledger::ImportFocus(*db, file));
    s.err << fmt::format("{}: {} rows, {} imported, {} already in the ledger, {} skipped\n", file,
                         sum.rows, sum.imported, sum.duplicates, sum.skipped.size());
    if (const std::string note = ledger::SubMicroNote(sum); !note.empty()) {
      s.err << fmt::format("{}: {}\n", file, note);
    }
  }
  const audit::AuditResult result = FRUGAL_TRY(app::RunAudit(*db, std::move(request)));
  std::ostringstream text;
  const bool json = global.json || o.format == "json";
  if (json) {
    nlohmann::json doc = audit::AuditToJson(result);
    doc["schema_version"] = 1;
    text << doc.dump(2) << "\n";
  } else if (o.format == "md") {
    audit::WriteAuditMarkdown(result, text);
  } else if (o.format == "html") {
    audit::WriteAuditHtml(result, text);
  } else {
    audit::WriteAuditTable(result, text);
  }
  if (!o.output.empty()) {
    FRUGAL_TRY(WriteFileAtomically(o.output, text.str()));
    s.out << fmt::format("wrote {} ({} finding{}, {} per month to save)\n", o.output,
                         result.findings.size(), result.findings.size() == 1 ? "" : "s",
                         audit::MoneyText(result.TotalSavingPerMonth()));
  } else if (json) {
    WriteJson(s, audit::AuditToJson(result));
  } else {
    s.out << text.str();
  }
  return {};
}

}  // namespace

void RegisterAudit(CLI::App& app, GlobalOptions& global, Action& action) {
  auto opts = std::make_shared<AuditCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "audit", "Find idle, under-used and mis-priced GPU spend, ranked by saving per month");
  cmd->add_option("--since", opts->since, "Start: a duration back (90d) or a date (default 90d)");
  cmd->add_option("--billing", opts->billing, "FOCUS CSV bills to import and audit")
      ->expected(1, -1);
  cmd->add_option("--inventory", opts->inventory,
                  "Running capacity (YAML or CSV; see docs/audit.md) for the idle, forgotten and "
                  "commitment rules");
  cmd->add_option("--thresholds", opts->thresholds,
                  "YAML file of thresholds and budgets (default: audit.yaml in the config dir)");
  cmd->add_option("--format", opts->format, "table, md, html or json")
      ->check(CLI::IsMember({"table", "md", "html", "json"}));
  cmd->add_option("-o,--output", opts->output, "Write the report to FILE");
  cmd->callback([&, opts] {
    action = [&global, opts](Streams& s) { return RunAuditCommand(*opts, global, s); };
  });
}

}  // namespace frugal::cli
