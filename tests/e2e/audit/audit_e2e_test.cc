// frugal audit end to end: a ledger written through the ledger API, the real binary reading
// it, its formats, its output file and its bad-input errors.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "../../unit/audit/audit_fixture.h"
#include "frugal/core/atomic_file.h"
#include "frugal/ledger/ledger.h"
#include "support/test_support.h"

namespace frugal::audit {
namespace {

using frugal::testing::RunFrugal;
using frugal::testing::RunProgram;
using frugal::testing::TempDir;
using frugal::testing::WriteTestFile;
using std::chrono::hours;
using std::chrono::minutes;

class AuditE2e : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteTestFile(dir_ / "offers.yaml", fixture::kTestOffers);
    auto ledger = ledger::Ledger::Open(db_.string());
    ASSERT_TRUE(ledger) << ledger.error().message;
    // An A100 run 2 days ago at 30% for 10 h peaking at 20 GiB: L4 saves $3/h.
    ledger::NewRun run;
    run.name = "under";
    run.command = "train";
    run.tags.team = "ml";
    run.start = ledger::Now() - hours(48);
    const ledger::RunId id = *(*ledger)->BeginRun(run);
    const auto seg =
        *(*ledger)->OpenSegment(id, fixture::TestOffer("big-a100", "A100-80GB", 4.0), run.start);
    std::vector<ledger::Sample> samples;
    for (auto t = run.start; t < run.start + hours(10); t += minutes(10)) {
      ledger::Sample s;
      s.time = t;
      s.gpu_util = 30;
      s.gpu_mem_bytes = 20.0 * 1024 * 1024 * 1024;
      samples.push_back(s);
    }
    ASSERT_TRUE((*ledger)->AddSamples(id, samples));
    ASSERT_TRUE((*ledger)->CloseSegment(seg, run.start + hours(10), ledger::EndReason::kFinished));
    ASSERT_TRUE((*ledger)->FinishRun(id, ledger::RunStatus::kSucceeded, run.start + hours(10)));
  }

  frugal::testing::CommandResult Audit(std::vector<std::string> args) {
    std::vector<std::string> all = {"--db", db_.string(), "--catalog",
                                    (dir_ / "offers.yaml").string(), "audit"};
    all.insert(all.end(), args.begin(), args.end());
    return RunFrugal(all, dir_.path());
  }

  TempDir dir_;
  std::filesystem::path db_ = dir_ / "ledger.sqlite";
};

