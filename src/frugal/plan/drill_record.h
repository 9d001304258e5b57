#pragma once
// The record `frugal drill` leaves in `<data dir>/drills/<name>.json` (docs/run.md, "The drill
// record"): what a real preemption drill measured about a job's checkpoints and restarts. The
// planner reads it so that spot options are priced on measured figures, not guesses.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "frugal/core/error.h"

namespace frugal::plan {

struct DrillRecord {
  std::string name;
  std::string measured_at;                     ///< ISO 8601, as the drill wrote it
  std::optional<double> checkpoint_write_max;  ///< seconds; null when no notice got a checkpoint
  std::optional<double> restart_max;           ///< seconds; null when no restart made progress
  bool checkpoint_on_notice = false;
  bool spot_ready = false;
  std::vector<std::string> reasons;  ///< why it is not spot-ready
};

/// Reads a drill record (format version 1). kBadInput naming the file and field when the file
/// is not a version-1 record; kIo when it cannot be read.
[[nodiscard]] Result<DrillRecord> ReadDrillRecord(const std::filesystem::path& path);

}  // namespace frugal::plan
