#pragma once
// The budget gate: the hard caps of a study (dollars, GPU-hours, trials) and the accounting
// against them. Everything is counted in GPU-seconds (wall seconds × GPUs per trial); a dollar
// cap becomes GPU-seconds through the price per GPU-hour, so one number says how much is left.
//
// The study reserves a segment's expected cost before it starts or resumes a rung (Fits), and
// checks at every accrual that the remaining budget still covers one more accrual interval of
// every running trial (CoversNextInterval); a trial that is not covered checkpoints and stops.
// Overshoot is therefore bounded by the error of one interval's estimate.

#include <cstdint>
#include <limits>
#include <optional>

#include "frugal/core/money.h"
#include "frugal/tune/study_spec.h"

namespace frugal::tune {

class BudgetGate {
 public:
  BudgetGate(const Gates& gates, std::optional<Rate> price_per_gpu_hour, int gpus_per_trial);

  /// The cap in GPU-seconds: the tighter of the dollar and GPU-hour caps; +inf when none.
  double cap_gpu_seconds() const { return cap_gpu_seconds_; }
  double spent_gpu_seconds() const { return spent_gpu_seconds_; }
  /// GPU-seconds a trial's `wall_seconds` amount to.
  double GpuSeconds(double wall_seconds) const { return wall_seconds * gpus_; }

  /// Whether a segment expected to take `expected_wall_seconds` fits beside `reserved_wall_seconds`
  /// already promised to running segments.
  bool Fits(double expected_wall_seconds, double reserved_wall_seconds) const;
  /// Whether the budget covers `next_interval_wall_seconds` more of running trials.
  bool CoversNextInterval(double next_interval_wall_seconds) const {
    return Fits(next_interval_wall_seconds, 0.0);
  }
  /// Whether the trial cap allows a trial beyond `trials_started`.
  bool MayStartTrial(int64_t trials_started) const;

  void Accrue(double wall_seconds) { spent_gpu_seconds_ += GpuSeconds(wall_seconds); }
  void RestoreSpent(double gpu_seconds) { spent_gpu_seconds_ = gpu_seconds; }

  /// The money `wall_seconds` of one trial cost (zero without a price).
  Money SpendFor(double wall_seconds) const;
  Money spend() const;
  double gpu_hours() const { return spent_gpu_seconds_ / 3600.0; }
  /// How far spend went past the cap, in money (zero when within it).
  Money Overshoot() const;
  /// GPU-hours spent past max_gpu_hours (0 without that gate, or under it).
  double OvershootGpuHours() const;
  const Gates& gates() const { return gates_; }

 private:
  Gates gates_;
  std::optional<Rate> price_;
  int gpus_;
  double cap_gpu_seconds_ = std::numeric_limits<double>::infinity();
  double spent_gpu_seconds_ = 0.0;
};

/// Seconds per unit of fidelity, learned from accruals; the prior until one arrives.
class CostEstimator {
 public:
  explicit CostEstimator(std::optional<double> prior_seconds_per_unit)
      : prior_(prior_seconds_per_unit) {}
  void Observe(double fidelity_units, double wall_seconds) {
    units_ += fidelity_units;
    seconds_ += wall_seconds;
  }
  /// nullopt before any observation when there is no prior.
  std::optional<double> SecondsPerUnit() const {
    if (units_ > 0) return seconds_ / units_;
    return prior_;
  }
  double units() const { return units_; }
  double seconds() const { return seconds_; }
  void Restore(double units, double seconds) {
    units_ = units;
    seconds_ = seconds;
  }

 private:
  std::optional<double> prior_;
  double units_ = 0.0;
  double seconds_ = 0.0;
};

}  // namespace frugal::tune
