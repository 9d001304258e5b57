// frugal profile [--steps N | --for 2m] [--name NAME] -- COMMAND: run the real command a short
// while under the protocol and store what it measured on this machine in the ledger; `frugal
// profile list` and `frugal profile show NAME` read them back. The measuring lives in
// run/profile.h, the storage in ledger/profiles.h (docs/profile.md).

#include <fmt/format.h>

#include "commands.h"
#include "frugal/core/duration.h"
#include "frugal/core/log.h"
#include "frugal/core/paths.h"
#include "frugal/core/table.h"
#include "frugal/ledger/ledger.h"
#include "frugal/ledger/profile_json.h"
#include "frugal/ledger/profiles.h"
#include "frugal/run/profile.h"
#include "frugal/run/run_text.h"

namespace frugal::cli {

namespace {

/// Used when neither --steps nor --for is given: a profile is a short run, never the whole job.
constexpr const char* kDefaultFor = "2m";

struct ProfileOptions {
  std::optional<int64_t> steps;
  std::string for_duration;
  std::string name;
  std::vector<std::string> command;
  std::string show;  ///< NAME or id for `profile show`
  std::string list_name;
};

std::string GiB(uint64_t bytes) {
  return fmt::format("{:.2f} GiB", static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0));
}

/// A rate with three significant digits, whole numbers from 100 up: "12.3", "20412".
std::string Rate3(double rate) {
  return rate >= 100 ? fmt::format("{:.0f}", rate) : fmt::format("{:.3g}", rate);
}

/// "12.3 steps/s, 50412 tokens/s"
std::string Rates(const ledger::NewProfile& r) {
  std::string text = Rate3(r.steps_per_second) + " steps/s";
  if (r.tokens_per_second) text += ", " + Rate3(*r.tokens_per_second) + " tokens/s";
  if (r.samples_per_second) text += ", " + Rate3(*r.samples_per_second) + " samples/s";
  return text;
}

void PrintProfile(const ledger::Profile& p, Streams& s) {
  const ledger::NewProfile& r = p.record;
  const std::string device = r.device_kind == "gpu"
                                 ? fmt::format("{} x {}", r.device_count, r.device)
                                 : fmt::format("CPU: {} ({} vCPUs)", r.device, r.device_count);
  s.out << fmt::format("Profile '{}' (id {}) on {}, {}\n", r.name, p.id, device,
                       ledger::FormatTimestamp(r.time));
  s.out << fmt::format("  throughput  {}\n", Rates(r));
  s.out << fmt::format("  measured    {} steps over {:.1f}s of {:.1f}s (ended by {})\n", r.steps,
                       ToSeconds(r.measured), ToSeconds(r.wall), r.ended);
  s.out << fmt::format("  memory      host peak RSS {}", GiB(r.peak_rss_bytes));
  if (r.peak_gpu_memory_bytes) s.out << fmt::format(", GPU peak {}", GiB(*r.peak_gpu_memory_bytes));
  s.out << fmt::format("\n  CPU         {:.2f} cores on average\n", r.cpu_cores);
  s.out << fmt::format("  command     {}\n", r.command);
}

Result<run::ProfileLimits> LimitsOf(const ProfileOptions& o) {
  run::ProfileLimits limits;
  limits.steps = o.steps;
  const std::string text = !o.for_duration.empty() ? o.for_duration : o.steps ? "" : kDefaultFor;
  if (!text.empty()) {
    FRUGAL_TRY(run::CheckFlagText("--for", text));
    const Result<Duration> d = ParseDuration(text);
    if (!d || d->count() <= 0) {
      return Fail(ErrorCode::kBadInput,
                  fmt::format("option --for: '{}' is not a positive duration like 2m", text));
    }
    limits.duration = *d;
  }
  return limits;
}

Result<void> RunProfile(const ProfileOptions& o, const GlobalOptions& global, Streams& s) {
  if (o.command.empty()) {
    return Fail(ErrorCode::kBadInput,
                "frugal profile: no command to profile; give it after --: frugal profile "
                "--steps 50 -- python3 train.py");
  }
  const run::ProfileLimits limits = FRUGAL_TRY(LimitsOf(o));
  const std::string name = FRUGAL_TRY(run::ProfileName(o.name, o.command));
  // The ledger first: a profile that cannot be stored is not worth running.
  std::unique_ptr<ledger::Ledger> db =
      FRUGAL_TRY(ledger::OpenForCommand(global.db, ledger::CreateMode::kCreateIfMissing));
  run::ProfileRequest request;
  request.name = name;
  request.command = o.command;
  request.limits = limits;
  request.work_dir = UserDataDir() / "profiles" / run::ProfileWorkDirName(name, ledger::Now());
  request.child_stdout = global.json ? run::ChildStdout::kToStderr : run::ChildStdout::kInherit;
  ledger::NewProfile measured = FRUGAL_TRY(run::ProfileCommand(request));
  if (const auto short_window = run::ShortWindowWarning(measured))
    log::Warning("{}", *short_window);
  const ledger::Profile stored =
      FRUGAL_TRY(run::StoreProfile(*db, std::move(measured), UserDataDir() / "profiles"));
  if (global.json) {
    WriteJson(s, ledger::ProfileJson(stored));
  } else {
    PrintProfile(stored, s);
  }
  return {};
}

Result<void> RunList(const ProfileOptions& o, const GlobalOptions& global, Streams& s) {
  std::unique_ptr<ledger::Ledger> db =
      FRUGAL_TRY(ledger::OpenForCommand(global.db, ledger::CreateMode::kMustExist));
  std::optional<std::string> name;
  if (!o.list_name.empty()) name = o.list_name;
  const std::vector<ledger::Profile> all = FRUGAL_TRY(ledger::ListProfiles(*db, name));
  if (global.json) {
    WriteJson(s, ledger::ProfileListJson(all));
    return {};
  }
  if (all.empty()) {
    s.out << "No profiles yet: frugal profile --steps 50 -- COMMAND\n";
    return {};
  }
  Table t({{"ID", Align::kRight}, {"NAME"}, {"MEASURED"}, {"DEVICE"}, {"THROUGHPUT"}});
  for (const ledger::Profile& p : all) {
    const ledger::NewProfile& r = p.record;
    t.AddRow({std::to_string(p.id), r.name, ledger::FormatTimestamp(r.time),
              r.device_kind == "gpu" ? fmt::format("{} x {}", r.device_count, r.device)
                                     : "CPU: " + r.device,
              Rates(r)});
  }
  t.Render(s.out);
  return {};
}

Result<void> RunShow(const ProfileOptions& o, const GlobalOptions& global, Streams& s) {
  std::unique_ptr<ledger::Ledger> db =
      FRUGAL_TRY(ledger::OpenForCommand(global.db, ledger::CreateMode::kMustExist));
  const ledger::Profile found = FRUGAL_TRY(ledger::FindProfile(*db, o.show));
  if (global.json) {
    WriteJson(s, ledger::ProfileJson(found));
  } else {
    PrintProfile(found, s);
  }
  return {};
}

}  // namespace

