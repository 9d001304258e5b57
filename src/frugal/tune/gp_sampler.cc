// The Gaussian-process sampler: a GP regression of the history's losses over the unit cube,
// and expected improvement as the acquisition (Jones et al., 1998; Snoek et al., 2012). The
// histories are small (a study's trials, at most GpSampler::kMaxObservations of them at once),
// so the linear algebra is a dense Cholesky factorization.

#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>

#include "frugal/tune/sampler.h"

namespace frugal::tune {

namespace {

/// Observation noise variance, in units of the standardized losses' variance.
constexpr double kNoise = 0.01;
/// Length scales tried, per √dimension: the marginal likelihood picks one at each fit.
constexpr double kLengthScales[] = {0.05, 0.08, 0.12, 0.18, 0.27, 0.4};
constexpr size_t kRandomCandidates = 512;
constexpr size_t kLocalCandidates = 64;  ///< per each of the best kLocalSeeds points
constexpr size_t kLocalSeeds = 5;
constexpr double kLocalSpread = 0.1;
constexpr size_t kMaxPool = 4096;

double SquaredDistance(std::span<const double> a, std::span<const double> b) {
  // Inactive coordinates are -1: two inactive agree, an active and an inactive one are at least
  // 1 apart, as far as the ends of a dimension.
  double d = 0.0;
  for (size_t k = 0; k < a.size() && k < b.size(); ++k) d += (a[k] - b[k]) * (a[k] - b[k]);
  return d;
}

double Matern52(double squared_distance, double length_scale) {
  const double r = std::sqrt(5.0 * squared_distance) / length_scale;
  return (1.0 + r + r * r / 3.0) * std::exp(-r);
}

/// A GP fitted to (points, standardized losses) with one length scale.
class GpModel {
 public:
  /// Fits the length scale of highest marginal likelihood.
  GpModel(std::vector<std::vector<double>> x, std::vector<double> y, size_t dimensions)
      : x_(std::move(x)), y_(std::move(y)) {
    double best_likelihood = -INFINITY;
    for (double scale : kLengthScales) {
      const double length = scale * std::sqrt(static_cast<double>(std::max<size_t>(dimensions, 1)));
      const double likelihood = Factor(length);
      if (likelihood > best_likelihood) {
        best_likelihood = likelihood;
        length_scale_ = length;
      }
    }
    // No length scale factors (the points are numerically degenerate): every candidate then
    // scores the same, and the first one, a random draw, is taken.
    fitted_ = std::isfinite(Factor(length_scale_));
    best_ = *std::min_element(y_.begin(), y_.end());
  }

  /// Expected improvement (lower losses are better) at `point`.
  double ExpectedImprovement(std::span<const double> point) const {
    if (!fitted_) return 0.0;
    const size_t n = y_.size();
    std::vector<double> k(n);
    for (size_t i = 0; i < n; ++i) k[i] = Matern52(SquaredDistance(point, x_[i]), length_scale_);
    const double mean = std::inner_product(k.begin(), k.end(), alpha_.begin(), 0.0);
    SolveLower(k);  // v = L⁻¹k; the variance is k(x,x) − vᵀv
    const double variance =
        std::max(1e-12, 1.0 - std::inner_product(k.begin(), k.end(), k.begin(), 0.0));
    const double sd = std::sqrt(variance);
    const double z = (best_ - mean) / sd;
    const double cdf = 0.5 * std::erfc(-z / std::numbers::sqrt2);
    const double pdf = std::exp(-0.5 * z * z) / std::sqrt(2.0 * std::numbers::pi);
    return (best_ - mean) * cdf + sd * pdf;
  }

 private:
  /// Factors K + σ²I = LLᵀ and solves α = (K + σ²I)⁻¹y; returns the log marginal likelihood
  /// (up to a constant), or -∞ when the matrix is not positive definite.
  double Factor(double length) {
    const size_t n = y_.size();
    chol_.assign(n * n, 0.0);
    for (size_t i = 0; i < n; ++i) {
      for (size_t j = 0; j <= i; ++j) {
        chol_[i * n + j] = Matern52(SquaredDistance(x_[i], x_[j]), length) + (i == j ? kNoise : 0);
      }
    }
    for (size_t j = 0; j < n; ++j) {
      double d = chol_[j * n + j];
      for (size_t k = 0; k < j; ++k) d -= chol_[j * n + k] * chol_[j * n + k];
      if (d <= 0) return -INFINITY;
      const double l = std::sqrt(d);
      chol_[j * n + j] = l;
      for (size_t i = j + 1; i < n; ++i) {
        double s = chol_[i * n + j];
        for (size_t k = 0; k < j; ++k) s -= chol_[i * n + k] * chol_[j * n + k];
        chol_[i * n + j] = s / l;
      }
    }
    alpha_ = y_;
    SolveLower(alpha_);
    const double fit = std::inner_product(alpha_.begin(), alpha_.end(), alpha_.begin(), 0.0);
    // α = L⁻ᵀ(L⁻¹y)
    for (size_t ii = n; ii-- > 0;) {
      double s = alpha_[ii];
      for (size_t k = ii + 1; k < n; ++k) s -= chol_[k * n + ii] * alpha_[k];
      alpha_[ii] = s / chol_[ii * n + ii];
    }
    double log_det = 0.0;
    for (size_t i = 0; i < n; ++i) log_det += std::log(chol_[i * n + i]);
    return -0.5 * fit - log_det;
  }

