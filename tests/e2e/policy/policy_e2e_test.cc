// The team's GPU policy end to end with the real binary: `policy check`; `plan`, `run` and
// `tune` refusing a violating spec with exit 3, the rule and its fix, before anything is
// written; `--override REASON` going ahead and leaving a row that `policy overrides` and
// `audit` list.

#include <gtest/gtest.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "support/test_support.h"

namespace {

namespace fs = std::filesystem;
using frugal::testing::CommandResult;
using frugal::testing::ReadTestFile;
using frugal::testing::RunFrugal;
using frugal::testing::SourceDir;
using frugal::testing::TempDir;
using frugal::testing::WriteTestFile;

constexpr const char* kPolicy = R"(apiVersion: frugal/v1
kind: Policy
name: ml-platform
version: 4
workload_classes:
  training: [L4, A100-80GB]
required_tags: [team, project]
)";

nlohmann::json Json(const CommandResult& r) {
  try {
    return nlohmann::json::parse(r.out);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not JSON: " << e.what() << "\n" << r.out << r.err;
    return nlohmann::json::object();
  }
}

/// The overrides the ledger holds, through `frugal policy overrides --json`.
nlohmann::json Overrides(const fs::path& home, const std::vector<std::string>& db = {}) {
  std::vector<std::string> args = db;
  args.insert(args.end(), {"--json", "policy", "overrides", "--since", "1d"});
  const CommandResult r = RunFrugal(args, home);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return Json(r)["overrides"];
}

/// The audit's policy-override findings, through `frugal audit --format json`.
nlohmann::json AuditOverrides(const fs::path& home, const std::vector<std::string>& db = {}) {
  std::vector<std::string> args = db;
  args.insert(args.end(), {"audit", "--since", "1d", "--format", "json"});
  const CommandResult r = RunFrugal(args, home);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json found = nlohmann::json::array();
  const nlohmann::json doc = Json(r);
  for (const auto& f : doc["findings"]) {
    if (f["rule"] == "policy-override") found.push_back(f);
  }
  EXPECT_FALSE(found.empty()) << r.out;
  return found;
}

class PolicyE2e : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteTestFile(dir_ / "policy.yaml", kPolicy);
    example_ = (SourceDir() / "examples/plan/llama-7b-finetune.yaml").string();
    // The shipped example without its project tag: every option breaks required-tags.
    std::string job = ReadTestFile(example_);
    const std::string tags = "tags: {team: nlp, project: assistant, owner: grace}";
    ASSERT_NE(job.find(tags), std::string::npos);
    job.replace(job.find(tags), tags.size(), "tags: {team: nlp, owner: grace}");
    WriteTestFile(dir_ / "untagged.yaml", job);
  }
  fs::path Ledger() const { return home_ / "data" / "ledger.sqlite"; }

  TempDir home_;
  TempDir dir_;
  std::string example_;
};

TEST_F(PolicyE2e, ChecksTheShippedExampleJob) {
  WriteTestFile(dir_ / "strict.yaml", std::string(kPolicy) + "max_budget_without_approval: 500\n");
  auto r = RunFrugal({"policy", "check", "--policy", (dir_ / "strict.yaml").string(), example_},
                     home_.path());
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.out.find("budget-approval: budget $2,000.00 is above $500.00"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("fix: set constraints.budget to $500.00 or less"), std::string::npos)
      << r.out;
  EXPECT_NE(r.err.find("ml-platform v4"), std::string::npos) << r.err;

  WriteTestFile(dir_ / "bad.yaml",
                "apiVersion: frugal/v1\nkind: Policy\nname: x\nversion: 1\nrequired_tag: []\n");
  auto bad = RunFrugal({"policy", "check", "--policy", (dir_ / "bad.yaml").string(), example_},
                       home_.path());
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("bad.yaml:5:"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("required_tags"), std::string::npos) << bad.err;
  WriteTestFile(dir_ / "unversioned.yaml", "apiVersion: frugal/v1\nkind: Policy\nname: x\n");
  auto unversioned =
      RunFrugal({"policy", "check", "--policy", (dir_ / "unversioned.yaml").string(), example_},
                home_.path());
  EXPECT_EQ(unversioned.exit_code, 2);
  EXPECT_NE(unversioned.err.find("field 'version'"), std::string::npos) << unversioned.err;
  auto none = RunFrugal({"policy", "check", example_}, home_.path());
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("no policy configured"), std::string::npos) << none.err;
}

