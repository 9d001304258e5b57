#include "frugal/run/budget_guard.h"

#include <fmt/format.h>

#include <algorithm>

namespace frugal::run {

std::string CapKindName(CapKind kind) {
  switch (kind) {
    case CapKind::kDollars:
      return "dollars";
    case CapKind::kGpuHours:
      return "gpu_hours";
    case CapKind::kWall:
      return "wall";
  }
  return "?";
}

BudgetGuard::BudgetGuard(BudgetCaps caps, Rate rate, int gpus, BudgetUsage prior)
    : caps_(caps), rate_(rate), gpus_(std::max(gpus, 0)), prior_(prior) {}

BudgetUsage BudgetGuard::usage() const {
  BudgetUsage u;
  // Spend is computed from total time, never summed per interval, so it never drifts.
  u.spent = prior_.spent + rate_.For(elapsed_);
  u.gpu_hours = prior_.gpu_hours + ToHours(elapsed_) * gpus_;
  u.wall = prior_.wall + elapsed_;
  return u;
}

double BudgetGuard::Fraction(CapKind kind) const {
  const BudgetUsage u = usage();
  switch (kind) {
    case CapKind::kDollars:
      return caps_.dollars && caps_.dollars->micros() > 0 ? u.spent.RatioTo(*caps_.dollars)
                                                          : (caps_.dollars ? 1.0 : 0.0);
    case CapKind::kGpuHours:
      return caps_.gpu_hours && *caps_.gpu_hours > 0 ? u.gpu_hours / *caps_.gpu_hours
                                                     : (caps_.gpu_hours ? 1.0 : 0.0);
    case CapKind::kWall:
      return caps_.wall && caps_.wall->count() > 0
                 ? static_cast<double>(u.wall.count()) / static_cast<double>(caps_.wall->count())
                 : (caps_.wall ? 1.0 : 0.0);
  }
  return 0;
}

BudgetCheck BudgetGuard::Accrue(Duration elapsed) {
  elapsed_ = std::max(elapsed_, elapsed);
  BudgetCheck check;
  const BudgetUsage u = usage();
  const bool set[3] = {caps_.dollars.has_value(), caps_.gpu_hours.has_value(),
                       caps_.wall.has_value()};
  const bool reached[3] = {caps_.dollars && u.spent >= *caps_.dollars,
                           caps_.gpu_hours && u.gpu_hours >= *caps_.gpu_hours,
                           caps_.wall && u.wall >= *caps_.wall};
  for (int i = 0; i < 3; ++i) {
    const auto kind = static_cast<CapKind>(i);
    if (!set[i]) continue;
    if (reached[i] && !check.exceeded) check.exceeded = kind;
    if (!warned_[i] && Fraction(kind) >= kWarnFraction) {
      warned_[i] = true;
      if (!check.warn) check.warn = kind;
    }
  }
  return check;
}

Money BudgetGuard::DollarOvershoot() const {
  if (!caps_.dollars) return Money();
  const Money over = usage().spent - *caps_.dollars;
  return over > Money() ? over : Money();
}

std::string BudgetGuard::CapText(CapKind kind) const {
  switch (kind) {
    case CapKind::kDollars:
      return caps_.dollars ? caps_.dollars->ToString() : "none";
    case CapKind::kGpuHours:
      return caps_.gpu_hours ? fmt::format("{:g} GPU-h", *caps_.gpu_hours) : "none";
    case CapKind::kWall:
      return caps_.wall ? FormatDuration(*caps_.wall) : "none";
  }
  return "none";
}

std::string BudgetGuard::Overshoot(CapKind kind) const {
  const BudgetUsage u = usage();
  switch (kind) {
    case CapKind::kDollars:
      if (caps_.dollars && u.spent > *caps_.dollars) return (u.spent - *caps_.dollars).ToString();
      break;
    case CapKind::kGpuHours:
      if (caps_.gpu_hours && u.gpu_hours > *caps_.gpu_hours) {
        return fmt::format("{:.4f} GPU-h", u.gpu_hours - *caps_.gpu_hours);
      }
      break;
    case CapKind::kWall:
      if (caps_.wall && u.wall > *caps_.wall) return FormatDuration(u.wall - *caps_.wall);
      break;
  }
  return "none";
}

}  // namespace frugal::run