  /// b ← L⁻¹b.
  void SolveLower(std::vector<double>& b) const {
    const size_t n = b.size();
    for (size_t i = 0; i < n; ++i) {
      double s = b[i];
      for (size_t k = 0; k < i; ++k) s -= chol_[i * n + k] * b[k];
      b[i] = s / chol_[i * n + i];
    }
  }

  std::vector<std::vector<double>> x_;
  std::vector<double> y_;
  std::vector<double> chol_;   ///< L, row-major n×n, lower triangle
  std::vector<double> alpha_;  ///< (K + σ²I)⁻¹y
  double length_scale_ = 1.0;
  double best_ = 0.0;
  bool fitted_ = false;
};

/// The observations the GP conditions on: all of them up to kMaxObservations, else the best
/// half and the most recent of the rest. Returns their indices into `history`.
std::vector<size_t> Select(std::span<const Observation> history) {
  std::vector<size_t> all(history.size());
  std::iota(all.begin(), all.end(), size_t{0});
  if (all.size() <= GpSampler::kMaxObservations) return all;
  std::stable_sort(all.begin(), all.end(),
                   [&](size_t a, size_t b) { return history[a].loss < history[b].loss; });
  const size_t best = GpSampler::kMaxObservations / 2;
  std::vector<size_t> rest(all.begin() + static_cast<std::ptrdiff_t>(best), all.end());
  std::sort(rest.begin(), rest.end());
  all.resize(best);
  all.insert(all.end(),
             rest.end() - static_cast<std::ptrdiff_t>(GpSampler::kMaxObservations - best),
             rest.end());
  return all;
}

GpModel Fit(size_t dimensions, std::span<const Observation> history) {
  const std::vector<size_t> chosen = Select(history);
  std::vector<std::vector<double>> x;
  std::vector<double> y;
  for (size_t i : chosen) {
    x.push_back(history[i].point);
    y.push_back(history[i].loss);
  }
  const double mean = std::accumulate(y.begin(), y.end(), 0.0) / static_cast<double>(y.size());
  double var = 0.0;
  for (double v : y) var += (v - mean) * (v - mean);
  const double sd = std::sqrt(var / static_cast<double>(y.size()));
  for (double& v : y) v = sd > 0 ? (v - mean) / sd : 0.0;
  return GpModel(std::move(x), std::move(y), dimensions);
}

std::vector<double> RandomPoint(size_t dimensions, std::mt19937_64& rng) {
  std::vector<double> point(dimensions);
  for (double& u : point) u = Uniform(rng);
  return point;
}

}  // namespace

std::vector<double> GpSampler::Propose(size_t dimensions, std::span<const Observation> history) {
  if (history.size() < startup_) return RandomPoint(dimensions, rng_);
  const GpModel model = Fit(dimensions, history);
  std::vector<std::vector<double>> candidates;
  for (size_t c = 0; c < kRandomCandidates; ++c)
    candidates.push_back(RandomPoint(dimensions, rng_));
  std::vector<size_t> order(history.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return history[a].loss < history[b].loss; });
  std::normal_distribution<double> step(0.0, kLocalSpread);
  for (size_t s = 0; s < kLocalSeeds && s < order.size(); ++s) {
    const std::vector<double>& seed = history[order[s]].point;
    for (size_t c = 0; c < kLocalCandidates; ++c) {
      std::vector<double> point(dimensions);
      for (size_t d = 0; d < dimensions; ++d) {
        // An inactive coordinate of the seed is drawn afresh: its parameter may apply here.
        const double x = d < seed.size() && seed[d] >= 0 ? seed[d] + step(rng_) : Uniform(rng_);
        point[d] = std::clamp(x, 0.0, std::nextafter(1.0, 0.0));
      }
      candidates.push_back(std::move(point));
    }
  }
  size_t best = 0;
  double best_ei = -INFINITY;
  for (size_t c = 0; c < candidates.size(); ++c) {
    const double ei = model.ExpectedImprovement(candidates[c]);
    if (ei > best_ei) {
      best_ei = ei;
      best = c;
    }
  }
  return candidates[best];
}

size_t GpSampler::Pick(size_t dimensions, std::span<const Observation> history,
                       std::span<const std::vector<double>> pool) {
  if (history.size() < startup_) return Sampler::Pick(dimensions, history, pool);
  const GpModel model = Fit(dimensions, history);
  // A very large pool is judged on a random sample of its points.
  std::vector<size_t> judged(pool.size());
  std::iota(judged.begin(), judged.end(), size_t{0});
  if (judged.size() > kMaxPool) {
    std::shuffle(judged.begin(), judged.end(), rng_);
    judged.resize(kMaxPool);
  }
  size_t best = judged.front();
  double best_ei = -INFINITY;
  for (size_t i : judged) {
    const double ei = model.ExpectedImprovement(pool[i]);
    if (ei > best_ei) {
      best_ei = ei;
      best = i;
    }
  }
  return best;
}

}  // namespace frugal::tune
