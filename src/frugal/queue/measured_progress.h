#pragma once
// A running job's progress as its `frugal run` measured it: the steps its command reported
// (the protocol's progress messages), as the run's journal records them with their times in
// heartbeats, committed checkpoints and the first progress after a resume. The queue's ETA
// (queue_view.h) goes from the estimate to this once the job runs and reports steps.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>

namespace frugal::queue {

struct MeasuredProgress {
  int64_t step = 0;  ///< the furthest step reported in the run's newest segment
  double at = 0;     ///< when it was recorded (Unix seconds, to the millisecond)
  /// Steps per second over the newest segment, from its first recorded step to `step`; 0 when
  /// there is not yet a second of progress to measure over.
  double steps_per_second = 0;
};

/// How much of a journal's end ReadMeasuredProgress reads at most.
inline constexpr size_t kMeasuredTailBytes = 1024 * 1024;

/// What the journal at `journal` says of the newest segment; nullopt when it has no step
/// recorded in it (not started, or no progress reported yet). A damaged line is skipped.
/// Only the journal's tail is read: back to the newest segment's opening (or resume), and no
/// more than kMeasuredTailBytes; a segment longer than that is measured over its newest
/// records in those bytes (thousands of heartbeats: its recent rate).
[[nodiscard]] std::optional<MeasuredProgress> ReadMeasuredProgress(
    const std::filesystem::path& journal);

/// The expected finish (Unix seconds) of `total_steps` at the measured rate, from when the
/// last step was recorded; nullopt without a rate. A job past its total finishes "now": `at`.
[[nodiscard]] std::optional<double> MeasuredFinish(const MeasuredProgress& progress,
                                                   int64_t total_steps);

}  // namespace frugal::queue
