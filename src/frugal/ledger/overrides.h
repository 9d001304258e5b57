#pragma once
// Policy overrides in the ledger: each time `plan`, `run` or `tune` went ahead against the
// team's GPU policy with `--override REASON`, who did it, when, which rules, why, and the run
// or study it started (table policy_overrides, schema 3).

#include <optional>
#include <string>
#include <vector>

#include "frugal/ledger/study.h"
#include "frugal/ledger/types.h"

namespace frugal::ledger {

using OverrideId = int64_t;

struct NewOverride {
  Timestamp time{};
  std::string command;  ///< plan, run, tune
  std::string subject;  ///< what was overridden: "job llama-7b", "run r-1 (job llama-7b)"
  std::vector<std::string> rules;  ///< the rules broken, in rule order, each once
  std::string reason;              ///< never empty
  std::string user_name;
  std::string team;  ///< from the subject's tags ("" when untagged)
  std::string project;
  std::string policy_source;  ///< "ml-platform v3 (policy.yaml)"
  std::optional<RunId> run_id;
  std::optional<StudyId> study_id;
};

struct PolicyOverride {
  OverrideId id = 0;
  NewOverride record;
};

/// Filter for ListOverrides: [since, until), newest first.
struct OverrideFilter {
  std::optional<Timestamp> since;
  std::optional<Timestamp> until;
};

}  // namespace frugal::ledger
