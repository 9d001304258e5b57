#pragma once
// A trial of a study: one configuration trained rung by rung, with its results and spend.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frugal/core/error.h"
#include "frugal/core/money.h"
#include "frugal/tune/search_space.h"

namespace frugal::tune {

/// The tolerance the tuner compares fidelities, steps and dollars with.
inline constexpr double kEps = 1e-9;

/// Where a trial is in the tuner's own lifecycle, as the study state file and `tune status`
/// name it. Not ledger::TrialState (ledger/study.h), which names something else: a trial row's
/// stored status for the ledger's readers (audit, reports), with a pending row and no budget
/// or wall stop (both are recorded as paused: resumable). The tuner maps its state onto the
/// ledger's in one place (ledger_study_store.cc LedgerState); the ledger cannot read this one.
enum class TrialState {
  kRunning,          ///< a segment is in flight toward target_rung
  kPaused,           ///< checkpointed at a rung, waiting to be promoted (asha) or for budget
  kCompleted,        ///< reached the top rung or the end of its own schedule
  kPruned,           ///< stopped by the scheduler
  kFailed,           ///< diverged or crashed
  kStoppedAtBudget,  ///< checkpointed and stopped because a gate was reached
  kStoppedAtWall,    ///< checkpointed and stopped before its next interval passed trial_max_wall
};

std::string_view TrialStateName(TrialState state);
[[nodiscard]] Result<TrialState> ParseTrialState(std::string_view text);

struct Trial {
  int64_t id = 0;
  Config config;
  std::vector<double> point;  ///< the sampler's unit-cube point (-1: inactive parameter)
  std::string source_id;      ///< replay: the table's config_id
  TrialState state = TrialState::kRunning;
  int bracket = 0;      ///< sha/hyperband bracket; 0 otherwise
  int target_rung = 0;  ///< the next rung the trial reports at
  /// The rung its current or next segment runs to (≥ target_rung; the study decides the rungs
  /// between in flight: Scheduler::PauseRungFrom).
  int segment_rung = 0;
  double checkpoint_fidelity = 0.0;  ///< fidelity of its last committed checkpoint
  /// Loss (lower is better) recorded at each rung index it reported; NaN where skipped.
  std::vector<double> rung_losses;
  std::optional<double> last_value;  ///< the objective metric as reported, at the checkpoint
  double last_fidelity = 0.0;        ///< fidelity of last_value
  double cost_seconds = 0.0;         ///< job-seconds consumed (× GPUs for GPU-seconds)
  Money spend;
  std::string run_name;  ///< the ledger run recording its spend ("" for replay)

  /// The highest rung index with a result, or -1.
  int RungReached() const;
};

nlohmann::json TrialToJson(const Trial& trial);
[[nodiscard]] Result<Trial> TrialFromJson(const nlohmann::json& doc);

}  // namespace frugal::tune
