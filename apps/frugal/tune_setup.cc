#include "tune_setup.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>

#include "frugal/app/study_store.h"
#include "frugal/catalog/catalog.h"
#include "frugal/core/atomic_file.h"
#include "frugal/core/log.h"
#include "frugal/core/paths.h"
#include "frugal/core/text.h"
#include "frugal/tune/ledger_study_store.h"
#include "frugal/tune/replay_runner.h"
#include "frugal/tune/study_caps.h"
#include "frugal/tune/study_check.h"
#include "frugal/tune/study_pricing.h"

namespace frugal::cli {

namespace fs = std::filesystem;

namespace {

/// The spec of a stored study, priced as it was when the study started (states written before
/// the pricing was kept are priced again from the catalog).
Result<tune::StudySpec> ParseStored(const tune::SpecText& text, const nlohmann::json& state,
                                    const GlobalOptions& global) {
  tune::StudySpec spec;
  if (!state.contains("pricing")) {
    spec = FRUGAL_TRY(ParsePriced(text, global));
  } else {
    spec = FRUGAL_TRY(tune::ParseStudySpec(text.yaml, text.source, text.base_dir));
    FRUGAL_TRY(tune::ApplyPinnedPricing(spec, state.at("pricing")));
  }
  // The caps in force: a resume may have changed the spec's.
  FRUGAL_TRY(tune::ApplySavedCaps(spec, state));
  return spec;
}

}  // namespace

Result<void> CheckCommand(const tune::StudySpec& spec, const fs::path& workdir) {
  const std::string& program = spec.command.front();
  bool found = false;
  if (program.find('/') != std::string::npos) {
    found = fs::exists(fs::path(program).is_absolute() ? fs::path(program) : workdir / program);
  } else if (const char* path = std::getenv("PATH")) {
    for (const std::string& dir : Split(path, ':')) {
      if (!dir.empty() && ::access((fs::path(dir) / program).c_str(), X_OK) == 0) found = true;
    }
  }
  if (found) return {};
  return Fail(ErrorCode::kBadInput, spec.source + ": field 'trial.command': program '" + program +
                                        "' not found (on PATH, or relative to " + workdir.string() +
                                        ")");
}

Result<FileLock> LockStudy(const std::string& name) {
  if (!tune::IsStudyName(name)) {
    return Fail(ErrorCode::kBadInput, "study name '" + name + "': " + tune::kStudyNameRule);
  }
  return FileLock::Acquire(StudyDir(name) / "study.lock", "study '" + name + "'");
}

Result<void> SetTrialsAside(const std::string& name, const std::string& kept) {
  const fs::path trials = StudyDir(name) / "trials";
  std::error_code ec;
  if (!fs::exists(trials, ec)) return {};
  if (kept.empty()) {
    fs::remove_all(trials, ec);
  } else {
    fs::create_directories(StudyDir(kept), ec);
    if (!ec) fs::rename(trials, StudyDir(kept) / "trials", ec);
  }
  if (ec)
    return Fail(ErrorCode::kFailed, "cannot set " + trials.string() + " aside: " + ec.message());
  return {};
}

std::string FreshRunPrefix(const std::string& name) {
  auto ms = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                      std::chrono::system_clock::now().time_since_epoch())
                                      .count());
  std::string digits;
  do {
    digits.insert(digits.begin(), "0123456789abcdefghijklmnopqrstuvwxyz"[ms % 36]);
    ms /= 36;
  } while (ms > 0);
  return name + "@" + digits;
}

Result<tune::StudySpec> ParsePriced(const tune::SpecText& text, const GlobalOptions& global) {
  tune::StudySpec spec = FRUGAL_TRY(tune::ParseStudySpec(text.yaml, text.source, text.base_dir));
  catalog::Catalog none;
  if (!tune::NeedsCatalog(spec)) {
    FRUGAL_TRY(tune::ResolvePricing(spec, none));
    return spec;
  }
  const catalog::Catalog loaded = FRUGAL_TRY(LoadCatalog(global));
  FRUGAL_TRY(tune::ResolvePricing(spec, loaded));
  return spec;
}

Result<Bench> Assemble(const tune::SpecText& text, const GlobalOptions& global,
                       const std::string& run_prefix, const nlohmann::json* state) {
  Bench b;
  b.spec = FRUGAL_TRY(state ? ParseStored(text, *state, global) : ParsePriced(text, global));
  if (!b.spec.replay) {
    FRUGAL_TRY(CheckCommand(b.spec, text.base_dir));
    // A missing script would fail every trial the study pays to start.
    if (const auto script = tune::TrialScriptItem(b.spec); script && !script->ok) {
      return Fail(ErrorCode::kBadInput, b.spec.source + ": field 'trial.command': " +
                                            script->detail + "; " + script->fix);
    }
    auto options =
        tune::SupervisedRunnerOptions::ForSpec(b.spec, text.base_dir, StudyDir(b.spec.name));
    if (!run_prefix.empty()) options.run_prefix = run_prefix;
    // Every trial is a ledger run, like `frugal run`; each trial thread opens its own
    // connection. A ledger that cannot be opened stops the study before it spends.
    const std::string db = global.db;
    FRUGAL_TRY(ledger::OpenForCommand(db, ledger::CreateMode::kCreateIfMissing));
    options.open_ledger = [db] {
      return ledger::OpenForCommand(db, ledger::CreateMode::kCreateIfMissing);
    };
    auto runner = std::make_unique<tune::SupervisedRunner>(std::move(options));
    b.supervised = runner.get();
    b.runner = std::move(runner);
    return b;
  }
  b.table = FRUGAL_TRY(
      LoadReplayTableOnce(*b.spec.replay, b.spec.objective.metric, b.spec.fidelity.name));
  b.runner = std::make_unique<tune::ReplayRunner>(*b.table, b.spec.fidelity.max);
  return b;
}

Result<Store> OpenStore(const GlobalOptions& global, ledger::CreateMode create,
                        const std::string& study) {
  app::OpenedStudyStore opened = FRUGAL_TRY(app::OpenStudyStore(global.db, create));
  for (const std::string& note : opened.notes) log::Info("{}", note);
  // The study's FileLock guards this host; a ledger shared between hosts needs its own claim.
  if (!study.empty())
    FRUGAL_TRY(opened.ledger->ClaimExclusive("study " + study, "study '" + study + "'"));
  return Store{std::move(opened.ledger), std::move(opened.store)};
}

}  // namespace frugal::cli
