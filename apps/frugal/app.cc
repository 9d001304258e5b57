#include "app.h"

#include <fmt/format.h>

#include <charconv>
#include <iostream>
#include <sstream>

#include "commands.h"
#include "frugal/catalog/catalog.h"
#include "frugal/core/log.h"

namespace frugal::cli {

Result<catalog::Catalog> LoadCatalog(const GlobalOptions& global,
                                     const std::vector<std::filesystem::path>& extra) {
  std::vector<std::filesystem::path> custom;
  if (!global.catalog.empty()) custom.emplace_back(global.catalog);
  custom.insert(custom.end(), extra.begin(), extra.end());
  return catalog::Catalog::LoadDefault(custom);
}

CLI::Validator WholeNumber(int64_t min, int64_t max) {
  return CLI::Validator(
      [min, max](std::string& value) -> std::string {
        int64_t n = 0;
        const char* end = value.data() + value.size();
        const auto [ptr, ec] = std::from_chars(value.data(), end, n);
        if (ec != std::errc() || ptr != end || n < min || n > max) {
          return fmt::format("expected a whole number from {} to {}, got '{}'", min, max, value);
        }
        return {};
      },
      fmt::format("INT in [{} - {}]", min, max));
}

void WriteJson(Streams& streams, nlohmann::json doc) {
  doc["schema_version"] = 1;
  streams.out << doc.dump(2) << '\n';
}

int Main(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  CLI::App app{
      "frugal: predicts, runs, tunes and accounts ML training at the lowest cost that "
      "meets the deadline.",
      "frugal"};
  app.set_version_flag("--version", std::string("frugal ") + FRUGAL_VERSION);
  app.require_subcommand(1);
  app.fallthrough();

  GlobalOptions global;
  app.add_option("--db", global.db, "Ledger: SQLite file or postgresql:// URL (env FRUGAL_DB)")
      ->envname("FRUGAL_DB");
  app.add_option("--catalog", global.catalog, "Custom offers YAML file (on-prem, Slurm pools)")
      ->envname("FRUGAL_CATALOG");
  // Not bound to FRUGAL_POLICY here: the policy area resolves the lookup order itself
  // (--policy, FRUGAL_POLICY, config dir) so every command and error names the same source.
  app.add_option("--policy", global.policy,
                 "Team GPU policy YAML enforced by plan, run and tune (else env FRUGAL_POLICY, "
                 "else <config dir>/policy.yaml)");
  app.add_flag("--json", global.json, "Print exactly one JSON document on stdout");
  app.add_option("--color", global.color, "Colour: auto, always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  app.add_flag_function(
      "-v,--verbose", [&](int64_t n) { global.verbosity += static_cast<int>(n); },
      "More diagnostics");
  app.add_flag_function(
      "-q,--quiet", [&](int64_t n) { global.verbosity -= static_cast<int>(n); },
      "Fewer diagnostics");

  Action action;
  RegisterCommands(app, global, action);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return 0;
  } catch (const CLI::CallForAllHelp&) {
    out << app.help("", CLI::AppFormatMode::All);
    return 0;
  } catch (const CLI::CallForVersion&) {
    out << app.version() << '\n';
    return 0;
  } catch (const CLI::ParseError& e) {
    // Help requested on a subcommand surfaces as CallForHelp with the subcommand selected.
    err << "frugal: error: " << e.what() << "\n";
    err << "Run 'frugal --help' or 'frugal <command> --help' for usage.\n";
    return static_cast<int>(ErrorCode::kBadInput);
  }
  log::SetLevel(global.verbosity > 0   ? log::Level::kDebug
                : global.verbosity < 0 ? log::Level::kWarning
                                       : log::Level::kInfo);
  if (!action) {
    err << "frugal: error: no command given\n";
    return static_cast<int>(ErrorCode::kBadInput);
  }
  Streams streams{out, err};
  Result<void> result = action(streams);
  if (!result) {
    err << "frugal: error: " << result.error().message << "\n";
    return result.error().ExitCode();
  }
  return 0;
}

}  // namespace frugal::cli
