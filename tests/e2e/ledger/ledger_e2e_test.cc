// The ledger commands on the real binary: runs list/show, report, FOCUS export/import, sweep,
// and the errors a user sees for bad ledgers. The ledger is populated through the library API,
// as the supervisor will write it.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "frugal/core/csv.h"
#include "frugal/core/timestamp.h"
#include "frugal/ledger/ledger.h"
#include "frugal/ledger/schema.h"
#include "postgres_server.h"
#include "support/test_support.h"

namespace frugal::ledger {
namespace {

using frugal::testing::RunFrugal;
using frugal::testing::TempDir;

/// Two teams' runs in the last few days: a finished spot run with a preemption, a failed
/// on-demand run and a still-running one. Returns the run ids in that order.
std::vector<RunId> Populate(Ledger& ledger, Timestamp now) {
  auto hours_ago = [&](double h) { return now - FromHours(h); };
  std::vector<RunId> ids;
  NewRun a;
  a.name = "bert-finetune";
  a.command = "python train.py";
  a.tags.team = "nlp";
  a.tags.project = "search";
  a.tags.owner = "ann";
  a.tags.extra["ticket"] = "ML-7";
  a.start = hours_ago(30);
  ids.push_back(ledger.BeginRun(a).value());
  SegmentOffer spot{"aws",
                    "g5.xlarge",
                    "us-east-1",
                    "us-east-1a",
                    "A10G",
                    1,
                    CapacityTier::kSpot,
                    Rate{Money::FromCents(40)},
                    Rate{Money::FromCents(101)}};
  const SegmentId s1 = ledger.OpenSegment(ids[0], spot, hours_ago(30)).value();
  EXPECT_TRUE(
      ledger.AddEvent(ids[0], s1, EventType::kPreemptionNotice, hours_ago(28), {}).has_value());
  EXPECT_TRUE(ledger.CloseSegment(s1, hours_ago(28), EndReason::kPreempted).has_value());
  EXPECT_TRUE(ledger.OpenSegment(ids[0], spot, hours_ago(27.5)).has_value());
  std::vector<Sample> samples;
  for (int i = 0; i < 60; ++i) {
    Sample s;
    s.time = hours_ago(27) + std::chrono::minutes(i);
    s.gpu_util = 70;
    samples.push_back(s);
  }
  EXPECT_TRUE(ledger.AddSamples(ids[0], samples).has_value());
  EXPECT_TRUE(ledger.FinishRun(ids[0], RunStatus::kSucceeded, hours_ago(25.5)).has_value());

  NewRun b = a;
  b.name = "resnet-sweep";
  b.tags.team = "vision";
  b.tags.extra.clear();
  b.start = hours_ago(10);
  ids.push_back(ledger.BeginRun(b).value());
  SegmentOffer on_demand{"gcp",
                         "a2-highgpu-1g",
                         "us-central1",
                         "",
                         "A100",
                         1,
                         CapacityTier::kOnDemand,
                         Rate{Money::FromCents(367)},
                         std::nullopt};
  EXPECT_TRUE(ledger.OpenSegment(ids[1], on_demand, hours_ago(10)).has_value());
  EXPECT_TRUE(ledger.FinishRun(ids[1], RunStatus::kFailed, hours_ago(8)).has_value());

  NewRun c = a;
  c.name = "llama-lora";
  c.tags.extra.clear();
  c.start = hours_ago(2);
  ids.push_back(ledger.BeginRun(c).value());
  EXPECT_TRUE(ledger.OpenSegment(ids[2], spot, hours_ago(2)).has_value());
  EXPECT_TRUE(ledger.Heartbeat(ids[2], hours_ago(0.05)).has_value());  // 3 minutes ago

  NewRun d = c;
  d.name = "orphan";  // its supervisor died an hour ago
  d.tags.team = "research";
  ids.push_back(ledger.BeginRun(d).value());
  EXPECT_TRUE(ledger.OpenSegment(ids[3], on_demand, hours_ago(2)).has_value());
  EXPECT_TRUE(ledger.Heartbeat(ids[3], hours_ago(1)).has_value());
  return ids;
}

/// FOCUS rows are one per segment and calendar month (UTC) it touches (docs/ledger.md): a
/// segment the start of a month cuts is two rows, so how many the fixture gives depends on the
/// day the test runs. `segments`: each segment's start and end in hours before `now` (an open
/// one is charged until now).
int FocusRows(Timestamp now, std::initializer_list<std::pair<double, double>> segments) {
  int rows = 0;
  for (const auto& [from, to] : segments) {
    const Timestamp last = MonthStart(now - FromHours(to) - std::chrono::milliseconds(1));
    for (Timestamp month = MonthStart(now - FromHours(from)); month <= last;
         month = MonthStart(month, 1)) {
      ++rows;
    }
  }
  return rows;
}

class LedgerE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = (home_ / "team.sqlite").string();
    auto ledger = Ledger::Open(db_).value();
    ids_ = Populate(*ledger, now_);
  }
  /// The rows of bert-finetune's two segments, and of all five.
  int BertRows() const { return FocusRows(now_, {{30, 28}, {27.5, 25.5}}); }
  int AllRows() const { return BertRows() + FocusRows(now_, {{10, 8}, {2, 0}, {2, 0}}); }
  frugal::testing::CommandResult Frugal(std::vector<std::string> args) {
    args.insert(args.begin(), {"--db", db_});
    return RunFrugal(args, home_.path());
  }

