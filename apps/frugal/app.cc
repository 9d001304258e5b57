#include "app.h"

#include <fmt/format.h>

#include <algorithm>
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

namespace {

// Passes everything to another stream buffer and remembers whether anything went through, so
// that a failed --json command can tell whether its document was already written.
class WatchedBuf : public std::streambuf {
 public:
  explicit WatchedBuf(std::streambuf* to) : to_(to) {}
  [[nodiscard]] bool written() const { return written_; }

 protected:
  int_type overflow(int_type c) override {
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    written_ = true;
    return to_->sputc(traits_type::to_char_type(c));
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    written_ = written_ || n > 0;
    return to_->sputn(s, n);
  }
  int sync() override { return to_->pubsync(); }

 private:
  std::streambuf* to_;
  bool written_ = false;
};

std::string_view ErrorKind(ErrorCode code) {
  switch (code) {
    case ErrorCode::kFailed:
      return "failed";
    case ErrorCode::kBadInput:
      return "bad_input";
    case ErrorCode::kBudget:
      return "budget";
    case ErrorCode::kUnavailable:
      return "unavailable";
    case ErrorCode::kPreempted:
      return "preempted";
    case ErrorCode::kInterrupted:
      return "interrupted";
  }
  return "failed";
}

// Under --json a failure is still exactly one document on stdout (unless the command already
// wrote its own, as a budget refusal does); the message also goes to stderr for people.
int Failed(const Error& error, bool json, const WatchedBuf& out_buf, std::ostream& out,
           std::ostream& err) {
  err << "frugal: error: " << error.message << "\n";
  if (json && !out_buf.written()) {
    nlohmann::json doc;
    doc["schema_version"] = 1;
    doc["error"] = {{"kind", ErrorKind(error.code)},
                    {"exit_code", error.ExitCode()},
                    {"message", error.message}};
    // A message may quote bytes that are not UTF-8: they are replaced, never a throw.
    out << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
  }
  return error.ExitCode();
}

/// CLI11's "not expected" message lists every word it did not use, the command after `--`
/// among them and in reverse. Only frugal's own words can be unexpected: those before `--`
/// that CLI11 left over, in the order they were typed.
std::string ExtrasMessage(const CLI::App& app, const char* const* words_begin,
                          const char* const* words_end) {
  std::vector<std::string> left = app.remaining(true);
  std::vector<std::string> unexpected;
  for (const char* const* w = words_begin; w != words_end; ++w) {
    const auto it = std::find(left.begin(), left.end(), std::string_view(*w));
    if (it == left.end()) continue;
    unexpected.emplace_back(*w);
    left.erase(it);
  }
  if (unexpected.empty()) return "";
  std::string words;
  for (const std::string& u : unexpected) words += (words.empty() ? "" : " ") + u;
  return fmt::format("The following argument{} not expected: {}",
                     unexpected.size() == 1 ? " was" : "s were", words);
}

/// The word naming the command (`catalog` in `frugal --db x catalog gpus`): the first that is
/// neither one of `app`'s own options nor such an option's value; empty when there is none.
std::string_view CommandWord(const CLI::App& app, int argc, const char* const* argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view word = argv[i];
    if (word == "--") break;
    if (!word.starts_with('-')) return word;
    if (word.find('=') != std::string_view::npos) continue;
    const CLI::Option* option = app.get_option_no_throw(std::string(word));
    if (option != nullptr && option->get_items_expected_min() > 0) ++i;  // its value
  }
  return {};
}

/// Whether the words ask for the version and for nothing that needs the commands (help does).
bool AsksOnlyForVersion(int argc, const char* const* argv) {
  bool version = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view word = argv[i];
    if (word == "--") break;
    if (word == "-h" || word == "--help") return false;
    version = version || word == "--version";
  }
  return version;
}

/// The options every command takes, before the command's word.
void AddGlobalOptions(CLI::App& app, GlobalOptions& global) {
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
}

/// Reports a parse error (as JSON when the words ask for it) and returns the exit code.
int ParseFailed(const CLI::ParseError& e, const CLI::App& app, int argc, const char* const* argv,
                const GlobalOptions& global, const WatchedBuf& out_buf, std::ostream& out,
                std::ostream& err) {
  // A parse error may come before --json is read, so the words themselves are looked at,
  // up to `--` (what follows is the command frugal runs, not frugal's options).
  const char* const* words_end = std::find_if(
      argv + 1, argv + argc, [](const char* arg) { return std::string_view(arg) == "--"; });
  const bool json = global.json || std::any_of(argv + 1, words_end, [](const char* arg) {
                      return std::string_view(arg) == "--json";
                    });
  std::string message = e.what();
  if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) {
    if (std::string own = ExtrasMessage(app, argv + 1, words_end); !own.empty())
      message = std::move(own);
  }
  const int code = Failed(Error{ErrorCode::kBadInput, message}, json, out_buf, out, err);
  err << "Run 'frugal --help' or 'frugal <command> --help' for usage.\n";
  return code;
}

}  // namespace

void WriteJson(Streams& streams, nlohmann::json doc) {
  doc["schema_version"] = 1;
  streams.out << doc.dump(2) << '\n';
}

int Main(int argc, const char* const* argv, std::ostream& out, std::ostream& err,
         const TerminalInfo& err_terminal) {
  WatchedBuf out_buf(out.rdbuf());
  std::ostream watched_out(&out_buf);
  CLI::App app{
      "frugal: predicts, runs, tunes and accounts ML training at the lowest cost that "
      "meets the deadline.",
      "frugal"};
  app.set_version_flag("--version", std::string("frugal ") + FRUGAL_VERSION);
  app.require_subcommand(1);
  app.fallthrough();

  GlobalOptions global;
  AddGlobalOptions(app, global);

  // Only the command being run is built (and none for --version alone).
  Action action;
  const std::string_view word = CommandWord(app, argc, argv);
  if (!word.empty() || !AsksOnlyForVersion(argc, argv)) RegisterCommands(app, global, action, word);

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
    return ParseFailed(e, app, argc, argv, global, out_buf, out, err);
  }
  log::SetLevel(global.verbosity > 0   ? log::Level::kDebug
                : global.verbosity < 0 ? log::Level::kWarning
                                       : log::Level::kInfo);
  if (!action) {
    return Failed(Error{ErrorCode::kBadInput, "no command given"}, global.json, out_buf, out, err);
  }
  // CLI11 has checked the word; the library's parser turns it into the mode.
  const ColorMode color = ParseColorMode(global.color).value_or(ColorMode::kAuto);
  Streams streams{watched_out, err, err_terminal, color};
  Result<void> result = action(streams);
  watched_out.flush();
  if (!result) return Failed(result.error(), global.json, out_buf, out, err);
  return 0;
}

}  // namespace frugal::cli
