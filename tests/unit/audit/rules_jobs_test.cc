// Planted waste for the rules that read the job: tensor cores left unused, data far from its
// compute, preprocessing recomputed by a family of runs. Each planted case must be found with
// its saving to the cent, and nothing else.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <sstream>

#include "audit_fixture.h"
#include "frugal/audit/audit_output.h"

namespace frugal::audit {
namespace {

using fixture::AuditTest;
using fixture::CountByRule;
using fixture::ExpectCents;
using fixture::Find;
using fixture::TestOffer;
using ledger::Timestamp;
using std::chrono::hours;

constexpr const char* kTransfer =
    "cloud,inter_region_usd_per_gb,internet_usd_per_gb,object_storage_usd_per_gb_month\n"
    "testcloud,0.02,0.09,0.023\n";

/// A job spec whose only interesting part is its data section.
std::string Spec(const std::string& data) {
  return "apiVersion: frugal/v1\nmodel: {params: 1b}\nwork: {tokens: 1b}\ndata:\n" + data;
}

class AuditJobRulesTest : public AuditTest {
 protected:
  void SetUp() override {
    AuditTest::SetUp();
    auto t = catalog::TransferPrices::Parse(kTransfer, "transfer.csv");
    ASSERT_TRUE(t) << t.error().message;
    transfer_ = std::move(*t);
    options_.transfer = &transfer_;
  }

