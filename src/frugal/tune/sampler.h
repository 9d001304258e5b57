#pragma once
// Samplers propose the next point of a study's search space (a unit-cube vector, see
// SearchSpace). Random and quasi-random ignore the history; TPE and the Gaussian process model it.

#include <cstdint>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "frugal/core/error.h"
#include "frugal/tune/search_space.h"

namespace frugal::tune {

enum class SamplerKind { kRandom, kHalton, kTpe, kGp };

/// A finished evaluation the sampler may learn from: the point, and a loss (lower is better;
/// the study negates maximized metrics). Coordinates of inactive parameters are -1.
struct Observation {
  std::vector<double> point;
  double loss = 0.0;
};

class Sampler {
 public:
  virtual ~Sampler() = default;
  /// Proposes a point with `dimensions` coordinates in [0,1).
  virtual std::vector<double> Propose(size_t dimensions, std::span<const Observation> history) = 0;
  /// Picks one of `pool` (the points a study may still try: a replay table's untried rows) and
  /// returns its index; `pool` is not empty. By default the pool point nearest a proposal.
  virtual size_t Pick(size_t dimensions, std::span<const Observation> history,
                      std::span<const std::vector<double>> pool);
  /// The generator state as text, so a resumed study continues the same sequence.
  virtual std::string SaveState() const = 0;
  /// Restores SaveState's text; kBadInput when it is not one.
  [[nodiscard]] virtual Result<void> LoadState(const std::string& state) = 0;
};

/// A uniform draw in [0,1); a generator's state as text, and back (kBadInput when not one).
double Uniform(std::mt19937_64& rng);
std::string SaveRng(const std::mt19937_64& rng);
[[nodiscard]] Result<void> LoadRng(std::mt19937_64& rng, const std::string& state);

/// A sampler whose whole state is its random generator: given the history, the generator alone
/// decides what comes next, so a resumed study continues the same sequence.
class SeededSampler : public Sampler {
 public:
  std::string SaveState() const final { return SaveRng(rng_); }
  [[nodiscard]] Result<void> LoadState(const std::string& state) final {
    return LoadRng(rng_, state);
  }

 protected:
  explicit SeededSampler(uint64_t seed) : rng_(seed) {}
  std::mt19937_64 rng_;
};

/// Independent uniform draws.
class RandomSampler final : public SeededSampler {
 public:
  explicit RandomSampler(uint64_t seed) : SeededSampler(seed) {}
  std::vector<double> Propose(size_t dimensions, std::span<const Observation> history) override;
};

/// The Halton sequence (one prime base per dimension) with a seeded random shift modulo 1, so
/// different seeds give different, still low-discrepancy, sequences.
class HaltonSampler final : public Sampler {
 public:
  explicit HaltonSampler(uint64_t seed) : seed_(seed) {}
  std::vector<double> Propose(size_t dimensions, std::span<const Observation> history) override;
  std::string SaveState() const override;
  [[nodiscard]] Result<void> LoadState(const std::string& state) override;

 private:
  uint64_t seed_;
  uint64_t index_ = 1;  // index 0 is the origin for every base; skip it
};

/// Tree-structured Parzen estimator: after `startup` random points, splits the history into
/// the best γ share and the rest, fits a Parzen density to each per dimension (Gaussian
/// kernels plus a uniform prior), draws candidates from the good density and keeps the one
/// with the highest good/bad density ratio.
class TpeSampler final : public SeededSampler {
 public:
  explicit TpeSampler(uint64_t seed, size_t startup = 10, size_t candidates = 24)
      : SeededSampler(seed), startup_(startup), candidates_(candidates) {}
  std::vector<double> Propose(size_t dimensions, std::span<const Observation> history) override;
  /// Snaps each candidate to the pool before scoring it, so the density ratio is judged where
  /// the trial would really run.
  size_t Pick(size_t dimensions, std::span<const Observation> history,
              std::span<const std::vector<double>> pool) override;

 private:
  size_t startup_;
  size_t candidates_;
};

/// Gaussian-process expected improvement: after `startup` random points, fits a GP (Matérn 5/2
/// kernel, its length scale chosen by marginal likelihood) to the standardized losses of at
/// most kMaxObservations of the history (the best half and the most recent rest), and picks the
/// candidate with the highest expected improvement over the best loss seen.
class GpSampler final : public SeededSampler {
 public:
  static constexpr size_t kMaxObservations = 160;
  explicit GpSampler(uint64_t seed, size_t startup = 10) : SeededSampler(seed), startup_(startup) {}
  /// The best of random candidates and of local perturbations of the best points so far.
  std::vector<double> Propose(size_t dimensions, std::span<const Observation> history) override;
  /// The pool point with the highest expected improvement.
  size_t Pick(size_t dimensions, std::span<const Observation> history,
              std::span<const std::vector<double>> pool) override;

 private:
  size_t startup_;
};

std::unique_ptr<Sampler> MakeSampler(SamplerKind kind, uint64_t seed);

/// Whether a sampler learns from the study's history (so the study must compute it).
bool SamplerLearns(SamplerKind kind);

/// The index of the pool point nearest `point`, over the coordinates both have active (≥ 0).
size_t Nearest(std::span<const double> point, std::span<const std::vector<double>> pool);

}  // namespace frugal::tune
