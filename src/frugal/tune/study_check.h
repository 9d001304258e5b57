#pragma once
// `frugal tune check`: the checklist a careful engineer runs before spending on a study.

#include <optional>
#include <string>
#include <vector>

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

/// The `trial_script` item alone: nullopt when the command runs no script through an
/// interpreter. `frugal tune` refuses to start a study whose item is not ok.
std::optional<CheckItem> TrialScriptItem(const StudySpec& spec);

}  // namespace frugal::tune
