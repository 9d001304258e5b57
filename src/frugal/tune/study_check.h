#pragma once
// `frugal tune check`: the checklist a careful engineer runs before spending on a study.

#include <optional>
#include <string>
#include <vector>

#include "frugal/tune/replay_table.h"
#include "frugal/tune/study_spec.h"

namespace frugal::tune {

struct CheckItem {
  std::string name;  ///< short id: "budget_usd", "checkpoint_interval", ...
  bool ok = false;
  std::string detail;  ///< what the spec says, or what is missing
  std::string fix;     ///< the change that satisfies the item ("" when ok)
};

/// Every item of the checklist, in order, each satisfied or not. The first, `trial_script`,
/// is there only when the trial command runs a script through an interpreter (`python3
/// train.py`): the script must exist, relative to the spec's directory where trials run.
std::vector<CheckItem> CheckStudy(const StudySpec& spec);

/// The `utilization` item: which utilization figures (GPU busy and idle, CPU, I/O wait) the
/// trials' supervisors record, and where to watch them; a replay has none to watch.
CheckItem UtilizationItem(const StudySpec& spec);

/// The `trial_script` item alone: nullopt when the command runs no script through an
/// interpreter. `frugal tune` refuses to start a study whose item is not ok.
std::optional<CheckItem> TrialScriptItem(const StudySpec& spec);

/// What the cheapest configuration costs at full fidelity, in wall seconds: from the replay
/// table when there is one, else `fidelity.cost_per_unit` × `max`; nullopt when unknown.
std::optional<double> CheapestFullRunSeconds(const StudySpec& spec, const ReplayTable* table);

/// The `full_run` item: whether the caps can pay for one configuration at full fidelity.
/// When they cannot, no trial can complete and the study can only report a partial result;
/// `tune check` lists it, and `tune` says so on stderr before it spends. nullopt when the
/// caps or the cost of a run are unknown.
std::optional<CheckItem> FullRunItem(const StudySpec& spec, const ReplayTable* table);

}  // namespace frugal::tune
