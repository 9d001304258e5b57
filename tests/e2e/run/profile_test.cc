// frugal profile runs the real command under the protocol and records what it measured.

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "support/test_support.h"

namespace frugal {
namespace {

using testing::RunFrugal;
using testing::TempDir;

// A job reporting 32 samples per step every 50 ms: about 640 samples per second.
const char* kJob =
    "i=0; while true; do i=$((i+1)); "
    "printf '{\"type\":\"progress\",\"step\":%d,\"metrics\":{\"samples\":%d}}\\n' $i $((i*32)) "
    ">> \"$FRUGAL_REPORT\"; sleep 0.05; done";

TEST(Profile, RecordsThroughputInTheJobsUnitsAndHostMemory) {
  TempDir home;
  auto r = RunFrugal(
      {"--json", "profile", "--name", "demo", "--steps", "20", "--", "/bin/sh", "-c", kJob},
      home.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["units"], "samples");
  const double rate = doc["units_per_second"].get<double>();
  EXPECT_GT(rate, 150);  // sleep 0.05 plus the shell's own time per step
  EXPECT_LT(rate, 700);
  EXPECT_GE(doc["steps"].get<int>(), 20);
  EXPECT_GT(doc["peak_rss_bytes"].get<double>(), 0);
  EXPECT_NE(doc["device"].get<std::string>().find("CPU"), std::string::npos);  // no GPU here
  std::ifstream saved(doc["file"].get<std::string>());
  ASSERT_TRUE(saved.good());
  const auto file = nlohmann::json::parse(saved);
  EXPECT_EQ(file["name"], "demo");
  EXPECT_DOUBLE_EQ(file["units_per_second"].get<double>(), rate);
}

TEST(Profile, ACommandThatReportsNothingIsAnErrorNotAZero) {
  TempDir home;
  auto r = RunFrugal({"profile", "--for", "1s", "--", "/bin/sh", "-c", "sleep 5"}, home.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("at least two are needed"), std::string::npos) << r.err;
  auto missing = RunFrugal({"profile", "--for", "1s", "--", "/no/such/command"}, home.path());
  EXPECT_EQ(missing.exit_code, 2) << missing.err;
}

}  // namespace
}  // namespace frugal
