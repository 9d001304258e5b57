#pragma once
// What a study has learned of how fast its trials train, and what it predicts from that: the
// wall seconds a trial needs to reach a fidelity. Pace is seconds per fidelity unit. The model
// keeps each trial's pace over its last accrual interval and at its first report, the interval
// itself, the dearest pace any interval showed, how pace grew over completed runs, and the
// fidelity of the earliest first report. It is kept with the study's state (ToJson/Restore).

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>

namespace frugal::tune {

/// Bounds on the learned growth of pace: a full run is not cheaper per unit than its start,
/// and a growth past 3x is taken for noise.
inline constexpr double kMaxPaceGrowth = 3.0;

class PaceModel {
 public:
  /// A report: `units` of fidelity gained over `wall_seconds` (both positive to count).
  void ObserveInterval(int64_t trial, double units, double wall_seconds);
  /// The trial's first report with a value, at `fidelity`, after `cost_seconds` in all (a
  /// later call for the same trial is ignored until LearnGrowth has used it).
  void ObserveFirstReport(int64_t trial, double cost_seconds, double fidelity);
  /// The time between the trial's last two accruals.
  void SetInterval(int64_t trial, double seconds);
  /// A trial that completed after `cost_seconds` in all at `fidelity`: how much dearer per
  /// unit its whole run was than its first report.
  void LearnGrowth(int64_t trial, double cost_seconds, double fidelity);

  std::optional<double> Interval(int64_t trial) const;
  /// The trial's pace over its last interval.
  std::optional<double> RecentPace(int64_t trial) const;
  /// The dearest pace any interval showed (what a configuration not drawn yet may cost).
  double MaxPace() const { return max_pace_; }
  /// The fidelity of a new trial's first report: the smallest seen, `to` until one is.
  double FirstReportUnits(double to) const;

  /// Seconds per unit ahead of a trial whose own pace so far is `average` (0 when unknown):
  /// scaled by the growth completed trials showed unless it has `completed`, and never below
  /// its last interval's.
  double PaceAhead(int64_t trial, std::optional<double> average, bool completed) const;
  /// Wall seconds to train a trial from fidelity `from` to `to`. A pace that grows along the
  /// schedule (the last interval dearer than the average) is taken to grow linearly on, as
  /// progressive resizing makes it, bounded by kMaxPaceGrowth x the flat figure.
  double Seconds(int64_t trial, std::optional<double> average, bool completed, double from,
                 double to) const;

  nlohmann::json ToJson() const;
  /// The model kept by ToJson; entries of trials not below `trials` are dropped. Throws
  /// nlohmann::json's errors on a malformed document (the state reader reports them).
  void Restore(const nlohmann::json& pace, size_t trials);

 private:
  std::map<int64_t, double> interval_;  ///< each trial's last accrual interval (seconds)
  /// Each trial's pace over its last interval, and the interval's width in fidelity units.
  std::map<int64_t, std::pair<double, double>> recent_;
  std::map<int64_t, double> first_;  ///< each trial's pace at its first report
  double max_pace_ = 0.0;
  double growth_sum_ = 0.0;  ///< completed trials' final pace / pace at their first report
  int growth_count_ = 0;
  double first_report_units_ = 0.0;
};

}  // namespace frugal::tune
