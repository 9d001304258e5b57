// frugal profile [--steps N | --for 2m] [--name NAME] -- COMMAND: measure a job on this machine.

#include <fmt/format.h>
#include <unistd.h>

#include "commands.h"
#include "frugal/core/duration.h"
#include "frugal/core/paths.h"
#include "frugal/run/profile.h"

namespace frugal::cli {
namespace {

namespace fs = std::filesystem;

struct ProfileOptions {
  std::string name = "job";
  std::optional<int64_t> steps;
  std::string duration = "2m";
  double units_per_step = 0;
  std::vector<std::string> command;
};

Result<void> RunProfileCommand(const ProfileOptions& o, const GlobalOptions& global, Streams& s) {
  run::ProfileRequest request;
  request.name = o.name;
  request.argv = o.command;
  request.steps = o.steps;
  if (o.steps && *o.steps < 1) return Fail(ErrorCode::kBadInput, "--steps: must be at least 1");
  const Duration d =
      FRUGAL_TRY(ParseDuration(o.duration).map_error([](Error e) { return e.Wrap("--for"); }));
  if (d.count() <= 0) return Fail(ErrorCode::kBadInput, "--for: must be positive");
  request.duration = std::chrono::duration_cast<std::chrono::milliseconds>(d);
  request.units_per_step = o.units_per_step;
  const fs::path profiles = UserDataDir() / "profiles";
  request.scratch_dir = profiles / ".scratch" / fmt::format("{}-{}", o.name, getpid());
  auto record = run::RunProfile(request);
  std::error_code ec;
  fs::remove_all(request.scratch_dir, ec);
  if (!record) return tl::unexpected(record.error());
  FRUGAL_TRY(run::SaveProfile(*record, profiles));
  const fs::path where = profiles / (record->name + ".json");
  if (global.json) {
    WriteJson(s, {{"name", record->name},
                  {"file", where.string()},
                  {"measured_at", record->measured_at},
                  {"device", record->device},
                  {"units", record->units},
                  {"units_per_second", record->units_per_second},
                  {"steps_per_second", record->steps_per_second},
                  {"steps", record->steps},
                  {"seconds", record->seconds},
                  {"peak_rss_bytes", record->peak_rss_bytes},
                  {"mean_cpu_cores", record->mean_cpu_cores},
                  {"peak_gpu_memory_bytes", record->peak_gpu_memory_bytes
                                                ? nlohmann::json(*record->peak_gpu_memory_bytes)
                                                : nlohmann::json()}});
    return {};
  }
  s.out << fmt::format("Profile '{}' on {}: {:.4g} {}/s ({} steps in {:.1f} s)\n", record->name,
                       record->device, record->units_per_second, record->units, record->steps,
                       record->seconds);
  s.out << fmt::format("  peak host RSS {:.1f} MiB, CPU {:.2f} cores",
                       static_cast<double>(record->peak_rss_bytes) / 1048576.0,
                       record->mean_cpu_cores);
  if (record->peak_gpu_memory_bytes) {
    s.out << fmt::format(", peak GPU memory {:.1f} GiB",
                         static_cast<double>(*record->peak_gpu_memory_bytes) / (1 << 30));
  }
  s.out << fmt::format("\n  saved to {}\n", where.string());
  return {};
}

}  // namespace

void RegisterProfile(CLI::App& app, GlobalOptions& global, Action& action) {
  auto o = std::make_shared<ProfileOptions>();
  CLI::App* cmd = app.add_subcommand(
      "profile", "Run a command a short while and record its measured throughput and memory");
  cmd->add_option("--name", o->name, "Name the profile is saved under")->capture_default_str();
  cmd->add_option("--steps", o->steps, "Stop after this many progress steps");
  cmd->add_option("--for", o->duration, "Stop after this long (default 2m)")->capture_default_str();
  cmd->add_option("--units-per-step", o->units_per_step,
                  "Samples per progress step, when the command reports no cumulative "
                  "'samples' or 'tokens' metric");
  cmd->add_option("command", o->command, "The command, after --")->required();
  cmd->callback(
      [&, o] { action = [&global, o](Streams& s) { return RunProfileCommand(*o, global, s); }; });
}

}  // namespace frugal::cli
