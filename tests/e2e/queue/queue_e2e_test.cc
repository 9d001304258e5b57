// `frugal queue` through the real binary.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/test_support.h"

namespace frugal {
namespace {

using testing::RunFrugal;
using testing::SourceDir;
using testing::TempDir;
using testing::WriteTestFile;

std::string Example(const std::string& name) {
  return (SourceDir() / "examples" / "queue" / name).string();
}

TEST(QueueSimulateE2e, JsonHasTheFourPoliciesWithTheirKeys) {
  TempDir home;
  auto r = RunFrugal({"queue", "simulate", "--workload", Example("week.yaml"), "--capacity",
                      Example("capacity.yaml"), "--seed", "2", "--json"},
                     home.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["schema_version"], 1);
  for (const char* name : {"frugal", "fifo_on_demand", "edf_on_demand", "greedy_spot"}) {
    const auto& p = doc["policies"][name];
    ASSERT_TRUE(p.is_object()) << name;
    for (const char* key :
         {"cost_usd", "deadline_misses", "jobs_completed", "idle_owned_gpu_hours"}) {
      EXPECT_TRUE(p.contains(key)) << name << " " << key;
    }
    EXPECT_EQ(p["jobs_completed"], doc["jobs"]) << name;
  }
  EXPECT_LT(doc["policies"]["frugal"]["cost_usd"].get<double>(),
            doc["policies"]["fifo_on_demand"]["cost_usd"].get<double>());
}

TEST(QueueSimulateE2e, TracesFromTheCommandLineReplaceThePoolsOwn) {
  TempDir home;
  WriteTestFile(home / "down.csv", "tick,available\n0,0\n1,0\n2,0\n");
  const std::vector<std::string> base = {"queue",      "simulate",
                                         "--workload", Example("crunch.yaml"),
                                         "--capacity", Example("capacity.yaml"),
                                         "--json"};
  std::vector<std::string> args = base;
  args.insert(args.end(), {"--trace", (home / "down.csv").string()});
  auto r = RunFrugal(args, home.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["policies"]["frugal"]["spot_gpu_hours"], 0);
  EXPECT_EQ(doc["policies"]["greedy_spot"]["spot_gpu_hours"], 0);
}

TEST(QueueSimulateE2e, HumanOutputIsATable) {
  TempDir home;
  auto r = RunFrugal({"queue", "simulate", "--workload", Example("week.yaml"), "--capacity",
                      Example("capacity.yaml"), "--policy", "frugal,fifo_on_demand"},
                     home.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("fifo_on_demand"), std::string::npos);
  EXPECT_NE(r.out.find("less than FIFO on on-demand"), std::string::npos);
}

TEST(QueueSimulateE2e, BadCapacityExitsTwoNamingFileAndLine) {
  TempDir home;
  WriteTestFile(home / "cap.yaml",
                "apiVersion: frugal/v1\nkind: Capacity\npools:\n"
                "  - name: a\n    tier: spot\n    gpu: A100-80GB\n    gpus_per_node: 8\n"
                "    price_per_gpu_hour: -1\n");
  auto r = RunFrugal({"queue", "simulate", "--workload", Example("week.yaml"), "--capacity",
                      (home / "cap.yaml").string()},
                     home.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("cap.yaml:8:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("price_per_gpu_hour"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
}

TEST(QueueSimulateE2e, ASeedThatIsNotAWholeNumberIsBadInputNotWrapped) {
  TempDir home;
  // CLI11 read -1 into the unsigned seed as 18446744073709551615 and ran with it.
  for (const char* seed : {"-1", "99999999999999999999"}) {
    auto r = RunFrugal({"queue", "simulate", "--workload", Example("week.yaml"), "--capacity",
                        Example("capacity.yaml"), "--seed", seed},
                       home.path());
    EXPECT_EQ(r.exit_code, 2) << seed << ": " << r.out;
    EXPECT_NE(r.err.find("--seed"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
  auto sim =
      RunFrugal({"simulate", "--trace",
                 (testing::SourceDir() / "data/spot_traces/us-west-2a_v100_1.json").string(),
                 "--compute", "1h", "--deadline", "2h", "--changeover", "1m", "--seed", "-1"},
                home.path());
  EXPECT_EQ(sim.exit_code, 2) << sim.out;
  EXPECT_NE(sim.err.find("--seed"), std::string::npos) << sim.err;
}

TEST(QueueSimulateE2e, UnknownPolicyIsBadInput) {
  TempDir home;
  auto r = RunFrugal({"queue", "simulate", "--workload", Example("week.yaml"), "--capacity",
                      Example("capacity.yaml"), "--policy", "fifo"},
                     home.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--policy"), std::string::npos) << r.err;
}

TEST(QueueSimulateE2e, APoolsTraceThatCannotBeReadIsNamedAtItsLineInTheCapacityFile) {
  TempDir home;
  for (const char* trace : {"missing.json", "/dev/zero"}) {
    WriteTestFile(home / "cap.yaml",
                  std::string("apiVersion: frugal/v1\nkind: Capacity\npools:\n"
                              "  - name: a\n    tier: spot\n    gpu: A100-80GB\n"
                              "    gpus_per_node: 8\n    nodes: 8\n    price_per_gpu_hour: 1\n"
                              "    trace: ") +
                      trace +
                      "\n  - {name: b, tier: on_demand, gpu: A100-80GB, gpus_per_node: 8, nodes: 8,"
                      " price_per_gpu_hour: 3}\n  - {name: c, tier: owned, cpu_slots: 16}\n");
    auto r = RunFrugal({"queue", "simulate", "--workload", Example("week.yaml"), "--capacity",
                        (home / "cap.yaml").string()},
                       home.path());
    EXPECT_EQ(r.exit_code, 2) << trace;
    EXPECT_NE(r.err.find("cap.yaml:10:12: field 'trace': "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(trace), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace frugal
