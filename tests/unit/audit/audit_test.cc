#include "frugal/audit/audit.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "audit_fixture.h"
#include "frugal/audit/audit_data.h"
#include "frugal/audit/audit_output.h"
#include "frugal/catalog/catalog.h"
#include "frugal/core/csv.h"
#include "frugal/ledger/focus.h"

namespace frugal::audit {
namespace {

using fixture::AuditTest;
using fixture::ExpectSaving;
using fixture::Find;
using fixture::TestOffer;
using frugal::testing::SharedDataDir;
using frugal::testing::TempDir;
using frugal::testing::WriteTestFile;
using ledger::Timestamp;
using std::chrono::hours;
using std::chrono::minutes;

TEST_F(AuditTest, FindsEveryPlantedCaseWithItsSavingAndNothingElse) {
  const auto a100 = TestOffer("big-a100", "A100-80GB", 4.0);
  const auto a100_spot = TestOffer("big-a100", "A100-80GB", 1.2, CapacityTier::kSpot);
  const auto h100 = TestOffer("steady-h100", "H100-80GB-SXM", 8.0);
  const auto done = ledger::EndReason::kFinished;
  const Timestamp day10 = options_.since + hours(24 * 10);

  // Idle: 4 busy hours then 16 idle ones on a $4/h GPU.
  const auto idle = AddRun("idle", day10, {{a100, 20, done}});
  AddSamples(idle, day10, 4, 90, 30);
  AddSamples(idle, day10 + hours(4), 16, 0, 30);
  // Under-utilized: 30% for 10 h, peaks at 20 GiB: T4 (16 GiB) does not fit, L4 (24) does.
  const Timestamp day20 = options_.since + hours(24 * 20);
  const auto under = AddRun("under", day20, {{a100, 10, done}});
  AddSamples(under, day20, 10, 30, 20);
  // Spot candidate: 8 h on demand, busy, 4 checkpoints.
  const Timestamp day30 = options_.since + hours(24 * 30);
  const auto spot_candidate = AddRun("ckpt", day30, {{a100, 8, done}});
  AddSamples(spot_candidate, day30, 8, 90, 60);
  AddCheckpoints(spot_candidate, day30, 4, hours(2));
  // Commitment: one H100 the whole window, a second for 20 days.
  const auto steady = AddRun("steady", options_.since, {{h100, 24 * 90, done}});
  const auto burst = AddRun("burst", day10, {{h100, 24 * 20, done}});
  // Untagged: 400 h on demand with no team, project or owner.
  const Timestamp day40 = options_.since + hours(24 * 40);
  const auto untagged = AddRun("untagged", day40, {{a100, 400, done}}, /*tagged=*/false);
  // Spot without checkpoints: preempted after 5 h, finished 3 h later.
  const Timestamp day60 = options_.since + hours(24 * 60);
  const auto fragile = AddRun(
      "fragile", day60, {{a100_spot, 5, ledger::EndReason::kPreempted}, {a100_spot, 3, done}});
  // Controls that must not be reported: a busy checkpointing spot run; a 30 h on-demand run
  // that checkpoints (too long to move to spot) and keeps its GPU busy.
  const Timestamp day70 = options_.since + hours(24 * 70);
  const auto good = AddRun("good", day70, {{a100_spot, 6, done}});
  AddSamples(good, day70, 6, 95, 70);
  AddCheckpoints(good, day70, 3, hours(2));
  const auto longrun = AddRun("long", day70, {{a100, 30, done}});
  AddSamples(longrun, day70, 30, 85, 70);
  AddCheckpoints(longrun, day70, 10, hours(3));
  // Studies: one that pruned nothing; one that pruned; one too small to judge.
  auto study = [&](const std::string& name, int completed, int pruned) {
    ledger::NewStudy s;
    s.name = name;
    s.objective = "loss";
    s.created = day10;
    const ledger::StudyId id = *ledger_->CreateStudy(s);
    for (int i = 0; i < completed + pruned; ++i) {
      const ledger::TrialId t = *ledger_->AddTrial(id, {{"lr", i}}, day10);
      ASSERT_TRUE(ledger_->UpdateTrial(
          t, i < completed ? ledger::TrialState::kCompleted : ledger::TrialState::kPruned,
          Money::FromDollars(2), std::nullopt, day10));
    }
  };
  study("no-pruning", 5, 0);
  study("pruned", 5, 3);
  study("small", 2, 0);
  {
    // ASHA with pause/promote: trials parked at a rung and never promoted are its pruning.
    ledger::NewStudy s;
    s.name = "asha-paused";
    s.objective = "loss";
    s.created = day10;
    const ledger::StudyId id = *ledger_->CreateStudy(s);
    for (int i = 0; i < 8; ++i) {
      const ledger::TrialId t = *ledger_->AddTrial(id, {{"lr", i}}, day10);
      ASSERT_TRUE(ledger_->RecordRung(t, 0, 1.0, 0.5 + i, day10));
      ASSERT_TRUE(ledger_->UpdateTrial(
          t, i < 5 ? ledger::TrialState::kCompleted : ledger::TrialState::kPaused,
          Money::FromDollars(1), std::nullopt, day10));
    }
  }

  auto result = RunAudit(*ledger_, options_);
  ASSERT_TRUE(result) << result.error().message;
  std::ostringstream table;
  WriteAuditTable(*result, table);
  SCOPED_TRACE(table.str());
  std::map<std::string, int> by_rule;
  for (const Finding& f : result->findings) ++by_rule[f.rule];
  EXPECT_EQ(by_rule, (std::map<std::string, int>{{std::string(kIdleGpu), 1},
                                                 {std::string(kUnderutilized), 1},
                                                 {std::string(kSpotCandidate), 1},
                                                 {std::string(kCommitment), 1},
                                                 {std::string(kUntaggedSpend), 1},
                                                 {std::string(kSpotNoCheckpoint), 1},
                                                 {std::string(kStudyNoPruning), 1}}));

  ExpectSaving(Find(*result, kIdleGpu), PerMonth(16 * 4.0));
  EXPECT_EQ(Find(*result, kIdleGpu)->runs, std::vector<ledger::RunId>{idle});
  const Finding* under_f = Find(*result, kUnderutilized);
  ExpectSaving(under_f, PerMonth((4.0 - 1.0) * 10));
  EXPECT_EQ(under_f->runs, std::vector<ledger::RunId>{under});
  EXPECT_NE(under_f->action.find("L4"), std::string::npos) << under_f->action;
  EXPECT_NE(under_f->action.find("20.0 GiB"), std::string::npos) << under_f->action;
  // Spot: 8 h at $1.20 plus 0.8 expected preemptions × (1 h lost + 10 min restart).
  const double spot_cost = 1.2 * (8 + 0.1 * 8 * (1.0 + 10.0 / 60));
  ExpectSaving(Find(*result, kSpotCandidate), PerMonth(32.0 - spot_cost));
  EXPECT_EQ(Find(*result, kSpotCandidate)->runs, std::vector<ledger::RunId>{spot_candidate});
  // Commitment: discount 40%, 1 instance busy in more than 60% of hours, 2 only 22%.
  const Finding* commit = Find(*result, kCommitment);
  const double without = 8.0 * (2160 + 480);
  const double with = 0.6 * 2160 * 8.0 + 480 * 8.0;
  ExpectSaving(commit, PerMonth(without - with));
  EXPECT_DOUBLE_EQ(commit->facts["level"].get<double>(), 1.0);
  EXPECT_NEAR(commit->facts["break_even_utilization"].get<double>(), 0.6, 1e-9);
  EXPECT_EQ(commit->runs, (std::vector<ledger::RunId>{steady, burst}));
  const Finding* tags = Find(*result, kUntaggedSpend);
  EXPECT_FALSE(tags->saving_per_month);
  EXPECT_EQ(tags->runs, std::vector<ledger::RunId>{untagged});
  ExpectSaving(Find(*result, kSpotNoCheckpoint), PerMonth(5 * 1.2));
  EXPECT_EQ(Find(*result, kSpotNoCheckpoint)->runs, std::vector<ledger::RunId>{fragile});
  EXPECT_EQ(Find(*result, kStudyNoPruning)->subject, "study no-pruning");
  EXPECT_FALSE(Find(*result, kStudyNoPruning)->saving_per_month);

  // Ranked by saving, unknown savings last.
  EXPECT_EQ(result->findings.front().rule, kCommitment);
  for (size_t i = 1; i < result->findings.size(); ++i) {
    const auto& a = result->findings[i - 1].saving_per_month;
    const auto& b = result->findings[i].saving_per_month;
    if (b) {
      ASSERT_TRUE(a);
      EXPECT_GE(*a, *b);
    }
  }
}

TEST_F(AuditTest, ACheaperGpuMustRunTheJobsPrecision) {
  // An A100 run (bf16) barely busy and small enough for a T4: the T4 is cheaper and has the
  // fp16 TFLOPS, but no bf16, so the job moves to the L4.
  const Timestamp start = options_.since + hours(24);
  const auto run =
      AddRun("light", start,
             {{TestOffer("big-a100", "A100-80GB", 4.0), 10, ledger::EndReason::kFinished}});
  AddSamples(run, start, 10, 10, 4);
  options_.since = start - hours(1);
  auto result = RunAudit(*ledger_, options_);
  ASSERT_TRUE(result) << result.error().message;
  const Finding* under = Find(*result, kUnderutilized);
  ASSERT_NE(under, nullptr);
  EXPECT_EQ(under->facts["cheaper_offer"].get<std::string>().find("tiny-t4"), std::string::npos)
      << under->action;
  EXPECT_NE(under->action.find("run it on L4"), std::string::npos) << under->action;
  EXPECT_NE(under->saving_basis.find("× 10h in the window = $30.00"), std::string::npos)
      << under->saving_basis;
}

TEST_F(AuditTest, SaysWhatIsMissingInsteadOfASaving) {
  // No memory samples: no smaller GPU can be shown to fit.
  const Timestamp start = options_.since + hours(24);
  const auto run = AddRun(
      "nomem", start, {{TestOffer("big-a100", "A100-80GB", 4.0), 2, ledger::EndReason::kFinished}});
  ledger::Sample s;
  s.time = start + minutes(5);
  s.gpu_util = 20;
  ASSERT_TRUE(ledger_->AddSamples(run, std::vector<ledger::Sample>{s}));
  // An on-demand checkpointing run on an instance the catalog has no spot offer for.
  const auto od =
      AddRun("nospot", start,
             {{TestOffer("steady-h100", "H100-80GB-SXM", 8.0), 3, ledger::EndReason::kFinished}});
  AddCheckpoints(od, start, 2, hours(1));
  options_.since = start - hours(1);
  auto result = RunAudit(*ledger_, options_);
  ASSERT_TRUE(result) << result.error().message;
  const Finding* under = Find(*result, kUnderutilized);
  ASSERT_NE(under, nullptr);
  EXPECT_FALSE(under->saving_per_month);
  EXPECT_NE(under->saving_basis.find("no GPU memory samples"), std::string::npos);
  const Finding* spot = Find(*result, kSpotCandidate);
  ASSERT_NE(spot, nullptr);
  EXPECT_FALSE(spot->saving_per_month);
  EXPECT_NE(spot->saving_basis.find("no spot offer for steady-h100"), std::string::npos);
  // With no inventory, commitments already bought cannot be judged: a note says so.
  bool commitment_note = false;
  for (const std::string& n : result->notes) commitment_note |= n.starts_with(kUnderusedCommitment);
  EXPECT_TRUE(commitment_note);
}

TEST_F(AuditTest, StartUpFailuresAndDrillsAreNotSpotFindings) {
  const auto a100 = TestOffer("big-a100", "A100-80GB", 4.0);
  const auto a100_spot = TestOffer("big-a100", "A100-80GB", 1.2, CapacityTier::kSpot);
  const Timestamp start = options_.since + hours(24);
  // A trial that died at `import torch` 0.3 s into its spot segment: no checkpoint was due.
  const auto died = AddRun("trial-0", start, {{a100_spot, 0.3 / 3600, ledger::EndReason::kFailed}});
  // One that ran on spot for 2 h without a checkpoint is still a finding.
  const auto fragile = AddRun("fragile", start, {{a100_spot, 2, ledger::EndReason::kFinished}});
  // A drill's uninterrupted baseline on demand, checkpointing: a measurement, not a candidate.
  ledger::NewRun baseline;
  baseline.name = "train";
  baseline.command = "train";
  baseline.start = start;
  baseline.tags.team = "ml";
  baseline.tags.Set("drill", "baseline");
  const ledger::RunId drill = *ledger_->BeginRun(baseline);
  const ledger::SegmentId seg = *ledger_->OpenSegment(drill, a100, start);
  ASSERT_TRUE(ledger_->CloseSegment(seg, start + hours(2), ledger::EndReason::kFinished));
  ASSERT_TRUE(ledger_->FinishRun(drill, ledger::RunStatus::kSucceeded, start + hours(2)));
  AddCheckpoints(drill, start, 2, minutes(30));
  options_.since = start - hours(1);
  auto result = RunAudit(*ledger_, options_);
  ASSERT_TRUE(result) << result.error().message;
  std::vector<ledger::RunId> no_checkpoint, candidates;
  for (const Finding& f : result->findings) {
    if (f.rule == kSpotNoCheckpoint)
      no_checkpoint.insert(no_checkpoint.end(), f.runs.begin(), f.runs.end());
    if (f.rule == kSpotCandidate) candidates.insert(candidates.end(), f.runs.begin(), f.runs.end());
  }
  EXPECT_EQ(no_checkpoint, std::vector<ledger::RunId>{fragile}) << "not run " << died;
  EXPECT_TRUE(candidates.empty()) << "drill baseline " << drill;
}

/// A FOCUS file with the columns the import needs, one row per (resource, sku, day).
std::string FocusCsv(
    const std::vector<std::tuple<std::string, std::string, std::string, double, std::string>>&
        rows) {
  std::string csv =
      "BilledCost,ChargePeriodStart,ChargePeriodEnd,ProviderName,ResourceId,SkuId,"
      "ServiceName,Tags\n";
  for (const auto& [resource, sku, day, cost, tags] : rows) {
    csv += fmt::format("{},{}T00:00:00Z,{}T23:00:00Z,TestCloud,{},{},Compute,\"{}\"\n", cost, day,
                       day, resource, sku, tags);
  }
  return csv;
}

TEST_F(AuditTest, AnIdleFindingWithManyIdlePeriodsNamesTheFirstAndTheLast) {
  // 20 h at $4/h: busy 2 h then idle 3 h, four times: 12 idle hours in four periods.
  const Timestamp start = options_.since + hours(24 * 10);
  const auto run =
      AddRun("gappy", start,
             {{TestOffer("big-a100", "A100-80GB", 4.0), 20, ledger::EndReason::kFinished}});
  for (int k = 0; k < 4; ++k) {
    AddSamples(run, start + hours(5 * k), 2, 90, 30);
    AddSamples(run, start + hours(5 * k + 2), 3, 0, 30);
  }
  auto result = RunAudit(*ledger_, options_);
  ASSERT_TRUE(result) << result.error().message;
  const Finding* idle = Find(*result, kIdleGpu);
  ASSERT_NE(idle, nullptr);
  ExpectSaving(idle, PerMonth(12 * 4.0));
  EXPECT_EQ(idle->facts["idle_periods"].size(), 4u);
  const auto at = [&](int h) { return ledger::FormatTimestamp(start + hours(h)); };
  EXPECT_NE(idle->evidence.find(fmt::format("4 idle periods, the first {} to {} (3h), the last {} "
                                            "to {} (3h)",
                                            at(2), at(5), at(17), at(20))),
            std::string::npos)
      << idle->evidence;
}

TEST_F(AuditTest, FindsForgottenCapacityInImportedBills) {
  // A run on big-a100 accounts for i-used; nothing accounts for i-forgotten (small-l4).
  AddRun("recent", *ledger::ParseTimestamp("2026-03-25T00:00:00Z"),
         {{TestOffer("big-a100", "A100-80GB", 4.0), 2, ledger::EndReason::kFinished}});
  std::vector<std::tuple<std::string, std::string, std::string, double, std::string>> rows;
  const std::string team = R"({""team"": ""ml""})";
  for (int day = 1; day <= 28; ++day) {
    const std::string date = fmt::format("2026-03-{:02}", day);
    rows.emplace_back("i-used", "BoxUsage:big-a100", date, 96.0, team);
    rows.emplace_back("i-forgotten", "BoxUsage:small-l4", date, 24.0, team);
    rows.emplace_back("vol-1", "EBS:gp3", date, 1.0, team);  // not GPU capacity
  }
  WriteTestFile(dir_ / "bill.csv", FocusCsv(rows));
  auto imported = ledger::ImportFocus(*ledger_, dir_ / "bill.csv");
  ASSERT_TRUE(imported) << imported.error().message;
  ASSERT_EQ(imported->imported, 84);
  auto result = RunAudit(*ledger_, options_);
  ASSERT_TRUE(result) << result.error().message;
  ASSERT_EQ(result->findings.size(), 1u) << result->findings[0].rule;
  const Finding& f = result->findings[0];
  EXPECT_EQ(f.rule, kForgottenCapacity);
  EXPECT_EQ(f.subject, "i-forgotten (small-l4)");
  // The bill ends 2026-03-28T23:00; its last 14 days hold the daily rows of the 15th..28th.
  ExpectSaving(&f, 14 * 24.0 * 30 / 14);
}

// A bill that splits each commitment's amortized cost into its Used and Unused share (FOCUS
// CommitmentDiscountStatus) shows an under-used commitment without any inventory.
TEST_F(AuditTest, JudgesCommitmentsByTheUnusedShareOfTheirBills) {
  std::string csv =
      "BilledCost,EffectiveCost,ChargePeriodStart,ChargePeriodEnd,ProviderName,SkuId,"
      "ServiceName,Tags,CommitmentDiscountId,CommitmentDiscountName,CommitmentDiscountStatus\n";
  const std::string team = R"(""{""""team"""": """"ml""""}"")";
  for (int day = 1; day <= 10; ++day) {
    const std::string period =
        fmt::format("2026-03-{:02}T00:00:00Z,2026-03-{:02}T00:00:00Z", day, day + 1);
    for (const auto& [id, name, used, unused] :
         {std::tuple{"ri-1", "p4d 1y", 80.0, 20.0}, std::tuple{"ri-2", "g5 1y", 99.0, 1.0}}) {
      csv += fmt::format("0,{},{},TestCloud,Commitment,Compute,{},{},{},Used\n", used, period, team,
                         id, name);
      csv += fmt::format("0,{},{},TestCloud,Commitment,Compute,{},{},{},Unused\n", unused, period,
                         team, id, name);
    }
  }
  WriteTestFile(dir_ / "bill.csv", csv);
  auto imported = ledger::ImportFocus(*ledger_, dir_ / "bill.csv");
  ASSERT_TRUE(imported) << imported.error().message;
  ASSERT_EQ(imported->imported, 40);
  options_.since = *ledger::ParseTimestamp("2026-03-01T00:00:00Z");
  options_.now = *ledger::ParseTimestamp("2026-03-11T00:00:00Z");
  auto result = RunAudit(*ledger_, options_);
  ASSERT_TRUE(result) << result.error().message;
  // ri-1 left 20% of its cost unused; ri-2 1%, under the 5% threshold.
  ASSERT_EQ(result->findings.size(), 1u) << result->findings[0].rule;
  const Finding& f = result->findings[0];
  EXPECT_EQ(f.rule, kUnderusedCommitment);
  EXPECT_EQ(f.subject, "commitment p4d 1y (ri-1)");
  EXPECT_NEAR(f.facts["unused_share"].get<double>(), 0.2, 1e-9);
  EXPECT_NE(f.evidence.find("$200.00 of its $1,000.00"), std::string::npos) << f.evidence;
  ExpectSaving(&f, 200.0 * 30 / 10);  // $200 unused in 10 days, a 30-day month
  for (const std::string& n : result->notes) EXPECT_FALSE(n.starts_with(kUnderusedCommitment)) << n;

  // Half the window: the rows are counted by the part of their charge period inside it.
  options_.since = *ledger::ParseTimestamp("2026-03-06T12:00:00Z");
  auto half = RunAudit(*ledger_, options_);
  ASSERT_TRUE(half) << half.error().message;
  ASSERT_EQ(half->findings.size(), 1u);
  EXPECT_EQ(half->findings[0].facts["unused"], "90");
  ExpectSaving(&half->findings[0], 90.0 * 30 / 4.5);
}

TEST_F(AuditTest, JudgesTheSharedFocusSample) {
  const auto sample = SharedDataDir() / "focus" / "focus_1.0_sample_800rows.csv";
  if (!std::filesystem::exists(sample)) GTEST_SKIP() << "no shared FOCUS sample";
  auto imported = ledger::ImportFocus(*ledger_, sample);
  ASSERT_TRUE(imported) << imported.error().message;
  options_.since = *ledger::ParseTimestamp("2024-08-01");
  options_.now = *ledger::ParseTimestamp("2024-10-15");
  auto result = RunAudit(*ledger_, options_);
  ASSERT_TRUE(result) << result.error().message;
  // The sample is tagged by application/environment/business_unit, not team/project/owner
  // bar a handful of rows: one untagged-spend finding. Its GPU instances are named only in
  // ChargeDescription; the two g5.4xlarge billed in its last 14 days have no run: forgotten.
  EXPECT_EQ(fixture::CountByRule(*result),
            (std::map<std::string, int>{{std::string(kUntaggedSpend), 1},
                                        {std::string(kForgottenCapacity), 2}}));
  std::set<std::string> forgotten;
  for (const Finding& g : result->findings) {
    if (g.rule == kForgottenCapacity) forgotten.insert(g.subject);
  }
  EXPECT_EQ(forgotten, (std::set<std::string>{"i-006flle71l19b488a (g5.4xlarge)",
                                              "i-09ba12e1l5743720b (g5.4xlarge)"}));
  const Finding* untagged = Find(*result, kUntaggedSpend);
  ASSERT_NE(untagged, nullptr);
  const Finding& f = *untagged;
  EXPECT_EQ(f.rule, kUntaggedSpend);
  EXPECT_EQ(f.subject, "imported bills");
  EXPECT_GT(f.facts["share"].get<double>(), 0.99);
  EXPECT_FALSE(f.saving_per_month);
  // The spend chart splits the bill by FOCUS PricingCategory: Standard rows are on demand,
  // the three Committed rows reserved (their usage is covered: billed $0), the credit and the
  // uncategorized rows apart.
  std::map<std::string, Money> tiers;
  for (const SpendSeries& t : result->charts.spend_by_tier) tiers[t.name] = t.Total();
  EXPECT_EQ(tiers.size(), 3u);
  EXPECT_GT(tiers["on_demand"], Money());
  ASSERT_TRUE(tiers.contains("reserved"));
  EXPECT_EQ(tiers["reserved"], Money());
  EXPECT_TRUE(tiers.contains("billed (other)"));
  // With business_unit accepted as attribution, the tagged rows no longer count.
  options_.thresholds.attribution_tags = {"team", "business_unit"};
  auto again = RunAudit(*ledger_, options_);
  ASSERT_TRUE(again);
  const Finding* g = Find(*again, kUntaggedSpend);
  if (g != nullptr) {
    EXPECT_LT(g->facts["share"].get<double>(), f.facts["share"].get<double>());
  }
}

TEST(InstanceTypeInDescription, ReadsTheTypeAwsNamesInChargeDescriptions) {
  EXPECT_EQ(InstanceTypeInDescription("$3.06 per On Demand Linux p3.2xlarge Instance Hour"),
            "p3.2xlarge");
  EXPECT_EQ(InstanceTypeInDescription("AWS Marketplace hourly software usage|us-east-1|m5.2xlarge"),
            "m5.2xlarge");
  EXPECT_EQ(InstanceTypeInDescription("$0.00 for 4245 Mbps per c6a.4xlarge instance-hour (or "
                                      "partial hour)"),
            "c6a.4xlarge");
  EXPECT_EQ(InstanceTypeInDescription("$0.19152 per On Demand Linux m7i-flex.xlarge Instance Hour"),
            "m7i-flex.xlarge");
  EXPECT_EQ(InstanceTypeInDescription("$0.08 per GB-month of General Purpose (gp3) storage"), "");
  EXPECT_EQ(InstanceTypeInDescription("$0.05 per 1.5 GB"), "");
  EXPECT_EQ(InstanceTypeInDescription(""), "");

  // Every description of the shared sample: exactly the instance types they name (found by
  // reading the file), nothing from the others.
  const auto sample = SharedDataDir() / "focus" / "focus_1.0_sample_800rows.csv";
  if (!std::filesystem::exists(sample)) GTEST_SKIP() << "no shared FOCUS sample";
  const CsvTable table = CsvTable::Load(sample).value();
  const size_t column = table.RequireColumn("ChargeDescription").value();
  std::map<std::string, int> types;
  for (const CsvRecord& row : table.rows()) {
    const std::string type = InstanceTypeInDescription(CsvTable::Field(row, column));
    if (!type.empty()) ++types[type];
  }
  EXPECT_EQ(types, (std::map<std::string, int>{{"c5.2xlarge", 2},
                                               {"c5.xlarge", 1},
                                               {"c6a.4xlarge", 1},
                                               {"g3.4xlarge", 1},
                                               {"g5.4xlarge", 4},
                                               {"m4.10xlarge", 1},
                                               {"m5.2xlarge", 3},
                                               {"m5.large", 1},
                                               {"m7i-flex.xlarge", 1},
                                               {"t2.medium", 1},
                                               {"t2.micro", 1},
                                               {"t3.medium", 1},
                                               {"t3.micro", 1},
                                               {"t3a.small", 1}}));
}

}  // namespace
}  // namespace frugal::audit
