#pragma once
// Shared wiring for the CLI: global options, the streams commands write to, and the action a
// parsed command leaves behind. Commands hold no logic: they parse, call the library, print.

#include <CLI/CLI.hpp>
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "frugal/core/error.h"
#include "frugal/core/terminal.h"

namespace frugal::catalog {
class Catalog;
}

namespace frugal::cli {

/// Options every command accepts.
struct GlobalOptions {
  std::string db;       ///< --db: ledger location (SQLite path or postgresql:// URL)
  std::string catalog;  ///< --catalog: custom offers YAML file
  std::string policy;   ///< --policy: the team's GPU policy ("" = $FRUGAL_POLICY, config dir)
  bool json = false;    ///< --json: exactly one JSON document on stdout
  std::string color = "auto";
  int verbosity = 0;  ///< -v adds one, -q subtracts one
};

/// The shipped catalog plus --catalog and then `extra` offer files (a job spec's own).
[[nodiscard]] Result<catalog::Catalog> LoadCatalog(
    const GlobalOptions& global, const std::vector<std::filesystem::path>& extra = {});

/// Where a command writes: results to out, diagnostics to err.
struct Streams {
  std::ostream& out;
  std::ostream& err;
  /// What err is attached to (a status line goes there only on a smart terminal); in-process
  /// callers get "not a terminal".
  TerminalInfo err_terminal = {};
  ColorMode color = ColorMode::kAuto;  ///< --color
};

/// What a parsed command runs; set by the command's CLI11 callback.
using Action = std::function<Result<void>(Streams&)>;

/// A CLI11 check that the value is a whole number in [min, max], with a message that says so
/// ("expected a whole number from 1 to 1000000, got '0'") instead of CLI11's floating-point range.
CLI::Validator WholeNumber(int64_t min, int64_t max);

/// Writes `doc` as the one JSON document of the command, with schema_version added.
void WriteJson(Streams& streams, nlohmann::json doc);

/// Runs the CLI on argv and returns the process exit code. Help and version go to `out`,
/// errors to `err` ("frugal: error: ..."). Usage errors return 2. `err_terminal` says what
/// `err` is attached to (ProbeTerminal of the process's stderr for the real one).
int Main(int argc, const char* const* argv, std::ostream& out, std::ostream& err,
         const TerminalInfo& err_terminal = {});

}  // namespace frugal::cli
