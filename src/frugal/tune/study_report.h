#pragma once
// What `frugal tune` prints: the result of a run, and a study's status (leaderboard, rungs,
// spend against the gates, ETA) from its stored state.

#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <vector>

#include "frugal/tune/replay_table.h"
#include "frugal/tune/study.h"

namespace frugal::tune {

/// Trials best first: completed ones by their final value, then the rest by deepest rung
/// reached and their value there.
std::vector<const Trial*> Leaderboard(const std::vector<Trial>& trials, Direction direction);

/// The result of a run (`--json`): the summary, the leaderboard's top, and for replay the
/// table's best configuration and the cost of training only it (the hindsight optimum).
nlohmann::json RunJson(const Study& study, const StudySummary& summary, const ReplayTable* table);
void PrintRun(std::ostream& out, const Study& study, const StudySummary& summary,
              const ReplayTable* table);

/// A stored study's status.
nlohmann::json StatusJson(const StudySpec& spec, const nlohmann::json& state,
                          const std::vector<Trial>& trials);
void PrintStatus(std::ostream& out, const StudySpec& spec, const nlohmann::json& state,
                 const std::vector<Trial>& trials);

}  // namespace frugal::tune