TEST_F(PolicyE2e, PlanScreensOptionsAndRefusesWhenNoneIsAllowed) {
  // Found in the config dir, with no flag.
  WriteTestFile(home_ / "config" / "policy.yaml", kPolicy);
  auto screened = RunFrugal({"--json", "plan", example_, "--top", "3"}, home_.path());
  ASSERT_EQ(screened.exit_code, 0) << screened.err;
  const nlohmann::json plan = Json(screened);
  ASSERT_FALSE(plan["options"].empty());
  for (const auto& o : plan["options"]) {
    EXPECT_TRUE(o["gpu"] == "L4" || o["gpu"] == "A100-80GB") << o.dump();
  }
  EXPECT_EQ(plan["policy"]["version"], 4);
  EXPECT_GT(plan["policy"]["refused_count"].get<int>(), 0);
  ASSERT_FALSE(plan["policy"]["refused"].empty());
  EXPECT_EQ(plan["policy"]["refused"][0]["violations"][0]["rule"], "gpu-model");

  auto refused = RunFrugal({"plan", (dir_ / "untagged.yaml").string()}, home_.path());
  EXPECT_EQ(refused.exit_code, 3) << refused.out << refused.err;
  EXPECT_NE(refused.err.find("required-tags: missing tag 'project'"), std::string::npos)
      << refused.err;
  EXPECT_NE(refused.err.find("fix: add tags.project"), std::string::npos) << refused.err;
  EXPECT_FALSE(fs::exists(Ledger())) << "a refusal writes nothing";

  auto empty =
      RunFrugal({"plan", (dir_ / "untagged.yaml").string(), "--override", ""}, home_.path());
  EXPECT_EQ(empty.exit_code, 2) << empty.err;
  EXPECT_NE(empty.err.find("--override"), std::string::npos) << empty.err;

  auto overridden = RunFrugal({"plan", (dir_ / "untagged.yaml").string(), "--override",
                               "FIN-12: estimate for the budget review"},
                              home_.path());
  ASSERT_EQ(overridden.exit_code, 0) << overridden.err;
  EXPECT_NE(overridden.out.find("overridden: FIN-12"), std::string::npos) << overridden.out;
  const nlohmann::json rows = Overrides(home_.path());
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0]["command"], "plan");
  EXPECT_EQ(rows[0]["reason"], "FIN-12: estimate for the budget review");
  EXPECT_EQ(rows[0]["team"], "nlp");
  EXPECT_NE(rows[0]["rules"].dump().find("required-tags"), std::string::npos);
  EXPECT_NE(rows[0]["policy"].get<std::string>().find("ml-platform v4"), std::string::npos);
  EXPECT_EQ(AuditOverrides(home_.path()).size(), 1u);
}

// The shipped example on spot only, on a GPU the policy allows, saying it saves on notice with
// a checkpoint write of `write`; and a policy allowing at most 30 minutes between checkpoints.
class SpotCheckpointPolicy : public PolicyE2e {
 protected:
  void SetUp() override {
    PolicyE2e::SetUp();
    WriteTestFile(policy_, std::string(kPolicy) + "max_spot_checkpoint_interval: 30m\n");
  }
  fs::path Job(const std::string& name, const std::string& write) {
    std::string job = ReadTestFile(example_);
    job.replace(job.find("tiers: [on_demand, spot, reserved_1y]"), 37, "tiers: [spot]");
    job.replace(job.find("checkpoint_on_notice: false"), 27, "checkpoint_on_notice: true");
    job.replace(job.find("max_gpus: 8"), 11, "max_gpus: 8\n  gpus: [A100-80GB]");
    job.replace(job.find("checkpoint_write: 3m"), 20, "checkpoint_write: " + write);
    fs::path path = dir_ / (name + ".yaml");
    WriteTestFile(path, job);
    return path;
  }
  fs::path policy_ = dir_ / "strict.yaml";
};

