#include "frugal/spot/trace.h"

#include <gtest/gtest.h>

#include "frugal/spot/job.h"
#include "frugal/spot/trace_synthetic.h"
#include "support/test_support.h"

namespace frugal::spot {
namespace {

TEST(SpotTrace, ParsesSpotTracesJson) {
  auto trace = ParseJsonTrace(R"({"metadata": {"gap_seconds": 600}, "data": [1, 0, 8, 3]})",
                              "dir/us-west-2a_v100_8.json");
  ASSERT_TRUE(trace) << trace.error().message;
  EXPECT_EQ(trace->name, "us-west-2a_v100_8");
  EXPECT_EQ(trace->gap_seconds, 600);
  EXPECT_EQ(trace->launchable, (std::vector<int>{1, 0, 8, 3}));
  EXPECT_EQ(GangAvailability(*trace, 1), (std::vector<uint8_t>{1, 0, 1, 1}));
  EXPECT_EQ(GangAvailability(*trace, 8), (std::vector<uint8_t>{0, 0, 1, 0}));
}

TEST(SpotTrace, JsonErrorNamesLineColumnAndField) {
  auto trace =
      ParseJsonTrace("{\"metadata\": {\"gap_seconds\": 600},\n \"data\": [1, 0, -2]}", "t.json");
  ASSERT_FALSE(trace);
  EXPECT_EQ(trace.error().code, ErrorCode::kBadInput);
  EXPECT_NE(trace.error().message.find("t.json:2:"), std::string::npos) << trace.error().message;
  EXPECT_NE(trace.error().message.find("data[2]"), std::string::npos) << trace.error().message;
  auto broken = ParseJsonTrace("{\"data\": [1,\n 0,,]}", "b.json");
  ASSERT_FALSE(broken);
  EXPECT_NE(broken.error().message.find("b.json:2:"), std::string::npos) << broken.error().message;
  auto no_gap = ParseJsonTrace(R"({"metadata": {}, "data": [1]})", "g.json");
  ASSERT_FALSE(no_gap);
  EXPECT_NE(no_gap.error().message.find("metadata.gap_seconds"), std::string::npos);
}

TEST(SpotTrace, HugeOrFractionalGapSecondsIsBadInputNamingTheField) {
  for (const char* gap : {"1e7", "1e10", "1e300", "600.5", "86401"}) {
    auto trace = ParseJsonTrace(
        std::string("{\"metadata\": {\"gap_seconds\": ") + gap + "},\n \"data\": [1, 0, 1]}",
        "t.json");
    ASSERT_FALSE(trace) << gap;
    EXPECT_EQ(trace.error().code, ErrorCode::kBadInput);
    EXPECT_NE(trace.error().message.find("t.json:1:15: field 'metadata.gap_seconds'"),
              std::string::npos)
        << trace.error().message;
    EXPECT_NE(trace.error().message.find("one day"), std::string::npos) << trace.error().message;
  }
  // A day is the longest tick; ten years the longest trace.
  EXPECT_TRUE(ParseJsonTrace(R"({"metadata": {"gap_seconds": 86400}, "data": [1, 2]})", "d.json"));
  std::string long_data = "[1";
  for (int i = 0; i < 3651; ++i) long_data += ", 1";
  auto too_long = ParseJsonTrace(
      R"({"metadata": {"gap_seconds": 86400}, "data": )" + long_data + "]}", "long.json");
  ASSERT_FALSE(too_long);
  EXPECT_NE(too_long.error().message.find("at most 3650 days"), std::string::npos)
      << too_long.error().message;
  auto huge_count = ParseJsonTrace(R"({"data": [1, 9999999999]})", "c.json");
  ASSERT_FALSE(huge_count);
  EXPECT_NE(huge_count.error().message.find("data[1]"), std::string::npos);
}

TEST(SpotTrace, NumberPastADoubleIsBadInputAtItsLine) {
  // Found by the fuzzer: nlohmann's out_of_range escaped as an internal error.
  auto trace =
      ParseJsonTrace("{\"metadata\": {\"gap_seconds\": 600},\n \"data\": [1, 1e411]}", "t.json");
  ASSERT_FALSE(trace);
  EXPECT_EQ(trace.error().code, ErrorCode::kBadInput);
  EXPECT_EQ(trace.error().message, "t.json:2:14: not valid JSON: number 1e411 is out of range");
}

TEST(SpotTrace, UnavailableConventionIsReadInvertedAndAmbiguousFilesAreRefused) {
  // SkyNomad's convention: 1 = unavailable; its files carry more metadata.
  const std::string flags =
      R"({"metadata": {"gap_seconds": 600, "start_time": "2025-05-01T00:00:00"},
 "data": [0, 1, 1, 0], "prices": [2.1, 2.2, 2.3, 2.1]})";
  auto ambiguous = ParseJsonTrace(flags, "h100.json");
  ASSERT_FALSE(ambiguous);
  EXPECT_EQ(ambiguous.error().code, ErrorCode::kBadInput);
  EXPECT_NE(ambiguous.error().message.find("h100.json:1:1: field 'data': cannot tell"),
            std::string::npos)
      << ambiguous.error().message;
  EXPECT_NE(ambiguous.error().message.find("--trace-format"), std::string::npos);
  auto unavailable = ParseJsonTrace(flags, "h100.json", TraceFormat::kUnavailable);
  ASSERT_TRUE(unavailable) << unavailable.error().message;
  EXPECT_EQ(unavailable->launchable, (std::vector<int>{1, 0, 0, 1}));
  auto as_counts = ParseJsonTrace(flags, "h100.json", TraceFormat::kLaunchable);
  ASSERT_TRUE(as_counts);
  EXPECT_EQ(as_counts->launchable, (std::vector<int>{0, 1, 1, 0}));
  // A flag is 0 or 1.
  auto two = ParseJsonTrace(R"({"data": [0, 2]})", "f.json", TraceFormat::kUnavailable);
  ASSERT_FALSE(two);
  EXPECT_NE(two.error().message.find("data[1]"), std::string::npos) << two.error().message;
  // The spot-traces layout, and counts above 1, are told without a flag.
  EXPECT_TRUE(ParseJsonTrace(R"({"metadata": {"gap_seconds": 600}, "data": [0, 1]})", "a.json"));
  EXPECT_TRUE(
      ParseJsonTrace(R"({"metadata": {"gap_seconds": 600, "x": 1}, "data": [0, 8]})", "b.json"));
  EXPECT_EQ(*ParseTraceFormat("skynomad"), TraceFormat::kUnavailable);
  EXPECT_EQ(*ParseTraceFormat("spot-traces"), TraceFormat::kLaunchable);
  EXPECT_FALSE(ParseTraceFormat("inverted"));
}

