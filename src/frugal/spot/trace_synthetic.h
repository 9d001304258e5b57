#pragma once
// Seeded synthetic availability traces for tests and validation: alternating spot lifetimes
// (available runs) and outages, with lifetimes drawn from one of two families.

#include <cstdint>
#include <string>

#include "frugal/core/error.h"
#include "frugal/spot/trace.h"

namespace frugal::spot {

enum class LifetimeShape {
  kPoisson,  ///< exponential lifetimes: preemptions arrive at a constant rate
  kBathtub,  ///< many early preemptions, a long stable middle, then wear-out
  /// Heavy tails in both directions: log-normal lifetimes and outages (σ = 1.2 in log space),
  /// most runs short and a few very long, as in the public AWS traces.
  kLogNormal,
};

struct SyntheticSpec {
  LifetimeShape shape = LifetimeShape::kPoisson;
  double mean_up_hours = 4;    ///< mean spot lifetime
  double mean_down_hours = 2;  ///< mean outage (exponential, log-normal for kLogNormal)
  double days = 30;
  int gap_seconds = 600;
  uint64_t seed = 1;
};

/// Generates a trace of launchable counts 0/1; the same spec always gives the same trace.
[[nodiscard]] Trace MakeSyntheticTrace(const SyntheticSpec& spec);

/// Parses "poisson:UP:DOWN[:DAYS]", "bathtub:UP:DOWN[:DAYS]" or "lognormal:UP:DOWN[:DAYS]"
/// (durations like "4h", days a number); nullopt-like kBadInput when the text is not such a spec.
/// `seed` is used as given.
[[nodiscard]] Result<SyntheticSpec> ParseSyntheticSpec(const std::string& text, uint64_t seed);

/// "poisson", "bathtub" or "lognormal".
[[nodiscard]] const char* ShapeName(LifetimeShape shape);

/// True when `text` names a synthetic family rather than a file.
[[nodiscard]] bool IsSyntheticSpec(const std::string& text);

}  // namespace frugal::spot
