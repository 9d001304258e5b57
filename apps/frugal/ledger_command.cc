// frugal ledger export|import|info|sweep: FOCUS in and out, and ledger upkeep.

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "commands.h"
#include "frugal/app/sweep.h"
#include "frugal/core/atomic_file.h"
#include "frugal/core/paths.h"
#include "frugal/core/text.h"
#include "frugal/ledger/focus.h"
#include "frugal/ledger/ledger.h"
#include "frugal/ledger/schema.h"
#include "frugal/ledger/window.h"

namespace frugal::cli {
namespace {

struct ExportOptions {
  std::string format;
  std::string since = "30d";
  std::string until;
  std::string output;
};

Result<void> RunExport(const ExportOptions& o, const GlobalOptions& global, Streams& s) {
  ledger::FocusExportOptions options;
  options.now = ledger::Now();
  const ledger::TimeWindow window =
      FRUGAL_TRY(ledger::ParseWindow(o.since, o.until, options.now, "--"));
  options.since = window.since;
  options.until = window.until;
  if (global.json && o.output.empty()) {
    // The CSV would be the document on stdout; --json promises JSON there instead.
    return Fail(ErrorCode::kBadInput,
                "--json: the FOCUS CSV goes to stdout; give -o FILE to get a JSON summary instead");
  }
  auto db = FRUGAL_TRY(ledger::OpenForCommand(global.db, ledger::CreateMode::kMustExist));
  std::ostringstream csv;
  const int64_t rows = FRUGAL_TRY(ledger::ExportFocus(*db, options, csv));
  if (o.output.empty()) {
    s.out << csv.str();
  } else {
    // Nothing half-written: the file appears only once complete.
    FRUGAL_TRY(WriteFileAtomically(o.output, csv.str()));
    if (global.json) {
      WriteJson(s, {{"rows", rows}, {"output", o.output}});
    } else {
      s.err << fmt::format("Wrote {} FOCUS rows to {}\n", rows, o.output);
    }
  }
  return {};
}

struct ImportOptions {
  std::string format;
  std::string file;
  bool skip_bad_rows = false;
};

Result<void> RunImport(const ImportOptions& o, const GlobalOptions& global, Streams& s) {
  // Read and check the file first: a bad file leaves no new, empty ledger behind.
  ledger::FocusBatch batch = FRUGAL_TRY(ledger::ReadFocus(
      o.file, o.skip_bad_rows ? ledger::BadRows::kSkip : ledger::BadRows::kRefuse));
  auto db = FRUGAL_TRY(ledger::OpenForCommand(global.db, ledger::CreateMode::kCreateIfMissing));
  const ledger::FocusImportSummary sum = FRUGAL_TRY(ledger::ImportFocus(*db, std::move(batch)));
  // What was left out or left unlinked is a diagnostic, whatever stdout carries.
  for (const std::string& why : sum.skipped) s.err << "frugal: warning: skipped " << why << "\n";
  for (const std::string& why : sum.warnings) s.err << "frugal: warning: " << why << "\n";
  if (global.json) {
    WriteJson(s, {{"file", o.file},
                  {"rows", sum.rows},
                  {"imported", sum.imported},
                  {"duplicates", sum.duplicates},
                  {"bad_rows", sum.bad_rows},
                  {"skipped", sum.skipped},
                  {"linked_to_runs", sum.linked},
                  {"warnings", sum.warnings},
                  {"billed_cost_usd", sum.billed.ToPlainString()},
                  {"billed_cost_exact_usd", sum.billed_exact},
                  {"sub_micro_rows", sum.sub_micro_rows},
                  {"repaired", sum.repaired},
                  {"ignored_columns", sum.ignored_columns}});
    return {};
  }
  s.out << fmt::format("{}: {} rows read, {} imported ({}), {} already in the ledger", o.file,
                       sum.rows, sum.imported, sum.billed.ToString(), sum.duplicates);
  if (sum.bad_rows > 0) s.out << fmt::format(", {} bad rows skipped", sum.bad_rows);
  if (sum.linked > 0) s.out << fmt::format(", {} linked to runs", sum.linked);
  s.out << "\n";
  for (const std::string& column : sum.ignored_columns) {
    s.out << fmt::format("  ignored column '{}': not FOCUS and not prefixed x_\n", column);
  }
  for (const auto& [quirk, count] : sum.repaired) {
    s.out << fmt::format("  tolerated in {} rows: {}\n", count, quirk);
  }
  if (const std::string note = ledger::SubMicroNote(sum); !note.empty()) {
    s.out << "  " << note << "\n";
  }
  return {};
}

Result<void> RunInfo(const GlobalOptions& global, Streams& s) {
  auto db = FRUGAL_TRY(ledger::OpenForCommand(global.db, ledger::CreateMode::kMustExist));
  const int version = FRUGAL_TRY(ledger::SchemaVersion(db->connection()));
  nlohmann::json counts;
  for (const char* table :
       {"runs", "segments", "events", "samples", "studies", "trials", "billing_rows"}) {
    counts[table] = FRUGAL_TRY(db->CountRows(table));
  }
  if (global.json) {
    WriteJson(
        s, {{"location", db->connection().where()}, {"ledger_schema", version}, {"rows", counts}});
    return {};
  }
  s.out << fmt::format("{:<14}{}\n{:<14}{}\n", "ledger", db->connection().where(), "schema",
                       version);
  for (auto& [table, n] : counts.items())
    s.out << fmt::format("{:<14}{}\n", table, n.get<int64_t>());
  return {};
}

/// The default heartbeat of `frugal run` is 10 s and a supervisor promises one a minute; a
/// shorter --stale is allowed (a run with --heartbeat-interval 200ms) but warned about.
constexpr Duration kPromisedHeartbeat = std::chrono::minutes(1);

struct SweepOptions {
  std::string stale = "10m";
};

Result<void> RunSweep(const SweepOptions& o, const GlobalOptions& global, Streams& s) {
  const Duration stale =
      FRUGAL_TRY(ParseDuration(o.stale).map_error([](Error e) { return e.Wrap("--stale"); }));
  // Zero would mark every running run lost, live or not.
  if (stale <= Duration::zero()) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("--stale: {} would mark every running run lost; give how long a "
                            "supervisor may stay silent (default 10m)",
                            o.stale));
  }
  if (stale < kPromisedHeartbeat) {
    s.err << fmt::format(
        "frugal: warning: --stale {} is shorter than the heartbeat a supervisor promises ({}): "
        "live runs with a longer --heartbeat-interval are marked lost too\n",
        o.stale, FormatDuration(kPromisedHeartbeat));
  }
  auto db = FRUGAL_TRY(ledger::OpenForCommand(global.db, ledger::CreateMode::kMustExist));
  const app::SweepResult swept = FRUGAL_TRY(app::SweepLostRuns(*db, {ledger::Now(), stale}));
  if (global.json) {
    WriteJson(s, app::SweepJson(swept));
    return {};
  }
  const std::vector<ledger::RunId>& lost = swept.lost;
  std::map<ledger::RunId, std::string> from_journal;
  for (const app::CaughtUpRun& c : swept.caught_up) from_journal[c.run] = c.from_journal;
  s.out << fmt::format("{} marked lost (no heartbeat for {})\n",
                       Counted(static_cast<int64_t>(lost.size()), "run"), FormatDuration(stale));
  for (ledger::RunId id : lost) {
    s.out << "  run " << id;
    if (from_journal.contains(id)) s.out << ": from its journal, " << from_journal[id];
    s.out << "\n";
  }
  for (const auto& [id, what] : from_journal) {
    if (std::find(lost.begin(), lost.end(), id) == lost.end()) {
      s.out << "  run " << id << " (lost before): from its journal, " << what << "\n";
    }
  }
  return {};
}

