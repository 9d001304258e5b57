// frugal policy check end to end: exit 0 on compliance, 3 with every violation, 2 on a bad
// policy.

#include <gtest/gtest.h>

#include "support/test_support.h"

namespace {

using frugal::testing::RunFrugal;
using frugal::testing::SourceDir;
using frugal::testing::TempDir;
using frugal::testing::WriteTestFile;

TEST(PolicyE2e, ChecksTheShippedExampleJob) {
  TempDir dir;
  WriteTestFile(dir / "policy.yaml", R"(apiVersion: frugal/v1
kind: Policy
name: ml-platform
version: 2
workload_classes:
  training: [A100-80GB, L4]
max_budget_without_approval: 500
required_tags: [team, project, owner, cost_center]
)");
  const std::string job = (SourceDir() / "examples/plan/llama-7b-finetune.yaml").string();
  auto r = RunFrugal({"policy", "check", "--policy", (dir / "policy.yaml").string(), job},
                     dir.path());
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.out.find("required-tags: missing tag 'cost_center'"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("ml-platform v2"), std::string::npos) << r.err;

  WriteTestFile(dir / "bad.yaml", "apiVersion: frugal/v1\nkind: Policy\nname: x\nrequired_tag: []\n");
  auto bad = RunFrugal({"policy", "check", "--policy", (dir / "bad.yaml").string(), job},
                       dir.path());
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("bad.yaml:4:"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("required_tags"), std::string::npos) << bad.err;
}

}  // namespace
