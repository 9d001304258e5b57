#include "frugal/queue/simulation.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

#include "shipped_gpus.h"
#include "support/test_support.h"

namespace frugal::queue {
namespace {

std::map<std::string, PolicyResult> Simulate(const Workload& w, const Capacity& cap,
                                             SimulationConfig config = {}) {
  auto results = SimulateWorkload(w, cap, config);
  EXPECT_TRUE(results) << results.error().message;
  std::map<std::string, PolicyResult> by_name;
  for (const PolicyResult& r : *results) by_name[r.name] = r;
  return by_name;
}

struct Example {
  Capacity cap;
  Workload workload;
};

Example Load(const std::string& workload) {
  const auto dir = testing::SourceDir() / "examples/queue";
  auto cap = LoadCapacity(dir / "capacity.yaml", ShippedGpus());
  EXPECT_TRUE(cap) << cap.error().message;
  auto w = LoadWorkload(dir / workload, *cap);
  EXPECT_TRUE(w) << w.error().message;
  return {*cap, *w};
}

TEST(QueueSimulation, EveryShippedWorkloadCompletesWithoutMissesWhereABaselineHasNone) {
  for (const char* name : {"week.yaml", "nightly.yaml", "crunch.yaml"}) {
    const Example e = Load(name);
    for (uint64_t seed = 1; seed <= 2; ++seed) {
      SimulationConfig config;
      config.seed = seed;
      const auto r = Simulate(e.workload, e.cap, config);
      ASSERT_EQ(r.size(), 4u);
      bool any_clean = false;
      for (const auto& [policy, result] : r) {
        EXPECT_EQ(result.jobs_completed, result.jobs) << name << " " << policy;
        any_clean = any_clean || result.deadline_misses == 0;
      }
      if (any_clean) {
        EXPECT_EQ(r.at("frugal").deadline_misses, 0) << name << " seed " << seed;
      }
    }
  }
}

TEST(QueueSimulation, WeekCostsAtLeastThirtyPercentLessThanFifoWithNoMoreIdleThanEdf) {
  const Example e = Load("week.yaml");
  const auto r = Simulate(e.workload, e.cap);
  const PolicyResult& frugal = r.at("frugal");
  EXPECT_GT(r.at("fifo_on_demand").cost_usd, 0);
  EXPECT_LE(frugal.cost_usd, 0.7 * r.at("fifo_on_demand").cost_usd);
  EXPECT_LE(frugal.idle_owned_gpu_hours, r.at("edf_on_demand").idle_owned_gpu_hours + 1e-9);
  // The owned server is 8 GPUs for 168 h; busy plus idle within the horizon cannot exceed it.
  EXPECT_LE(frugal.idle_owned_gpu_hours, 8 * 168.0);
}

Capacity SmallCapacity(const std::string& extra) {
  auto cap = ParseCapacity(
      "apiVersion: frugal/v1\nkind: Capacity\npools:\n"
      "  - {name: od, tier: on_demand, gpu: A100-80GB, gpus_per_node: 8, nodes: 4, "
      "price_per_gpu_hour: 3, changeover: 5m}\n"
      "  - {name: sp, tier: spot, gpu: A100-80GB, gpus_per_node: 8, nodes: 4, "
      "price_per_gpu_hour: 1, preemptions_per_hour: 0.05, changeover: 5m}\n" +
          extra,
      "c.yaml", ShippedGpus());
  EXPECT_TRUE(cap) << cap.error().message;
  return *cap;
}

spot::Trace Trace(std::vector<int> ticks) {
  spot::Trace t;
  t.name = "test";
  t.gap_seconds = 600;
  t.launchable = std::move(ticks);
  return t;
}

TEST(QueueSimulation, SpotVanishingForGoodMovesTheJobToOnDemandInTime) {
  const Capacity cap = SmallCapacity("");
  auto w = ParseWorkload(
      "apiVersion: frugal/v1\nkind: Workload\njobs:\n"
      "  - {name: train, gpus: 8, runtime: 6h, checkpoints: true, checkpoint_every: 30m, "
      "deadline: 9h}\n",
      "w.yaml", cap);
  ASSERT_TRUE(w) << w.error().message;
  // Spot for 2 hours, then gone for days; the trace is read from its start (offset 0 of a
  // trace whose every offset is the same shape would need a seed: use one long outage).
  std::vector<int> ticks(12, 1);
  ticks.resize(2000, 0);
  SimulationConfig config;
  config.traces = {Trace(ticks)};
  config.policies = {"frugal", "greedy_spot"};
  // Find a seed whose offset lands in the spot stretch: offsets are uniform over 2000 ticks.
  for (uint64_t seed = 1; seed < 5000; ++seed) {
    std::mt19937_64 rng(seed);
    if (rng() % 2000 == 0) {
      config.seed = seed;
      break;
    }
  }
  const auto r = Simulate(*w, cap, config);
  const PolicyResult& frugal = r.at("frugal");
  EXPECT_EQ(frugal.deadline_misses, 0);
  EXPECT_EQ(frugal.preemptions, 1);
  EXPECT_EQ(frugal.moved_to_on_demand, 1);
  EXPECT_GT(frugal.spot_gpu_hours, 8 * 1.5);
  EXPECT_GT(frugal.on_demand_gpu_hours, 8 * 3.0);
  EXPECT_EQ(r.at("greedy_spot").preemptions, 1);
}

TEST(QueueSimulation, AJobThatDoesNotCheckpointNeverUsesSpotUnderFrugal) {
  const Capacity cap = SmallCapacity("");
  auto w = ParseWorkload(
      "apiVersion: frugal/v1\nkind: Workload\njobs:\n"
      "  - {name: eval, count: 4, gpus: 2, runtime: 2h, deadline: 24h}\n",
      "w.yaml", cap);
  ASSERT_TRUE(w);
  const auto r = Simulate(*w, cap);
  EXPECT_EQ(r.at("frugal").spot_gpu_hours, 0);
  EXPECT_GT(r.at("greedy_spot").spot_gpu_hours, 0);
}

TEST(QueueSimulation, DependenciesRunInOrder) {
  const Capacity cap =
      SmallCapacity("  - {name: cpu, tier: owned, cpu_slots: 4, changeover: 1m}\n");
  auto w = ParseWorkload(
      "apiVersion: frugal/v1\nkind: Workload\njobs:\n"
      "  - {name: prep, cpu_slots: 1, runtime: 3h}\n"
      "  - {name: train, gpus: 1, runtime: 1h, depends_on: [prep]}\n",
      "w.yaml", cap);
  ASSERT_TRUE(w);
  SimulationConfig config;
  config.policies = {"frugal"};
  const auto r = Simulate(*w, cap, config);
  // train cannot start before prep's 3 h are done: the last finish is past 4 h.
  EXPECT_GE(r.at("frugal").makespan_hours, 4.0);
  EXPECT_EQ(r.at("frugal").jobs_completed, 2);
}

TEST(QueueSimulation, AJobThatFitsNoPoolIsBadInput) {
  const Capacity cap = SmallCapacity("");
  auto w = ParseWorkload(
      "apiVersion: frugal/v1\nkind: Workload\njobs:\n  - {name: huge, gpus: 64, runtime: 1h}\n",
      "w.yaml", cap);
  ASSERT_TRUE(w);
  auto r = SimulateWorkload(*w, cap, {});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kBadInput);
  EXPECT_NE(r.error().message.find("'huge' fits no"), std::string::npos);
}

}  // namespace
}  // namespace frugal::queue