void RegisterProfile(CLI::App& app, GlobalOptions& global, Action& action) {
  auto o = std::make_shared<ProfileOptions>();
  CLI::App* cmd = app.add_subcommand(
      "profile",
      "Measure a command's throughput and memory on this machine: frugal profile [--steps N | "
      "--for 2m] [--name NAME] -- COMMAND...; profile list; profile show NAME");
  cmd->add_option("--steps", o->steps, "Stop once a progress report reaches this step")
      ->check(WholeNumber(1, int64_t{1} << 40));
  cmd->add_option("--for", o->for_duration,
                  "Stop after this long (default 2m when --steps is not given either)");
  cmd->add_option("--name", o->name, "Name to store it under (default: the script's name)");
  cmd->add_option("command", o->command, "The command, after --");
  CLI::App* list = cmd->add_subcommand("list", "The stored profiles, newest first");
  list->add_option("name", o->list_name, "Only this name's profiles");
  list->callback([&, o] { action = [&global, o](Streams& s) { return RunList(*o, global, s); }; });
  CLI::App* show = cmd->add_subcommand("show", "The newest profile of a name (or one by id)");
  show->add_option("name", o->show, "Profile name or id")->required();
  show->callback([&, o] { action = [&global, o](Streams& s) { return RunShow(*o, global, s); }; });
  cmd->callback([&, o, cmd] {
    if (!cmd->get_subcommands().empty()) return;  // list or show
    action = [&global, o](Streams& s) { return RunProfile(*o, global, s); };
  });
}

}  // namespace frugal::cli
