#pragma once
// What `frugal tune` and `tune resume` set up before a study runs: where a study's trials live,
// its lock, its spec parsed and priced, the runner its trials run on, and the store its state
// is kept in.

#include <filesystem>
#include <memory>
#include <string>

#include "commands.h"
#include "frugal/core/file_lock.h"
#include "frugal/ledger/ledger.h"
#include "frugal/tune/replay_table.h"
#include "frugal/tune/study_spec.h"
#include "frugal/tune/study_status.h"
#include "frugal/tune/study_store.h"
#include "frugal/tune/supervised_runner.h"
#include "frugal/tune/trial_runner.h"
#include "tune_spec_text.h"

namespace frugal::cli {

/// Everything a study needs besides its state: the spec, and the runner (for replay, the table
/// it reads; for a trial command, the supervised runner).
struct Bench {
  tune::StudySpec spec;
  std::shared_ptr<const tune::ReplayTable> table;  // owned apart: the runner borrows it
  std::unique_ptr<tune::TrialRunner> runner;
  tune::SupervisedRunner* supervised = nullptr;  // the runner, when it trains real trials
};

using tune::StudyDir;

/// One tuner per study (on this host): a second one resuming a live study would mark its
/// running trials lost and launch them again. A killed tuner's lock goes with it.
[[nodiscard]] Result<FileLock> LockStudy(const std::string& name);

/// Moves a study's trial folders to the study `kept` (the earlier study's new name), or
/// clears them when nothing was kept: checkpoints of an earlier study must not be resumed.
[[nodiscard]] Result<void> SetTrialsAside(const std::string& name, const std::string& kept);

using tune::TunerAlive;

/// kBadInput naming the field when the trial command's program cannot be found (on PATH, or
/// relative to `workdir`).
[[nodiscard]] Result<void> CheckCommand(const tune::StudySpec& spec,
                                        const std::filesystem::path& workdir);

/// A run-name prefix unique to this study instance: "<name>@<base-36 milliseconds>", so a
/// restarted study's trial runs never take over an earlier one's.
std::string FreshRunPrefix(const std::string& name);

/// The spec parsed and priced: an offer or GPU it names is priced from the catalog (plus
/// --catalog's custom offers).
[[nodiscard]] Result<tune::StudySpec> ParsePriced(const tune::SpecText& text,
                                                  const GlobalOptions& global);

/// The study's spec and runner. `run_prefix`: the trial runs' name prefix for a fresh study; a
/// resumed one keeps its own. `state`: a stored study's state when resuming (its pricing and
/// caps are kept), else null.
[[nodiscard]] Result<Bench> Assemble(const tune::SpecText& text, const GlobalOptions& global,
                                     const std::string& run_prefix,
                                     const nlohmann::json* state = nullptr);

/// Where study state lives: the ledger (--db, $FRUGAL_DB or the default file;
/// app/study_store.h), with the study files of older versions imported on first use. A tuner
/// that will drive `study` claims it in the ledger; readers pass "".
struct Store {
  std::unique_ptr<ledger::Ledger> ledger;
  std::unique_ptr<tune::StudyStore> store;
};
[[nodiscard]] Result<Store> OpenStore(const GlobalOptions& global, ledger::CreateMode create,
                                      const std::string& study);

}  // namespace frugal::cli
