#pragma once
// A stored study as `frugal tune status` and the server's /api/v1/studies/<name> show it: its
// spec with the caps in force, its saved state and its trials, and whether the tuner that ran
// it is still alive on this host.

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "frugal/core/error.h"
#include "frugal/tune/study_spec.h"
#include "frugal/tune/study_store.h"
#include "frugal/tune/trial.h"

namespace frugal::tune {

/// Where a study's trials keep their runs (checkpoints, journals, reports).
[[nodiscard]] std::filesystem::path StudyDir(const std::string& name);

/// Whether a tuner on this host holds `name`'s lock: the pid noted in the lock file is alive.
/// (Taking the lock to find out would refuse a tuner starting at that moment.) A study driven
/// from another host through a shared ledger counts as alive: its lock is not here to read.
[[nodiscard]] bool TunerAlive(const std::string& name);

/// Pauses a study whose tuner runs on this host: the tuner is sent SIGINT, as Ctrl-C would;
/// its trials checkpoint and stop, and the study is saved "interrupted" for `frugal tune
/// resume`. Returns the tuner's process id. kBadInput when no tuner holds the study here.
[[nodiscard]] Result<int> PauseStudy(const std::string& name);

struct StudyStatus {
  StudySpec spec;
  nlohmann::json state;
  std::vector<Trial> trials;
  /// Saved as running, but no tuner runs it: its status reads "interrupted" and the trials it
  /// left running read paused (they stopped on their checkpoints and wait for the resume).
  bool interrupted = false;
};

/// Loads `name` from `store`. kBadInput when there is no such study or its state is unreadable.
[[nodiscard]] Result<StudyStatus> LoadStudyStatus(const StudyStore& store, const std::string& name);

/// Each trial's learning curve by rung, for the dashboard: {"fidelity": name, "direction":
/// "minimize"|"maximize", "rungs": [fidelity, ...], "trials": [{"trial", "config_id", "state",
/// "spend_usd", "values": [value or null per rung]}]}; values in the objective's own sign.
[[nodiscard]] nlohmann::json TrialCurvesJson(const StudyStatus& status);

}  // namespace frugal::tune