  TempDir home_;
  Timestamp now_ = Now();
  std::string db_;
  std::vector<RunId> ids_;
};

TEST_F(LedgerE2E, RunsListShowsEveryRunWithCostAndFilters) {
  auto all = Frugal({"runs", "list"});
  ASSERT_EQ(all.exit_code, 0) << all.err;
  EXPECT_NE(all.out.find("bert-finetune"), std::string::npos);
  EXPECT_NE(all.out.find("resnet-sweep"), std::string::npos);
  EXPECT_NE(all.out.find("$7.34"), std::string::npos) << all.out;  // 2 h × $3.67
  EXPECT_NE(all.out.find("4 runs"), std::string::npos);

  auto nlp = Frugal({"runs", "list", "--tag", "team=nlp", "--json"});
  ASSERT_EQ(nlp.exit_code, 0) << nlp.err;
  const nlohmann::json doc = nlohmann::json::parse(nlp.out);
  EXPECT_EQ(doc["schema_version"], 1);
  ASSERT_EQ(doc["runs"].size(), 2u);
  EXPECT_EQ(doc["runs"][0]["name"], "llama-lora");
  EXPECT_EQ(doc["runs"][1]["cost_micros"], 1'600'000);  // 2 h + 2 h at $0.40

  auto running = Frugal({"runs", "list", "--status", "running", "--since", "7d", "--json"});
  ASSERT_EQ(running.exit_code, 0) << running.err;
  EXPECT_EQ(nlohmann::json::parse(running.out)["runs"].size(), 1u);

  auto bad = Frugal({"runs", "list", "--status", "runing"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("did you mean 'running'"), std::string::npos) << bad.err;
}

TEST_F(LedgerE2E, RunsShowGivesSegmentsEventsSpendAndUtilization) {
  auto show = Frugal({"runs", "show", std::to_string(ids_[0])});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_NE(show.out.find("preempted"), std::string::npos);
  EXPECT_NE(show.out.find("preemption_notice"), std::string::npos);
  EXPECT_NE(show.out.find("gpu util  70%"), std::string::npos) << show.out;
  auto json = Frugal({"--json", "runs", "show", std::to_string(ids_[0])});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const nlohmann::json doc = nlohmann::json::parse(json.out);
  EXPECT_EQ(doc["segments"].size(), 2u);
  EXPECT_EQ(doc["segments"][0]["end_reason"], "preempted");
  EXPECT_EQ(doc["tags"]["ticket"], "ML-7");
  EXPECT_EQ(doc["utilization"]["samples"], 60);
  auto missing = Frugal({"runs", "show", "999"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("no run 999"), std::string::npos);
}

TEST_F(LedgerE2E, ReportGroupsByTeamInEveryFormat) {
  auto csv = Frugal({"report", "--by", "team,tier", "--since", "7d", "--format", "csv"});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_NE(csv.out.find("team,tier,spend_usd"), std::string::npos);
  EXPECT_NE(csv.out.find("vision,on_demand,7.34,"), std::string::npos) << csv.out;
  auto json = Frugal({"report", "--by", "team", "--format", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const nlohmann::json doc = nlohmann::json::parse(json.out);
  EXPECT_EQ(doc["rows"].size(), 3u);  // nlp, vision, research
  EXPECT_EQ(doc["schema_version"], 1);
  auto table = Frugal({"report", "--by", "cloud"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("spot_share"), std::string::npos);
  EXPECT_NE(table.out.find("total"), std::string::npos);
  auto bad = Frugal({"report", "--by", "temm"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("did you mean 'team'"), std::string::npos) << bad.err;
}

TEST_F(LedgerE2E, FocusIsTheDefaultFormatAndRunsAloneLists) {
  // FOCUS is the only format: export and import do without --format, as the README writes them.
  const std::string out = (home_ / "default.csv").string();
  auto exported = Frugal({"ledger", "export", "--since", "7d", "-o", out});
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  EXPECT_NE(exported.err.find(fmt::format("Wrote {} FOCUS rows", AllRows())), std::string::npos)
      << exported.err;
  const std::string other = (home_ / "imported.sqlite").string();
  auto imported = RunFrugal({"--db", other, "--json", "ledger", "import", out}, home_.path());
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  EXPECT_EQ(nlohmann::json::parse(imported.out)["imported"], AllRows());
  // `frugal runs` alone is `frugal runs list`.
  auto runs = Frugal({"runs"});
  ASSERT_EQ(runs.exit_code, 0) << runs.err;
  const std::string listed = Frugal({"runs", "list"}).out;
  // The last line ("5 runs, $X in total"); a running run's elapsed time may tick between the two.
  EXPECT_EQ(runs.out.substr(runs.out.rfind('\n', runs.out.size() - 2)),
            listed.substr(listed.rfind('\n', listed.size() - 2)));
  EXPECT_NE(runs.out.find("bert-finetune"), std::string::npos) << runs.out;
}

TEST_F(LedgerE2E, FocusExportImportsBackIdempotently) {
  const std::string out = (home_ / "focus.csv").string();
  auto exported = Frugal({"ledger", "export", "--format", "focus", "--since", "7d", "-o", out});
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  EXPECT_NE(exported.err.find(fmt::format("Wrote {} FOCUS rows", AllRows())), std::string::npos)
      << exported.err;
  auto first = Frugal({"--json", "ledger", "import", "--format", "focus", out});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const nlohmann::json doc = nlohmann::json::parse(first.out);
  EXPECT_EQ(doc["imported"], AllRows());
  EXPECT_EQ(doc["linked_to_runs"], AllRows());
  auto second = Frugal({"ledger", "import", "--format", "focus", out});
  ASSERT_EQ(second.exit_code, 0);
  EXPECT_NE(second.out.find("0 imported"), std::string::npos) << second.out;
  EXPECT_NE(second.out.find(fmt::format("{} already in the ledger", AllRows())), std::string::npos);

  // Into another ledger, whose first run is another one: rows link by run name only, and
  // rows naming runs it has not are imported unlinked with a warning naming the line.
  const std::string other = (home_ / "other.sqlite").string();
  {
    auto ledger = Ledger::Open(other).value();
    ledger->BeginRun(NewRun{"someone-else", "", "", {}, {}, {}, Now()}).value();
    ledger->BeginRun(NewRun{"resnet-sweep", "", "", {}, {}, {}, Now()}).value();
  }
  auto elsewhere = RunFrugal(
      {"--db", other, "--json", "ledger", "import", "--format", "focus", out}, home_.path());
  ASSERT_EQ(elsewhere.exit_code, 0) << elsewhere.err;
  const int resnet_rows = FocusRows(now_, {{10, 8}});
  EXPECT_EQ(nlohmann::json::parse(elsewhere.out)["linked_to_runs"], resnet_rows);
  EXPECT_NE(elsewhere.err.find("warning: " + out +
                               ":2: x_RunId 'bert-finetune' names no run in "
                               "this ledger; imported unlinked (" +
                               std::to_string(BertRows()) + " rows"),
            std::string::npos)
      << elsewhere.err;
  const std::vector<Row> linked =
      Ledger::Open(other)
          .value()
          ->connection()
          .Query("SELECT r.name FROM billing_rows b JOIN runs r ON r.id = b.run_id")
          .value();
  ASSERT_EQ(linked.size(), static_cast<size_t>(resnet_rows));
  EXPECT_EQ(AsText(linked[0][0]), "resnet-sweep");
}

TEST_F(LedgerE2E, ImportsTheSharedSampleAndSaysWhatItTolerated) {
  const auto sample = frugal::testing::SharedDataDir() / "focus" / "focus_1.0_sample_800rows.csv";
  if (!std::filesystem::exists(sample)) GTEST_SKIP() << "shared FOCUS sample not present";
  auto r = Frugal({"ledger", "import", "--format", "focus", sample.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("800 imported"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ignored column 'Id'"), std::string::npos);
  EXPECT_NE(r.out.find("space-separated datetime"), std::string::npos);
  EXPECT_NE(r.out.find("shifted column"), std::string::npos);
  auto info = Frugal({"--json", "ledger", "info"});
  EXPECT_EQ(nlohmann::json::parse(info.out)["rows"]["billing_rows"], 800);
}

TEST_F(LedgerE2E, RunsWhoseSupervisorDiedAreFoundLostCostedToTheLastHeartbeat) {
  auto show = Frugal({"--json", "runs", "show", std::to_string(ids_[3])});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  const nlohmann::json doc = nlohmann::json::parse(show.out);
  EXPECT_EQ(doc["status"], "lost");
  EXPECT_EQ(doc["cost_micros"], 3'670'000);  // one hour to the last heartbeat at $3.67
  EXPECT_EQ(doc["segments"][0]["end_reason"], "lost");

  // A stricter threshold by hand also catches the run that beat 3 minutes ago.
  auto sweep = Frugal({"ledger", "sweep", "--stale", "1m"});
  ASSERT_EQ(sweep.exit_code, 0) << sweep.err;
  EXPECT_NE(sweep.out.find("1 run marked lost"), std::string::npos) << sweep.out;
  auto fresh = Frugal({"--json", "runs", "show", std::to_string(ids_[2])});
  EXPECT_EQ(nlohmann::json::parse(fresh.out)["status"], "lost");
  EXPECT_EQ(nlohmann::json::parse(fresh.out)["cost_micros"], 780'000);  // 1.95 h at $0.40
}

TEST_F(LedgerE2E, DownsampleKeepsUtilizationAverages) {
  auto down = Frugal({"ledger", "downsample", "--older-than", "1d", "--bucket", "10m"});
  ASSERT_EQ(down.exit_code, 0) << down.err;
  EXPECT_NE(down.out.find("60 samples older than 1d replaced by 10m averages"), std::string::npos)
      << down.out;
  auto info = Frugal({"--json", "ledger", "info"});
  // An hour of minutes falls into 6 ten-minute buckets, or 7 when it does not start on one.
  const int64_t left = nlohmann::json::parse(info.out)["rows"]["samples"];
  EXPECT_GE(left, 6);
  EXPECT_LE(left, 7);
  auto show = Frugal({"runs", "show", std::to_string(ids_[0])});
  EXPECT_NE(show.out.find("gpu util  70%"), std::string::npos) << show.out;
  auto bad = Frugal({"ledger", "downsample", "--bucket", "10"});
  EXPECT_EQ(bad.exit_code, 2);
}

TEST_F(LedgerE2E, BadOptionsNameTheOptionAndChangeNothing) {
  // Zero would mark every running run lost, live or not.
  auto eager = Frugal({"ledger", "sweep", "--stale", "0s"});
  EXPECT_EQ(eager.exit_code, 2);
  EXPECT_NE(eager.err.find("--stale: 0s would mark every running run lost"), std::string::npos)
      << eager.err;
  auto fresh = Frugal({"--json", "runs", "show", std::to_string(ids_[2])});
  EXPECT_EQ(nlohmann::json::parse(fresh.out)["status"], "running");

  auto since = Frugal({"runs", "list", "--since", "yesterday"});
  EXPECT_EQ(since.exit_code, 2);
  EXPECT_NE(since.err.find("--since: invalid time 'yesterday'"), std::string::npos) << since.err;
  auto status = Frugal({"runs", "list", "--status", "bogus"});
  EXPECT_EQ(status.exit_code, 2);
  EXPECT_NE(status.err.find("(one of running, succeeded"), std::string::npos) << status.err;
  auto until = Frugal({"report", "--until", "2026-02-30"});
  EXPECT_EQ(until.exit_code, 2);
  EXPECT_NE(until.err.find("--until: invalid time"), std::string::npos) << until.err;
  auto bucket = Frugal({"ledger", "downsample", "--bucket", "banana"});
  EXPECT_NE(bucket.err.find("--bucket: invalid duration"), std::string::npos) << bucket.err;
  auto twice = Frugal({"report", "--by", "team,gpu,team"});
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_NE(twice.err.find("--by: 'team' given twice"), std::string::npos) << twice.err;
  auto huge_id = Frugal({"runs", "show", "99999999999999999999"});
  EXPECT_EQ(huge_id.exit_code, 2);
  EXPECT_NE(huge_id.err.find("no run named '99999999999999999999'"), std::string::npos)
      << huge_id.err;
  auto to_dir = Frugal({"ledger", "export", "--format", "focus", "-o", home_.path().string()});
  EXPECT_EQ(to_dir.exit_code, 2);
  EXPECT_NE(to_dir.err.find("is a directory"), std::string::npos) << to_dir.err;
  auto limit = Frugal({"runs", "list", "--limit", "-1"});
  EXPECT_EQ(limit.exit_code, 2);
  EXPECT_NE(limit.err.find("--limit: expected a whole number from 0"), std::string::npos)
      << limit.err;

  // Shorter than the promised heartbeat: allowed (runs may beat faster), but warned about.
  auto quick = Frugal({"ledger", "sweep", "--stale", "30s"});
  EXPECT_EQ(quick.exit_code, 0) << quick.err;
  EXPECT_NE(quick.err.find("warning: --stale 30s is shorter than the heartbeat"), std::string::npos)
      << quick.err;
}

TEST(LedgerExport, ClippedRowsChargeTheirClippedPeriodAndNeverPrintAnEmptyOne) {
  TempDir home;
  const std::string db = (home / "clip.sqlite").string();
  const Timestamp ten = ParseTimestamp("2026-01-01T10:00:00Z").value();
  const auto ms = [&](int64_t offset) { return ten + std::chrono::milliseconds(offset); };
  {
    auto ledger = Ledger::Open(db).value();
    const RunId run = ledger->BeginRun(NewRun{"short", "", "", {}, {}, {}, ms(-1000)}).value();
    const SegmentOffer offer{"aws",
                             "g5.xlarge",
                             "us-east-1",
                             "",
                             "A10G",
                             1,
                             CapacityTier::kOnDemand,
                             Rate{Money::FromCents(360)},
                             std::nullopt};
    // [09:59:59.000, 10:00:00.700): clipped by --since to its last 0.7 s.
    const SegmentId a = ledger->OpenSegment(run, offer, ms(-1000)).value();
    ASSERT_TRUE(ledger->CloseSegment(a, ms(700), EndReason::kPreempted));
    // [10:59:59.500, 11:00:00.300): clipped by --until to its first 0.5 s.
    const SegmentId b = ledger->OpenSegment(run, offer, ms(3'599'500)).value();
    ASSERT_TRUE(ledger->CloseSegment(b, ms(3'600'300), EndReason::kPreempted));
    // [11:00:00.300, 11:00:00.900): wholly after the window, no row.
    const SegmentId c = ledger->OpenSegment(run, offer, ms(3'600'300)).value();
    ASSERT_TRUE(ledger->CloseSegment(c, ms(3'600'900), EndReason::kFinished));
    ASSERT_TRUE(ledger->FinishRun(run, RunStatus::kSucceeded, ms(3'600'900)));
  }
  const std::string out = (home / "focus.csv").string();
  auto exported = RunFrugal({"--db", db, "ledger", "export", "--format", "focus", "--since",
                             "2026-01-01T10:00:00Z", "--until", "2026-01-01T11:00:00Z", "-o", out},
                            home.path());
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  const CsvTable csv = CsvTable::Load(out).value();
  ASSERT_EQ(csv.rows().size(), 2u);
  const auto field = [&](size_t row, const char* column) {
    return CsvTable::Field(csv.rows()[row], *csv.Column(column));
  };
  // $3.60/h: 0.7 s is $0.0007 and 0.5 s $0.0005, each over a period that covers it.
  EXPECT_EQ(field(0, "ChargePeriodStart"), "2026-01-01T10:00:00Z");
  EXPECT_EQ(field(0, "ChargePeriodEnd"), "2026-01-01T10:00:01Z");
  EXPECT_EQ(field(0, "BilledCost"), "0.0007");
  EXPECT_EQ(field(1, "ChargePeriodStart"), "2026-01-01T10:59:59Z");
  EXPECT_EQ(field(1, "ChargePeriodEnd"), "2026-01-01T11:00:00Z");
  EXPECT_EQ(field(1, "BilledCost"), "0.0005");
}

TEST_F(LedgerE2E, ExportWithJsonPrintsOneSummaryDocumentNeverCsv) {
  auto to_stdout = Frugal({"--json", "ledger", "export", "--format", "focus", "--since", "7d"});
  EXPECT_EQ(to_stdout.exit_code, 2);
  // No CSV: the one document is the error.
  EXPECT_EQ(nlohmann::json::parse(to_stdout.out)["error"]["kind"], "bad_input") << to_stdout.out;
  EXPECT_NE(to_stdout.err.find("give -o FILE"), std::string::npos) << to_stdout.err;
  const std::string out = (home_ / "focus.csv").string();
  auto to_file =
      Frugal({"--json", "ledger", "export", "--format", "focus", "--since", "7d", "-o", out});
  ASSERT_EQ(to_file.exit_code, 0) << to_file.err;
  const nlohmann::json doc = nlohmann::json::parse(to_file.out);
  EXPECT_EQ(doc["rows"], AllRows());
  EXPECT_EQ(doc["output"], out);
  EXPECT_TRUE(std::filesystem::exists(out));
}

TEST(LedgerE2ELocation, BadFocusFilesAreRefusedWholeUnlessToldToSkipRowsAndCreateNoLedger) {
  TempDir home;
  const std::string db = (home / "new.sqlite").string();
  auto import = [&](const std::string& file, std::vector<std::string> flags = {}) {
    std::vector<std::string> args = {"--db", db, "ledger", "import", "--format", "focus"};
    args.insert(args.end(), flags.begin(), flags.end());
    args.push_back((home / file).string());
    return RunFrugal(args, home.path());
  };
  frugal::testing::WriteTestFile(home / "empty.csv", "");
  frugal::testing::WriteTestFile(home / "prices.csv", "name,price\nA100,3.06\n");
  for (const char* file : {"empty.csv", "prices.csv", "missing.csv"}) {
    auto r = import(file);
    EXPECT_EQ(r.exit_code, 2) << file;
    EXPECT_NE(r.err.find(file), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(db)) << file << " left a new ledger behind";
  }
  // A row cut short, amounts no ledger can hold and a currency it does not keep: by default
  // the file is refused whole, every bad row named, and nothing (not even a ledger) is made.
  const std::string hour = "2026-01-01T00:00:00Z,2026-01-01T01:00:00Z";
  frugal::testing::WriteTestFile(home / "cut.csv",
                                 "BilledCost,ChargePeriodStart,ChargePeriodEnd,BillingCurrency\n"
                                 "1.50," +
                                     hour + ",USD\n" + "1e300," + hour + ",USD\n" + "-1e308," +
                                     hour + ",USD\n" + "4," + hour + ",EUR\n" + "2.00," + hour +
                                     "\n");
  auto refused = import("cut.csv");
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_EQ(refused.out, "");
  for (const char* expected :
       {"cut.csv: 4 of 5 rows cannot be imported, so none is", "cut.csv:3:1: BilledCost",
        "cut.csv:4:1: BilledCost", "cut.csv:5:45: BillingCurrency 'EUR'",
        "cut.csv:6: 3 fields, the header has 4"}) {
    EXPECT_NE(refused.err.find(expected), std::string::npos) << expected << "\n" << refused.err;
  }
  EXPECT_FALSE(std::filesystem::exists(db));

  // Asked to, the readable rows are imported and the others listed on stderr.
  auto skipped = import("cut.csv", {"--skip-bad-rows"});
  ASSERT_EQ(skipped.exit_code, 0) << skipped.err;
  EXPECT_NE(skipped.out.find("1 imported ($1.50)"), std::string::npos) << skipped.out;
  EXPECT_NE(skipped.out.find("4 bad rows skipped"), std::string::npos) << skipped.out;
  EXPECT_NE(skipped.err.find("warning: skipped " + (home / "cut.csv").string() +
                             ":6: 3 fields, the header has 4"),
            std::string::npos)
      << skipped.err;
  auto json = RunFrugal({"--db", db, "--json", "ledger", "import", "--format", "focus",
                         "--skip-bad-rows", (home / "cut.csv").string()},
                        home.path());
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const nlohmann::json doc = nlohmann::json::parse(json.out);
  EXPECT_EQ(doc["duplicates"], 1);
  EXPECT_EQ(doc["bad_rows"], 4);
  EXPECT_EQ(doc["skipped"].size(), 4u);

  // A file that ends inside a quoted field cannot be split into rows at all: refused even
  // with --skip-bad-rows (a stray quote would swallow every row after it).
  frugal::testing::WriteTestFile(home / "trunc.csv",
                                 "BilledCost,ChargePeriodStart,ChargePeriodEnd,ServiceName\n"
                                 "1.50," +
                                     hour + ",EC2\n2.00," + hour + ",\"Elastic Com");
  auto trunc = import("trunc.csv", {"--skip-bad-rows"});
  EXPECT_EQ(trunc.exit_code, 2);
  EXPECT_NE(trunc.err.find("trunc.csv:3:48: unterminated quoted field"), std::string::npos)
      << trunc.err;
}

/// Imports a bill of amounts finer than a micro-dollar into `db` and checks what is kept.
void ImportTinyAmounts(const TempDir& home, const std::string& db) {
  const std::string hour = ",2026-01-01T00:00:00Z,2026-01-01T01:00:00Z,";
  std::string csv = "BilledCost,ChargePeriodStart,ChargePeriodEnd,ResourceId,EffectiveCost\n";
  // Ten charges of 0.4 micro-dollars (each $0 on its own), one of exactly half a micro-dollar
  // past a dollar, one written with an exponent, one plain: 3.2500053 in all.
  for (int i = 0; i < 10; ++i)
    csv += "0.0000004" + hour + "i-" + std::to_string(i) + ",0.0000004\n";
  csv +=
      "1.0000005" + hour + "i-a,1.0000005\n8e-07" + hour + "i-b,8e-07\n2.25" + hour + "i-c,2.25\n";
  frugal::testing::WriteTestFile(home / "tiny.csv", csv);
  auto r = RunFrugal(
      {"--db", db, "--json", "ledger", "import", "--format", "focus", (home / "tiny.csv").string()},
      home.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["imported"], 13);
  EXPECT_EQ(doc["billed_cost_usd"], "3.250005");  // 3250005.3 micro-dollars, to the nearest
  ASSERT_TRUE(doc.contains("billed_cost_exact_usd")) << r.out;
  EXPECT_EQ(doc["billed_cost_exact_usd"], "3.2500053");
  EXPECT_EQ(doc["sub_micro_rows"], 12);
  // What the ledger holds sums to the file's total, for the billed and the effective cost.
  auto ledger = ledger::OpenForCommand(db, ledger::CreateMode::kMustExist);
  ASSERT_TRUE(ledger) << ledger.error().message;
  const auto rows = (*ledger)->connection().Query(
      "SELECT CAST(SUM(billed_cost_micros) AS BIGINT), CAST(SUM(effective_cost_micros) AS BIGINT), "
      "COUNT(*) FROM billing_rows");
  ASSERT_TRUE(rows) << rows.error().message;
  EXPECT_EQ(ledger::AsInt((*rows)[0][0]), 3'250'005);
  EXPECT_EQ(ledger::AsInt((*rows)[0][1]), 3'250'005);
  EXPECT_EQ(ledger::AsInt((*rows)[0][2]), 13);
  // No row moved by a micro-dollar or more from its own amount.
  const auto tiny = (*ledger)->connection().Query(
      "SELECT MIN(billed_cost_micros), MAX(billed_cost_micros) FROM billing_rows WHERE "
      "resource_id LIKE 'i-_' AND resource_id NOT IN ('i-a', 'i-b', 'i-c')");
  ASSERT_TRUE(tiny) << tiny.error().message;
  EXPECT_GE(ledger::AsInt((*tiny)[0][0]), 0);
  EXPECT_LE(ledger::AsInt((*tiny)[0][1]), 1);
  ledger->reset();
  // The report's billed total is the file's too.
  auto report = RunFrugal({"--db", db, "--json", "report", "--since", "2025-12-31T00:00:00Z",
                           "--until", "2026-01-02T00:00:00Z"},
                          home.path());
  ASSERT_EQ(report.exit_code, 0) << report.err;
  EXPECT_EQ(nlohmann::json::parse(report.out)["billed"]["total"]["billed_micros"], 3'250'005)
      << report.out;
  // The table says so too; importing the same file again adds nothing.
  auto again =
      RunFrugal({"--db", db, "ledger", "import", "--format", "focus", (home / "tiny.csv").string()},
                home.path());
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("0 imported ($0.0000), 13 already in the ledger"), std::string::npos)
      << again.out;
  frugal::testing::WriteTestFile(home / "more.csv",
                                 "BilledCost,ChargePeriodStart,ChargePeriodEnd,ResourceId\n"
                                 "0.0000004" +
                                     hour + "j-1\n0.0000004" + hour + "j-2\n");
  auto more =
      RunFrugal({"--db", db, "ledger", "import", "--format", "focus", (home / "more.csv").string()},
                home.path());
  ASSERT_EQ(more.exit_code, 0) << more.err;
  EXPECT_NE(more.out.find("2 rows have amounts finer than a micro-dollar, stored rounded so that "
                          "each cost column's total is kept (BilledCost 0.0000008 in the file, "
                          "0.000001 stored)"),
            std::string::npos)
      << more.out;
}

// Amounts below half a micro-dollar were stored as $0 one by one, so a bill of many tiny charges
// lost its money without a word. Now each cost column's total is kept (the exact sum rounded
// half to even) and the import says how many rows were finer than a micro-dollar.
TEST(LedgerE2ELocation, AmountsFinerThanAMicroDollarKeepTheFilesTotalAndAreReported) {
  TempDir home;
  std::vector<std::string> ledgers = {(home / "bill.sqlite").string()};
  if (auto* server = testing::PostgresServer::Shared()) ledgers.push_back(server->NewDatabaseUrl());
  for (const std::string& db : ledgers) {
    SCOPED_TRACE(db);
    ImportTinyAmounts(home, db);
  }
}

TEST(LedgerE2ELocation, DefaultLedgerIsCreatedByTheFirstRecordingAndFrugalDbSelectsAnother) {
  TempDir home;
  // Reading creates nothing (ledger_read_only_test); the first command that records does.
  auto first = RunFrugal({"ledger", "info"}, home.path());
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_FALSE(std::filesystem::exists(home / "data" / "ledger.sqlite"));
  frugal::testing::WriteTestFile(home / "bill.csv",
                                 "BilledCost,ChargePeriodStart,ChargePeriodEnd\n"
                                 "1.5,2026-01-01T00:00:00Z,2026-01-01T01:00:00Z\n");
  auto imported = RunFrugal({"ledger", "import", "--format", "focus", (home / "bill.csv").string()},
                            home.path());
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  EXPECT_TRUE(std::filesystem::exists(home / "data" / "ledger.sqlite"));
  const std::string other = (home / "other.sqlite").string();
  Ledger::Open(other).value()->BeginRun(NewRun{"via-env", "", "", {}, {}, {}, Now()}).value();
  auto env = RunFrugal({"runs", "list"}, home.path(), {"FRUGAL_DB=" + other});
  ASSERT_EQ(env.exit_code, 0) << env.err;
  EXPECT_NE(env.out.find("via-env"), std::string::npos);
}

TEST(LedgerE2ELocation, BadLedgersGiveClearErrorsAndExitCodes) {
  TempDir home;
  frugal::testing::WriteTestFile(home / "notes.txt", "just some text, not a database\n");
  auto foreign = RunFrugal({"--db", (home / "notes.txt").string(), "runs", "list"}, home.path());
  EXPECT_EQ(foreign.exit_code, 2);
  EXPECT_NE(foreign.err.find("not a usable frugal ledger"), std::string::npos) << foreign.err;

  auto missing = RunFrugal({"--db", (home / "typo.sqlite").string(), "report"}, home.path());
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_FALSE(std::filesystem::exists(home / "typo.sqlite"));

  const std::string newer = (home / "newer.sqlite").string();
  ASSERT_TRUE(
      Ledger::Open(newer)
          .value()
          ->connection()
          .Query(fmt::format("UPDATE frugal_meta SET value = '{}' WHERE key = 'schema_version'",
                             frugal::ledger::kSchemaVersion + 1))
          .has_value());
  auto too_new = RunFrugal({"--db", newer, "runs", "list"}, home.path());
  EXPECT_EQ(too_new.exit_code, 4);
  EXPECT_NE(too_new.err.find("upgrade frugal"), std::string::npos) << too_new.err;

  auto down = RunFrugal(
      {"--db", "postgresql://frugal@127.0.0.1:1/x?connect_timeout=2", "runs", "list"}, home.path());
  EXPECT_EQ(down.exit_code, 4);
  EXPECT_NE(down.err.find("cannot connect to PostgreSQL"), std::string::npos) << down.err;

  // Not a server that is down, not a file to create: the user's mistake, exit 2.
  auto malformed = RunFrugal({"--db", "postgresql://u:pw@[::1/x", "runs", "list"}, home.path());
  EXPECT_EQ(malformed.exit_code, 2) << malformed.err;
  EXPECT_NE(malformed.err.find("not a valid PostgreSQL URL"), std::string::npos) << malformed.err;
  EXPECT_EQ(malformed.err.find(":pw@"), std::string::npos) << malformed.err;
  // PostgreSQL is a module opened on demand: a missing one is named, exit 2, no crash.
  TempDir no_modules;
  auto no_module = RunFrugal({"--db", "postgresql://frugal@127.0.0.1:1/x", "runs", "list"},
                             home.path(), {"FRUGAL_MODULE_DIR=" + no_modules.path().string()});
  EXPECT_EQ(no_module.exit_code, 2) << no_module.err;
  EXPECT_NE(no_module.err.find("module frugal_postgres cannot be loaded from " +
                               (no_modules.path() / "frugal_postgres.so").string()),
            std::string::npos)
      << no_module.err;
  auto scheme = RunFrugal({"--db", "mysql://host/x", "ledger", "info"}, home.path());
  EXPECT_EQ(scheme.exit_code, 2);
  EXPECT_NE(scheme.err.find("unsupported ledger URL scheme 'mysql'"), std::string::npos)
      << scheme.err;
  auto directory = RunFrugal({"--db", home.path().string(), "ledger", "info"}, home.path());
  EXPECT_EQ(directory.exit_code, 2);
  EXPECT_NE(directory.err.find("is a directory"), std::string::npos) << directory.err;
}

TEST(LedgerE2EPostgres, CommandsWorkAgainstARealPostgresLedger) {
  auto* server = testing::PostgresServer::Shared();
  if (server == nullptr) GTEST_SKIP() << testing::PostgresServer::why();
  const std::string url = server->NewDatabaseUrl();
  const std::vector<RunId> ids = Populate(*Ledger::Open(url).value(), Now());
  TempDir home;
  auto list = RunFrugal({"--db", url, "--json", "runs", "list"}, home.path());
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_EQ(nlohmann::json::parse(list.out)["runs"].size(), 4u);
  auto report =
      RunFrugal({"report", "--by", "team", "--format", "csv"}, home.path(), {"FRUGAL_DB=" + url});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  EXPECT_NE(report.out.find("vision,7.34,"), std::string::npos) << report.out;
}

}  // namespace
}  // namespace frugal::ledger
