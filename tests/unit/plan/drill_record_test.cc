#include "frugal/plan/drill_record.h"

#include <gtest/gtest.h>

#include "frugal/plan/job_spec.h"
#include "frugal/plan/planner.h"
#include "support/test_support.h"

namespace frugal::plan {
namespace {

constexpr const char* kRecord = R"({"v": 1, "name": "train", "command": ["python3", "train.py"],
 "measured_at": "2026-05-20T10:04:05.123Z", "preemptions": 3,
 "checkpoint_write_seconds": {"max": 36, "mean": 30}, "checkpoint_on_notice": true,
 "restart_seconds": {"max": 120, "mean": 100}, "load_seconds": 1.2,
 "lost_work_seconds": {"max": 0.05, "mean": 0.03}, "result_matches": true,
 "spot_ready": true, "checkpoint_within_30s": false, "checkpoint_within_120s": true,
 "reasons": []})";

constexpr const char* kJob =
    "apiVersion: frugal/v1\nname: train\nmodel: {params: 500m, seq: 1024}\n"
    "work: {tokens: 200m}\n";

struct Drills {
  testing::TempDir dir;
  std::vector<std::string> gpus = {"A100-80GB", "L4"};

  Result<JobSpec> Parse(const std::string& text) const {
    return ParseJobSpec(text, "job.yaml", dir.path(), gpus, dir.path());
  }
};

TEST(DrillRecord, ItsMeasurementsReplaceTheDefaultsWithBootAddedToTheRestart) {
  Drills d;
  testing::WriteTestFile(d.dir / "train.json", kRecord);
  auto spec = d.Parse(kJob);
  ASSERT_TRUE(spec) << spec.error().message;
  const FaultTolerance& ft = spec->fault_tolerance;
  EXPECT_EQ(ft.drill, "train");
  EXPECT_EQ(ft.drill_measured_at, "2026-05-20T10:04:05.123Z");
  EXPECT_DOUBLE_EQ(ft.checkpoint_write_hours, 36.0 / 3600);
  EXPECT_DOUBLE_EQ(ft.restart_hours, 120.0 / 3600 + 3.0 / 60);  // default boot 3 min
  EXPECT_TRUE(ft.checkpoint_on_notice);
  EXPECT_FALSE(ft.not_spot_ready);
}

TEST(DrillRecord, TheSpecsOwnKeysWinAndItCanNameAnotherRecord) {
  Drills d;
  testing::WriteTestFile(d.dir / "other.json", kRecord);
  auto spec = d.Parse(std::string(kJob) +
                      "fault_tolerance: {drill: other, boot: 1m, checkpoint_on_notice: false}\n");
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->fault_tolerance.drill, "train");  // the record's own name
  EXPECT_DOUBLE_EQ(spec->fault_tolerance.restart_hours, 120.0 / 3600 + 1.0 / 60);
  EXPECT_FALSE(spec->fault_tolerance.checkpoint_on_notice);
}

// A real record outside the drills directory: a path in `drill:` (absolute, "../", a NUL
// that cut the ".json" suffix) or in the job's name reached it, and echoed it into the plan.
TEST(DrillRecord, ARecordIsNamedNeverReachedByAPath) {
  testing::TempDir root;
  testing::WriteTestFile(root / "elsewhere.json", kRecord);
  testing::WriteTestFile(root / "drills" / "keep.txt", "");
  const std::vector<std::string> gpus = {"A100-80GB", "L4"};
  const std::string job = std::string(kJob) + "fault_tolerance:\n  drill: ";
  for (const std::string& named : {std::string("../elsewhere"), (root / "elsewhere").string(),
                                   std::string("\"x\\0\""), std::string("..")}) {
    auto spec = ParseJobSpec(job + named + "\n", "job.yaml", root.path(), gpus, root / "drills");
    ASSERT_FALSE(spec) << named;
    EXPECT_NE(spec.error().message.find("give a name of"), std::string::npos)
        << spec.error().message;
  }
  std::string renamed = kJob;
  renamed.replace(renamed.find("name: train"), 11, "name: ../elsewhere");
  // A job named like a path is refused at its line (the name also becomes file names), so it
  // is never looked up as a drill record either.
  auto spec = ParseJobSpec(renamed, "job.yaml", root.path(), gpus, root / "drills");
  ASSERT_FALSE(spec);
  EXPECT_NE(spec.error().message.find("job.yaml:2:7: field 'name'"), std::string::npos)
      << spec.error().message;
}

