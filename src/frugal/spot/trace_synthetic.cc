#include "frugal/spot/trace_synthetic.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "frugal/core/duration.h"
#include "frugal/core/text.h"

namespace frugal::spot {
namespace {

// One lifetime in hours. The bathtub family mixes a short-lived population (a fifth of
// launches, preempted within minutes) with a Weibull(k=3) wear-out population, scaled so
// the overall mean is `mean`.
// Log-normal with the given mean: exp(μ + σ²/2) = mean.
double DrawLogNormal(double mean, std::mt19937_64& rng) {
  constexpr double kSigma = 1.2;
  return std::lognormal_distribution<double>(std::log(mean) - kSigma * kSigma / 2, kSigma)(rng);
}

double DrawLifetime(LifetimeShape shape, double mean, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  if (shape == LifetimeShape::kPoisson) {
    return std::exponential_distribution<double>(1.0 / mean)(rng);
  }
  if (shape == LifetimeShape::kLogNormal) return DrawLogNormal(mean, rng);
  constexpr double kEarlyShare = 0.2;
  constexpr double kEarlyMeanShare = 0.05;  // early deaths last 5% of the mean
  if (unit(rng) < kEarlyShare) {
    return std::exponential_distribution<double>(1.0 / (kEarlyMeanShare * mean))(rng);
  }
  // Weibull mean = scale * Γ(1 + 1/k); pick the scale so the mixture's mean is `mean`.
  const double late_mean = (mean - kEarlyShare * kEarlyMeanShare * mean) / (1 - kEarlyShare);
  const double scale = late_mean / std::tgamma(1.0 + 1.0 / 3.0);
  return std::weibull_distribution<double>(3.0, scale)(rng);
}

}  // namespace

Trace MakeSyntheticTrace(const SyntheticSpec& spec) {
  std::mt19937_64 rng(spec.seed);
  const double tick_hours = spec.gap_seconds / 3600.0;
  const auto ticks = static_cast<size_t>(std::llround(spec.days * 24 / tick_hours));
  Trace trace;
  trace.name = std::string(ShapeName(spec.shape)) + "-" + std::to_string(spec.seed);
  trace.gap_seconds = spec.gap_seconds;
  trace.launchable.reserve(ticks);
  bool up = std::uniform_real_distribution<double>(0, 1)(rng) <
            spec.mean_up_hours / (spec.mean_up_hours + spec.mean_down_hours);
  while (trace.launchable.size() < ticks) {
    double hours = 0;
    if (up) {
      hours = DrawLifetime(spec.shape, spec.mean_up_hours, rng);
    } else if (spec.shape == LifetimeShape::kLogNormal) {
      hours = DrawLogNormal(spec.mean_down_hours, rng);
    } else {
      hours = std::exponential_distribution<double>(1.0 / spec.mean_down_hours)(rng);
    }
    auto run = static_cast<size_t>(std::max<long long>(1, std::llround(hours / tick_hours)));
    run = std::min(run, ticks - trace.launchable.size());
    trace.launchable.insert(trace.launchable.end(), run, up ? 1 : 0);
    up = !up;
  }
  return trace;
}

const char* ShapeName(LifetimeShape shape) {
  switch (shape) {
    case LifetimeShape::kPoisson:
      return "poisson";
    case LifetimeShape::kBathtub:
      return "bathtub";
    case LifetimeShape::kLogNormal:
      return "lognormal";
  }
  return "?";
}

bool IsSyntheticSpec(const std::string& text) {
  return text.rfind("poisson:", 0) == 0 || text.rfind("bathtub:", 0) == 0 ||
         text.rfind("lognormal:", 0) == 0;
}

Result<SyntheticSpec> ParseSyntheticSpec(const std::string& text, uint64_t seed) {
  std::vector<std::string> parts = Split(text, ':');
  const std::string usage = "trace '" + text +
                            "': expected poisson:UP:DOWN[:DAYS], "
                            "bathtub:UP:DOWN[:DAYS] or lognormal:UP:DOWN[:DAYS] "
                            "(e.g. poisson:4h:2h:30)";
  if (parts.size() < 3 || parts.size() > 4 || !IsSyntheticSpec(text)) {
    return Fail(ErrorCode::kBadInput, usage);
  }
  SyntheticSpec spec;
  spec.shape = parts[0] == "poisson"   ? LifetimeShape::kPoisson
               : parts[0] == "bathtub" ? LifetimeShape::kBathtub
                                       : LifetimeShape::kLogNormal;
  auto up = ParseDuration(parts[1]);
  auto down = ParseDuration(parts[2]);
  if (!up || !down || up->count() <= 0 || down->count() <= 0) {
    return Fail(ErrorCode::kBadInput, usage);
  }
  spec.mean_up_hours = ToHours(*up);
  spec.mean_down_hours = ToHours(*down);
  if (parts.size() == 4) {
    auto days = ParseDouble(parts[3]);
    if (!days || *days <= 0 || *days > 3650) return Fail(ErrorCode::kBadInput, usage);
    spec.days = *days;
  }
  spec.seed = seed;
  return spec;
}

}  // namespace frugal::spot
