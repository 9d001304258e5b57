#pragma once
// The audit's settings: one documented default threshold per rule (docs/audit.md), overridable
// by a YAML file, and the budgets burn rates are forecast against (budgets.h). Format
// (version 1): a map with an optional `version: 1`, any of the keys below and `budgets:`;
// unknown keys and out-of-range values are errors naming file, line and field. The file is
// `<config dir>/audit.yaml` when it exists; `--thresholds FILE` replaces it.

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "frugal/audit/budgets.h"
#include "frugal/core/duration.h"
#include "frugal/core/error.h"
#include "frugal/core/tier.h"

namespace frugal::audit {

struct Thresholds {
  double idle_gpu_util_pct = 5;        ///< an hour whose mean GPU utilization is below is idle
  double idle_min_hours = 12;          ///< a run with this many idle hours is an idle finding
  double underutil_gpu_util_pct = 50;  ///< mean GPU utilization below this is under-used
  double underutil_min_minutes = 30;   ///< ... over at least this much GPU time
  double memory_headroom_pct = 10;     ///< a cheaper GPU needs peak memory × (1 + this)
  double spot_max_run_hours = 24;      ///< on-demand runs shorter than this can move to spot
  double spot_restart_minutes = 10;    ///< per preemption: provisioning and restart
  /// A spot run that ended within this many minutes without a preemption died at start-up
  /// (an import error, a bad flag): no checkpoint was due, so it is not judged for one.
  double spot_checkpoint_min_minutes = 1;
  double commitment_min_days = 30;  ///< steady use must span this many days
  CapacityTier commitment_tier = CapacityTier::kReserved1y;  ///< reserved_1y or reserved_3y
  double untagged_max_share_pct = 5;  ///< untagged spend above this share is a finding
  std::vector<std::string> attribution_tags = {"team", "project", "owner"};
  double study_min_trials = 4;           ///< studies with fewer trials are not judged
  double forgotten_days = 14;            ///< billed GPU capacity with no run for this long
  double forgotten_idle_days = 7;        ///< an inventory instance idle this long is forgotten
  double tensor_min_sm_active_pct = 40;  ///< SMs busy at least this much ...
  double tensor_unused_pct = 1;          ///< ... with tensor pipes active under this: unused
  double tensor_matmul_share_pct = 50;   ///< share of SM-active time assumed to be matrix math
  double data_far_min_gb = 10;           ///< datasets smaller than this are not judged
  double preprocess_min_runs = 2;        ///< runs sharing a cache key that make a family
  /// The burn rate is the spend of this many days: the report's month forecast's window too
  /// (ledger::kDefaultBurnWindow), so a team's budget and month forecasts agree.
  double budget_burn_days = 7;
  /// budget_burn_days as a duration: the window a forecast's burn rate is taken over.
  [[nodiscard]] Duration BudgetBurnWindow() const {
    return std::chrono::duration_cast<Duration>(
        std::chrono::duration<double, std::ratio<86400>>(budget_burn_days));
  }
  double commitment_min_history_days = 7;  ///< a commitment needs this much history to judge
  double commitment_max_unused_pct = 5;    ///< a billed commitment unused above this is a finding
  double month_days = 30;  ///< savings per month = saving in window × month / window
  std::vector<Budget> budgets;
  std::string source = "defaults";  ///< the file read, or "defaults"
};

/// Reads overrides from `path` on top of the defaults. kBadInput "file:line:col: field 'x':
/// ..." for unknown keys, wrong types and values out of range.
[[nodiscard]] Result<Thresholds> LoadThresholds(const std::filesystem::path& path);
/// As LoadThresholds, from text (tests); `source` names it in errors.
[[nodiscard]] Result<Thresholds> ParseThresholds(std::string_view text, std::string source);
/// The settings the audit runs with: `explicit_path` when not empty, else
/// `<UserConfigDir()>/audit.yaml` when it exists, else the defaults.
[[nodiscard]] Result<Thresholds> ResolveThresholds(const std::filesystem::path& explicit_path);

}  // namespace frugal::audit
