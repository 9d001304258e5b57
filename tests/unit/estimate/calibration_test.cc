#include "frugal/estimate/calibration.h"

#include <gtest/gtest.h>

#include "frugal/catalog/offer_table.h"
#include "support/test_support.h"

namespace frugal::estimate {
namespace {

std::vector<catalog::GpuSpec> Gpus() {
  auto gpus = catalog::ReadGpuTable(testing::SourceDir() / "data" / "gpus.csv");
  EXPECT_TRUE(gpus) << gpus.error().message;
  return gpus ? *gpus : std::vector<catalog::GpuSpec>{};
}

TEST(Calibration, ShippedTableMeetsTheErrorTargets) {
  const auto gpus = Gpus();
  auto rows =
      ReadCalibration(testing::SourceDir() / "bench" / "estimate" / "calibration.csv", gpus);
  ASSERT_TRUE(rows) << rows.error().message;
  ASSERT_GE(rows->size(), 20u);
  auto results = EvaluateCalibration(*rows);
  ASSERT_TRUE(results) << results.error().message;
  EXPECT_LE(MedianAbsError(*results, false), 0.25);
  EXPECT_LE(MedianAbsError(*results, true), 0.15);
  // The shipped family bases are the fitted ones (within 5%).
  for (const FamilyFit& f : FitFamilyBases(*results)) {
    EXPECT_NEAR(f.fitted_base / f.shipped_base, 1.0, 0.05) << f.family;
  }
}

TEST(Calibration, BadRowNamesFileLineAndColumn) {
  testing::TempDir dir;
  const std::string header =
      "id,kind,layers,hidden,heads,kv_heads,ffn,vocab,seq,mlp,tied,method,lora_rank,lora_targets,"
      "dtype,"
      "master_weights,optimizer,micro_batch,recompute,zero,gpu,gpus,tokens,published,source,"
      "confidence,notes\n";
  testing::WriteTestFile(
      dir / "c.csv",
      header +
          "x,gpu_hours,2,256,2,2,512,1000,128,gelu,false,full,0,all,bf16,fp32,adamw,1,"
          "none,0,A100-80GB,1,1e9,-5,src,verified,\n");
  auto rows = ReadCalibration(dir / "c.csv", Gpus());
  ASSERT_FALSE(rows);
  EXPECT_NE(rows.error().message.find("c.csv:2:"), std::string::npos) << rows.error().message;
  EXPECT_NE(rows.error().message.find("'published'"), std::string::npos) << rows.error().message;
}

TEST(Calibration, LeaveOneOutComparesWithTheRestOfTheFamily) {
  CalibrationRow row;
  std::vector<CalibrationResult> results(3);
  for (auto& r : results) {
    r.row = &row;
    r.family = "Ampere";
    r.published = 100;
  }
  results[0].predicted = 110;
  results[1].predicted = 90;
  results[2].predicted = 130;
  // Others of row 2: ratios 1.1 and 0.9, median 1.0.
  EXPECT_NEAR(*LeaveOneOutError(results, 2), 0.3, 1e-12);
  results[1].family = "Hopper";
  EXPECT_FALSE(LeaveOneOutError(results, 1));
}

}  // namespace
}  // namespace frugal::estimate
