#include "frugal/spot/optimum.h"

#include <gtest/gtest.h>

#include <limits>
#include <random>

#include "frugal/spot/policy.h"
#include "frugal/spot/simulator.h"
#include "spot_test_util.h"

namespace frugal::spot {
namespace {

using testing::MakeJob;
using testing::MakeStepTrace;

// The cheapest deadline-meeting run over every mode sequence of the simulator.
double BruteForce(const StepTrace& trace, int start, const StepJob& job) {
  const int n = job.deadline;
  std::vector<Mode> modes(static_cast<size_t>(n), Mode::kIdle);
  double best = std::numeric_limits<double>::infinity();
  int64_t total = 1;
  for (int i = 0; i < n; ++i) total *= 3;
  for (int64_t code = 0; code < total; ++code) {
    int64_t x = code;
    for (int i = 0; i < n; ++i, x /= 3) modes[static_cast<size_t>(i)] = static_cast<Mode>(x % 3);
    RunResult r = SimulateSequence(trace, start, job, modes);
    if (r.deadline_met) best = std::min(best, r.cost_usd);
  }
  return best;
}

std::string RandomPattern(std::mt19937_64& rng, int n, double p_up) {
  std::bernoulli_distribution up(p_up);
  std::string s;
  for (int i = 0; i < n; ++i) s += up(rng) ? '1' : '0';
  return s;
}

TEST(SpotOptimum, HandWorkedCases) {
  // All spot: changeover + work on spot.
  OptimumResult all_spot = SolveOptimum(MakeStepTrace("11111111"), 0, MakeJob(4, 8, 1));
  ASSERT_TRUE(all_spot.feasible);
  EXPECT_DOUBLE_EQ(all_spot.cost_usd, 5);
  // No spot: on-demand.
  OptimumResult none = SolveOptimum(MakeStepTrace("00000000"), 0, MakeJob(4, 8, 1));
  ASSERT_TRUE(none.feasible);
  EXPECT_DOUBLE_EQ(none.cost_usd, 15);
  // Waiting for spot beats on-demand when the deadline allows it.
  OptimumResult wait = SolveOptimum(MakeStepTrace("00011111"), 0, MakeJob(4, 8, 1));
  EXPECT_DOUBLE_EQ(wait.cost_usd, 5);
  // Infeasible: changeover + work exceed the deadline.
  EXPECT_FALSE(SolveOptimum(MakeStepTrace("11111111"), 0, MakeJob(4, 4, 1)).feasible);
}

TEST(SpotOptimum, MatchesBruteForceWhenCheckpointsAreFree) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 60; ++trial) {
    const int deadline = 5 + trial % 4;  // 3^8 sequences at most
    const int compute = 1 + static_cast<int>(rng() % static_cast<uint64_t>(deadline - 1));
    const int changeover = static_cast<int>(rng() % 3);
    const StepJob job = MakeJob(compute, deadline, changeover);
    const StepTrace trace = MakeStepTrace(RandomPattern(rng, deadline + 2, 0.6), 1,
                                          1.5 + static_cast<double>(rng() % 4));
    const double brute = BruteForce(trace, 0, job);
    const OptimumResult opt = SolveOptimum(trace, 0, job);
    if (brute == std::numeric_limits<double>::infinity()) {
      EXPECT_FALSE(opt.feasible) << "trial " << trial;
      continue;
    }
    ASSERT_TRUE(opt.feasible) << "trial " << trial;
    EXPECT_NEAR(opt.cost_usd, brute, 1e-9) << "trial " << trial;
  }
}

TEST(SpotOptimum, NeverAboveBruteForceWithCheckpoints) {
  std::mt19937_64 rng(12);
  for (int trial = 0; trial < 40; ++trial) {
    const int deadline = 6 + trial % 3;
    const int compute = 1 + static_cast<int>(rng() % 4);
    const StepJob job = MakeJob(compute, deadline, static_cast<int>(rng() % 2), 1,
                                1 + static_cast<int>(rng() % 3));
    const StepTrace trace = MakeStepTrace(RandomPattern(rng, deadline + 2, 0.6));
    const double brute = BruteForce(trace, 0, job);
    const OptimumResult opt = SolveOptimum(trace, 0, job);
    if (brute == std::numeric_limits<double>::infinity()) continue;
    ASSERT_TRUE(opt.feasible) << "trial " << trial;
    EXPECT_LE(opt.cost_usd, brute + 1e-9) << "trial " << trial;
  }
}

TEST(SpotOptimum, NeverAbovePoliciesAndPoliciesMeetFeasibleDeadlines) {
  std::mt19937_64 rng(13);
  int runs = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const int compute = 5 + static_cast<int>(rng() % 40);
    const int deadline = compute + static_cast<int>(rng() % (static_cast<uint64_t>(compute) + 5));
    const int changeover = static_cast<int>(rng() % 4);
    const int checkpoint = trial % 3 == 0 ? 1 + static_cast<int>(rng() % 2) : 0;
    const int notice = trial % 5 == 0 ? 2 : 0;
    const StepJob job = MakeJob(compute, deadline, changeover, checkpoint,
                                2 + static_cast<int>(rng() % 8), notice);
    // Markov on/off availability with random persistence.
    std::string pattern;
    bool up = rng() % 2 == 0;
    const double flip = 0.05 + 0.3 * static_cast<double>(rng() % 100) / 100.0;
    std::bernoulli_distribution change(flip);
    const int past = 60;
    for (int i = 0; i < past + deadline + 5; ++i) {
      pattern += up ? '1' : '0';
      if (change(rng)) up = !up;
    }
    const StepTrace trace = MakeStepTrace(pattern, 1, 2 + static_cast<double>(rng() % 3));
    const OptimumResult opt = SolveOptimum(trace, past, job);
    const bool guaranteed = deadline >= compute + changeover + checkpoint;
    for (const std::string& name : PolicyNames()) {
      auto policy = MakePolicy(name);
      ASSERT_TRUE(policy);
      RunResult r = Simulate(trace, past, job, **policy);
      if (guaranteed) {
        EXPECT_TRUE(r.deadline_met) << name << " trial " << trial << " " << pattern;
      }
      if (r.deadline_met) {
        ASSERT_TRUE(opt.feasible) << name << " trial " << trial;
        EXPECT_LE(opt.cost_usd, r.cost_usd + 1e-9) << name << " trial " << trial;
        ++runs;
      }
    }
  }
  EXPECT_GT(runs, 900);
}

}  // namespace
}  // namespace frugal::spot
