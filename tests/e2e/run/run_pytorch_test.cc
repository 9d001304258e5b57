// The PyTorch example, preempted several times at seeded random moments, ends with exactly the
// weights of an uninterrupted run.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "frugal/core/atomic_file.h"
#include "support/test_support.h"

namespace frugal {
namespace {

using testing::RunFrugal;
using testing::RunProgram;
using testing::TempDir;

TEST(PytorchExample, PreemptedRunEndsWithTheUninterruptedWeights) {
  if (RunProgram({FRUGAL_PYTHON, "-c", "import torch"}).exit_code != 0) {
    GTEST_SKIP() << "torch is not importable by " << FRUGAL_PYTHON;
  }
  TempDir home;
  const std::string train = (testing::SourceDir() / "examples" / "pytorch" / "train.py").string();
  const std::vector<std::string> common = {"--epochs",           "3", "--step-delay", "0.02",
                                           "--checkpoint-every", "25"};
  std::vector<std::string> reference = {FRUGAL_PYTHON, train, "--out",
                                        (home / "reference.sha").string()};
  reference.insert(reference.end(), common.begin(), common.end());
  ASSERT_EQ(RunProgram(reference).exit_code, 0);

  std::vector<std::string> args = {"--json",
                                   "run",
                                   "--price",
                                   "0.50/h",
                                   "--restart",
                                   "local",
                                   "--max-restarts",
                                   "5",
                                   "--restart-backoff",
                                   "100ms",
                                   "--chaos-preempt-every",
                                   "3s",
                                   "--chaos-max",
                                   "4",
                                   "--seed",
                                   "7",
                                   "--",
                                   FRUGAL_PYTHON,
                                   train,
                                   "--out",
                                   (home / "drilled.sha").string()};
  args.insert(args.end(), common.begin(), common.end());
  auto r = RunFrugal(args, home.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  // How many of the (at most 4) injected preemptions land before the work is done depends on
  // the machine's speed and load (each restart re-imports torch); at least one always does.
  EXPECT_GE(doc["preemptions"].get<int>(), 1);
  EXPECT_EQ(doc["segments"].get<int>(), doc["preemptions"].get<int>() + 1);
  EXPECT_GE(doc["checkpoints_committed"].get<int>(), 1);
  const auto want = ReadFile(home / "reference.sha");
  const auto got = ReadFile(home / "drilled.sha");
  ASSERT_TRUE(want.has_value() && got.has_value());
  EXPECT_EQ(*got, *want);
}

}  // namespace
}  // namespace frugal