TEST(SpotTrace, ParsesCsvWithTimestampsAndPrices) {
  auto trace = ParseCsvTrace(
      "timestamp,available,spot_price,on_demand_price\n"
      "2022-10-26T00:00:00Z,1,0.9,3.06\n2022-10-26T00:05:00Z,0,1.1,3.06\n",
      "p.csv", 600);
  ASSERT_TRUE(trace) << trace.error().message;
  EXPECT_EQ(trace->gap_seconds, 300);
  EXPECT_EQ(trace->launchable, (std::vector<int>{1, 0}));
  EXPECT_DOUBLE_EQ(trace->spot_price[1], 1.1);
  EXPECT_DOUBLE_EQ(trace->on_demand_price[0], 3.06);
}

TEST(SpotTrace, ParsesCsvWithTicks) {
  auto trace = ParseCsvTrace("tick,available\n0,1\n1,1\n2,0\n", "t.csv", 180);
  ASSERT_TRUE(trace) << trace.error().message;
  EXPECT_EQ(trace->gap_seconds, 180);
  EXPECT_EQ(trace->ticks(), 3);
  EXPECT_FALSE(trace->HasPrices());
}

TEST(SpotTrace, CsvErrorsNameFileLineAndField) {
  auto bad_count = ParseCsvTrace("tick,available\n0,1\n1,yes\n", "a.csv", 600);
  ASSERT_FALSE(bad_count);
  EXPECT_NE(bad_count.error().message.find("a.csv:3:"), std::string::npos)
      << bad_count.error().message;
  EXPECT_NE(bad_count.error().message.find("'available'"), std::string::npos);
  auto gap = ParseCsvTrace("tick,available\n0,1\n2,1\n", "g.csv", 600);
  ASSERT_FALSE(gap);
  EXPECT_NE(gap.error().message.find("g.csv:3:"), std::string::npos);
  auto price = ParseCsvTrace("tick,available,spot_price,on_demand_price\n0,1,0,3\n", "p.csv", 600);
  ASSERT_FALSE(price);
  EXPECT_NE(price.error().message.find("'spot_price'"), std::string::npos);
  auto header = ParseCsvTrace("when,available\n0,1\n", "h.csv", 600);
  ASSERT_FALSE(header);
  EXPECT_NE(header.error().message.find("h.csv:1"), std::string::npos);
}

