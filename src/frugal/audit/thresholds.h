#pragma once
// The audit's thresholds: one documented default per rule (docs/audit.md), overridable by a
// YAML file. Format (version 1): a map with an optional `version: 1` and any of the keys
// below; unknown keys and out-of-range values are errors naming file, line and field.

#include <filesystem>
#include <string>
#include <vector>

#include "frugal/core/error.h"

namespace frugal::audit {

struct Thresholds {
  double idle_gpu_util_pct = 5;        ///< an hour whose mean GPU utilization is below is idle
  double idle_min_hours = 12;          ///< a run with this many idle hours is an idle finding
  double underutil_gpu_util_pct = 50;  ///< mean GPU utilization below this is under-used
  double underutil_min_minutes = 30;   ///< ... over at least this much GPU time
  double memory_headroom_pct = 10;     ///< a cheaper GPU needs peak memory × (1 + this)
  double spot_max_run_hours = 24;      ///< on-demand runs shorter than this can move to spot
  double spot_restart_minutes = 10;    ///< per preemption: provisioning and restart
  double commitment_min_days = 30;     ///< steady use must span this many days
  std::string commitment_tier = "reserved_1y";
  double untagged_max_share_pct = 5;  ///< untagged spend above this share is a finding
  std::vector<std::string> attribution_tags = {"team", "project", "owner"};
  double study_min_trials = 4;  ///< studies with fewer trials are not judged
  double forgotten_days = 14;   ///< billed GPU capacity with no run for this long
  double month_days = 30;       ///< savings per month = saving in window × month / window
};

/// Reads overrides from `path` on top of the defaults. kBadInput "file:line:col: field 'x':
/// ..." for unknown keys, wrong types and values out of range.
[[nodiscard]] Result<Thresholds> LoadThresholds(const std::filesystem::path& path);
/// As LoadThresholds, from text (tests); `source` names it in errors.
[[nodiscard]] Result<Thresholds> ParseThresholds(std::string_view text, std::string source);

}  // namespace frugal::audit
