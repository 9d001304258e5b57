// Planted waste in an inventory of running capacity (idle, forgotten, under-used commitments)
// and budgets forecast from the ledger and imported bills; the inventory's formats and errors.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <sstream>

#include "audit_fixture.h"
#include "frugal/audit/audit_output.h"
#include "frugal/ledger/focus.h"

namespace frugal::audit {
namespace {

using fixture::AuditTest;
using fixture::CountByRule;
using fixture::ExpectCents;
using fixture::Find;
using fixture::TestOffer;
using frugal::testing::WriteTestFile;
using ledger::Timestamp;
using std::chrono::hours;

/// "[v, v, ...]" with `n` copies of `v`, then `m` copies of `w`.
std::string Readings(int n, double v, int m = 0, double w = 0) {
  std::string out = "[";
  for (int i = 0; i < n + m; ++i) out += fmt::format("{}{}", i ? ", " : "", i < n ? v : w);
  return out + "]";
}

/// One inventory instance in YAML with hourly history starting `start`.
std::string Instance(const std::string& id, const std::string& type, const std::string& gpu,
                     const std::string& tier, double price, const std::string& start,
                     const std::string& readings, const std::string& extra = "") {
  std::string text = fmt::format(
      "  - {{id: {}, cloud: testcloud, region: r1, instance_type: {}, gpu: {}, tier: {}, "
      "price_per_hour: {}, tags: {{team: ml, owner: ana}}{}",
      id, type, gpu, tier, price, extra);
  if (!readings.empty()) {
    text += fmt::format(", utilization: {{start: {}, step: 1h, gpu_util: {}}}", start, readings);
  }
  return text + "}\n";
}

class AuditFleetTest : public AuditTest {
 protected:
  Result<AuditResult> AuditWith(const std::string& inventory_yaml) {
    auto inv =
        ParseInventory(inventory_yaml, "inv.yaml", InventoryFormat::kYaml, *catalog_, options_.now);
    if (!inv) return Fail(inv.error());
    inventory_ = std::move(*inv);
    options_.inventory = &inventory_;
    return Audit();
  }
  Inventory inventory_;
};

TEST_F(AuditFleetTest, FindsIdleForgottenAndUnderusedCapacityAndNothingElse) {
  // A run on big-a100 in the last two weeks accounts for i-used, which has no history.
  AddRun("recent", options_.now - hours(24 * 3),
         {{TestOffer("big-a100", "A100-80GB", 4.0), 2, ledger::EndReason::kFinished}});
  const std::string two_days_ago = "2026-03-30T00:00:00Z";
  const std::string ten_days_ago = "2026-03-22T00:00:00Z";
  const std::string inv =
      "version: 1\ninstances:\n" +
      // 24 busy hours then 24 idle at $4/h: $96 idle in 2 days of history.
      Instance("i-idle", "big-a100", "A100-80GB", "on_demand", 4, two_days_ago,
               Readings(24, 90, 24, 0)) +
      // Idle for 8 days: forgotten, $1/h all month.
      Instance("i-forgotten", "small-l4", "L4", "on_demand", 1, ten_days_ago,
               Readings(48, 60, 192, 1)) +
      // No history, running 30 days, no run on tiny-t4: forgotten at $0.50/h.
      Instance("i-nohist", "tiny-t4", "T4", "on_demand", 0.5, "", "",
               ", launched: 2026-03-01T00:00:00Z") +
      Instance("i-used", "big-a100", "A100-80GB", "on_demand", 4, "", "",
               ", launched: 2026-03-01T00:00:00Z") +
      Instance("i-busy", "big-a100", "a100-80gb", "on_demand", 4, two_days_ago, Readings(48, 80)) +
      // Reserved at $4.80 (on demand $8.00, break-even 60%), busy 2 of 10 days.
      Instance("i-reserved", "steady-h100", "H100-80GB-SXM", "reserved_1y", 4.8, ten_days_ago,
               Readings(48, 90, 192, 0)) +
      Instance("i-reserved-ok", "steady-h100", "H100-80GB-SXM", "reserved_1y", 4.8, ten_days_ago,
               Readings(192, 90, 48, 0));
  auto result = AuditWith(inv);
  ASSERT_TRUE(result) << result.error().message;
  SCOPED_TRACE(report_);
  EXPECT_EQ(CountByRule(*result),
            (std::map<std::string, int>{{std::string(kIdleGpu), 1},
                                        {std::string(kForgottenCapacity), 2},
                                        {std::string(kUnderusedCommitment), 1}}));
  ExpectCents(Find(*result, kIdleGpu), 96.0 * 30 / 2);
  EXPECT_EQ(Find(*result, kIdleGpu)->subject, "instance i-idle (1x A100-80GB)");
  std::map<std::string, double> forgotten;
  for (const Finding& f : result->findings) {
    if (f.rule == kForgottenCapacity) forgotten[f.subject] = f.saving_per_month->dollars();
  }
  EXPECT_EQ(forgotten, (std::map<std::string, double>{{"instance i-forgotten (1x L4)", 720.0},
                                                      {"instance i-nohist (1x T4)", 360.0}}));
  // ($4.80 − $8.00 × 20% used) × 24 h × 30 days.
  const Finding* commit = Find(*result, kUnderusedCommitment);
  ExpectCents(commit, (4.8 - 8.0 * 0.2) * 24 * 30);
  EXPECT_EQ(commit->subject, "instance i-reserved (1x H100-80GB-SXM)");
  EXPECT_NEAR(commit->facts["break_even"].get<double>(), 0.6, 1e-9);
}

TEST_F(AuditFleetTest, ForgottenCapacityWithReadingsOutsideTheWindowDoesNotSayItHasNone) {
  // Its readings are from the year before the window: "no utilization history" was untrue.
  const std::string inv =
      "version: 1\ninstances:\n" + Instance("i-old", "tiny-t4", "T4", "on_demand", 0.5,
                                            "2025-01-01T00:00:00Z", Readings(24, 90),
                                            ", launched: 2025-01-01T00:00:00Z");
  auto result = AuditWith(inv);
  ASSERT_TRUE(result) << result.error().message;
  const Finding* f = Find(*result, kForgottenCapacity);
  ASSERT_NE(f, nullptr) << report_;
  EXPECT_NE(f->evidence.find("no utilization reading in the window"), std::string::npos)
      << f->evidence;
  EXPECT_EQ(f->evidence.find("no utilization history"), std::string::npos) << f->evidence;
}

TEST_F(AuditFleetTest, InventoryUnderuseCommitmentAndSpendAreCounted) {
  options_.thresholds.budgets = {Budget{"ml", "", Money::FromDollars(1000), BudgetPeriod::kMonth}};
  const std::string inv =
      "version: 1\ninstances:\n" +
      // 8 GPUs at a mean 37% for 30 days: the work fits 4 GPUs at most 80% busy each.
      Instance("i-a100x8", "big-a100", "A100-80GB", "on_demand", 32, "2026-03-02T00:00:00Z",
               Readings(720, 37), ", gpus: 8") +
      // On demand and busy every hour of the 90 days: steady-h100 has a 1-year commitment.
      Instance("i-quad", "steady-h100", "H100-80GB-SXM", "on_demand", 8, "2026-01-01T00:00:00Z",
               Readings(2160, 95), ", gpus: 4");
  auto result = AuditWith(inv);
  ASSERT_TRUE(result) << result.error().message;
  SCOPED_TRACE(report_);
  EXPECT_EQ(CountByRule(*result), (std::map<std::string, int>{{std::string(kUnderutilized), 1},
                                                              {std::string(kCommitment), 1},
                                                              {std::string(kBudgetForecast), 1}}));
  const Finding* under = Find(*result, kUnderutilized);
  EXPECT_EQ(under->subject, "instance i-a100x8 (8x A100-80GB)");
  // $32/h × 720 h × (1 − 4/8), over 30 days of history.
  ExpectCents(under, 32.0 * 720 * 0.5);
  // On demand $8 × 2160 h; committed 60% of it: $6,912 in the window, a third a month.
  const Finding* commit = Find(*result, kCommitment);
  ExpectCents(commit, (8.0 * 2160 - 8.0 * 0.6 * 2160) / 3);
  EXPECT_EQ(commit->facts["inventory_instances"], nlohmann::json::array({"i-quad"}));
  // Spend: the inventory bills whether a run used it or not.
  EXPECT_NEAR(SpendInWindow(*result).dollars(), 32.0 * 720 + 8.0 * 2160, 0.01);
  ASSERT_EQ(result->budgets.size(), 1u);
  EXPECT_NEAR(result->budgets[0].burn_per_day.dollars(), (32.0 + 8.0) * 24, 0.01);
}

TEST_F(AuditFleetTest, AWindowTooShortToShowTwoIdleWeeksIsANoteNotAFinding) {
  options_.since = options_.now - hours(24 * 7);
  auto result = AuditWith("instances:\n" + Instance("i-nohist", "tiny-t4", "T4", "on_demand", 0.5,
                                                    "", "", ", launched: 2026-01-01"));
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_TRUE(result->findings.empty()) << report_;
  bool noted = false;
  for (const std::string& n : result->notes) noted |= n.find("i-nohist") != std::string::npos;
  EXPECT_TRUE(noted) << report_;
}

TEST_F(AuditFleetTest, CsvInventoryReadsLikeItsYaml) {
  const std::string csv =
      "id,cloud,region,instance_type,gpu,gpus,tier,price_per_hour,team,project,owner,launched,"
      "time,gpu_util\n"
      "i-1,testcloud,r1,big-a100,A100-80GB,2,on_demand,8,ml,,ana,,2026-03-30T00:00:00Z,90\n"
      "i-1,,,,,,,,,,,,2026-03-30T01:00:00Z,0\n"
      "i-1,,,,,,,,,,,,2026-03-30T03:00:00Z,0\n"
      "i-2,testcloud,r1,tiny-t4,T4,,,0.5,,,,2026-03-01,,\n";
  auto inv = ParseInventory(csv, "inv.csv", InventoryFormat::kCsv, *catalog_, options_.now);
  ASSERT_TRUE(inv) << inv.error().message;
  ASSERT_EQ(inv->instances.size(), 2u);
  const InventoryInstance& a = inv->instances[0];
  EXPECT_EQ(a.gpu_count, 2);
  EXPECT_EQ(a.tags.owner, "ana");
  ASSERT_EQ(a.history.size(), 3u);
  // A reading lasts until the next; the last as long as the one before it.
  EXPECT_EQ(a.history[0].end - a.history[0].start, hours(1));
  EXPECT_EQ(a.history[1].end - a.history[1].start, hours(2));
  EXPECT_EQ(a.history[2].end - a.history[2].start, hours(2));
  EXPECT_TRUE(inv->instances[1].history.empty());
  EXPECT_EQ(inv->instances[1].tier, CapacityTier::kOnDemand);
  EXPECT_TRUE(inv->instances[1].launched.has_value());
}

TEST_F(AuditFleetTest, InventoryErrorsNameFileLineAndField) {
  auto expect = [&](const std::string& text, InventoryFormat format, const std::string& where,
                    const std::string& what) {
    auto inv = ParseInventory(text, format == InventoryFormat::kCsv ? "inv.csv" : "inv.yaml",
                              format, *catalog_, options_.now);
    ASSERT_FALSE(inv) << text;
    EXPECT_EQ(inv.error().code, ErrorCode::kBadInput);
    EXPECT_NE(inv.error().message.find(where), std::string::npos) << inv.error().message;
    EXPECT_NE(inv.error().message.find(what), std::string::npos) << inv.error().message;
  };
  const auto yaml = InventoryFormat::kYaml;
  expect("instances:\n  - {id: a, cloud: c, region: r, gpu: A100-80BG, price_per_hour: 1}\n", yaml,
         "inv.yaml:2:", "unknown GPU 'A100-80BG' (did you mean 'A100-80GB'?)");
  expect("instances:\n  - {id: a, cloud: c, region: r, gpu: T4, price_per_houre: 1}\n", yaml,
         "inv.yaml:2:", "did you mean 'price_per_hour'");
  expect("instances:\n  - {id: a, cloud: c, region: r, gpu: T4}\n", yaml,
         "inv.yaml:2:", "price_per_hour");
  expect(
      "instances:\n  - {id: a, cloud: c, region: r, gpu: T4, price_per_hour: 1,\n"
      "     utilization: {start: 2026-03-01, gpu_util: [5, 140]}}\n",
      yaml, "inv.yaml:3:", "field 'gpu_util': '140'");
  expect(
      "instances:\n  - {id: a, cloud: c, region: r, gpu: T4, price_per_hour: 1}\n"
      "  - {id: a, cloud: c, region: r, gpu: T4, price_per_hour: 1}\n",
      yaml, "inv.yaml:3:", "'a' is listed twice");
  const auto csv = InventoryFormat::kCsv;
  expect("id,cloud,region,gpu,price_per_hour\na,c,r,T-4,1\n", csv, "inv.csv:2:7",
         "field 'gpu': unknown GPU 'T-4' (did you mean 'T4'?)");
  expect(
      "id,cloud,region,gpu,price_per_hour,time,gpu_util\na,c,r,T4,1,2026-03-02,5\n"
      "a,,,,,2026-03-01,5\n",
      csv, "inv.csv:3:", "not after");
  expect("id,cloud,region,gpu\na,c,r,T4\n", csv, "inv.csv:1", "price_per_hour");
  // Found by the fuzzer: an absent list was asked for its type and threw (an internal error).
  expect("version: 1\n", yaml, "inv.yaml:1:", "field 'instances': expected a list of instances");
  expect(
      "instances:\n  - {id: a, cloud: c, region: r, gpu: T4, price_per_hour: 1,\n"
      "     utilization: {start: 2026-03-01}}\n",
      yaml, "inv.yaml:3:", "field 'gpu_util': expected a list of percentages");
}

TEST_F(AuditFleetTest, BudgetsForecastTheBurnRateToThePeriodEnd) {
  // Day 20 of a 31-day month; the burn window is the last 14 days (Mar 7 to Mar 21), set here
  // (the default is the report's 7).
  options_.thresholds.budget_burn_days = 14;
  options_.now = *ledger::ParseTimestamp("2026-03-21T00:00:00Z");
  options_.since = options_.now - hours(24 * 90);
  options_.thresholds.budgets = {{"ml", "", Money::FromDollars(1000), BudgetPeriod::kMonth},
                                 {"vision", "", Money::FromDollars(5000), BudgetPeriod::kMonth}};
  const auto done = ledger::EndReason::kFinished;
  // ml: $800 from Mar 1 (56 h of it after Mar 7), $168 from Mar 14, and a $14 bill on Mar 10.
  AddRun("ml-a", *ledger::ParseTimestamp("2026-03-01T00:00:00Z"),
         {{TestOffer("big-a100", "A100-80GB", 4.0), 200, done}});
  AddRun("ml-b", *ledger::ParseTimestamp("2026-03-14T00:00:00Z"),
         {{TestOffer("small-l4", "L4", 1.0), 168, done}});
  // Before the period: counts for neither the period nor the burn.
  AddRun("ml-old", *ledger::ParseTimestamp("2026-02-01T00:00:00Z"),
         {{TestOffer("small-l4", "L4", 1.0), 100, done}});
  AddRun("vision", *ledger::ParseTimestamp("2026-03-15T00:00:00Z"),
         {{TestOffer("tiny-t4", "T4", 0.5), 100, done}}, true, "", "vision");
  WriteTestFile(dir_ / "bill.csv",
                "BilledCost,ChargePeriodStart,ChargePeriodEnd,ProviderName,ResourceId,Tags\n"
                "14,2026-03-10T00:00:00Z,2026-03-11T00:00:00Z,TestCloud,vol-1,"
                "\"{\"\"team\"\": \"\"ml\"\"}\"\n");
  ASSERT_TRUE(ledger::ImportFocus(*ledger_, dir_ / "bill.csv"));

  auto result = RunAudit(*ledger_, options_);
  ASSERT_TRUE(result) << result.error().message;
  std::ostringstream table;
  WriteAuditTable(*result, table);
  SCOPED_TRACE(table.str());
  EXPECT_EQ(CountByRule(*result), (std::map<std::string, int>{{std::string(kBudgetForecast), 1}}));
  const Finding* f = Find(*result, kBudgetForecast);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->subject, "team ml");
  EXPECT_FALSE(f->saving_per_month);
  EXPECT_FALSE(f->saving_applies);
  EXPECT_EQ(SavingText(*f), "n/a");
  // Spent $800 + $168 + $14 = $982; burn ($224 + $168 + $14) / 14 = $29/day; 11 days left.
  EXPECT_EQ(f->facts["spent"], "982");
  EXPECT_EQ(f->facts["burn_per_day"], "29");
  EXPECT_EQ(f->facts["forecast"], "1301");
  EXPECT_EQ(f->facts["overrun"], "301");
  ASSERT_EQ(result->budgets.size(), 2u);
  // vision: $50 spent, all of it in the burn window: $50 + $50 / 14 × 11 days, under budget.
  EXPECT_EQ(result->budgets[1].spent, Money::FromDollars(50));
  EXPECT_NEAR(result->budgets[1].forecast.dollars(), 50 + 50.0 / 14 * 11, 0.005);
}

}  // namespace
}  // namespace frugal::audit