TEST(SpotTrace, LoadsTheSharedTraces) {
  auto dir = frugal::testing::SharedDataDir() / "spot_traces" / "aws-10-26-2022";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << "shared traces absent";
  auto trace = LoadTrace(dir / "us-west-2a_v100_1.json");
  ASSERT_TRUE(trace) << trace.error().message;
  EXPECT_EQ(trace->ticks(), 3895);
  const double share = AvailableShare(GangAvailability(*trace, 1), 0, trace->ticks());
  EXPECT_GT(share, 0.05);
  EXPECT_LT(share, 0.95);
}

TEST(SpotTrace, SyntheticTracesAreSeededAndMatchTheirMeans) {
  for (LifetimeShape shape :
       {LifetimeShape::kPoisson, LifetimeShape::kBathtub, LifetimeShape::kLogNormal}) {
    SyntheticSpec spec;
    spec.shape = shape;
    spec.mean_up_hours = 3;
    spec.mean_down_hours = 1;
    spec.days = 400;
    spec.seed = 7;
    Trace a = MakeSyntheticTrace(spec);
    Trace b = MakeSyntheticTrace(spec);
    EXPECT_EQ(a.launchable, b.launchable);
    const auto available = GangAvailability(a, 1);
    EXPECT_NEAR(AvailableShare(available, 0, a.ticks()), 0.75, 0.05);
    const double mean_up_hours = MeanLifetimeSteps(available, 0, a.ticks(), 0) / 6.0;
    EXPECT_NEAR(mean_up_hours, 3.0, 0.45);
    spec.seed = 8;
    EXPECT_NE(MakeSyntheticTrace(spec).launchable, a.launchable);
  }
}

TEST(SpotTrace, ParsesSyntheticSpecs) {
  auto spec = ParseSyntheticSpec("bathtub:4h:30m:10", 3);
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->shape, LifetimeShape::kBathtub);
  EXPECT_DOUBLE_EQ(spec->mean_up_hours, 4);
  EXPECT_DOUBLE_EQ(spec->mean_down_hours, 0.5);
  EXPECT_DOUBLE_EQ(spec->days, 10);
  auto heavy = ParseSyntheticSpec("lognormal:6h:1h", 3);
  ASSERT_TRUE(heavy) << heavy.error().message;
  EXPECT_EQ(heavy->shape, LifetimeShape::kLogNormal);
  EXPECT_EQ(MakeSyntheticTrace(*heavy).name, "lognormal-3");
  EXPECT_FALSE(ParseSyntheticSpec("poisson:4h", 1));
  EXPECT_FALSE(ParseSyntheticSpec("poisson:x:1h", 1));
}

TEST(SpotJob, ChoosesAStepThatFitsChangeovers) {
  JobSpec job;
  job.changeover = std::chrono::minutes(6);
  EXPECT_EQ(ChooseStepSeconds(600, job), 120);
  job.changeover = std::chrono::minutes(12);
  EXPECT_EQ(ChooseStepSeconds(600, job), 120);
  job.changeover = std::chrono::seconds(7);
  EXPECT_EQ(ChooseStepSeconds(600, job), 60);
  job.compute = std::chrono::hours(2);
  job.deadline = std::chrono::hours(3);
  auto steps = ToSteps(job, 60, 10);
  ASSERT_TRUE(steps);
  EXPECT_EQ(steps->compute, 120);
  EXPECT_EQ(steps->deadline, 180);
  EXPECT_EQ(steps->changeover, 1);  // rounded up
}

}  // namespace
}  // namespace frugal::spot

namespace frugal::spot {
namespace {

TEST(SpotTrace, AttachesAPriceSeriesAndNamesBadFields) {
  frugal::testing::TempDir dir;
  Trace trace;
  trace.name = "t";
  trace.launchable = {1, 0};
  frugal::testing::WriteTestFile(dir / "p.csv",
                                 "tick,spot_price,on_demand_price\n0,1,3\n1,1.5,3\n2,9,9\n");
  ASSERT_TRUE(AttachPriceSeries(dir / "p.csv", trace));
  EXPECT_EQ(trace.spot_price, (std::vector<double>{1, 1.5}));
  EXPECT_EQ(trace.on_demand_price, (std::vector<double>{3, 3}));
  frugal::testing::WriteTestFile(dir / "bad.csv", "spot_price,on_demand_price\n1,3\n1,-3\n");
  auto bad = AttachPriceSeries(dir / "bad.csv", trace);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("bad.csv:3:"), std::string::npos) << bad.error().message;
  EXPECT_NE(bad.error().message.find("'on_demand_price'"), std::string::npos);
  frugal::testing::WriteTestFile(dir / "short.csv", "spot_price,on_demand_price\n1,3\n");
  EXPECT_FALSE(AttachPriceSeries(dir / "short.csv", trace));
}

}  // namespace
}  // namespace frugal::spot