TEST_F(AuditE2e, ReportsTheUnderUsedRunInEveryFormat) {
  auto table = Audit({});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("underutilized-job"), std::string::npos) << table.out;
  // $30 over a 90-day window: $10.00 a month.
  EXPECT_NE(table.out.find("$10.00/mo"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("L4"), std::string::npos);

  auto json = Audit({"--format", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto doc = nlohmann::json::parse(json.out);
  EXPECT_EQ(doc["schema_version"], 1);
  ASSERT_EQ(doc["findings"].size(), 1u);
  EXPECT_EQ(doc["findings"][0]["saving_per_month"], "10");

  auto md = Audit({"--format", "md", "-o", (dir_ / "audit.md").string()});
  ASSERT_EQ(md.exit_code, 0) << md.err;
  auto written = ReadFile(dir_ / "audit.md");
  ASSERT_TRUE(written);
  EXPECT_TRUE(written->starts_with("# GPU spend audit"));
  EXPECT_NE(written->find("| 1 | underutilized-job |"), std::string::npos) << *written;

  // A shorter window scales the same $30 to a month differently: 30 days → $30.00.
  auto month = Audit({"--since", "30d"});
  EXPECT_NE(month.out.find("$30.00/mo"), std::string::npos) << month.out;
}

TEST_F(AuditE2e, AnIdleFindingShowsTheIdlePeriodsItCharges) {
  // 30 h on a $4/h A100 from an hour boundary: busy 2 h, idle 6 h, busy 4 h, idle 8 h, busy
  // 10 h. The finding charges 14 idle hours ($56), in two periods, not the run's span.
  auto ledger = ledger::Ledger::Open(db_.string()).value();
  const int64_t hour_ms = 3'600'000;
  const ledger::Timestamp start =
      ledger::FromMillis(ledger::ToMillis(ledger::Now() - hours(96)) / hour_ms * hour_ms);
  ledger::NewRun run;
  run.name = "idle-gaps";
  run.tags.team = "ml";
  run.start = start;
  const ledger::RunId id = *ledger->BeginRun(run);
  const auto seg =
      *ledger->OpenSegment(id, fixture::TestOffer("big-a100", "A100-80GB", 4.0), start);
  std::vector<ledger::Sample> samples;
  for (auto t = start; t < start + hours(30); t += minutes(10)) {
    const auto h = std::chrono::duration_cast<hours>(t - start).count();
    ledger::Sample s;
    s.time = t;
    s.gpu_util = (h >= 2 && h < 8) || (h >= 12 && h < 20) ? 0 : 90;
    s.gpu_mem_bytes = 60.0 * 1024 * 1024 * 1024;
    samples.push_back(s);
  }
  ASSERT_TRUE(ledger->AddSamples(id, samples));
  ASSERT_TRUE(ledger->CloseSegment(seg, start + hours(30), ledger::EndReason::kFinished));
  ASSERT_TRUE(ledger->FinishRun(id, ledger::RunStatus::kSucceeded, start + hours(30)));
  ledger.reset();

  auto json = Audit({"--format", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  nlohmann::json idle;
  const nlohmann::json doc = nlohmann::json::parse(json.out);
  for (const auto& f : doc["findings"]) {
    if (f["rule"] == "idle-gpu") idle = f;
  }
  ASSERT_FALSE(idle.is_null()) << json.out;
  const auto at = [&](int h) { return ledger::FormatTimestamp(start + hours(h)); };
  EXPECT_EQ(idle["facts"]["idle_hours"], 14);
  EXPECT_EQ(idle["facts"]["idle_cost"], "56");
  EXPECT_EQ(idle["facts"]["idle_periods"],
            nlohmann::json::parse(
                fmt::format(R"([{{"start": "{}", "end": "{}"}}, {{"start": "{}", "end": "{}"}}])",
                            at(2), at(8), at(12), at(20))));
  const std::string evidence = idle["evidence"];
  EXPECT_NE(evidence.find(at(2) + " to " + at(8) + " (6h)"), std::string::npos) << evidence;
  EXPECT_NE(evidence.find(at(12) + " to " + at(20) + " (8h)"), std::string::npos) << evidence;
  EXPECT_EQ(evidence.find(at(0)), std::string::npos) << "the run's start is no idle time";
  EXPECT_EQ(evidence.find(at(30)), std::string::npos) << "nor its end";
}

TEST_F(AuditE2e, ForgottenCapacityReadsTheInstanceTypeFromAwsChargeDescriptions) {
  // Real AWS rows name the instance only in ChargeDescription ("$1.624 per On Demand Linux
  // g5.4xlarge Instance Hour"); ResourceId is an instance id and SkuId an opaque code.
  const auto sample = frugal::testing::SharedDataDir() / "focus" / "focus_1.0_sample_800rows.csv";
  if (!std::filesystem::exists(sample)) GTEST_SKIP() << "no shared FOCUS sample";
  auto r = RunFrugal({"--db", db_.string(), "audit", "--billing", sample.string(), "--since",
                      "2024-08-01", "--format", "json"},
                     dir_.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::map<std::string, std::string> forgotten;
  const nlohmann::json doc = nlohmann::json::parse(r.out);
  for (const auto& f : doc["findings"]) {
    if (f["rule"] == "forgotten-capacity") forgotten[f["subject"]] = f["facts"]["billed"];
  }
  // The bill ends 2024-10-01; of its GPU instances only the two g5.4xlarge billed after
  // 2024-09-17 are within its last 14 days (g3.4xlarge is not in the shipped catalog).
  EXPECT_EQ(forgotten,
            (std::map<std::string, std::string>{{"i-006flle71l19b488a (g5.4xlarge)", "1.624"},
                                                {"i-09ba12e1l5743720b (g5.4xlarge)", "0.480884"}}))
      << r.out;
}

TEST_F(AuditE2e, BadInputExitsTwoNamingFileLineAndField) {
  WriteTestFile(dir_ / "t.yaml", "version: 1\nunderutil_gpu_util_pct: 120\n");
  auto range = Audit({"--thresholds", (dir_ / "t.yaml").string()});
  EXPECT_EQ(range.exit_code, 2);
  EXPECT_NE(range.err.find("t.yaml:2:"), std::string::npos) << range.err;
  EXPECT_NE(range.err.find("underutil_gpu_util_pct"), std::string::npos) << range.err;

  WriteTestFile(dir_ / "u.yaml", "idle_min_hourz: 3\n");
  auto unknown = Audit({"--thresholds", (dir_ / "u.yaml").string()});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("u.yaml:1:"), std::string::npos) << unknown.err;
  EXPECT_NE(unknown.err.find("did you mean 'idle_min_hours'"), std::string::npos) << unknown.err;

  WriteTestFile(dir_ / "bill.csv", "Cost,Date\n1,2026-01-01\n");
  auto bill = Audit({"--billing", (dir_ / "bill.csv").string()});
  EXPECT_EQ(bill.exit_code, 2) << bill.err;
  EXPECT_NE(bill.err.find("bill.csv"), std::string::npos) << bill.err;

  // Nothing half-written: a failed audit leaves no output file.
  auto out = Audit({"--thresholds", (dir_ / "t.yaml").string(), "-o", (dir_ / "x.md").string()});
  EXPECT_EQ(out.exit_code, 2);
  EXPECT_FALSE(std::filesystem::exists(dir_ / "x.md"));
}

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST_F(AuditE2e, HtmlReportRendersInAHeadlessBrowser) {
  const auto html = dir_ / "audit.html";
  auto r = Audit({"--format", "html", "-o", html.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto written = ReadFile(html);
  ASSERT_TRUE(written);
  // Team, tier, utilization and savings-by-rule charts; nothing that needs a script.
  EXPECT_EQ(Count(*written, "<svg "), 4u);
  EXPECT_EQ(written->find("<script"), std::string::npos);
  EXPECT_NE(written->find("underutilized-job"), std::string::npos);

  const std::filesystem::path chromium = "/usr/bin/chromium";
  if (!std::filesystem::exists(chromium)) GTEST_SKIP() << "no chromium to render the report";
  const std::vector<std::string> flags = {"/usr/bin/timeout",
                                          "90",
                                          chromium.string(),
                                          "--headless",
                                          "--no-sandbox",
                                          "--disable-gpu",
                                          "--disable-quic",
                                          "--no-first-run",
                                          "--disable-background-networking",
                                          "--disable-component-update",
                                          "--disable-sync",
                                          "--user-data-dir=" + (dir_ / "chromium").string()};
  auto dom_args = flags;
  dom_args.insert(dom_args.end(), {"--dump-dom", "file://" + html.string()});
  auto dom = RunProgram(dom_args);
  ASSERT_EQ(dom.exit_code, 0) << dom.err;
  // The browser parsed each chart into SVG elements: it serializes every rect back with a
  // closing tag, including those the file writes self-closed (backgrounds, legend keys).
  EXPECT_EQ(Count(dom.out, "<svg "), 4u) << dom.out.substr(0, 2000);
  EXPECT_GT(Count(*written, "<rect "), Count(*written, "</rect>"));
  EXPECT_GE(Count(dom.out, "class=\"bar\""), 4u);
  EXPECT_EQ(Count(dom.out, "class=\"bar\""), Count(*written, "class=\"bar\""));
  EXPECT_EQ(Count(dom.out, "</rect>"), Count(*written, "<rect "));
  // And it draws them: a screenshot of the page is a PNG of the window's width.
  auto shot_args = flags;
  const auto png = dir_ / "audit.png";
  shot_args.insert(shot_args.end(), {"--window-size=1024,3000", "--screenshot=" + png.string(),
                                     "file://" + html.string()});
  auto shot = RunProgram(shot_args);
  ASSERT_EQ(shot.exit_code, 0) << shot.err;
  std::ifstream in(png, std::ios::binary);
  std::string header(24, '\0');
  ASSERT_TRUE(in.read(header.data(), 24));
  EXPECT_EQ(header.substr(1, 3), "PNG");
  const auto width = (static_cast<unsigned char>(header[16]) << 24) |
                     (static_cast<unsigned char>(header[17]) << 16) |
                     (static_cast<unsigned char>(header[18]) << 8) |
                     static_cast<unsigned char>(header[19]);
  EXPECT_EQ(width, 1024u);
  EXPECT_GT(std::filesystem::file_size(png), 20'000u);
}

TEST_F(AuditE2e, ReadsThresholdsFromTheConfigDirUnlessAFileIsGiven) {
  // audit.yaml in the user config dir: 20% is the new bar, so the 30% run is not under-used.
  std::filesystem::create_directories(dir_ / "config");
  WriteTestFile(dir_ / "config" / "audit.yaml", "version: 1\nunderutil_gpu_util_pct: 20\n");
  auto quiet = Audit({"--format", "json"});
  ASSERT_EQ(quiet.exit_code, 0) << quiet.err;
  auto doc = nlohmann::json::parse(quiet.out);
  EXPECT_EQ(doc["findings"].size(), 0u) << quiet.out;
  EXPECT_NE(doc["thresholds"].get<std::string>().find("audit.yaml"), std::string::npos);
  // --thresholds replaces it.
  WriteTestFile(dir_ / "t.yaml", "version: 1\nunderutil_gpu_util_pct: 40\n");
  auto loud = Audit({"--format", "json", "--thresholds", (dir_ / "t.yaml").string()});
  ASSERT_EQ(loud.exit_code, 0) << loud.err;
  EXPECT_EQ(nlohmann::json::parse(loud.out)["findings"].size(), 1u);
  // A bad config file is bad input too.
  WriteTestFile(dir_ / "config" / "audit.yaml", "budgets:\n  - {team: ml}\n");
  auto bad = Audit({});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("audit.yaml:2:"), std::string::npos) << bad.err;
}

TEST_F(AuditE2e, InventoryFeedsTheFleetRulesAndBadNamesExitTwo) {
  // Ten days of hourly readings, every one idle: forgotten.
  std::string readings = "0";
  for (int i = 1; i < 240; ++i) readings += ", 0";
  const std::string start = ledger::FormatTimestamp(ledger::Now() - hours(240));
  WriteTestFile(dir_ / "inv.yaml",
                "version: 1\ninstances:\n"
                "  - {id: i-lost, cloud: testcloud, region: r1, instance_type: small-l4, gpu: L4,\n"
                "     price_per_hour: 1, utilization: {start: " +
                    start + ", step: 1h, gpu_util: [" + readings + "]}}\n");
  auto r = Audit({"--format", "json", "--inventory", (dir_ / "inv.yaml").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  bool forgotten = false;
  for (const auto& f : doc["findings"]) {
    if (f["rule"] == "forgotten-capacity") {
      forgotten = true;
      EXPECT_EQ(f["saving_per_month"], "720");  // $1/h × 24 h × 30 days
    }
  }
  EXPECT_TRUE(forgotten) << r.out;

  WriteTestFile(dir_ / "bad.csv",
                "id,cloud,region,gpu,price_per_hour\ni-1,aws,us-east-1,A100-80GB,4\n"
                "i-2,aws,us-east-1,H100-80GB-SMX,8\n");
  auto bad = Audit({"--inventory", (dir_ / "bad.csv").string(), "-o", (dir_ / "x.md").string()});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("bad.csv:3:"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("field 'gpu'"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("did you mean 'H100-80GB-SXM'"), std::string::npos) << bad.err;
  EXPECT_FALSE(std::filesystem::exists(dir_ / "x.md"));
}

// An instance launched in the future was accepted and counted from a time that has not come.
TEST_F(AuditE2e, AnInventoryLaunchTimeInTheFutureExitsTwoNamingFileLineAndField) {
  const std::string later = ledger::FormatTimestamp(ledger::Now() + hours(24 * 30));
  WriteTestFile(dir_ / "inv.yaml",
                "version: 1\ninstances:\n"
                "  - {id: i-1, cloud: testcloud, region: r1, gpu: L4, price_per_hour: 1,\n"
                "     launched: " +
                    later + "}\n");
  WriteTestFile(dir_ / "inv.csv",
                "id,cloud,region,gpu,price_per_hour,launched\ni-1,testcloud,r1,L4,1,2020-01-01\n"
                "i-2,testcloud,r1,L4,1," +
                    later + "\n");
  for (const auto& [file, where] : {std::pair<std::string, std::string>{"inv.yaml", "inv.yaml:4:"},
                                    {"inv.csv", "inv.csv:3:"}}) {
    auto r = Audit({"--inventory", (dir_ / file).string(), "-o", (dir_ / "x.md").string()});
    EXPECT_EQ(r.exit_code, 2) << file << ": " << r.out;
    EXPECT_NE(r.err.find(where), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("field 'launched'"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("in the future"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir_ / "x.md"));
  }
}

}  // namespace
}  // namespace frugal::audit
