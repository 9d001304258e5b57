#include "frugal/tune/sampler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace frugal::tune {
namespace {

TEST(RandomSampler, SameSeedSameSequenceAndStateRoundTrips) {
  RandomSampler a(7), b(7);
  EXPECT_EQ(a.Propose(3, {}), b.Propose(3, {}));
  const std::string state = a.SaveState();
  const auto next = a.Propose(3, {});
  RandomSampler c(99);
  ASSERT_TRUE(c.LoadState(state));
  EXPECT_EQ(c.Propose(3, {}), next);
  EXPECT_FALSE(c.LoadState("not a state"));
}

TEST(HaltonSampler, FillsTheIntervalEvenly) {
  HaltonSampler s(3);
  std::vector<int> bins(16, 0);
  for (int i = 0; i < 64; ++i) {
    const auto p = s.Propose(2, {});
    ASSERT_GE(p[0], 0.0);
    ASSERT_LT(p[0], 1.0);
    ++bins[static_cast<size_t>(p[0] * 16)];
  }
  // Low discrepancy: 64 points in 16 bins put 4±1 in each (uniform draws typically spread
  // from 0 or 1 to 8 or more).
  for (int count : bins) {
    EXPECT_GE(count, 3);
    EXPECT_LE(count, 5);
  }
}

TEST(HaltonSampler, ResumesWhereItStopped) {
  HaltonSampler a(1);
  a.Propose(2, {});
  HaltonSampler b(1);
  ASSERT_TRUE(b.LoadState(a.SaveState()));
  EXPECT_EQ(a.Propose(2, {}), b.Propose(2, {}));
}

double Quadratic(const std::vector<double>& x) {
  return std::pow(x[0] - 0.8, 2) + std::pow(x[1] - 0.2, 2);
}

double BestAfter(Sampler& sampler, int n) {
  std::vector<Observation> history;
  double best = 1e9;
  for (int i = 0; i < n; ++i) {
    auto p = sampler.Propose(2, history);
    const double loss = Quadratic(p);
    best = std::min(best, loss);
    history.push_back(Observation{p, loss});
  }
  return best;
}

/// The best losses an `S` finds in `n` proposals, summed over seeds 1–10.
template <class S>
double TotalBest(int n) {
  double total = 0;
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    S sampler(seed);
    total += BestAfter(sampler, n);
  }
  return total;
}

TEST(TpeSampler, ConvergesFasterThanRandomOnAQuadratic) {
  EXPECT_LT(TotalBest<TpeSampler>(60), 0.5 * TotalBest<RandomSampler>(60));
}

// A replay table offers a finite pool of untried rows. A proposal snapped to its nearest row
// can land somewhere the model has learned is bad; TPE judges each candidate at the row it
// would really run. Here the good trials sit at 0.30 and the bad ones crowd 0.40, the row
// nearest most proposals; the other row, 0.02, is far from both.
TEST(TpeSampler, PicksAPoolRowByItsOwnScoreNotByNearnessToAProposal) {
  std::vector<Observation> history;
  for (int i = 0; i < 3; ++i) history.push_back({{0.30 + 0.01 * i}, 0.0});
  for (int i = 0; i < 30; ++i) history.push_back({{0.37 + 0.002 * i}, 1.0});
  const std::vector<std::vector<double>> pool = {{0.40}, {0.02}};
  int far_row = 0;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    TpeSampler tpe(seed);
    far_row += tpe.Pick(1, history, pool) == 1 ? 1 : 0;
  }
  EXPECT_GE(far_row, 18);
  // Without a model (or before it has enough history), a proposal goes to its nearest row.
  EXPECT_EQ(Nearest(std::vector<double>{0.1}, pool), 1u);
  EXPECT_EQ(Nearest(std::vector<double>{0.3}, pool), 0u);
}

TEST(GpSampler, ConvergesFasterThanTpeOnAQuadratic) {
  // A smooth bowl is what a Gaussian process models best.
  EXPECT_LT(TotalBest<GpSampler>(30), 0.2 * TotalBest<TpeSampler>(30));
}

// On a pool, the GP's pick is the row of highest expected improvement: next to the best
// observations, not next to the worst, and not where nothing is known when the model is sure.
TEST(GpSampler, PicksThePoolRowWhereTheModelExpectsImprovement) {
  std::vector<Observation> history;
  for (int i = 0; i < 12; ++i) {
    const double x = (i + 0.5) / 12.0;
    history.push_back({{x, 0.5}, std::pow(x - 0.7, 2)});
  }
  const std::vector<std::vector<double>> pool = {{0.05, 0.5}, {0.69, 0.5}, {0.95, 0.5}};
  GpSampler gp(1);
  EXPECT_EQ(gp.Pick(2, history, pool), 1u);
}

TEST(GpSampler, ResumesTheSameSequenceAndHandlesInactiveCoordinates) {
  std::vector<Observation> history;
  RandomSampler random(5);
  for (int i = 0; i < 15; ++i) {
    auto p = random.Propose(3, {});
    if (i % 2 == 0) p[2] = -1;  // a conditional parameter, inactive in half the trials
    history.push_back({p, Quadratic(p)});
  }
  GpSampler a(3);
  const std::string state = a.SaveState();
  const auto first = a.Propose(3, history);
  for (double x : first) {
    EXPECT_GE(x, 0.0);
    EXPECT_LT(x, 1.0);
  }
  GpSampler b(99);
  ASSERT_TRUE(b.LoadState(state));
  EXPECT_EQ(b.Propose(3, history), first);
  EXPECT_FALSE(b.LoadState("not a state"));
}

}  // namespace
}  // namespace frugal::tune
