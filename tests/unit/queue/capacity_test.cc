#include "frugal/queue/capacity.h"

#include <gtest/gtest.h>

#include "frugal/queue/workload.h"
#include "shipped_gpus.h"
#include "support/test_support.h"

namespace frugal::queue {
namespace {

constexpr const char* kHeader = "apiVersion: frugal/v1\nkind: Capacity\n";

Result<Capacity> Parse(const std::string& body) {
  return ParseCapacity(std::string(kHeader) + body, "cap.yaml", ShippedGpus());
}

TEST(WeekTime, MondayMidnightIsHourZero) {
  const Seconds monday = *ParseUtcTime("2026-11-30T00:00Z");
  EXPECT_EQ(HourOfWeek(monday), 0);
  EXPECT_EQ(HourOfWeek(monday + 3600 * 30), 30);
  EXPECT_EQ(HourOfWeek(monday - 3600), 167);
  EXPECT_EQ(FormatUtcTime(monday + 90 * 60), "2026-11-30T01:30:00Z");
  EXPECT_FALSE(ParseUtcTime("2026-13-01"));
  EXPECT_FALSE(ParseUtcTime("2026-02-30"));
  EXPECT_FALSE(ParseUtcTime("2026-11-30T24:00Z"));
  EXPECT_FALSE(ParseUtcTime("2026-11-30T08:00+02:00"));
  // The queue reads times as every other command does: no offset is UTC.
  EXPECT_EQ(*ParseUtcTime("2026-11-30T08:00"), monday + 8 * 3600);
  EXPECT_EQ(*ParseUtcTime("2026-11-30T08:00:00.900Z"), monday + 8 * 3600);
}

TEST(WeekTime, NightsWrapPastMidnightIntoTheNextDay) {
  const HourSet friday_nights = MakeHourSet(*ParseDays("fri"), 22, 6);
  EXPECT_TRUE(friday_nights.test(4 * 24 + 22));
  EXPECT_TRUE(friday_nights.test(5 * 24 + 5));
  EXPECT_FALSE(friday_nights.test(5 * 24 + 6));
  EXPECT_EQ(friday_nights.count(), 8u);
  EXPECT_EQ(*ParseDays("sat-mon"), 0x61);
  EXPECT_FALSE(ParseDays("funday"));
  EXPECT_FALSE(ParseHourRange("25-3"));
}

TEST(Capacity, ParsesTheShippedExample) {
  auto cap = LoadCapacity(testing::SourceDir() / "examples/queue/capacity.yaml", ShippedGpus());
  ASSERT_TRUE(cap) << cap.error().message;
  ASSERT_EQ(cap->pools.size(), 5u);
  const Pool& spot = *cap->FindPool("cloud-spot");
  EXPECT_EQ(spot.kind, PoolKind::kSlurm);
  EXPECT_EQ(spot.tier, CapacityTier::kSpot);
  EXPECT_EQ(spot.partition, "spot");
  EXPECT_EQ(spot.units(), 32);
  EXPECT_EQ(cap->FindPool("cpu")->units(), 16);
  ASSERT_EQ(cap->budgets.size(), 2u);
  EXPECT_EQ(cap->budgets[0].tag_key, "team");
  EXPECT_EQ(cap->budgets[0].limit, Money::FromCents(400000));
  EXPECT_TRUE(cap->FindWindow("lunch"));
  EXPECT_TRUE(cap->FindWindow("nights"));
}

TEST(Capacity, ParsesTheShippedSlurmExample) {
  auto cap =
      LoadCapacity(testing::SourceDir() / "examples/queue/capacity-slurm.yaml", ShippedGpus());
  ASSERT_TRUE(cap) << cap.error().message;
  ASSERT_EQ(cap->pools.size(), 4u);
  for (const Pool& p : cap->pools) EXPECT_EQ(p.kind, PoolKind::kSlurm) << p.name;
  const Pool& spot = *cap->FindPool("cloud-spot");
  const Pool& od = *cap->FindPool("cloud-ondemand");
  EXPECT_EQ(spot.tier, CapacityTier::kSpot);
  EXPECT_EQ(spot.partition, "spot");
  EXPECT_EQ(spot.gres, "gpu:a10g:4");
  EXPECT_EQ(spot.units(), 64);
  EXPECT_EQ(od.tier, CapacityTier::kOnDemand);
  EXPECT_EQ(od.partition, "ondemand");
  EXPECT_EQ(od.gpu, spot.gpu);
  EXPECT_LT(spot.price_per_gpu_hour, od.price_per_gpu_hour);
  EXPECT_EQ(cap->FindPool("prep")->units(), 32);
  EXPECT_EQ(cap->FindPool("onprem")->tier, CapacityTier::kOwned);
}

TEST(Capacity, PriceScheduleIsIntegratedHourByHour) {
  auto cap = Parse(
      "pools:\n"
      "  - name: colo\n    tier: on_demand\n    gpu: A100-80GB\n    gpus_per_node: 8\n"
      "    price_per_gpu_hour: 3\n"
      "    price_schedule:\n      - {days: daily, hours: 22-06, price_per_gpu_hour: 1}\n");
  ASSERT_TRUE(cap) << cap.error().message;
  const Pool& p = cap->pools[0];
  const Seconds monday = *ParseUtcTime("2026-11-30T00:00Z");
  // 21:30 to 22:30: half an hour at $3, half at $1.
  EXPECT_NEAR(p.UnitCost(monday + 21 * 3600 + 1800, monday + 22 * 3600 + 1800), 2.0, 1e-9);
  // A whole day: 8 night hours at $1 and 16 at $3.
  EXPECT_NEAR(p.UnitCost(monday, monday + 24 * 3600), 8 + 48, 1e-9);
  // Nine days: a whole week plus two days, across the week's end.
  EXPECT_NEAR(p.UnitCost(monday + 6 * 86400, monday + 15 * 86400), 9 * 56, 1e-9);
  EXPECT_DOUBLE_EQ(p.PriceAt(monday + 23 * 3600), 1);
}

TEST(Capacity, BadInputNamesFileLineAndField) {
  struct Case {
    std::string body;
    std::string expect;
  };
  const std::vector<Case> cases = {
      {"pools:\n  - name: a\n    tier: owend\n    gpu: A100-80GB\n    gpus_per_node: 8\n",
       "cap.yaml:5:11: field 'tier'"},
      {"pools:\n  - name: a\n    tier: spot\n    gpu: A100-80GB\n    gpus_per_node: 8\n",
       "field 'price_per_gpu_hour': missing"},
      {"pools:\n  - name: a\n    tier: owned\n    gpu: A100-80GB\n    gpus_per_node: 8\n"
       "    gpus_pernode: 4\n",
       "did you mean 'gpus_per_node'"},
      {"pools:\n  - name: a\n    kind: slurm\n    tier: owned\n    gpu: A100-80GB\n"
       "    gpus_per_node: 8\n",
       "field 'partition'"},
      {"pools:\n  - name: a\n    tier: owned\n    cpu_slots: 4\n"
       "budgets:\n  - {tag: team, limit: 5}\n",
       "cap.yaml:8:"},
      {"pools:\n  - name: a\n    tier: on_demand\n    gpu: A100-80GB\n    gpus_per_node: 8\n"
       "    price_per_gpu_hour: 2\n    price_schedule:\n      - {days: moonday, "
       "price_per_gpu_hour: 1}\n",
       "field 'days'"},
      {"pools: []\n", "field 'pools'"},
      // A pool is owned, on demand or spot by those names: never reserved, never a synonym.
      {"pools:\n  - name: a\n    tier: reserved_1y\n    gpu: A100-80GB\n    gpus_per_node: 8\n",
       "cap.yaml:5:11: field 'tier': 'reserved_1y' is not owned, on_demand or spot"},
      {"pools:\n  - name: a\n    tier: preemptible\n    gpu: A100-80GB\n    gpus_per_node: 8\n",
       "cap.yaml:5:11: field 'tier': 'preemptible' is not owned, on_demand or spot"},
  };
  for (const Case& c : cases) {
    auto cap = Parse(c.body);
    ASSERT_FALSE(cap) << c.body;
    EXPECT_EQ(cap.error().code, ErrorCode::kBadInput);
    EXPECT_NE(cap.error().message.find(c.expect), std::string::npos)
        << c.body << "\n-> " << cap.error().message;
  }
}

TEST(Capacity, APriceOrNamePastItsBoundIsBadInputAtItsLine) {
  // 9e12 $/GPU-hour printed as 7.2006e+16 on submit and $9,000,000,000,000.00 in list.
  const std::string pool = "pools:\n  - name: a\n    tier: on_demand\n    cpu_slots: 4\n";
  auto huge = Parse(pool + "    price_per_gpu_hour: 9000000000000\n");
  ASSERT_FALSE(huge);
  EXPECT_EQ(huge.error().code, ErrorCode::kBadInput);
  EXPECT_NE(huge.error().message.find("cap.yaml:7:"), std::string::npos) << huge.error().message;
  EXPECT_NE(huge.error().message.find("field 'price_per_gpu_hour'"), std::string::npos)
      << huge.error().message;
  auto scheduled = Parse(pool +
                         "    price_per_gpu_hour: 2\n    price_schedule:\n"
                         "      - {days: mon-fri, hours: 9-17, price_per_gpu_hour: 1e9}\n");
  ASSERT_FALSE(scheduled);
  EXPECT_NE(scheduled.error().message.find("cap.yaml:9:"), std::string::npos)
      << scheduled.error().message;
  EXPECT_TRUE(Parse(pool + "    price_per_gpu_hour: 98.32\n")) << "a real 8-GPU price per GPU";
  // A megabyte of pool name made `queue simulate` take 20 s.
  auto long_name = Parse("pools:\n  - name: " + std::string(1 << 20, 'p') +
                         "\n    tier: owned\n    cpu_slots: 4\n");
  ASSERT_FALSE(long_name);
  EXPECT_NE(long_name.error().message.find("cap.yaml:4:"), std::string::npos)
      << long_name.error().message.substr(0, 200);
  EXPECT_LT(long_name.error().message.size(), 400u) << "the name is echoed whole";
}

TEST(Workload, AJobsGpuIsResolvedAsAPoolsIsWithItsLineAndASuggestion) {
  // `a100-80gb`, `A100` or a typo answered "fits no pool" with no location; a job naming its
  // pool's GPU another way must fit it.
  auto cap = Parse(
      "pools:\n  - {name: big, tier: owned, gpu: A100-80GB, gpus_per_node: 8}\n"
      "  - {name: old, tier: owned, gpu: A100-40GB, gpus_per_node: 8}\n");
  ASSERT_TRUE(cap) << cap.error().message;
  const std::string head =
      "apiVersion: frugal/v1\nkind: Workload\nstart: 2026-11-30T00:00Z\njobs:\n";
  auto w =
      ParseWorkload(head +
                        "  - {name: a, gpus: 1, gpu: a100-80gb, runtime: 1h}\n"
                        "  - {name: b, gpus: 1, gpu: A100-40GB, runtime_by_gpu: {a100-40gb: 2h}}\n",
                    "w.yaml", *cap);
  ASSERT_TRUE(w) << w.error().message;
  EXPECT_EQ(w->jobs[0].gpu, "A100-80GB");
  EXPECT_EQ(w->jobs[1].gpu, "A100-40GB");
  EXPECT_EQ(w->jobs[1].runtime_by_gpu.count("A100-40GB"), 1u);
  EXPECT_TRUE(w->jobs[0].RuntimeOn(cap->pools[0]).has_value());
  EXPECT_TRUE(w->jobs[1].RuntimeOn(cap->pools[1]).has_value());
  auto typo =
      ParseWorkload(head + "  - {name: a, gpus: 1, gpu: A100-8OGB, runtime: 1h}\n", "w.yaml", *cap);
  ASSERT_FALSE(typo);
  EXPECT_EQ(typo.error().code, ErrorCode::kBadInput);
  EXPECT_NE(typo.error().message.find("w.yaml:5:"), std::string::npos) << typo.error().message;
  EXPECT_NE(typo.error().message.find("did you mean 'A100-80GB'"), std::string::npos)
      << typo.error().message;
  auto absent =
      ParseWorkload(head + "  - {name: a, gpus: 1, gpu: T4, runtime: 1h}\n", "w.yaml", *cap);
  ASSERT_FALSE(absent);
  EXPECT_NE(absent.error().message.find("no pool has a T4"), std::string::npos)
      << absent.error().message;
}

TEST(Capacity, AWindowOrBudgetGivenTwiceIsBadInput) {
  // A window named like a built-in one was ignored (the built-in won); a second budget for the
  // same tag and period was kept beside the first.
  const std::string pool = "pools:\n  - name: a\n    tier: owned\n    cpu_slots: 4\n";
  auto shadow = Parse(pool + "windows:\n  - {name: nights, hours: 12-14}\n");
  ASSERT_FALSE(shadow);
  EXPECT_NE(shadow.error().message.find("cap.yaml:8:"), std::string::npos)
      << shadow.error().message;
  EXPECT_NE(shadow.error().message.find("window 'nights' is named twice"), std::string::npos)
      << shadow.error().message;
  auto twice = Parse(pool +
                     "budgets:\n  - {tag: team=nlp, limit: 5}\n"
                     "  - {tag: team=nlp, period: month, limit: 7}\n");
  ASSERT_FALSE(twice);
  EXPECT_NE(twice.error().message.find("cap.yaml:9:"), std::string::npos) << twice.error().message;
  EXPECT_NE(twice.error().message.find("team=nlp already has a month budget (line 8)"),
            std::string::npos)
      << twice.error().message;
  EXPECT_TRUE(Parse(pool + "windows:\n  - {name: lunch, hours: 12-14}\n"
                           "budgets:\n  - {tag: team=nlp, limit: 5}\n"
                           "  - {tag: team=nlp, period: week, limit: 2}\n"));
}

TEST(Capacity, PeriodStartsAtWeekMonthAndQuarter) {
  const Seconds t = *ParseUtcTime("2026-11-26T15:00Z");  // a Thursday
  EXPECT_EQ(FormatUtcTime(PeriodStart(BudgetPeriod::kWeek, t)), "2026-11-23T00:00:00Z");
  EXPECT_EQ(FormatUtcTime(PeriodStart(BudgetPeriod::kMonth, t)), "2026-11-01T00:00:00Z");
  EXPECT_EQ(FormatUtcTime(PeriodStart(BudgetPeriod::kQuarter, t)), "2026-10-01T00:00:00Z");
}

TEST(Workload, CopiesDependenciesAndBadInput) {
  auto cap = LoadCapacity(testing::SourceDir() / "examples/queue/capacity.yaml", ShippedGpus());
  ASSERT_TRUE(cap);
  auto w = ParseWorkload(
      "apiVersion: frugal/v1\nkind: Workload\nstart: 2026-11-30T00:00Z\njobs:\n"
      "  - {name: prep, at: 1h, count: 2, every: 24h, cpu_slots: 2, runtime: 1h}\n"
      "  - {name: train, at: 1h, count: 2, every: 24h, gpus: 2, runtime: 3h, deadline: 12h,\n"
      "     depends_on: [prep], window: nights}\n",
      "w.yaml", *cap);
  ASSERT_TRUE(w) << w.error().message;
  ASSERT_EQ(w->jobs.size(), 4u);
  const JobRequest& train2 = w->jobs[3];
  EXPECT_EQ(train2.name, "train-2");
  EXPECT_EQ(train2.depends_on, std::vector<std::string>{"prep-2"});
  EXPECT_EQ(train2.deadline - train2.arrival, 12 * 3600);
  EXPECT_EQ(train2.window_name, "nights");
  auto bad = ParseWorkload(
      "apiVersion: frugal/v1\nkind: Workload\njobs:\n"
      "  - {name: a, gpus: 1, runtime: 1h, window: night}\n",
      "w.yaml", *cap);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("w.yaml:4:"), std::string::npos) << bad.error().message;
  EXPECT_NE(bad.error().message.find("did you mean 'nights'"), std::string::npos);
}

TEST(Workload, ADependencyCycleIsBadInputNotJobsThatNeverStart) {
  auto cap = LoadCapacity(testing::SourceDir() / "examples/queue/capacity.yaml", ShippedGpus());
  ASSERT_TRUE(cap);
  auto w = ParseWorkload(
      "apiVersion: frugal/v1\nkind: Workload\njobs:\n"
      "  - {name: a, gpus: 1, runtime: 1h, depends_on: [c]}\n"
      "  - {name: b, gpus: 1, runtime: 1h, depends_on: [a]}\n"
      "  - {name: c, gpus: 1, runtime: 1h, depends_on: [b]}\n"
      "  - {name: d, gpus: 1, runtime: 1h, depends_on: [c]}\n",
      "w.yaml", *cap);
  ASSERT_FALSE(w);
  EXPECT_EQ(w.error().code, ErrorCode::kBadInput);
  EXPECT_NE(w.error().message.find("w.yaml:4:"), std::string::npos) << w.error().message;
  EXPECT_NE(w.error().message.find("a cycle: a -> c -> b -> a"), std::string::npos)
      << w.error().message;
  auto chain = ParseWorkload(
      "apiVersion: frugal/v1\nkind: Workload\njobs:\n"
      "  - {name: a, gpus: 1, runtime: 1h}\n"
      "  - {name: b, gpus: 1, runtime: 1h, depends_on: [a]}\n"
      "  - {name: c, gpus: 1, runtime: 1h, depends_on: [a, b]}\n",
      "w.yaml", *cap);
  EXPECT_TRUE(chain) << chain.error().message;
}

TEST(Workload, AJobArrivingPastTheHorizonIsBadInputNotAMiss) {
  auto cap = LoadCapacity(testing::SourceDir() / "examples/queue/capacity.yaml", ShippedGpus());
  ASSERT_TRUE(cap);
  auto w = ParseWorkload(
      "apiVersion: frugal/v1\nkind: Workload\nhorizon: 7d\njobs:\n"
      "  - {name: ok, at: 6d, gpus: 1, runtime: 1h}\n"
      "  - {name: late, at: 2d, count: 4, every: 2d, gpus: 1, runtime: 1h}\n",
      "w.yaml", *cap);
  ASSERT_FALSE(w);
  EXPECT_EQ(w.error().code, ErrorCode::kBadInput);
  EXPECT_NE(w.error().message.find("w.yaml:6:"), std::string::npos) << w.error().message;
  EXPECT_NE(w.error().message.find("late-4 arrives 8d after the start, at or past the horizon"),
            std::string::npos)
      << w.error().message;
}

}  // namespace
}  // namespace frugal::queue
