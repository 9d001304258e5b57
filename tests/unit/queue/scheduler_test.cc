#include "frugal/queue/scheduler.h"

#include <gtest/gtest.h>

#include <deque>

#include "shipped_gpus.h"

namespace frugal::queue {
namespace {

const Seconds kMonday = 1'795'996'800;  // 2026-11-30T00:00Z

Capacity MakeCapacity(const std::string& pools) {
  auto cap = ParseCapacity("apiVersion: frugal/v1\nkind: Capacity\npools:\n" + pools, "c.yaml",
                           ShippedGpus());
  EXPECT_TRUE(cap) << cap.error().message;
  return *cap;
}

const char* kOwned8 =
    "  - {name: lab, tier: owned, gpu: A100-80GB, gpus_per_node: 8, changeover: 1m}\n";
const char* kOnDemand =
    "  - {name: od, tier: on_demand, gpu: A100-80GB, gpus_per_node: 8, nodes: 4, "
    "price_per_gpu_hour: 4, changeover: 1m}\n";
const char* kSpot =
    "  - {name: sp, tier: spot, gpu: A100-80GB, gpus_per_node: 8, nodes: 4, price_per_gpu_hour: 1, "
    "preemptions_per_hour: 0.05, changeover: 1m}\n";

struct Fixture {
  Capacity cap;
  std::deque<JobRequest> requests;
  ScheduleInput in;

