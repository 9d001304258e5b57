#pragma once
// The budget guard: accrues price × elapsed time and GPU-hours, and says when a cap is near
// (warn at 80%) or reached. Pure bookkeeping over durations handed in by the supervisor, which
// calls Accrue once per accrual interval; so a cap is noticed at most one interval late, and
// the supervisor's stop sequence adds at most its grace periods on top.

#include <optional>
#include <string>

#include "frugal/core/duration.h"
#include "frugal/core/money.h"

namespace frugal::run {

enum class CapKind { kDollars, kGpuHours, kWall };
/// "dollars", "gpu_hours", "wall".
std::string CapKindName(CapKind kind);

struct BudgetCaps {
  std::optional<Money> dollars;
  std::optional<double> gpu_hours;
  std::optional<Duration> wall;

  [[nodiscard]] bool Any() const { return dollars || gpu_hours || wall; }
};

/// What has been used so far.
struct BudgetUsage {
  Money spent;
  double gpu_hours = 0;
  Duration wall{0};

  /// Adds `length` held at `rate` on `gpus` GPUs (a segment, priced as the ledger prices it).
  void AddHeld(Duration length, Rate rate, int gpus) {
    spent += rate.For(length);
    gpu_hours += ToHours(length) * gpus;
    wall += length;
  }
};

/// The result of one accrual.
struct BudgetCheck {
  std::optional<CapKind> warn;      ///< a cap crossed the warning fraction (reported once per cap)
  std::optional<CapKind> exceeded;  ///< a cap is reached (the first one that is)
};

class BudgetGuard {
 public:
  static constexpr double kWarnFraction = 0.8;

  /// `prior`: what earlier invocations of the same run used (after a requeue).
  BudgetGuard(BudgetCaps caps, Rate rate, int gpus, BudgetUsage prior = {});

  /// Sets this invocation's elapsed time (monotonic; since the supervisor started) and checks
  /// the caps against prior + this usage.
  BudgetCheck Accrue(Duration elapsed);

  [[nodiscard]] BudgetUsage usage() const;
  [[nodiscard]] const BudgetCaps& caps() const { return caps_; }
  [[nodiscard]] const Rate& rate() const { return rate_; }
  [[nodiscard]] int gpus() const { return gpus_; }
  /// Used fraction of a cap (0 when that cap is not set).
  [[nodiscard]] double Fraction(CapKind kind) const;
  /// How far past the cap usage is, in the cap's unit, as text ("$0.0123", "0.01 GPU-h", "2s");
  /// "none" when within it.
  [[nodiscard]] std::string Overshoot(CapKind kind) const;
  /// The cap's value as text.
  [[nodiscard]] std::string CapText(CapKind kind) const;
  /// Money past the dollar cap (zero when within or no dollar cap).
  [[nodiscard]] Money DollarOvershoot() const;

 private:
  BudgetCaps caps_;
  Rate rate_;
  int gpus_;
  BudgetUsage prior_;
  Duration elapsed_{0};
  bool warned_[3] = {false, false, false};
};

}  // namespace frugal::run
