#include "frugal/plan/checkpointing.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace frugal::plan {
namespace {

TEST(Checkpointing, YoungIsTheSquareRootOfTwoCM) {
  EXPECT_DOUBLE_EQ(YoungInterval(0.1, 5.0), 1.0);
  EXPECT_DOUBLE_EQ(YoungInterval(2.0 / 60, 1.0 / 0.3), std::sqrt(2.0 * (2.0 / 60) / 0.3));
}

TEST(Checkpointing, DalyAddsHigherOrderTermsAndCapsAtM) {
  // C = 0.1, M = 5: √(2CM) = 1, C/2M = 0.01: 1·(1 + 0.1/3 + 0.01/9) − 0.1
  EXPECT_NEAR(DalyInterval(0.1, 5.0), 1.0 + 0.1 / 3 + 0.01 / 9 - 0.1, 1e-12);
  EXPECT_DOUBLE_EQ(DalyInterval(3.0, 1.0), 1.0);
}

TEST(Checkpointing, ExpectedWallTimeIsDalysClosedForm) {
  const double t = ExpectedWallHours(10, 1, 0.1, 0.1, 5);
  EXPECT_NEAR(t, 5 * std::exp(0.02) * (std::exp(0.22) - 1) * 10, 1e-9);
  EXPECT_NEAR(t, 12.5525, 1e-3);
}

// The closed form against a seeded simulation of the process it models: segments of τ work
// plus a checkpoint; a failure loses the segment and costs a restart (which can fail too).
TEST(Checkpointing, ClosedFormMatchesASeededSimulation) {
  const double tau = 0.5, c = 0.05, r = 0.1, m = 2.0;
  std::mt19937_64 rng(42);
  std::exponential_distribution<double> failure(1.0 / m);
  const int segments = 200'000;
  double time = 0;
  for (int s = 0; s < segments; ++s) {
    while (true) {
      const double f = failure(rng);
      if (f >= tau + c) {
        time += tau + c;
        break;
      }
      time += f;
      while (true) {
        const double g = failure(rng);
        if (g >= r) {
          time += r;
          break;
        }
        time += g;
      }
    }
  }
  const double expected = ExpectedWallHours(segments * tau, tau, c, r, m);
  EXPECT_NEAR(time / expected, 1.0, 0.01);
}

// A job that cannot resume loses the whole attempt at each preemption: the closed form
// (e^(λW) − 1)(1/λ + R) against a seeded simulation of attempts and restarts (restarts are
// not preempted in the model), and the deadline risk against the simulated share of misses.
TEST(Checkpointing, JobThatCannotResumeRestartsFromScratchAtEachPreemption) {
  FaultTolerance ft;
  ft.resumes = false;
  ft.restart_hours = 0.1;
  const double work = 3.0, rate = 0.3, deadline = 8.0;
  const SpotRun run = ModelSpotRun(work, rate, ft, deadline);
  EXPECT_EQ(run.strategy, CheckpointStrategy::kFromScratch);
  EXPECT_NEAR(run.expected_wall_hours, std::expm1(rate * work) * (1 / rate + 0.1), 1e-12);
  EXPECT_NEAR(run.expected_preemptions, std::expm1(rate * work), 1e-12);
  EXPECT_DOUBLE_EQ(run.checkpoint_hours, 0);
  std::mt19937_64 rng(7);
  std::exponential_distribution<double> failure(rate);
  const int runs = 200'000;
  double total = 0;
  int misses = 0;
  for (int i = 0; i < runs; ++i) {
    double t = 0;
    while (true) {
      const double f = failure(rng);
      if (f >= work) {
        t += work;
        break;
      }
      t += f + ft.restart_hours;
    }
    total += t;
    misses += t > deadline ? 1 : 0;
  }
  EXPECT_NEAR(total / runs / run.expected_wall_hours, 1.0, 0.01);
  // The risk counts failed attempts at their mean cost: close to the simulated share.
  EXPECT_NEAR(run.deadline_miss_probability, static_cast<double>(misses) / runs, 0.03);
  // Far more work than the mean time between preemptions never ends in any useful sense.
  EXPECT_FALSE(ModelSpotRun(400, 0.3, ft, std::nullopt).viable);
  // A job that resumes is priced with checkpoints, the same figures otherwise.
  ft.resumes = true;
  EXPECT_EQ(ModelSpotRun(work, rate, ft, deadline).strategy, CheckpointStrategy::kPeriodic);
}

TEST(Checkpointing, PeriodicRunBreaksDownItsOverhead) {
  FaultTolerance ft;
  ft.checkpoint_write_hours = 0.1;
  ft.restart_hours = 0.1;
  const SpotRun run = ModelSpotRun(10, 0.2, ft, std::nullopt);
  EXPECT_EQ(run.strategy, CheckpointStrategy::kPeriodic);
  EXPECT_DOUBLE_EQ(run.interval_hours, DalyInterval(0.1, 5));
  EXPECT_DOUBLE_EQ(run.expected_wall_hours, ExpectedWallHours(10, run.interval_hours, 0.1, 0.1, 5));
  EXPECT_DOUBLE_EQ(run.expected_preemptions, 0.2 * run.expected_wall_hours);
  EXPECT_DOUBLE_EQ(run.checkpoint_hours, 10 / run.interval_hours * 0.1);
  EXPECT_NEAR(run.checkpoint_hours + run.restart_hours + run.lost_work_hours + 10,
              run.expected_wall_hours, 1e-9);
  EXPECT_GT(run.lost_work_hours, 0);
}

// A restart longer than the mean time between preemptions (a slow boot and staging) with waits
// for capacity after each preemption: against a seeded simulation of segments (wait, then a
// restart that can itself be preempted, then the work and its write), the expected wall, the
// work lost, the restarts and the waits each agree; the waits are neither preempted nor billed.
TEST(Checkpointing, LongRestartsAndCapacityWaitsAreSplitAsASimulationSplitsThem) {
  FaultTolerance ft;
  ft.checkpoint_write_hours = 0.1;
  ft.restart_hours = 1.2;
  const double work = 10, rate = 1.0, outage = 0.5;
  const SpotRun run = ModelSpotRun(work, rate, ft, std::nullopt, outage);
  ASSERT_EQ(run.strategy, CheckpointStrategy::kPeriodic);
  const double stretch = run.interval_hours + ft.checkpoint_write_hours;
  std::mt19937_64 rng(11);
  std::exponential_distribution<double> failure(rate);
  const int segments = 400'000;
  double wall = 0, lost = 0, restarts = 0, waits = 0, preemptions = 0;
  for (int i = 0; i < segments; ++i) {
    bool first = true;
    while (true) {
      if (!first) {
        waits += outage;
        const double f = failure(rng);
        if (f < ft.restart_hours) {
          restarts += f;
          ++preemptions;
          continue;
        }
        restarts += ft.restart_hours;
      }
      first = false;
      const double f = failure(rng);
      if (f >= stretch) {
        wall += stretch;
        break;
      }
      lost += f;
      ++preemptions;
    }
  }
  const double scale = work / run.interval_hours / segments;
  const double simulated_wall = (wall + lost + restarts + waits) * scale;
  EXPECT_NEAR(run.expected_wall_hours / simulated_wall, 1.0, 0.01);
  EXPECT_NEAR(run.expected_preemptions / (preemptions * scale), 1.0, 0.01);
  EXPECT_NEAR(run.capacity_wait_hours / (waits * scale), 1.0, 0.01);
  EXPECT_NEAR(run.lost_work_hours / (lost * scale), 1.0, 0.02);
  EXPECT_NEAR(run.restart_hours / (restarts * scale), 1.0, 0.02);
  EXPECT_GT(run.lost_work_hours, 0);
  EXPECT_NEAR(run.checkpoint_hours + run.restart_hours + run.lost_work_hours +
                  run.capacity_wait_hours + work,
              run.expected_wall_hours, 1e-9);
  // Without the waits the same run is shorter by exactly them.
  EXPECT_NEAR(ModelSpotRun(work, rate, ft, std::nullopt).expected_wall_hours,
              run.expected_wall_hours - run.capacity_wait_hours, 1e-9);
}

TEST(Checkpointing, CheckpointOnNoticeLosesOnlyRestartsWhenTheSaveFitsTheNotice) {
  FaultTolerance ft;
  ft.checkpoint_on_notice = true;
  ft.notice_hours = 2.0 / 60;
  ft.checkpoint_write_hours = 1.0 / 60;
  ft.restart_hours = 0.1;
  const SpotRun run = ModelSpotRun(10, 0.5, ft, std::nullopt);
  EXPECT_EQ(run.strategy, CheckpointStrategy::kOnNotice);
  EXPECT_DOUBLE_EQ(run.expected_wall_hours, 10 / (1 - 0.5 * (0.1 + 1.0 / 60)));
  EXPECT_DOUBLE_EQ(run.lost_work_hours, 0);
  ft.checkpoint_write_hours = 3.0 / 60;  // too slow for the notice: periodic
  EXPECT_EQ(ModelSpotRun(10, 0.5, ft, std::nullopt).strategy, CheckpointStrategy::kPeriodic);
}

TEST(Checkpointing, DeadlineRiskIsAPoissonTail) {
  EXPECT_NEAR(PoissonTail(2.0, 1), 1 - std::exp(-2.0) * (1 + 2), 1e-12);
  EXPECT_DOUBLE_EQ(PoissonTail(2.0, -1), 1.0);
  EXPECT_DOUBLE_EQ(PoissonTail(0.0, 3), 0.0);
  FaultTolerance ft;
  ft.checkpoint_on_notice = true;
  ft.checkpoint_write_hours = 0;
  ft.restart_hours = 0.25;
  // 4 h of work, 5 h deadline: the slack absorbs 4 preemptions at 0.25 h each.
  const SpotRun run = ModelSpotRun(4, 0.5, ft, 5.0);
  EXPECT_NEAR(run.deadline_miss_probability, PoissonTail(0.5 * run.expected_wall_hours, 4), 1e-12);
  EXPECT_DOUBLE_EQ(ModelSpotRun(4, 0.5, ft, 3.9).deadline_miss_probability, 1.0);
  EXPECT_DOUBLE_EQ(ModelSpotRun(4, 0.0, ft, 5.0).deadline_miss_probability, 0.0);
}

struct FallbackCase {
  double work_hours, rate, deadline_hours;
  FaultTolerance ft;
  FallbackPrices prices;
};

FallbackCase Periodic() {
  // Like an 8-GPU node at 0.3 preemptions/h whose expected spot wall (~20 h) is inside the
  // 21 h deadline: the case where the switch time used to be the deadline itself.
  FallbackCase c{16.6, 0.3, 21.0, {}, {12.0, 32.8, 16.6}};
  c.ft.checkpoint_write_hours = 3.0 / 60;
  c.ft.restart_hours = 8.0 / 60;
  return c;
}

FallbackCase OnNotice() {
  FallbackCase c{10.0, 0.5, 11.8, {}, {1.0, 3.0, 9.0}};
  c.ft.checkpoint_on_notice = true;
  c.ft.notice_hours = 2.0 / 60;
  c.ft.checkpoint_write_hours = 1.0 / 60;
  c.ft.restart_hours = 0.2;
  return c;
}

FallbackCase Planned() {
  // 10 h of work by 11 h, checkpointing 6 min every ~36 min: spot alone needs 11.7 h.
  FallbackCase c{10.0, 0.5, 11.0, {}, {1.0, 4.0, 10.0}};
  c.ft.checkpoint_write_hours = 0.1;
  c.ft.restart_hours = 0.1;
  return c;
}

struct Simulated {
  double mean_cost = 0;
  double switched_share = 0;
  double latest_finish = 0;
};

// A seeded simulation of the rule checkpointing.h states, event by event: preemptions arrive
// in wall time (restarts included); a periodic run commits τ of work per τ + C, one on notice
// saves what it did; at each commit (continuously on notice) and before each restart, spot goes
// on only if a whole further loss, the restart and the on-demand rest still fit the deadline.
Simulated SimulateFallback(const FallbackCase& c, const SpotRun& spot, int runs) {
  const bool periodic = spot.strategy == CheckpointStrategy::kPeriodic;
  const double tau = spot.interval_hours;
  const double cw = c.ft.checkpoint_write_hours;
  const double r = c.ft.restart_hours;
  const double lost_max = periodic ? tau + cw : cw;
  const double w = c.work_hours;
  const double od_work = c.prices.on_demand_work_hours;
  const double drift = periodic ? 0 : 1 - od_work / w;  // on notice: surplus lost per spot hour
  std::mt19937_64 rng(7);
  std::exponential_distribution<double> next(c.rate);
  Simulated out;
  for (int i = 0; i < runs; ++i) {
    double t = 0, saved = 0, cost = 0;
    const auto on_spot = [&](double hours) {
      t += hours;
      cost += c.prices.spot_per_hour * hours;
    };
    const auto surplus = [&] {
      return c.deadline_hours - t - lost_max - r - (1 - saved / w) * od_work;
    };
    bool switched = false;
    while (saved < w - 1e-12 && !switched) {
      if (surplus() < 0) {
        switched = true;
        break;
      }
      // Spot until the next commit (periodic) or the planned switch (on notice).
      const double work = periodic ? std::min(tau, w - saved)
                                   : std::min(w - saved, drift > 0 ? surplus() / drift : INFINITY);
      if (work <= 1e-9) {  // on notice: the planned switch is now
        switched = true;
        break;
      }
      const double wall = periodic ? work + cw : work;
      const double f = next(rng);
      if (f >= wall) {
        on_spot(wall);
        saved += work;
        continue;
      }
      on_spot(f + (periodic ? 0 : cw));
      if (!periodic) saved += f;
      while (true) {  // restart on spot, if that leaves the reserve
        if (surplus() - r < 0) {
          switched = true;
          break;
        }
        const double g = next(rng);
        on_spot(std::min(g, r));
        if (g >= r) break;
      }
    }
    if (switched) {
      const double od = r + (1 - saved / w) * od_work;
      t += od;
      cost += c.prices.on_demand_per_hour * od;
      out.switched_share += 1.0 / runs;
    }
    out.mean_cost += cost / runs;
    out.latest_finish = std::max(out.latest_finish, t);
  }
  return out;
}

TEST(Checkpointing, FallbackSwitchReservesTheOnDemandRestartAndTheRemainingWork) {
  for (const FallbackCase& c : {Periodic(), OnNotice(), Planned()}) {
    const SpotRun spot = ModelSpotRun(c.work_hours, c.rate, c.ft, c.deadline_hours);
    ASSERT_GT(spot.deadline_miss_probability, 0.05);
    const auto f =
        ModelFallback(c.work_hours, spot, c.rate, c.ft, c.prices, c.deadline_hours).value();
    EXPECT_GT(f.switch_probability, 0);
    EXPECT_LT(f.switch_at_hours, c.deadline_hours - c.ft.restart_hours);
    // The switched branch does real work on demand, and still ends by the deadline.
    EXPECT_GT(f.on_demand_hours, c.ft.restart_hours + 0.1 * c.prices.on_demand_work_hours);
    EXPECT_LE(f.switch_at_hours + f.on_demand_hours, c.deadline_hours);
    EXPECT_LE(f.expected_wall_hours, c.deadline_hours);
  }
  EXPECT_FALSE(ModelFallback(16.6, ModelSpotRun(16.6, 0.3, Periodic().ft, 21.0), 0.3, Periodic().ft,
                             Periodic().prices, 21.0)
                   ->planned_switch);
  EXPECT_TRUE(ModelFallback(10, ModelSpotRun(10, 0.5, Planned().ft, 11.0), 0.5, Planned().ft,
                            Planned().prices, 11.0)
                  ->planned_switch);
}

// The model against a simulation of the rule it prices: no simulated run misses the deadline,
// the switch is at least about as likely as simulated, and the expected cost is not below the
// simulated mean by more than the simulation's noise. It errs high (P(N(H) > k) counts
// preemptions over the longest unswitched run), by well under a fifth.
TEST(Checkpointing, FallbackModelAgreesWithASeededSimulationOfItsRule) {
  for (const FallbackCase& c : {Periodic(), OnNotice(), Planned()}) {
    const SpotRun spot = ModelSpotRun(c.work_hours, c.rate, c.ft, c.deadline_hours);
    const auto f =
        ModelFallback(c.work_hours, spot, c.rate, c.ft, c.prices, c.deadline_hours).value();
    const Simulated sim = SimulateFallback(c, spot, 100'000);
    EXPECT_LE(sim.latest_finish, c.deadline_hours + 1e-9);
    EXPECT_GT(sim.switched_share, 0.02);
    EXPECT_GE(f.switch_probability, sim.switched_share - 0.01);
    EXPECT_GE(f.expected_cost_dollars, 0.99 * sim.mean_cost);
    EXPECT_LE(f.expected_cost_dollars, 1.2 * sim.mean_cost);
  }
}

TEST(Checkpointing, FallbackThatCannotSaveTheDeadlineIsNone) {
  FallbackCase c = OnNotice();
  const SpotRun spot = ModelSpotRun(c.work_hours, c.rate, c.ft, c.deadline_hours);
  // The reserve at the start is a save, a restart and the on-demand work: 9.2 h and a minute.
  EXPECT_TRUE(ModelFallback(c.work_hours, spot, c.rate, c.ft, c.prices, 9.3).has_value());
  EXPECT_FALSE(ModelFallback(c.work_hours, spot, c.rate, c.ft, c.prices, 9.2).has_value());
}

}  // namespace
}  // namespace frugal::plan