TEST_F(SpotCheckpointPolicy, ASaveThatDoesNotFitTheNoticeIsJudgedByTheCheckpointInterval) {
  // The job says it saves on notice, but its 10-minute write does not fit in the default 30 s
  // notice: the planner checkpoints periodically, so the spec alone bounds no interval.
  auto check = RunFrugal(
      {"policy", "check", "--policy", policy_.string(), Job("spot", "10m").string()}, home_.path());
  EXPECT_EQ(check.exit_code, 3) << check.out << check.err;
  EXPECT_NE(check.out.find("checkpoint-interval"), std::string::npos) << check.out;
  EXPECT_NE(check.out.find("does not fit in the 30s notice"), std::string::npos) << check.out;

  // A write that fits the notice complies.
  auto fits = RunFrugal(
      {"policy", "check", "--policy", policy_.string(), Job("fits", "20s").string()}, home_.path());
  EXPECT_EQ(fits.exit_code, 0) << fits.out << fits.err;
}

TEST_F(SpotCheckpointPolicy, ThePlanKeepsOnlyOptionsWhoseIntervalThePolicyAllows) {
  // A 10-minute write: the 8-GPU instances, preempted about once an hour, checkpoint every
  // 27 minutes (Daly), the single GPUs every hour. The plan keeps the first and names the rule
  // for the second.
  auto plan = RunFrugal(
      {"--policy", policy_.string(), "--json", "plan", Job("spot", "10m").string()}, home_.path());
  ASSERT_EQ(plan.exit_code, 0) << plan.out << plan.err;
  const nlohmann::json doc = Json(plan);
  ASSERT_FALSE(doc["options"].empty()) << plan.out;
  for (const nlohmann::json& o : doc["options"]) {
    ASSERT_EQ(o["spot"]["strategy"], "periodic") << o.dump();
    EXPECT_LE(o["spot"]["checkpoint_interval_hours"].get<double>(), 0.5) << o.dump();
  }
  EXPECT_NE(plan.out.find("checkpoint-interval"), std::string::npos) << plan.out;

  // A 20-minute write puts every interval past 30 minutes: nothing is allowed, exit 3.
  auto refused =
      RunFrugal({"--policy", policy_.string(), "plan", Job("slow", "20m").string()}, home_.path());
  EXPECT_EQ(refused.exit_code, 3) << refused.out << refused.err;
  EXPECT_NE(refused.err.find("checkpoint-interval"), std::string::npos) << refused.err;
}