  catalog::TransferPrices transfer_;
};

TEST_F(AuditJobRulesTest, FindsEachPlantedJobWasteWithItsSavingAndNothingElse) {
  const auto a100 = TestOffer("big-a100", "A100-80GB", 4.0);
  const auto t4 = TestOffer("tiny-t4", "T4", 0.5);
  const auto done = ledger::EndReason::kFinished;
  // Tensor cores unused: 10 h at $4, SMs 80% busy, tensor pipes 0.2%; a bf16 control run.
  const Timestamp day5 = options_.since + hours(24 * 5);
  const auto fp32 = AddRun("fp32", day5, {{a100, 10, done}});
  AddCounterSamples(fp32, day5, 10, 80, 0.2);
  const auto bf16 = AddRun("bf16", day5, {{a100, 10, done}});
  AddCounterSamples(bf16, day5, 10, 80, 45);
  // Data far from compute: ten 1-hour runs in r1 reading 2000 GB stored in r2; controls: data
  // in the compute's region, and a 5 GB dataset (under data_far_min_gb).
  std::vector<ledger::RunId> far;
  for (int i = 0; i < 10; ++i) {
    const Timestamp t = options_.since + hours(24 * (10 + i));
    far.push_back(AddRun(fmt::format("far{}", i), t, {{t4, 1, done}}, true,
                         Spec("  region: r2\n  size_gb: 2000\n")));
  }
  AddRun("near", options_.since + hours(24 * 30), {{t4, 1, done}}, true,
         Spec("  region: r1\n  size_gb: 2000\n"));
  AddRun("small", options_.since + hours(24 * 31), {{t4, 1, done}}, true,
         Spec("  region: r2\n  size_gb: 5\n"));
  // Read once from r3: a copy kept there would cost more than the egress. A note, no finding.
  AddRun("once", options_.since + hours(24 * 32), {{t4, 1, done}}, true,
         Spec("  region: r3\n  size_gb: 2000\n"));
  // Preprocessing: four runs share cache key tok-v1 (90 min each time at $4/h) and keep no
  // cache; controls: a family that keeps its cache, a family of one.
  std::vector<ledger::RunId> family;
  for (int i = 0; i < 4; ++i) {
    const Timestamp t = options_.since + hours(24 * (40 + i));
    family.push_back(AddRun(fmt::format("prep{}", i), t, {{a100, 2, done}}, true,
                            Spec("  preprocessing: {cache_key: tok-v1, duration: 90m}\n")));
  }
  for (int i = 0; i < 3; ++i) {
    AddRun(fmt::format("cached{}", i), options_.since + hours(24 * (50 + i)), {{a100, 2, done}},
           true, Spec("  preprocessing: {cache_key: tok-v2, duration: 90m, cache: s3://b/p}\n"));
  }
  AddRun("solo", options_.since + hours(24 * 55), {{a100, 2, done}}, true,
         Spec("  preprocessing: {cache_key: tok-v3, duration: 90m}\n"));

  auto result = Audit();
  ASSERT_TRUE(result) << result.error().message;
  SCOPED_TRACE(report_);
  EXPECT_EQ(CountByRule(*result),
            (std::map<std::string, int>{{std::string(kTensorCoresUnused), 1},
                                        {std::string(kDataFarFromCompute), 1},
                                        {std::string(kPreprocessingRecomputed), 1}}));
  // $40 × 80% SM-active × 50% matrix math × (1 − 19.5 / 312 TFLOPS) = $15 in 90 days.
  const Finding* tensor = Find(*result, kTensorCoresUnused);
  ExpectCents(tensor, 15.0 * 30 / 90);
  EXPECT_EQ(tensor->runs, std::vector<ledger::RunId>{fp32});
  // 20,000 GB × $0.02 = $400, − one copy $40 − 2000 GB × $0.023 × 3 months = $138: $222.
  const Finding* data = Find(*result, kDataFarFromCompute);
  ExpectCents(data, 222.0 * 30 / 90);
  EXPECT_EQ(data->runs, far);
  EXPECT_EQ(data->subject, "data in testcloud r2, compute in testcloud r1");
  // Three runs after the first × 1.5 h × $4 = $18.
  const Finding* prep = Find(*result, kPreprocessingRecomputed);
  ExpectCents(prep, 18.0 * 30 / 90);
  EXPECT_EQ(prep->runs, family);
  EXPECT_NE(prep->action.find("tok-v1"), std::string::npos);
  bool once_noted = false;
  for (const std::string& n : result->notes)
    once_noted |= n.find("data in testcloud r3") != std::string::npos;
  EXPECT_TRUE(once_noted);
}

TEST_F(AuditJobRulesTest, UnderUseIsJudgedOnSmActiveWhereKnownAndSharesAreOverridable) {
  const auto a100 = TestOffer("big-a100", "A100-80GB", 4.0);
  const Timestamp t = options_.since + hours(24 * 5);
  // GPU utilization says 90% busy; the SMs were active 25% of the time, tensor pipes idle.
  const auto run = AddRun("sparse", t, {{a100, 10, ledger::EndReason::kFinished}});
  AddCounterSamples(run, t, 10, 25, 0);
  options_.thresholds.tensor_min_sm_active_pct = 20;
  options_.thresholds.tensor_matmul_share_pct = 100;
  auto result = Audit();
  ASSERT_TRUE(result) << result.error().message;
  SCOPED_TRACE(report_);
  EXPECT_EQ(CountByRule(*result),
            (std::map<std::string, int>{{std::string(kUnderutilized), 1},
                                        {std::string(kTensorCoresUnused), 1}}));
  const Finding* under = Find(*result, kUnderutilized);
  ASSERT_NE(under, nullptr);
  EXPECT_NE(under->evidence.find("mean SM-active 25%"), std::string::npos) << under->evidence;
  EXPECT_DOUBLE_EQ(under->facts["mean_sm_active_pct"].get<double>(), 25);
  // $40 × 25% × 100% × (1 − 19.5 / 312) = $9.375 in 90 days.
  ExpectCents(Find(*result, kTensorCoresUnused), 9.375 * 30 / 90);
}

TEST_F(AuditJobRulesTest, SaysWhatIsMissingInsteadOfASaving) {
  const auto a100 = TestOffer("big-a100", "A100-80GB", 4.0);
  const auto done = ledger::EndReason::kFinished;
  const Timestamp t = options_.since + hours(24 * 5);
  // Data in another cloud with no transfer prices; data with no size; a family whose specs
  // do not say how long preprocessing takes; a GPU with no tensor-core figures.
  AddRun("far-cloud", t, {{a100, 1, done}}, true,
         Spec("  cloud: lambda\n  region: us-south-1\n  size_gb: 500\n"));
  AddRun("no-size", t, {{a100, 1, done}}, true, Spec("  region: r9\n"));
  AddRun("p1", t, {{a100, 1, done}}, true, Spec("  preprocessing: {cache_key: k}\n"));
  AddRun("p2", t + hours(2), {{a100, 1, done}}, true, Spec("  preprocessing: {cache_key: k}\n"));
  // (L40 served here until data/gpus.csv gained its datasheet figures; M4000 still has none.)
  auto odd = TestOffer("odd", "M4000", 2.0);
  const auto m4000 = AddRun("m4000", t, {{odd, 2, done}});
  AddCounterSamples(m4000, t, 2, 90, 0);
  // A spec that does not parse is a note, not an error.
  AddRun("broken", t, {{a100, 1, done}}, true, "data: [unclosed\n");

  auto result = Audit();
  ASSERT_TRUE(result) << result.error().message;
  SCOPED_TRACE(report_);
  int far = 0;
  for (const Finding& f : result->findings) {
    EXPECT_FALSE(f.saving_per_month) << f.rule << " " << f.subject;
    if (f.rule == kDataFarFromCompute) {
      ++far;
      const bool named = f.saving_basis.find("data.size_gb") != std::string::npos ||
                         f.saving_basis.find("transfer prices for lambda") != std::string::npos;
      EXPECT_TRUE(named) << f.saving_basis;
    }
  }
  EXPECT_EQ(far, 2);
  ASSERT_NE(Find(*result, kPreprocessingRecomputed), nullptr);
  EXPECT_NE(
      Find(*result, kPreprocessingRecomputed)->saving_basis.find("data.preprocessing.duration"),
      std::string::npos);
  ASSERT_NE(Find(*result, kTensorCoresUnused), nullptr);
  EXPECT_NE(Find(*result, kTensorCoresUnused)->saving_basis.find("'M4000'"), std::string::npos);
  bool broken_note = false;
  for (const std::string& n : result->notes) broken_note |= n.find("(broken)") != std::string::npos;
  EXPECT_TRUE(broken_note);
}

}  // namespace
}  // namespace frugal::audit
