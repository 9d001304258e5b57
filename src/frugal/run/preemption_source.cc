#include "frugal/run/preemption_source.h"

#include <fmt/format.h>

namespace frugal::run {

ChaosPreemptions::ChaosPreemptions(Duration every, uint64_t seed, int max_preemptions)
    : every_(every), rng_(seed), max_preemptions_(max_preemptions) {}

void ChaosPreemptions::SegmentStarted(SteadyTime now) {
  if (max_preemptions_ > 0 && fired_ >= max_preemptions_) {
    next_.reset();
    return;
  }
  std::uniform_real_distribution<double> factor(0.5, 1.5);
  const auto delay =
      Duration(static_cast<int64_t>(static_cast<double>(every_.count()) * factor(rng_)));
  next_ = now + delay;
}

std::optional<PreemptionNotice> ChaosPreemptions::Poll(SteadyTime now) {
  if (!next_ || now < *next_) return std::nullopt;
  next_.reset();
  ++fired_;
  return PreemptionNotice{"chaos", fmt::format("injected preemption {}", fired_)};
}

}  // namespace frugal::run
