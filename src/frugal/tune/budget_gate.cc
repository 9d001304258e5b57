#include "frugal/tune/budget_gate.h"

#include <algorithm>

namespace frugal::tune {

BudgetGate::BudgetGate(const Gates& gates, std::optional<Rate> price_per_gpu_hour,
                       int gpus_per_trial)
    : gates_(gates), price_(price_per_gpu_hour), gpus_(gpus_per_trial) {
  if (gates.budget && price_ && price_->per_hour.micros() > 0) {
    cap_gpu_seconds_ = gates.budget->RatioTo(price_->per_hour) * 3600.0;
  }
  if (gates.max_gpu_hours)
    cap_gpu_seconds_ = std::min(cap_gpu_seconds_, *gates.max_gpu_hours * 3600.0);
}

bool BudgetGate::Fits(double expected_wall_seconds, double reserved_wall_seconds) const {
  return spent_gpu_seconds_ + GpuSeconds(reserved_wall_seconds + expected_wall_seconds) <=
         cap_gpu_seconds_ * (1 + 1e-12);
}

bool BudgetGate::MayStartTrial(int64_t trials_started) const {
  return !gates_.max_trials || trials_started < *gates_.max_trials;
}

Money BudgetGate::SpendFor(double wall_seconds) const {
  if (!price_) return Money{};
  return price_->ForHours(GpuSeconds(wall_seconds) / 3600.0);
}

Money BudgetGate::spend() const {
  if (!price_) return Money{};
  return price_->ForHours(gpu_hours());
}

Money BudgetGate::Overshoot() const {
  if (!gates_.budget) return Money{};
  const Money over = spend() - *gates_.budget;
  return over.micros() > 0 ? over : Money{};
}

double BudgetGate::OvershootGpuHours() const {
  if (!gates_.max_gpu_hours) return 0.0;
  return std::max(0.0, spent_gpu_seconds_ / 3600.0 - *gates_.max_gpu_hours);
}

}  // namespace frugal::tune
