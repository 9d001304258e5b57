#include "frugal/estimate/cpu_scaling.h"

#include <gtest/gtest.h>

#include <cmath>

namespace frugal::estimate {
namespace {

TEST(CpuScaling, EachDoublingOfUsableVcpusGivesTheStatedGain) {
  // A job that kept its 4 vCPUs busy: 16 vCPUs are two doublings, 1.8 x 1.8.
  const CpuScaling up = ScaleCpuThroughput(4, 3.9, 16);
  EXPECT_NEAR(up.speedup, 1.8 * 1.8, 1e-12);
  EXPECT_DOUBLE_EQ(up.usable_target, 16);
  // Down is the same law the other way; unknown busy cores count as all of them.
  EXPECT_NEAR(ScaleCpuThroughput(16, 0, 8).speedup, 1 / 1.8, 1e-12);
  EXPECT_DOUBLE_EQ(ScaleCpuThroughput(8, 8, 8).speedup, 1.0);
}

TEST(CpuScaling, AJobThatLeftCoresIdleGainsNothingFromMore) {
  // One core busy of 8: single-threaded. 64 vCPUs do not help; 1 vCPU costs nothing either.
  const CpuScaling wide = ScaleCpuThroughput(8, 1.0, 64);
  EXPECT_DOUBLE_EQ(wide.speedup, 1.0);
  EXPECT_DOUBLE_EQ(wide.usable_target, 1.0);
  EXPECT_NE(wide.basis.find("the job uses about that many"), std::string::npos);
  EXPECT_DOUBLE_EQ(ScaleCpuThroughput(8, 1.0, 1).speedup, 1.0);
  // Three of 8 busy: limited to 3, so 2 vCPUs lose a little and 32 gain nothing past 3.
  EXPECT_NEAR(ScaleCpuThroughput(8, 3, 2).speedup, std::pow(2.0 / 3, std::log2(1.8)), 1e-12);
  EXPECT_DOUBLE_EQ(ScaleCpuThroughput(8, 3, 32).speedup, 1.0);
}

TEST(CpuScaling, NonsenseCountsAreTakenAsOne) {
  EXPECT_DOUBLE_EQ(ScaleCpuThroughput(0, 0, 0).speedup, 1.0);
  EXPECT_DOUBLE_EQ(ScaleCpuThroughput(-3, NAN, 1).speedup, 1.0);
  EXPECT_TRUE(std::isfinite(ScaleCpuThroughput(1, 1, INFINITY).speedup));
}

}  // namespace
}  // namespace frugal::estimate