TEST_F(PolicyE2e, RunIsRefusedBeforeAnythingIsWrittenAndOverridesAreLinkedToTheRun) {
  const std::vector<std::string> env = {"FRUGAL_POLICY=" + (dir_ / "policy.yaml").string()};
  const std::vector<std::string> run = {"run",          "--gpu",    "T4",       "--tier",
                                        "on_demand",    "--tag",    "team=nlp", "--tag",
                                        "project=chat", "--run-id", "t4-run"};
  std::vector<std::string> refused_args = run;
  refused_args.insert(refused_args.end(), {"--", "true"});
  auto refused = RunFrugal(refused_args, home_.path(), env);
  EXPECT_EQ(refused.exit_code, 3) << refused.out << refused.err;
  EXPECT_NE(refused.err.find("gpu-model: T4 is not allowed for training work"), std::string::npos)
      << refused.err;
  EXPECT_NE(refused.err.find("fix: use only L4, A100-80GB in --gpu/--offer"), std::string::npos)
      << refused.err;
  EXPECT_FALSE(fs::exists(Ledger())) << "a refused run leaves no ledger";
  EXPECT_FALSE(fs::exists(home_ / "data" / "runs" / "t4-run")) << "nor a run directory";

  std::vector<std::string> override_args = run;
  override_args.insert(override_args.end(),
                       {"--override", "T4 latency benchmark for the inference team", "--", "true"});
  auto ran = RunFrugal(override_args, home_.path(), env);
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  EXPECT_NE(ran.err.find("overridden: T4 latency benchmark"), std::string::npos) << ran.err;
  const nlohmann::json rows = Overrides(home_.path());
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0]["command"], "run");
  EXPECT_EQ(rows[0]["rules"], nlohmann::json::array({"gpu-model"}));
  EXPECT_EQ(rows[0]["project"], "chat");
  ASSERT_FALSE(rows[0]["run_id"].is_null()) << rows[0].dump();
  // Money in JSON is a decimal string, as `runs` and `report` write it: the run's own cost.
  const CommandResult runs = RunFrugal({"--json", "runs", "list"}, home_.path());
  ASSERT_EQ(runs.exit_code, 0) << runs.err;
  const nlohmann::json listed = Json(runs)["runs"];
  ASSERT_EQ(listed.size(), 1u) << runs.out;
  ASSERT_TRUE(rows[0]["spend_usd"].is_string()) << rows[0].dump();
  EXPECT_EQ(rows[0]["spend_usd"], listed[0]["cost_usd"]) << rows[0].dump();
  const nlohmann::json findings = AuditOverrides(home_.path());
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0]["runs"], nlohmann::json::array({rows[0]["run_id"]}));
  EXPECT_TRUE(findings[0]["saving_per_month"].is_null());
  EXPECT_NE(findings[0]["evidence"].get<std::string>().find("T4 latency benchmark"),
            std::string::npos);
}

constexpr const char* kTrainer = R"py(
import json, os, sys
sys.path.insert(0, os.environ["FRUGAL_TEST_PYTHONPATH"])
import frugal
config = json.loads(os.environ["FRUGAL_TRIAL_CONFIG"])
target = int(float(os.environ["FRUGAL_TRIAL_TARGET"]))
for epoch in range(1, target + 1):
    frugal.report(epoch, epoch=epoch, loss=(config["x"] - 0.3) ** 2 + 1.0 / (epoch + 1))
)py";

constexpr const char* kStudy = R"(apiVersion: frugal/v1
kind: Study
name: t4-sweep
tags: {team: nlp}
trial: {command: [python3, trainer.py]}
space: {x: {type: float, low: 0.0, high: 1.0}}
objective: {metric: loss, direction: minimize}
fidelity: {name: epoch, min: 1, max: 2, grace: 1}
scheduler: none
resources: {offer: "aws:g4dn.xlarge on_demand"}
gates: {budget_usd: 5, max_trials: 2}
)";