struct DownsampleOptions {
  std::string older_than = "30d";
  std::string bucket = "5m";
};

Result<void> RunDownsample(const DownsampleOptions& o, const GlobalOptions& global, Streams& s) {
  const Duration age = FRUGAL_TRY(
      ParseDuration(o.older_than).map_error([](Error e) { return e.Wrap("--older-than"); }));
  const Duration bucket =
      FRUGAL_TRY(ParseDuration(o.bucket).map_error([](Error e) { return e.Wrap("--bucket"); }));
  auto db = FRUGAL_TRY(ledger::OpenForCommand(global.db, ledger::CreateMode::kMustExist));
  const int64_t removed = FRUGAL_TRY(db->Downsample(ledger::Now() - age, bucket));
  if (global.json) {
    WriteJson(s, {{"rows_replaced", removed}});
    return {};
  }
  s.out << fmt::format("{} samples older than {} replaced by {} averages\n", removed,
                       FormatDuration(age), FormatDuration(bucket));
  return {};
}

}  // namespace

void RegisterLedger(CLI::App& app, GlobalOptions& global, Action& action) {
  CLI::App* cmd = app.add_subcommand("ledger", "FOCUS export and import; ledger upkeep");
  cmd->require_subcommand(1);

  auto exp = std::make_shared<ExportOptions>();
  CLI::App* e = cmd->add_subcommand("export", "Measured spend as FOCUS 1.2 CSV");
  // FOCUS is the only format: --format may be left out.
  exp->format = "focus";
  e->add_option("--format", exp->format, "Output format (focus, the default)")
      ->check(CLI::IsMember({"focus"}));
  e->add_option("--since", exp->since, "Start: a duration back (30d) or a date (default 30d)");
  e->add_option("--until", exp->until, "End (exclusive); default now");
  e->add_option("-o,--output", exp->output,
                "Write to FILE (atomically) instead of stdout; with --json, print a summary");
  e->callback(
      [&, exp] { action = [&global, exp](Streams& s) { return RunExport(*exp, global, s); }; });

  auto imp = std::make_shared<ImportOptions>();
  CLI::App* i = cmd->add_subcommand("import", "Cloud bills in FOCUS CSV, kept apart from runs");
  imp->format = "focus";
  i->add_option("--format", imp->format, "Input format (focus, the default)")
      ->check(CLI::IsMember({"focus"}));
  i->add_option("FILE", imp->file, "FOCUS CSV file")->required();
  i->add_flag("--skip-bad-rows", imp->skip_bad_rows,
              "Import the readable rows of a file with bad ones, listing what was skipped "
              "(default: refuse the whole file)");
  i->callback(
      [&, imp] { action = [&global, imp](Streams& s) { return RunImport(*imp, global, s); }; });

  cmd->add_subcommand("info", "Where the ledger is, its schema version and row counts")
      ->callback([&] { action = [&global](Streams& s) { return RunInfo(global, s); }; });

  auto sweep = std::make_shared<SweepOptions>();
  CLI::App* sw = cmd->add_subcommand(
      "sweep", "Mark runs whose supervisor stopped heartbeating as lost, costed to the last beat");
  sw->add_option("--stale", sweep->stale, "Silence that counts as dead, more than 0 (default 10m)");
  sw->callback([&, sweep] {
    action = [&global, sweep](Streams& s) { return RunSweep(*sweep, global, s); };
  });

  auto down = std::make_shared<DownsampleOptions>();
  CLI::App* d = cmd->add_subcommand(
      "downsample", "Replace old utilization samples by averages (reports are unaffected)");
  d->add_option("--older-than", down->older_than, "Samples older than this (default 30d)");
  d->add_option("--bucket", down->bucket, "One averaged sample per run per bucket (default 5m)");
  d->callback([&, down] {
    action = [&global, down](Streams& s) { return RunDownsample(*down, global, s); };
  });
}

}  // namespace frugal::cli
