#include "frugal/tune/sampler.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "frugal/core/text.h"

namespace frugal::tune {

double Uniform(std::mt19937_64& rng) {
  return std::uniform_real_distribution<double>(0.0, 1.0)(rng);
}

std::string SaveRng(const std::mt19937_64& rng) {
  std::ostringstream out;
  out << rng;
  return out.str();
}

Result<void> LoadRng(std::mt19937_64& rng, const std::string& state) {
  std::istringstream in(state);
  in >> rng;
  if (in.fail()) return Fail(ErrorCode::kBadInput, "sampler state is not a generator state");
  return {};
}

namespace {

constexpr uint64_t kPrimes[] = {2,  3,  5,  7,  11, 13, 17, 19, 23, 29, 31,  37,  41,  43,  47,
                                53, 59, 61, 67, 71, 73, 79, 83, 89, 97, 101, 103, 107, 109, 113};

double RadicalInverse(uint64_t index, uint64_t base) {
  double result = 0.0;
  double fraction = 1.0 / static_cast<double>(base);
  while (index > 0) {
    result += static_cast<double>(index % base) * fraction;
    index /= base;
    fraction /= static_cast<double>(base);
  }
  return result;
}

/// Density at x of a Parzen estimator over `centres` (weight 1 each) plus a uniform prior of
/// weight 1 on [0,1].
double Parzen(double x, const std::vector<double>& centres, double bandwidth) {
  constexpr double kInvSqrt2Pi = 0.3989422804014327;
  double sum = 1.0;  // the prior
  for (double c : centres) {
    const double z = (x - c) / bandwidth;
    sum += kInvSqrt2Pi / bandwidth * std::exp(-0.5 * z * z);
  }
  return sum / static_cast<double>(centres.size() + 1);
}

double Bandwidth(size_t n) {
  // Scott's rule on the unit interval (σ of a uniform is ~0.29), floored so a few points do not
  // collapse the density onto themselves.
  return std::max(0.03, 0.29 * std::pow(static_cast<double>(std::max<size_t>(n, 1)), -0.2));
}

}  // namespace

std::vector<double> RandomSampler::Propose(size_t dimensions, std::span<const Observation>) {
  std::vector<double> point(dimensions);
  for (double& u : point) u = Uniform(rng_);
  return point;
}

std::vector<double> HaltonSampler::Propose(size_t dimensions, std::span<const Observation>) {
  std::vector<double> point(dimensions);
  std::mt19937_64 shift_rng(seed_);
  for (size_t d = 0; d < dimensions; ++d) {
    const uint64_t base = kPrimes[d % std::size(kPrimes)];
    // Beyond the table, reuse bases with a different shift: still uniform, less even.
    const double shift = Uniform(shift_rng);
    point[d] = std::fmod(RadicalInverse(index_, base) + shift, 1.0);
  }
  ++index_;
  return point;
}
std::string HaltonSampler::SaveState() const { return std::to_string(index_); }
Result<void> HaltonSampler::LoadState(const std::string& state) {
  const int64_t index = FRUGAL_TRY(ParseInt(state));
  if (index < 1) return Fail(ErrorCode::kBadInput, "halton index must be positive");
  index_ = static_cast<uint64_t>(index);
  return {};
}

namespace {

/// TPE's model of a history: per dimension, the coordinates of the best γ share ("good") and
/// of the rest, each a Parzen density.
class TpeModel {
 public:
  TpeModel(size_t dimensions, std::span<const Observation> history)
      : good_(dimensions), bad_(dimensions) {
    std::vector<const Observation*> sorted;
    for (const Observation& o : history) sorted.push_back(&o);
    std::sort(sorted.begin(), sorted.end(),
              [](const Observation* a, const Observation* b) { return a->loss < b->loss; });
    // γ as Optuna's default: the best min(⌈0.1 n⌉, 25) are "good".
    const size_t n_good = std::min<size_t>(
        25, static_cast<size_t>(std::ceil(0.1 * static_cast<double>(sorted.size()))));
    for (size_t i = 0; i < sorted.size(); ++i) {
      for (size_t d = 0; d < dimensions && d < sorted[i]->point.size(); ++d) {
        const double x = sorted[i]->point[d];
        if (x < 0) continue;  // inactive
        (i < n_good ? good_ : bad_)[d].push_back(x);
      }
    }
  }

