// End-to-end: `frugal profile` runs a real protocol-speaking child, stops it after N steps or a
// duration (checkpoint, then stop), measures it, stores the profile and lists it.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <thread>

#include "run_e2e_support.h"
#include "support/test_support.h"

namespace frugal::run {
namespace {

namespace fs = std::filesystem;
using e2e::PythonPath;
using frugal::testing::RunFrugal;
using frugal::testing::TempDir;

/// The child: `steps` steps of `step_seconds`, 512 tokens and 4 samples a step, 64 MiB held.
/// The child's mode: a protocol-following one, one that never reports, or one that trains on
/// for 30 steps after it is asked to stop.
enum class ChildMode { kFollows, kSilent, kSlowStopper };

std::vector<std::string> Child(int steps, double step_seconds,
                               ChildMode mode = ChildMode::kFollows) {
  std::vector<std::string> c = {FRUGAL_PYTHON,
                                std::string(FRUGAL_TEST_DIR) + "/profile_child.py",
                                std::to_string(steps),
                                std::to_string(step_seconds),
                                "512",
                                "4",
                                "64"};
  if (mode == ChildMode::kSilent) c.push_back("1");
  if (mode == ChildMode::kSlowStopper) c.push_back("2");
  return c;
}

std::vector<std::string> Args(std::vector<std::string> flags,
                              const std::vector<std::string>& child) {
  flags.push_back("--");
  flags.insert(flags.end(), child.begin(), child.end());
  return flags;
}

/// Every line of every profile journal under the home's data directory.
std::string Journals(const TempDir& home) {
  std::string all;
  const fs::path root = home.path() / "data" / "profiles";
  if (!fs::exists(root)) return all;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.path().filename() != "journal.jsonl") continue;
    std::ifstream in(entry.path());
    all.append(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  return all;
}

TEST(ProfileCli, TheWindowEndsAtTheStepsAskedForNotWhereTheCommandStops) {
  // `profile --steps 15` of a command that trains 30 steps more before it honours the stop:
  // what it trains on its way out is not measured (it stored 45 steps before).
  TempDir home;
  auto r = RunFrugal(Args({"--json", "profile", "--steps", "15", "--name", "slow-stop"},
                          Child(100000, 0.03, ChildMode::kSlowStopper)),
                     home.path(), {PythonPath()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["ended"], "steps");
  // From the first report to the one that reached 15, plus what one read of the reports
  // brings beside it on a loaded machine.
  EXPECT_GE(doc["steps"].get<int64_t>(), 14) << r.out;
  EXPECT_LE(doc["steps"].get<int64_t>(), 24) << r.out;
}

TEST(ProfileCli, StopsAfterTheStepsAndStoresWhatItMeasured) {
  TempDir home;
  auto r = RunFrugal(
      Args({"--json", "profile", "--steps", "15", "--name", "counter"}, Child(100000, 0.05)),
      home.path(), {PythonPath()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);  // the child's stdout went to stderr
  EXPECT_EQ(doc["name"], "counter");
  EXPECT_EQ(doc["ended"], "steps");
  // The CPU's model without NVML; with a GPU, its model and the memory NVML saw in use.
  EXPECT_FALSE(doc["device"].get<std::string>().empty());
  if (doc["device_kind"] == "gpu") {
    EXPECT_FALSE(doc["peak_gpu_memory_bytes"].is_null());
  } else {
    EXPECT_EQ(doc["device_kind"], "cpu");
    // For a CPU: the vCPUs the command could use (what the CPU offers are scaled from).
    EXPECT_GE(doc["device_count"].get<int>(), 1);
    EXPECT_LE(doc["device_count"].get<int>(),
              static_cast<int>(std::thread::hardware_concurrency()));
    EXPECT_TRUE(doc["peak_gpu_memory_bytes"].is_null());
  }
  // A step sleeps 50 ms: at most 20 steps/s, and well above a crawl even on a loaded machine.
  const double steps_per_second = doc["steps_per_second"].get<double>();
  EXPECT_LE(steps_per_second, 21.0);
  EXPECT_GE(steps_per_second, 4.0);
  // Tokens and samples come from the same two reports: exactly 512 and 4 per step.
  EXPECT_NEAR(doc["tokens_per_second"].get<double>() / steps_per_second, 512.0, 1e-6);
  EXPECT_NEAR(doc["samples_per_second"].get<double>() / steps_per_second, 4.0, 1e-9);
  EXPECT_GE(doc["steps"].get<int64_t>(), 14);
  EXPECT_GE(doc["peak_rss_bytes"].get<uint64_t>(), 64u << 20);  // the 64 MiB the child holds
  EXPECT_GT(doc["cpu_cores"].get<double>(), 0.0);
  EXPECT_LT(doc["wall_seconds"].get<double>(), 60.0);  // stopped long before 100000 steps
  // It was stopped the protocol's way: a checkpoint first, then the stop.
  const std::string journal = Journals(home);
  EXPECT_NE(journal.find("checkpoint_committed"), std::string::npos) << journal;

  auto list = RunFrugal({"--json", "profile", "list"}, home.path());
  ASSERT_EQ(list.exit_code, 0) << list.err;
  const auto listed = nlohmann::json::parse(list.out)["profiles"];
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0]["id"], doc["id"]);
  EXPECT_EQ(listed[0]["steps_per_second"], doc["steps_per_second"]);
  auto text = RunFrugal({"profile", "list"}, home.path());
  EXPECT_NE(text.out.find("counter"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("steps/s"), std::string::npos) << text.out;
  auto show = RunFrugal({"--json", "profile", "show", "counter"}, home.path());
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_EQ(nlohmann::json::parse(show.out)["id"], doc["id"]);
}

TEST(ProfileCli, StopsAfterTheDurationAndNamesItFromTheScript) {
  TempDir home;
  auto r = RunFrugal(Args({"--json", "profile", "--for", "2s"}, Child(100000, 0.02)), home.path(),
                     {PythonPath()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["name"], "profile_child");
  EXPECT_EQ(doc["ended"], "time");
  EXPECT_GE(doc["wall_seconds"].get<double>(), 2.0);
  EXPECT_LT(doc["wall_seconds"].get<double>(), 45.0);

  // A second profile of the same name is the newest: show returns it.
  auto again = RunFrugal(
      Args({"--json", "profile", "--steps", "5", "--name", "profile_child"}, Child(100000, 0.02)),
      home.path(), {PythonPath()});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  auto show = RunFrugal({"--json", "profile", "show", "profile_child"}, home.path());
  EXPECT_EQ(nlohmann::json::parse(show.out)["id"], nlohmann::json::parse(again.out)["id"]);
  auto all = RunFrugal({"--json", "profile", "list", "profile_child"}, home.path());
  EXPECT_EQ(nlohmann::json::parse(all.out)["profiles"].size(), 2u);
}

TEST(ProfileCli, ACommandThatNeverReportsIsAFailureAndStoresNothing) {
  TempDir home;
  auto r = RunFrugal(
      Args({"profile", "--for", "1s", "--name", "silent"}, Child(100000, 0.02, ChildMode::kSilent)),
      home.path(), {PythonPath()});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("progress"), std::string::npos) << r.err;
  auto list = RunFrugal({"--json", "profile", "list"}, home.path());
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_TRUE(nlohmann::json::parse(list.out)["profiles"].empty());
}

TEST(ProfileCli, BadInputExitsTwoNamingTheFlag) {
  TempDir home;
  struct Case {
    std::vector<std::string> args;
    std::string named;
  };
  for (const Case& c : std::vector<Case>{
           {{"profile", "--steps", "5"}, "command"},
           {{"profile", "--for", "2x", "--", "true"}, "--for"},
           {{"profile", "--for", "0s", "--", "true"}, "--for"},
           {{"profile", "--for", "-1m", "--", "true"}, "--for"},
           {{"profile", "--steps", "0", "--", "true"}, "--steps"},
           {{"profile", "--steps", "many", "--", "true"}, "--steps"},
           {{"profile", "--", "/no/such/program"}, "/no/such/program"},
       }) {
    auto r = RunFrugal(c.args, home.path());
    EXPECT_EQ(r.exit_code, 2) << c.named << ": " << r.err;
    EXPECT_NE(r.err.find(c.named), std::string::npos) << r.err;
  }
  auto missing = RunFrugal({"profile", "show", "nothing"}, home.path());
  EXPECT_NE(missing.exit_code, 0);
}

}  // namespace
}  // namespace frugal::run
