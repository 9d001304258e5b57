#include "frugal/run/report_channel.h"

#include <gtest/gtest.h>

#include <fstream>

#include "support/test_support.h"

namespace frugal::run {
namespace {

void Append(const std::filesystem::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::app);
  out << text;
}

TEST(ReportChannel, ParsesProgressCheckpointAndResult) {
  auto p = ParseReportLine(R"({"type":"progress","step":12,"metrics":{"loss":0.5,"name":"x"}})");
  ASSERT_TRUE(p.has_value() && p->has_value());
  const auto& progress = std::get<ProgressReport>(**p);
  EXPECT_EQ(progress.step, 12);
  EXPECT_EQ(progress.metrics.size(), 1u);
  EXPECT_DOUBLE_EQ(progress.metrics.at("loss"), 0.5);

  auto c =
      ParseReportLine(R"({"v":1,"type":"checkpoint","path":"s12","step":12,"files":{"a.pt":10}})");
  ASSERT_TRUE(c.has_value() && c->has_value());
  const auto& ckpt = std::get<CheckpointReport>(**c);
  EXPECT_EQ(ckpt.path, "s12");
  EXPECT_EQ(ckpt.files->at("a.pt"), 10u);

  auto r = ParseReportLine(R"({"type":"result","metrics":{"acc":0.9}})");
  ASSERT_TRUE(r.has_value() && r->has_value());
  EXPECT_DOUBLE_EQ(std::get<ResultReport>(**r).metrics.at("acc"), 0.9);
}

TEST(ReportChannel, RejectsGarbageWithAReason) {
  for (const char* line : {"hello", "[1,2]", R"({"step":1})", R"({"type":"progress"})",
                           R"({"type":"progress","step":-1})", R"({"type":"checkpoint"})",
                           R"({"v":2,"type":"progress","step":1})"}) {
    auto r = ParseReportLine(line);
    EXPECT_FALSE(r.has_value()) << line;
  }
  auto unknown = ParseReportLine(R"({"type":"telemetry","x":1})");
  ASSERT_TRUE(unknown.has_value());
  EXPECT_FALSE(unknown->has_value());
}

TEST(ReportChannel, TailsTheFileCountsGarbageAndWaitsForWholeLines) {
  frugal::testing::TempDir dir;
  ReportReader reader(dir / "report.jsonl");
  EXPECT_TRUE(reader.Poll().empty());  // not created yet: fine
  Append(dir / "report.jsonl", "{\"type\":\"progress\",\"step\":1}\nnot json\n\n{\"type\":\"progr");
  auto first = reader.Poll();
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(reader.garbage_lines(), 1);
  Append(dir / "report.jsonl", "ess\",\"step\":2}\n" +
                                   std::string(ReportReader::kMaxLineBytes + 10, 'x') +
                                   "\n{\"type\":\"progress\",\"step\":3}\n");
  auto second = reader.Poll();
  ASSERT_EQ(second.size(), 2u);
  EXPECT_EQ(std::get<ProgressReport>(second[0]).step, 2);
  EXPECT_EQ(std::get<ProgressReport>(second[1]).step, 3);
  EXPECT_EQ(reader.garbage_lines(), 2);
  EXPECT_EQ(reader.messages(), 3);
}

}  // namespace
}  // namespace frugal::run
