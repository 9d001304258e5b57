// The policy-override rule: each override in the window is a finding with who, when, which
// rules, why and the spend of what it let start, and never a saving.

#include <gtest/gtest.h>

#include "frugal/audit/audit.h"
#include "support/test_support.h"

namespace frugal::audit {
namespace {

using std::chrono::hours;

TEST(AuditPolicyOverrides, ListsEachOverrideInTheWindowWithItsSpendAndNoSaving) {
  frugal::testing::TempDir dir;
  auto opened = ledger::Ledger::Open((dir / "ledger.sqlite").string());
  ASSERT_TRUE(opened) << opened.error().message;
  ledger::Ledger& db = **opened;
  AuditOptions options;
  options.now = *ledger::ParseTimestamp("2026-04-01T00:00:00Z");
  options.since = options.now - hours(24 * 30);

  ledger::NewRun run;
  run.name = "r-h100";
  run.command = "train";
  run.tags.team = "nlp";
  run.start = options.now - hours(48);
  const ledger::RunId run_id = *db.BeginRun(run);
  ledger::SegmentOffer offer{"testcloud",
                             "big",
                             "r1",
                             "",
                             "H100-80GB-SXM",
                             1,
                             CapacityTier::kOnDemand,
                             Rate{Money::FromDollars(8)},
                             std::nullopt};
  const ledger::SegmentId seg = *db.OpenSegment(run_id, offer, run.start);
  ASSERT_TRUE(db.CloseSegment(seg, run.start + hours(3), ledger::EndReason::kFinished));

  ledger::NewOverride o;
  o.time = run.start;
  o.command = "run";
  o.subject = "run r-h100 (job pretrain)";
  o.rules = {"h100-justification", "budget-approval"};
  o.reason = "INC-9: A100 pool exhausted before the launch";
  o.user_name = "alice";
  o.team = "nlp";
  o.policy_source = "ml-platform v3 (policy.yaml)";
  const ledger::OverrideId linked = *db.RecordOverride(o);
  ASSERT_TRUE(db.LinkOverride(linked, run_id, std::nullopt));
  ledger::NewOverride plan = o;
  plan.time = options.now - hours(1);
  plan.command = "plan";
  plan.subject = "job pretrain";
  plan.rules = {"gpu-model"};
  ASSERT_TRUE(db.RecordOverride(plan));
  ledger::NewOverride old = o;
  old.time = options.since - hours(1);  // before the window: not reported
  ASSERT_TRUE(db.RecordOverride(old));

  const AuditResult result = *RunAudit(db, options);
  std::vector<const Finding*> found;
  for (const Finding& f : result.findings) {
    if (f.rule == "policy-override") found.push_back(&f);
  }
  ASSERT_EQ(found.size(), 2u);
  for (const Finding* f : found) {
    EXPECT_FALSE(f->saving_per_month.has_value());
    EXPECT_NE(f->saving_basis.find("none claimed"), std::string::npos);
    EXPECT_NE(f->action.find("team nlp"), std::string::npos) << f->action;
  }
  const Finding& with_run =
      found[0]->subject == "run r-h100 (job pretrain)" ? *found[0] : *found[1];
  const Finding& plan_only = &with_run == found[0] ? *found[1] : *found[0];
  EXPECT_EQ(with_run.runs, std::vector<ledger::RunId>{run_id});
  EXPECT_EQ(with_run.facts.at("spend"), "24");  // 3 h at $8/h
  EXPECT_EQ(with_run.facts.at("user"), "alice");
  EXPECT_EQ(with_run.facts.at("rules"), (nlohmann::json{"h100-justification", "budget-approval"}));
  EXPECT_NE(with_run.evidence.find("INC-9: A100 pool exhausted"), std::string::npos)
      << with_run.evidence;
  EXPECT_NE(with_run.evidence.find("$24.00"), std::string::npos) << with_run.evidence;
  EXPECT_TRUE(plan_only.runs.empty());
  EXPECT_TRUE(plan_only.facts.at("spend").is_null());
  EXPECT_NE(plan_only.evidence.find("no run or study linked"), std::string::npos);
  EXPECT_EQ(result.TotalSavingPerMonth(), Money());
}

}  // namespace
}  // namespace frugal::audit