TEST_F(PolicyE2e, TuneIsRefusedAndAnOverriddenStudyIsLinked) {
  WriteTestFile(dir_ / "trainer.py", kTrainer);
  WriteTestFile(dir_ / "study.yaml", kStudy);
  const char* path = std::getenv("PATH");
  const std::vector<std::string> env = {
      "FRUGAL_TEST_PYTHONPATH=" + (SourceDir() / "python").string(),
      std::string("PATH=/usr/bin:") + (path != nullptr ? path : "")};
  const std::string db = (dir_ / "team.sqlite").string();
  const std::vector<std::string> tune = {"--db",     db,
                                         "--policy", (dir_ / "policy.yaml").string(),
                                         "tune",     (dir_ / "study.yaml").string()};
  auto refused = RunFrugal(tune, home_.path(), env);
  EXPECT_EQ(refused.exit_code, 3) << refused.out << refused.err;
  EXPECT_NE(refused.err.find("gpu-model: T4 is not allowed"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("fix: use only L4, A100-80GB in resources.offer"), std::string::npos)
      << refused.err;
  EXPECT_NE(refused.err.find("required-tags: missing tag 'project'"), std::string::npos)
      << refused.err;
  EXPECT_FALSE(fs::exists(db)) << "a refused study stores nothing";
  EXPECT_FALSE(fs::exists(home_ / "data" / "studies" / "t4-sweep"));

  std::vector<std::string> overridden = tune;
  overridden.insert(overridden.end(), {"--override", "compare with last year's T4 baseline"});
  auto ran = RunFrugal(overridden, home_.path(), env);
  ASSERT_EQ(ran.exit_code, 0) << ran.out << ran.err;
  const nlohmann::json rows = Overrides(home_.path(), {"--db", db});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0]["command"], "tune");
  EXPECT_EQ(rows[0]["subject"], "study t4-sweep");
  EXPECT_EQ(rows[0]["rules"], nlohmann::json::array({"gpu-model", "required-tags"}));
  ASSERT_FALSE(rows[0]["study_id"].is_null()) << rows[0].dump();
  ASSERT_TRUE(rows[0]["spend_usd"].is_string()) << rows[0].dump();
  EXPECT_GT(std::stod(rows[0]["spend_usd"].get<std::string>()), 0.0) << rows[0].dump();
  EXPECT_EQ(AuditOverrides(home_.path(), {"--db", db}).size(), 1u);
}

// A resume that raises the budget is admitted again: above the approval limit it is refused
// like a new study, and goes ahead only with --override, which the ledger records.
TEST_F(PolicyE2e, ResumeWithABudgetAboveTheApprovalLimitIsRefusedUnlessOverridden) {
  WriteTestFile(dir_ / "trainer.py", kTrainer);
  std::string study = kStudy;
  study.replace(study.find("budget_usd: 5"), 13, "budget_usd: 0.5");
  WriteTestFile(dir_ / "study.yaml", study);
  WriteTestFile(dir_ / "budgets.yaml",
                "apiVersion: frugal/v1\nkind: Policy\nname: budgets\nversion: 1\n"
                "workload_classes:\n  training: [T4, L4]\n"
                "max_budget_without_approval: 1\napproval_tag: approved_by\n");
  const char* path = std::getenv("PATH");
  const std::vector<std::string> env = {
      "FRUGAL_TEST_PYTHONPATH=" + (SourceDir() / "python").string(),
      std::string("PATH=/usr/bin:") + (path != nullptr ? path : "")};
  const std::vector<std::string> with = {"--db", (dir_ / "team.sqlite").string(), "--policy",
                                         (dir_ / "budgets.yaml").string()};
  auto frugal = [&](std::vector<std::string> args) {
    args.insert(args.begin(), with.begin(), with.end());
    return RunFrugal(args, home_.path(), env);
  };
  ASSERT_EQ(frugal({"tune", (dir_ / "study.yaml").string()}).exit_code, 0);

  auto refused = frugal({"tune", "resume", "t4-sweep", "--budget", "5"});
  EXPECT_EQ(refused.exit_code, 3) << refused.err;
  EXPECT_NE(refused.err.find("budget-approval: budget $5.00 is above $1.00"), std::string::npos)
      << refused.err;
  auto status = frugal({"--json", "tune", "status", "t4-sweep"});
  ASSERT_EQ(status.exit_code, 0) << status.err;
  EXPECT_TRUE(Json(status)["cap_changes"].empty()) << status.out;  // the refusal changed nothing

  auto overridden =
      frugal({"tune", "resume", "t4-sweep", "--budget", "5", "--override", "quarter-end push"});
  ASSERT_EQ(overridden.exit_code, 0) << overridden.err;
  const nlohmann::json rows = Overrides(home_.path(), {"--db", with[1]});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0]["command"], "tune resume");
  EXPECT_EQ(rows[0]["rules"], nlohmann::json::array({"budget-approval"}));
  EXPECT_FALSE(rows[0]["study_id"].is_null()) << rows[0].dump();
}

}  // namespace
