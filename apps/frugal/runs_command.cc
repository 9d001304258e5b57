// frugal runs list|show: what ran, where, for how long and for how much.

#include <fmt/format.h>

#include <limits>

#include "commands.h"
#include "frugal/core/table.h"
#include "frugal/core/text.h"
#include "frugal/ledger/ledger.h"
#include "frugal/ledger/run_json.h"
#include "frugal/run/ledger_recorder.h"

namespace frugal::cli {
namespace {

using ledger::Timestamp;

struct ListOptions {
  std::string since;
  std::string until;
  std::vector<std::string> tags;
  std::string status;
  int64_t limit = 0;
};

std::string Elapsed(const ledger::Run& run, Timestamp now) {
  const Timestamp end = run.end.value_or(now);
  return FormatDuration(std::chrono::duration_cast<Duration>(end - run.start));
}

Result<void> RunList(const ListOptions& o, const GlobalOptions& global, Streams& s) {
  const Timestamp now = ledger::Now();
  const ledger::RunFilter filter =
      FRUGAL_TRY(ledger::ParseRunFilter({o.since, o.until, o.status, o.tags, o.limit}, now, "--"));
  auto db = FRUGAL_TRY(ledger::OpenForCommand(global.db, ledger::CreateMode::kMustExist));
  std::vector<ledger::RunSummary> runs = FRUGAL_TRY(db->ListRuns(filter, now));
  if (global.json) {
    WriteJson(s, ledger::RunListJson(runs));
    return {};
  }
  if (runs.empty()) {
    s.out << "No runs match.\n";
    return {};
  }
  Table t({{"ID", Align::kRight},
           {"NAME"},
           {"STATUS"},
           {"TEAM"},
           {"PROJECT"},
           {"OWNER"},
           {"GPU"},
           {"TIER"},
           {"STARTED"},
           {"ELAPSED", Align::kRight},
           {"GPU-H", Align::kRight},
           {"COST", Align::kRight}});
  Money total;
  for (const auto& r : runs) {
    total += r.cost;
    t.AddRow({std::to_string(r.run.id), r.run.name,
              std::string(ledger::RunStatusName(r.run.status)),
              r.run.tags.team.empty() ? "-" : r.run.tags.team,
              r.run.tags.project.empty() ? "-" : r.run.tags.project,
              r.run.tags.owner.empty() ? "-" : r.run.tags.owner, r.gpu.empty() ? "-" : r.gpu,
              r.tier ? std::string(CapacityTierName(*r.tier)) : "-",
              ledger::FormatTimestamp(r.run.start), Elapsed(r.run, now),
              fmt::format("{:.2f}", r.gpu_hours), r.cost.ToString()});
  }
  t.Render(s.out);
  s.out << fmt::format("{}, {} in total\n", Counted(static_cast<int64_t>(runs.size()), "run"),
                       total.ToString());
  return {};
}

std::string Optional(const std::optional<double>& v, const char* format_unit) {
  return v ? fmt::format(fmt::runtime(format_unit), *v) : std::string("-");
}

void PrintDetail(const ledger::RunDetail& d, Timestamp now, Streams& s) {
  const ledger::Run& run = d.summary.run;
  s.out << fmt::format("Run {}: {}\n", run.id, run.name);
  s.out << fmt::format("  status    {}\n", ledger::RunStatusName(run.status));
  s.out << fmt::format("  command   {}\n", run.command.empty() ? "-" : run.command);
  s.out << fmt::format("  tags      {}\n", run.tags.ToJson().dump());
  s.out << fmt::format("  started   {}\n", ledger::FormatTimestamp(run.start));
  s.out << fmt::format("  ended     {}\n", run.end ? ledger::FormatTimestamp(*run.end) : "-");
  s.out << fmt::format("  elapsed   {}\n", Elapsed(run, now));
  s.out << fmt::format("  spend     {}  ({:.2f} GPU-hours)\n", d.summary.cost.ToString(),
                       d.summary.gpu_hours);
  if (run.budget) s.out << fmt::format("  budget    {}\n", run.budget->ToString());
  s.out << fmt::format("  gpu util  {}  cpu {}  samples {}\n",
                       Optional(d.utilization.gpu_util, "{:.0f}%"),
                       Optional(d.utilization.cpu_util, "{:.0f}%"), d.utilization.samples);
  s.out << "\nSegments\n";
  Table t({{"#", Align::kRight},
           {"OFFER"},
           {"GPU"},
           {"TIER"},
           {"PRICE", Align::kRight},
           {"START"},
           {"LENGTH", Align::kRight},
           {"ENDED"},
           {"COST", Align::kRight}});
  // Numbered within the run, as the journal and the supervisor's log number them.
  int number = 0;
  for (const ledger::Segment& seg : d.segments) {
    t.AddRow(
        {std::to_string(++number),
         fmt::format("{}:{}:{}", seg.offer.cloud, seg.offer.instance_type, seg.offer.region),
         seg.offer.gpu.empty() ? "-" : fmt::format("{}x{}", seg.offer.gpu_count, seg.offer.gpu),
         std::string(CapacityTierName(seg.offer.tier)), seg.offer.price.ToString(),
         ledger::FormatTimestamp(seg.start), FormatDuration(seg.Length(now)),
         seg.end_reason ? std::string(ledger::EndReasonName(*seg.end_reason)) : "running",
         seg.Cost(now).ToString()});
  }
  t.Render(s.out);
  if (!d.events.empty()) {
    s.out << "\nEvents\n";
    for (const ledger::Event& e : d.events) {
      s.out << fmt::format("  {}  {:<22} {}\n", ledger::FormatTimestamp(e.time),
                           ledger::EventTypeName(e.type), e.payload.dump());
    }
  }
}

Result<void> RunShow(const std::string& ref, const GlobalOptions& global, Streams& s) {
  const Timestamp now = ledger::Now();
  auto db = FRUGAL_TRY(ledger::OpenForCommand(global.db, ledger::CreateMode::kMustExist));
  const int64_t id = FRUGAL_TRY(run::ResolveRunRef(*db, ref));
  const ledger::RunDetail d = FRUGAL_TRY(db->GetRunDetail(id, now));
  if (!global.json) {
    PrintDetail(d, now, s);
    return {};
  }
  WriteJson(s, ledger::RunDetailJson(d, now));
  return {};
}

}  // namespace

void RegisterRuns(CLI::App& app, GlobalOptions& global, Action& action) {
  CLI::App* cmd = app.add_subcommand("runs", "Runs recorded in the ledger: where, how long, cost");
  cmd->require_subcommand(0, 1);

  auto list = std::make_shared<ListOptions>();
  // `frugal runs` alone is `frugal runs list`.
  cmd->callback([&, cmd, list] {
    if (cmd->get_subcommands().empty())
      action = [&global, list](Streams& s) { return RunList(*list, global, s); };
  });
  CLI::App* l = cmd->add_subcommand("list", "Runs, newest first, with spend and GPU-hours");
  l->add_option("--since", list->since, "Active since: a duration back (7d) or a date");
  l->add_option("--until", list->until, "Started before: a duration back or a date");
  l->add_option("--tag", list->tags, "key=value; repeat to require several")
      ->allow_extra_args(false);
  l->add_option("--status", list->status,
                "running, succeeded, failed, budget_stopped, cancelled, lost, paused, pruned");
  l->add_option("--limit", list->limit, "Show at most N runs (0: all)")
      ->check(WholeNumber(0, 1'000'000'000));
  l->callback(
      [&, list] { action = [&global, list](Streams& s) { return RunList(*list, global, s); }; });

  auto id = std::make_shared<std::string>();
  CLI::App* sh = cmd->add_subcommand("show", "One run: segments, events, spend, utilization");
  sh->add_option("RUN", *id, "The run: its ledger number, or the run id 'frugal run' printed")
      ->required();
  sh->callback([&, id] { action = [&global, id](Streams& s) { return RunShow(*id, global, s); }; });
}

}  // namespace frugal::cli