  explicit Fixture(const std::string& pools) : cap(MakeCapacity(pools)) {
    in.now = kMonday + 10 * 3600;
    in.capacity = &cap;
    in.pools.resize(cap.pools.size());
  }
  JobRequest& Add(const std::string& name, int gpus, double hours, double deadline_hours = -1,
                  bool checkpoints = false) {
    JobRequest& r = requests.emplace_back();
    r.name = name;
    r.units = gpus;
    r.runtime_hours = hours;
    r.checkpoints = checkpoints;
    r.arrival = in.now - static_cast<Seconds>(requests.size());
    if (deadline_hours > 0) r.deadline = in.now + static_cast<Seconds>(deadline_hours * 3600);
    return r;
  }
  void Busy(size_t pool, int units, double hours) {
    in.pools[pool].busy_until.insert(in.pools[pool].busy_until.end(), static_cast<size_t>(units),
                                     in.now + static_cast<Seconds>(hours * 3600));
    in.pools[pool].jobs_until.push_back(in.now + static_cast<Seconds>(hours * 3600));
  }
  std::vector<Placement> Run() {
    in.jobs.clear();
    for (const JobRequest& r : requests) in.jobs.push_back({&r});
    return Schedule(in);
  }
  const Placement& For(const std::vector<Placement>& pls, const std::string& name) {
    for (const Placement& p : pls) {
      if (in.jobs[p.job].request->name == name) return p;
    }
    ADD_FAILURE() << "no placement for " << name;
    return pls.front();
  }
  std::string PoolOf(const Placement& p) {
    return p.pool < 0 ? "-" : cap.pools[static_cast<size_t>(p.pool)].name;
  }
};

TEST(Scheduler, IdleOwnedCapacityFirstAndFree) {
  Fixture f(std::string(kOnDemand) + kOwned8);
  f.Add("a", 4, 2, 10);
  const auto pls = f.Run();
  ASSERT_EQ(pls.size(), 1u);
  EXPECT_EQ(pls[0].verdict, Verdict::kStart);
  EXPECT_EQ(f.PoolOf(pls[0]), "lab");
  EXPECT_EQ(pls[0].cost_usd, 0);
  EXPECT_GT(pls[0].on_demand_cost_usd, 30);
}

TEST(Scheduler, PacksIntoTheTightestOwnedPool) {
  Fixture f(std::string(kOwned8) +
            "  - {name: lab2, tier: owned, gpu: A100-80GB, gpus_per_node: 8, changeover: 1m}\n");
  f.Busy(1, 6, 5);  // lab2 has 2 idle GPUs, lab 8
  f.Add("small", 2, 1, 10);
  const auto pls = f.Run();
  EXPECT_EQ(f.PoolOf(pls[0]), "lab2");
}

TEST(Scheduler, WaitsForOwnedCapacityWhenTheDeadlineAllows) {
  Fixture f(std::string(kOwned8) + kOnDemand);
  f.Busy(0, 8, 2);
  f.Add("slack", 8, 3, 12);
  f.Add("tight", 8, 3, 4);
  const auto pls = f.Run();
  // EDF: the tight job is decided first and cannot wait 2 h for the lab.
  EXPECT_EQ(f.in.jobs[pls[0].job].request->name, "tight");
  const Placement& tight = f.For(pls, "tight");
  EXPECT_EQ(tight.verdict, Verdict::kStart);
  EXPECT_EQ(f.PoolOf(tight), "od");
  const Placement& slack = f.For(pls, "slack");
  EXPECT_EQ(slack.verdict, Verdict::kDefer);
  EXPECT_EQ(f.PoolOf(slack), "lab");
  EXPECT_EQ(slack.start, f.in.now + 2 * 3600);
  EXPECT_EQ(slack.cost_usd, 0);
}

TEST(Scheduler, SpotOnlyForJobsThatCheckpoint) {
  Fixture f(std::string(kOnDemand) + kSpot);
  f.Add("ckpt", 8, 4, 24, true);
  f.Add("plain", 8, 4, 24, false);
  const auto pls = f.Run();
  EXPECT_EQ(f.PoolOf(f.For(pls, "ckpt")), "sp");
  EXPECT_EQ(f.PoolOf(f.For(pls, "plain")), "od");
  EXPECT_LT(f.For(pls, "ckpt").cost_usd, f.For(pls, "plain").cost_usd);
  EXPECT_GT(f.For(pls, "ckpt").deadline_risk, 0);
}

TEST(Scheduler, SpotRiskTooHighForATightDeadlineGoesOnDemand) {
  Fixture f(std::string(kOnDemand) +
            "  - {name: sp, tier: spot, gpu: A100-80GB, gpus_per_node: 8, nodes: 4, "
            "price_per_gpu_hour: 1, preemptions_per_hour: 2, changeover: 1m}\n");
  f.Add("tight", 8, 4, 4.5, true);
  const auto pls = f.Run();
  EXPECT_EQ(f.PoolOf(pls[0]), "od");
}

TEST(Scheduler, SpotThatIsDownIsNotOffered) {
  Fixture f(std::string(kOnDemand) + kSpot);
  f.in.pools[1].available = false;
  f.Add("ckpt", 8, 4, 24, true);
  EXPECT_EQ(f.PoolOf(f.Run()[0]), "od");
}

TEST(Scheduler, DefersIntoACheaperWindowOnlyWhenTheSlackAllows) {
  const std::string colo =
      "  - {name: colo, tier: on_demand, gpu: A100-80GB, gpus_per_node: 8, price_per_gpu_hour: 3,\n"
      "     changeover: 1m, price_schedule: [{days: daily, hours: 22-06, "
      "price_per_gpu_hour: 1}]}\n";
  Fixture f(colo);  // now is Monday 10:00
  f.Add("slack", 8, 4, 24);
  auto pls = f.Run();
  EXPECT_EQ(pls[0].verdict, Verdict::kDefer);
  EXPECT_EQ(FormatUtcTime(pls[0].start), "2026-11-30T22:00:00Z");
  EXPECT_NEAR(pls[0].cost_usd, 8 * (4 + 1.0 / 60), 0.01);

  Fixture g(colo);
  g.Add("tight", 8, 4, 8);
  pls = g.Run();
  EXPECT_EQ(pls[0].verdict, Verdict::kStart);
  EXPECT_NEAR(pls[0].cost_usd, 8 * 3 * (4 + 1.0 / 60), 0.01);
}

TEST(Scheduler, StartWindowIsRespected) {
  Fixture f(kOwned8);
  JobRequest& r = f.Add("night", 1, 1);
  r.window = f.cap.FindWindow("nights").value();
  const auto pls = f.Run();
  EXPECT_EQ(pls[0].verdict, Verdict::kDefer);
  EXPECT_EQ(FormatUtcTime(pls[0].start), "2026-11-30T22:00:00Z");
}

TEST(Scheduler, EarliestDeadlineFirstThenPriorityThenFairShare) {
  Fixture f(kOwned8);
  f.Add("late", 8, 1, 20);
  f.Add("soon", 8, 1, 10);
  JobRequest& hi = f.Add("hi", 8, 1, 15);
  hi.priority = 5;
  f.Add("lo", 8, 1, 15);
  JobRequest& a = f.Add("team-a", 8, 1, 30);
  a.tags["team"] = "a";
  JobRequest& b = f.Add("team-b", 8, 1, 30);
  b.tags["team"] = "b";
  f.in.usage_gpu_hours["a"] = 100;
  f.in.usage_gpu_hours["b"] = 10;
  const auto pls = f.Run();
  std::vector<std::string> order;
  for (const Placement& p : pls) order.push_back(f.in.jobs[p.job].request->name);
  EXPECT_EQ(order, (std::vector<std::string>{"soon", "hi", "lo", "late", "team-b", "team-a"}));
  // Only the first starts now; the rest queue behind it on the one owned node.
  EXPECT_EQ(pls[0].verdict, Verdict::kStart);
  EXPECT_EQ(pls[1].verdict, Verdict::kDefer);
  EXPECT_GT(pls[2].start, pls[1].start);
}

TEST(Scheduler, AJobThatCannotMeetItsDeadlineIsFlaggedAtOnce) {
  Fixture f(std::string(kOwned8) + kOnDemand);
  f.Add("hopeless", 8, 10, 5);
  const auto pls = f.Run();
  EXPECT_EQ(pls[0].verdict, Verdict::kLate);
  EXPECT_NE(pls[0].reason.find("cannot meet its deadline"), std::string::npos);
  EXPECT_EQ(pls[0].start, f.in.now);  // still placed where it finishes soonest
  EXPECT_EQ(pls[0].action, Action::kStartNow);
  EXPECT_NE(pls[0].reason.find("(5h01m after it)"), std::string::npos) << pls[0].reason;
}

TEST(Scheduler, ALateJobThatFinishesInsideTheMarginStartsNowAndSaysTheMarginItMisses) {
  // 30 s of work against a 10-minute deadline: it finishes 9 minutes early, inside the
  // 15-minute margin. It starts at once; it is no miss.
  Fixture f("  - {name: box, tier: owned, cpu_slots: 1, changeover: 0s}\n");
  JobRequest& job = f.Add("quick", 1, 30.0 / 3600, 10.0 / 60);
  job.cpu_only = true;
  const auto pls = f.Run();
  ASSERT_EQ(pls.size(), 1u);
  EXPECT_EQ(pls[0].verdict, Verdict::kLate);
  EXPECT_EQ(pls[0].action, Action::kStartNow);
  EXPECT_EQ(f.PoolOf(pls[0]), "box");
  EXPECT_NE(pls[0].reason.find("cannot keep the 15m margin before its deadline"), std::string::npos)
      << pls[0].reason;
  EXPECT_NE(pls[0].reason.find("(9m30s before it)"), std::string::npos) << pls[0].reason;
  EXPECT_EQ(pls[0].reason.find("after it"), std::string::npos) << pls[0].reason;
}

TEST(Scheduler, ALateJobOnABusyPoolWaitsLocallyAndIsHeldBySlurm) {
  Fixture f(
      "  - {name: box, tier: owned, cpu_slots: 1}\n"
      "  - {name: hpc, kind: slurm, partition: p, tier: owned, cpu_slots: 1}\n");
  f.Busy(0, 1, 2);
  f.Busy(1, 1, 1);
  JobRequest& job = f.Add("late", 1, 1, 1);
  job.cpu_only = true;
  const auto pls = f.Run();
  EXPECT_EQ(pls[0].verdict, Verdict::kLate);
  EXPECT_EQ(f.PoolOf(pls[0]), "hpc");  // where it finishes soonest
  EXPECT_EQ(pls[0].action, Action::kStartHeld);
  f.in.pools = std::vector<PoolState>(2);
  f.Busy(0, 1, 1);
  f.Busy(1, 1, 2);
  const auto local = f.Run();
  EXPECT_EQ(f.PoolOf(local[0]), "box");
  EXPECT_EQ(local[0].action, Action::kNone);  // a local pool starts it when it is free
}

TEST(Scheduler, TeamBudgetRefusesWithTheArithmeticUnlessOverridden) {
  Capacity cap = MakeCapacity(kOnDemand);
  cap.budgets.push_back({"team", "nlp", BudgetPeriod::kMonth, Money::FromCents(10000), 1});
  Fixture f(kOnDemand);
  f.cap = cap;
  JobRequest& r = f.Add("big", 8, 2, 10);  // 8 x 2h01m x $4 = $64.53
  r.tags["team"] = "nlp";
  f.in.committed["team=nlp"] = Money::FromCents(5000);
  auto pls = f.Run();
  EXPECT_EQ(pls[0].verdict, Verdict::kOverBudget);
  EXPECT_NE(pls[0].reason.find("team=nlp month budget $100.00: $50.00 committed + $64.53 "
                               "expected = $114.53 > $100.00"),
            std::string::npos)
      << pls[0].reason;
  r.override_reason = "paper deadline";
  f.in.committed["team=nlp"] = Money::FromCents(5000);
  pls = f.Run();
  EXPECT_EQ(pls[0].verdict, Verdict::kStart);
  EXPECT_NE(pls[0].reason.find("override: paper deadline"), std::string::npos);
  EXPECT_EQ(f.in.committed["team=nlp"],
            Money::FromCents(5000) + Money::FromDollars(pls[0].cost_usd));
}

TEST(Scheduler, PlacementsBookCapacityForTheJobsAfterThem) {
  Fixture f(std::string(kOwned8) + kOnDemand);
  for (int i = 0; i < 3; ++i) f.Add("j" + std::to_string(i), 4, 2, 3);
  const auto pls = f.Run();
  int on_lab = 0;
  for (const Placement& p : pls) {
    EXPECT_EQ(p.verdict, Verdict::kStart);
    on_lab += f.PoolOf(p) == "lab";
  }
  EXPECT_EQ(on_lab, 2);  // the third does not fit the lab's 8 GPUs
}

TEST(Scheduler, FirstFitBaselineTakesOnDemandNowInsteadOfWaiting) {
  Fixture f(std::string(kOwned8) + kOnDemand);
  f.Busy(0, 8, 1);
  f.Add("job", 8, 3, 48);
  f.in.options.choice = Choice::kFirstFit;
  f.in.options.spot = SpotUse::kOff;
  const auto pls = f.Run();
  EXPECT_EQ(f.PoolOf(pls[0]), "od");
  EXPECT_EQ(pls[0].verdict, Verdict::kStart);
}

TEST(Scheduler, TenThousandJobsOverAHundredPoolsInOnePass) {
  std::string pools;
  for (int p = 0; p < 100; ++p) {
    const char* tier = p % 3 == 0 ? "owned" : p % 3 == 1 ? "on_demand" : "spot";
    pools += "  - {name: p" + std::to_string(p) + ", tier: " + tier +
             ", gpu: A100-80GB, gpus_per_node: 8, nodes: 4" +
             (p % 3 == 0 ? "" : ", price_per_gpu_hour: " + std::to_string(1 + p % 5)) +
             (p % 3 == 2 ? ", preemptions_per_hour: 0.1" : "") + "}\n";
  }
  Fixture f(pools);
  for (int i = 0; i < 10000; ++i)
    f.Add("j" + std::to_string(i), 1 + i % 8, 1 + i % 7, 4 + i % 50, i % 2 == 0);
  const auto pls = f.Run();
  ASSERT_EQ(pls.size(), 10000u);
  int placed = 0;
  for (const Placement& p : pls) placed += p.pool >= 0;
  EXPECT_EQ(placed, 10000);
}

}  // namespace
}  // namespace frugal::queue
