#include "frugal/run/preemption_source.h"

#include <fmt/format.h>

namespace frugal::run {

ChaosPreemptions::ChaosPreemptions(Duration every, uint64_t seed, int max_preemptions,
                                   ChaosArming arming)
    : every_(every), rng_(seed), max_preemptions_(max_preemptions), arming_(arming) {}

void ChaosPreemptions::SegmentStarted(SteadyTime now) {
  next_.reset();
  unarmed_delay_.reset();
  if (max_preemptions_ > 0 && fired_ >= max_preemptions_) return;
  // Drawn here, whenever the segment arms: the seed alone decides the sequence of delays.
  std::uniform_real_distribution<double> factor(0.5, 1.5);
  const auto delay =
      Duration(static_cast<int64_t>(static_cast<double>(every_.count()) * factor(rng_)));
  if (arming_ == ChaosArming::kAtSegmentStart) {
    next_ = now + delay;
  } else {
    unarmed_delay_ = delay;
  }
}

void ChaosPreemptions::ProgressReported(const ProgressReport& /*report*/, SteadyTime at) {
  if (!unarmed_delay_) return;
  next_ = at + *unarmed_delay_;
  unarmed_delay_.reset();
}

std::optional<PreemptionNotice> ChaosPreemptions::Poll(SteadyTime now) {
  if (!next_ || now < *next_) return std::nullopt;
  next_.reset();
  ++fired_;
  return PreemptionNotice{"chaos", fmt::format("injected preemption {}", fired_)};
}

}  // namespace frugal::run