TEST(DrillRecord, NoRecordMeansDefaultsButANamedOneMustExist) {
  Drills d;
  auto spec = d.Parse(kJob);
  ASSERT_TRUE(spec);
  EXPECT_TRUE(spec->fault_tolerance.drill.empty());
  EXPECT_DOUBLE_EQ(spec->fault_tolerance.restart_hours, 5.0 / 60);
  auto named = d.Parse(std::string(kJob) + "fault_tolerance:\n  drill: nightly\n");
  ASSERT_FALSE(named);
  EXPECT_EQ(named.error().code, ErrorCode::kBadInput);
  EXPECT_NE(named.error().message.find("job.yaml:6:"), std::string::npos) << named.error().message;
  EXPECT_NE(named.error().message.find("field 'drill'"), std::string::npos);
  EXPECT_NE(named.error().message.find("frugal drill --name nightly"), std::string::npos);
}

TEST(DrillRecord, AMalformedRecordIsBadInputNamingTheFileAndField) {
  Drills d;
  std::string bad = kRecord;
  bad.replace(bad.find("\"max\": 36"), 9, "\"max\": \"x\"");
  testing::WriteTestFile(d.dir / "train.json", bad);
  auto spec = d.Parse(kJob);
  ASSERT_FALSE(spec);
  EXPECT_EQ(spec.error().code, ErrorCode::kBadInput);
  EXPECT_NE(spec.error().message.find("train.json: field 'checkpoint_write_seconds.max'"),
            std::string::npos)
      << spec.error().message;
  testing::WriteTestFile(d.dir / "train.json", "{\"v\": 2}");
  spec = d.Parse(kJob);
  ASSERT_FALSE(spec);
  EXPECT_NE(spec.error().message.find("field 'v'"), std::string::npos);
}

TEST(DrillRecord, AJobTheDrillFoundNotSpotReadyGetsNoSpotOptions) {
  Drills d;
  std::string record = kRecord;
  record.replace(record.find("\"spot_ready\": true"), 18, "\"spot_ready\": false");
  record.replace(record.find("\"reasons\": []"), 13,
                 "\"reasons\": [\"the result differs from the uninterrupted run\"]");
  testing::WriteTestFile(d.dir / "train.json", record);
  testing::WriteTestFile(d.dir / "offers.yaml",
                         "apiVersion: frugal/v1\noffers:\n"
                         "  - {name: s, cloud: test, gpu: A100-80GB, price_per_hour: 1.00, "
                         "tier: spot, preemptions_per_hour: 0.1}\n"
                         "  - {name: s, cloud: test, gpu: A100-80GB, price_per_hour: 4.00}\n");
  auto c = catalog::Catalog::LoadFrom(testing::SourceDir() / "data", {d.dir / "offers.yaml"});
  ASSERT_TRUE(c) << c.error().message;
  d.gpus = c->gpu_names();
  auto spec = d.Parse(std::string(kJob) + "constraints: {clouds: [test]}\n" +
                      "measured:\n  - {offer: s, runtime: 10h}\n");
  ASSERT_TRUE(spec) << spec.error().message;
  ASSERT_TRUE(spec->fault_tolerance.not_spot_ready);
  auto plan = MakePlan(*spec, *c, PlanRequest{});
  ASSERT_TRUE(plan) << plan.error().message;
  ASSERT_FALSE(plan->options.empty());
  for (const Option& o : plan->options) EXPECT_EQ(o.kind, RunKind::kPlain);
  bool said_why = false;
  for (const auto& e : plan->excluded) {
    said_why |= e.reason.find("drill 'train' found the job not spot-ready (the result differs") !=
                std::string::npos;
  }
  EXPECT_TRUE(said_why);
}

}  // namespace
}  // namespace frugal::plan