  /// A draw from the good mixture: per dimension the prior with weight 1/(n+1), else a kernel.
  std::vector<double> Draw(std::mt19937_64& rng, std::normal_distribution<double>& noise) const {
    std::vector<double> point(good_.size());
    for (size_t d = 0; d < good_.size(); ++d) {
      const std::vector<double>& g = good_[d];
      const auto pick = std::uniform_int_distribution<size_t>(0, g.size())(rng);
      const double x = pick == g.size() ? Uniform(rng) : g[pick] + Bandwidth(g.size()) * noise(rng);
      point[d] = std::clamp(x, 0.0, std::nextafter(1.0, 0.0));
    }
    return point;
  }

  /// log good density − log bad density, over the active coordinates.
  double Score(std::span<const double> point) const {
    double score = 0.0;
    for (size_t d = 0; d < good_.size() && d < point.size(); ++d) {
      if (point[d] < 0) continue;
      score += std::log(Parzen(point[d], good_[d], Bandwidth(good_[d].size()))) -
               std::log(Parzen(point[d], bad_[d], Bandwidth(bad_[d].size())));
    }
    return score;
  }

 private:
  std::vector<std::vector<double>> good_, bad_;
};

}  // namespace

size_t Sampler::Pick(size_t dimensions, std::span<const Observation> history,
                     std::span<const std::vector<double>> pool) {
  return Nearest(Propose(dimensions, history), pool);
}

std::vector<double> TpeSampler::Propose(size_t dimensions, std::span<const Observation> history) {
  if (history.size() < startup_) {
    std::vector<double> point(dimensions);
    for (double& u : point) u = Uniform(rng_);
    return point;
  }
  const TpeModel model(dimensions, history);
  std::normal_distribution<double> noise(0.0, 1.0);
  std::vector<double> best_point;
  double best_score = -1e300;
  for (size_t c = 0; c < candidates_; ++c) {
    std::vector<double> point = model.Draw(rng_, noise);
    const double score = model.Score(point);
    if (score > best_score) {
      best_score = score;
      best_point = std::move(point);
    }
  }
  return best_point;
}

size_t TpeSampler::Pick(size_t dimensions, std::span<const Observation> history,
                        std::span<const std::vector<double>> pool) {
  if (history.size() < startup_) return Sampler::Pick(dimensions, history, pool);
  const TpeModel model(dimensions, history);
  std::normal_distribution<double> noise(0.0, 1.0);
  size_t best = 0;
  double best_score = -1e300;
  for (size_t c = 0; c < candidates_; ++c) {
    const size_t i = Nearest(model.Draw(rng_, noise), pool);
    const double score = model.Score(pool[i]);
    if (score > best_score) {
      best_score = score;
      best = i;
    }
  }
  return best;
}

std::unique_ptr<Sampler> MakeSampler(SamplerKind kind, uint64_t seed) {
  switch (kind) {
    case SamplerKind::kRandom:
      return std::make_unique<RandomSampler>(seed);
    case SamplerKind::kHalton:
      return std::make_unique<HaltonSampler>(seed);
    case SamplerKind::kTpe:
      return std::make_unique<TpeSampler>(seed);
    case SamplerKind::kGp:
      return std::make_unique<GpSampler>(seed);
  }
  return nullptr;
}

bool SamplerLearns(SamplerKind kind) {
  return kind == SamplerKind::kTpe || kind == SamplerKind::kGp;
}

size_t Nearest(std::span<const double> point, std::span<const std::vector<double>> pool) {
  size_t nearest = 0;
  double best = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < pool.size(); ++i) {
    double d = 0.0;
    for (size_t k = 0; k < point.size() && k < pool[i].size(); ++k) {
      const double x = pool[i][k];
      if (x >= 0) d += (x - point[k]) * (x - point[k]);
    }
    if (d < best) {
      best = d;
      nearest = i;
    }
  }
  return nearest;
}

}  // namespace frugal::tune
