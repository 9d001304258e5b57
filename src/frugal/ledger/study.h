#pragma once
// The tuner's records in the ledger: studies (a search under one budget) and their trials
// (a configuration, its results at each rung, its state and what it cost).

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "frugal/core/error.h"
#include "frugal/core/money.h"
#include "frugal/ledger/types.h"

namespace frugal::ledger {

using StudyId = int64_t;
using TrialId = int64_t;

enum class StudyState { kRunning, kFinished, kBudgetStopped, kCancelled };
/// A trial row's stored status, for the ledger's readers (audit, reports). Not tune::TrialState
/// (tune/trial.h), which names the tuner's own lifecycle: it has no pending trial and tells a
/// stop at a budget or at the wall-clock cap apart, both of which the ledger records as paused
/// (resumable). The tuner maps its state onto this one (tune/ledger_study_store.cc).
enum class TrialState { kPending, kRunning, kPaused, kPruned, kCompleted, kFailed };
[[nodiscard]] std::string_view StudyStateName(StudyState s);
[[nodiscard]] Result<StudyState> ParseStudyState(std::string_view text);
[[nodiscard]] std::string_view TrialStateName(TrialState s);
[[nodiscard]] Result<TrialState> ParseTrialState(std::string_view text);

struct NewStudy {
  std::string name;  ///< unique in the ledger
  std::string spec;  ///< the study spec text
  std::string objective;
  std::string direction = "minimize";
  std::optional<Money> budget;
  Timestamp created{};
};

struct Study {
  StudyId id = 0;
  NewStudy definition;
  StudyState state = StudyState::kRunning;
};

struct Trial {
  TrialId id = 0;
  StudyId study_id = 0;
  int number = 0;  ///< 0, 1, 2... within its study
  nlohmann::json config;
  TrialState state = TrialState::kPending;
  Money cost;
  std::optional<RunId> run_id;
  std::map<int, std::pair<double, double>> rungs;  ///< rung → (fidelity, objective value)
};

}  // namespace frugal::ledger
