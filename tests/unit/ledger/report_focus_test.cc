// Reports and FOCUS export/import, on SQLite and on the real PostgreSQL fixture.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "backends.h"
#include "frugal/core/csv.h"
#include "frugal/core/text.h"
#include "frugal/ledger/focus.h"
#include "frugal/ledger/report.h"

namespace frugal::ledger::testing {
namespace {

Timestamp Day(int day, double hour = 0) {  // January 2026
  return ParseTimestamp(fmt::format("2026-01-{:02}", day)).value() + FromHours(hour);
}

SegmentOffer Offer(const std::string& gpu, int count, CapacityTier tier, int64_t cents,
                   std::optional<int64_t> on_demand_cents = std::nullopt) {
  SegmentOffer o{"aws",       "p-" + gpu, "us-east-1", "us-east-1a",
                 gpu,         count,      tier,        Rate{Money::FromCents(cents)},
                 std::nullopt};
  if (on_demand_cents) o.on_demand_price = Rate{Money::FromCents(*on_demand_cents)};
  return o;
}

/// Writes one run with one segment [start, end) (open when `end` is unset).
RunId AddRun(Ledger& ledger, const std::string& name, const std::string& team,
             const SegmentOffer& offer, Timestamp start, std::optional<Timestamp> end,
             RunStatus status) {
  NewRun run;
  run.name = name;
  run.tags.team = team;
  run.tags.project = "proj";
  run.tags.owner = "ann";
  run.start = start;
  const RunId id = ledger.BeginRun(run).value();
  EXPECT_TRUE(ledger.OpenSegment(id, offer, start).has_value());
  if (end) {
    EXPECT_TRUE(ledger.FinishRun(id, status, *end).has_value());
  }
  return id;
}

template <typename B>
class ReportFocus : public BackendTest<B> {
 protected:
  void SetUp() override {
    BackendTest<B>::SetUp();
    if (this->IsSkipped()) return;
    ledger_ = this->Open();
    ASSERT_TRUE(ledger_);
    Ledger& l = *ledger_;
    AddRun(l, "a", "nlp", Offer("A10G", 1, CapacityTier::kSpot, 100, 300), Day(10), Day(10, 10),
           RunStatus::kSucceeded);
    AddRun(l, "b", "nlp", Offer("A100", 2, CapacityTier::kOnDemand, 400), Day(11), Day(11, 5),
           RunStatus::kFailed);
    AddRun(l, "c", "vision", Offer("L4", 1, CapacityTier::kReserved1y, 200), Day(12), Day(12, 2),
           RunStatus::kSucceeded);
    AddRun(l, "d", "vision", Offer("T4", 1, CapacityTier::kSpot, 50, 150), Day(19, 12),
           std::nullopt, RunStatus::kRunning);
    AddRun(l, "old", "nlp", Offer("A10G", 1, CapacityTier::kOnDemand, 100),
           ParseTimestamp("2025-12-01").value(), ParseTimestamp("2025-12-01T05:00:00Z").value(),
           RunStatus::kSucceeded);
  }

  ReportOptions Options(const std::string& by) {
    ReportOptions o;
    o.by = ParseGroupKeys(by).value();
    o.since = Day(1);
    o.now = Day(20);
    o.until = o.now;
    return o;
  }

  std::unique_ptr<Ledger> ledger_;
  frugal::testing::TempDir dir_;
};
TYPED_TEST_SUITE(ReportFocus, Backends, BackendNames);

TYPED_TEST(ReportFocus, GroupsSpendGpuHoursSpotShareAndSavingsByTeam) {
  const Report r = BuildReport(*this->ledger_, this->Options("team")).value();
  ASSERT_EQ(r.rows.size(), 2u);
  const ReportRow& nlp = r.rows[0];
  EXPECT_EQ(nlp.key, std::vector<std::string>{"nlp"});
  EXPECT_EQ(nlp.spend, Money::FromCents(3000));
  EXPECT_DOUBLE_EQ(nlp.gpu_hours, 20.0);
  EXPECT_EQ(nlp.spot_spend, Money::FromCents(1000));
  EXPECT_EQ(nlp.spot_savings, Money::FromCents(2000));
  EXPECT_EQ(nlp.runs, 2);
  EXPECT_EQ(nlp.successful_runs, 1);
  EXPECT_EQ(nlp.cost_per_successful_run, Money::FromCents(3000));
  EXPECT_EQ(nlp.month_forecast, Money::FromCents(3000));  // nothing burning in the last week

  const ReportRow& vision = r.rows[1];
  EXPECT_EQ(vision.spend, Money::FromCents(1000));  // $4 reserved + 12 h × $0.50 open spot
  EXPECT_DOUBLE_EQ(vision.SpotShare(), 0.6);
  EXPECT_EQ(vision.spot_savings, Money::FromCents(1200));
  // $10 so far + $6 a week × 288 of 168 hours left in January.
  EXPECT_EQ(vision.month_forecast, Money::FromMicros(10'000'000 + 10'285'714));
  EXPECT_EQ(r.total.spend, Money::FromCents(4000));
  EXPECT_EQ(r.total.runs, 4);
}

TYPED_TEST(ReportFocus, ClipsSegmentsToTheWindowAndGroupsByGpuAndTier) {
  ReportOptions o = this->Options("gpu,tier");
  o.until = Day(10, 5);
  const Report r = BuildReport(*this->ledger_, o).value();
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(r.rows[0].key, (std::vector<std::string>{"A10G", "spot"}));
  EXPECT_EQ(r.rows[0].spend, Money::FromCents(500));
  EXPECT_FALSE(ParseGroupKeys("team,gpux").has_value());
  EXPECT_FALSE(ParseGroupKeys("team,gpu,Team").has_value());  // a column twice
  EXPECT_NE(ParseGroupKeys("team,gpux").error().message.find("did you mean 'gpu'"),
            std::string::npos);
}

TYPED_TEST(ReportFocus, ByWorkloadSeparatesServingFromTraining) {
  NewRun run;
  run.name = "chat-server";
  run.tags.team = "nlp";
  run.tags.Set("workload", "serving");
  run.start = Day(13);
  const RunId id = this->ledger_->BeginRun(run).value();
  ASSERT_TRUE(this->ledger_->OpenSegment(id, Offer("T4", 1, CapacityTier::kOnDemand, 50), Day(13)));
  ASSERT_TRUE(this->ledger_->FinishRun(id, RunStatus::kSucceeded, Day(15)));
  const Report r = BuildReport(*this->ledger_, this->Options("workload")).value();
  ASSERT_EQ(r.rows.size(), 2u);
  EXPECT_EQ(r.rows[0].key, std::vector<std::string>{"training"});  // untagged runs
  EXPECT_EQ(r.rows[0].spend, Money::FromCents(4000));
  EXPECT_EQ(r.rows[0].runs, 4);
  EXPECT_EQ(r.rows[1].key, std::vector<std::string>{"serving"});
  EXPECT_EQ(r.rows[1].spend, Money::FromCents(48 * 50));  // two days at $0.50/h
  EXPECT_EQ(r.rows[1].runs, 1);
}

TYPED_TEST(ReportFocus, WritesCsvAndJson) {
  const Report r = BuildReport(*this->ledger_, this->Options("team")).value();
  std::ostringstream csv;
  WriteReportCsv(r, csv);
  EXPECT_EQ(csv.str().substr(0, csv.str().find('\n')),
            "team,spend_usd,gpu_hours,spot_share,spot_savings_usd,runs,successful_runs,"
            "cost_per_successful_run_usd,gpu_util_percent,month_to_date_usd,month_forecast_usd");
  EXPECT_NE(csv.str().find("\nnlp,30,20.0000,0.3333,20,2,1,30,,30,30\n"), std::string::npos)
      << csv.str();
  const nlohmann::json j = ReportToJson(r);
  EXPECT_EQ(j["rows"][1]["team"], "vision");
  EXPECT_EQ(j["total"]["spend_micros"], 40'000'000);
}

/// Fields written as "" (an empty string where FOCUS wants a null).
int QuotedEmptyFields(const std::string& csv) {
  int count = 0;
  bool at_field_start = true;
  for (size_t i = 0; i < csv.size(); ++i) {
    if (at_field_start && csv[i] == '"') {
      if (i + 1 < csv.size() && csv[i + 1] == '"' &&
          (i + 2 == csv.size() || csv[i + 2] == ',' || csv[i + 2] == '\n')) {
        ++count;
      }
      // Skip the quoted field: "" inside it is an escaped quote.
      for (++i; i < csv.size(); ++i) {
        if (csv[i] == '"' && i + 1 < csv.size() && csv[i + 1] == '"') {
          ++i;
        } else if (csv[i] == '"') {
          break;
        }
      }
      at_field_start = false;
      continue;
    }
    at_field_start = csv[i] == ',' || csv[i] == '\n';
  }
  return count;
}

/// FOCUS rules every exported row must meet.
void ExpectStrictFocus(const CsvTable& t, const std::string& raw) {
  const std::vector<std::string>& want = FocusExportColumns();
  ASSERT_EQ(t.header(), want);
  const std::regex iso(R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z)");
  EXPECT_EQ(QuotedEmptyFields(raw), 0) << "an empty string is not a null";
  auto col = [&](const char* name) { return t.Column(name).value(); };
  for (const CsvRecord& r : t.rows()) {
    auto f = [&](const char* name) { return CsvTable::Field(r, col(name)); };
    for (const char* mandatory :
         {"BilledCost",        "BillingAccountId",   "BillingAccountName", "BillingCurrency",
          "BillingPeriodEnd",  "BillingPeriodStart", "ChargeCategory",     "ChargeDescription",
          "ChargePeriodEnd",   "ChargePeriodStart",  "ContractedCost",     "EffectiveCost",
          "InvoiceIssuerName", "ListCost",           "PricingQuantity",    "PricingUnit",
          "ProviderName",      "PublisherName",      "ServiceCategory",    "ServiceName"}) {
      EXPECT_FALSE(f(mandatory).empty()) << mandatory << " at line " << r.line;
    }
    for (const char* time :
         {"BillingPeriodStart", "BillingPeriodEnd", "ChargePeriodStart", "ChargePeriodEnd"}) {
      EXPECT_TRUE(std::regex_match(f(time), iso)) << time << " = " << f(time);
    }
    EXPECT_GE(f("ChargePeriodStart"), f("BillingPeriodStart"));
    EXPECT_LE(f("ChargePeriodEnd"), f("BillingPeriodEnd"));
    const std::string tier = f("x_Tier");
    const std::string pricing = f("PricingCategory");
    EXPECT_EQ(pricing, tier == "spot" ? "Dynamic" : tier == "on_demand" ? "Standard" : "Committed");
    EXPECT_EQ(pricing == "Committed", !f("CommitmentDiscountId").empty());
    EXPECT_TRUE(nlohmann::json::parse(f("Tags")).is_object());
    EXPECT_NEAR(ParseDouble(f("ListCost")).value(),
                ParseDouble(f("ListUnitPrice")).value() * ParseDouble(f("PricingQuantity")).value(),
                1e-5);
  }
  for (const std::string& name : t.header()) {
    if (name.starts_with("x_")) continue;
    EXPECT_TRUE(std::isupper(static_cast<unsigned char>(name[0]))) << name;
  }
}

TYPED_TEST(ReportFocus, ExportsStrictFocusThatRoundTripsThroughImport) {
  FocusExportOptions o;
  o.since = Day(1);
  o.now = Day(20);
  o.until = o.now;
  std::ostringstream out;
  EXPECT_EQ(ExportFocus(*this->ledger_, o, out).value(), 4);
  const CsvTable table = CsvTable::Parse(out.str(), "export.csv").value();
  ExpectStrictFocus(table, out.str());

  const auto path = this->dir_ / "export.csv";
  std::ofstream(path) << out.str();
  const FocusImportSummary first = ImportFocus(*this->ledger_, path).value();
  EXPECT_EQ(first.imported, 4);
  EXPECT_EQ(first.linked, 4);
  EXPECT_TRUE(first.skipped.empty());
  EXPECT_TRUE(first.repaired.empty()) << first.repaired.begin()->first;
  EXPECT_TRUE(first.ignored_columns.empty());
  EXPECT_EQ(first.billed, BuildReport(*this->ledger_, this->Options("")).value().total.spend);
  const FocusImportSummary again = ImportFocus(*this->ledger_, path).value();
  EXPECT_EQ(again.imported, 0);
  EXPECT_EQ(again.duplicates, 4);
  EXPECT_EQ(this->ledger_->CountRows("billing_rows").value(), 4);
}

TYPED_TEST(ReportFocus, SplitsChargesAtMonthBoundaries) {
  AddRun(*this->ledger_, "late", "nlp", Offer("H100", 8, CapacityTier::kOnDemand, 9800),
         Day(31, 22), Day(31, 26), RunStatus::kSucceeded);
  FocusExportOptions o;
  o.since = Day(31);
  o.now = ParseTimestamp("2026-02-10").value();
  o.until = o.now;
  std::ostringstream out;
  // "late" and the still-open run "d" both cross into February: two rows each.
  ASSERT_EQ(ExportFocus(*this->ledger_, o, out).value(), 4);
  const CsvTable t = CsvTable::Parse(out.str(), "x.csv").value();
  ExpectStrictFocus(t, out.str());
  const size_t start = t.Column("ChargePeriodStart").value();
  const size_t period = t.Column("BillingPeriodStart").value();
  std::vector<CsvRecord> late;
  for (const CsvRecord& r : t.rows()) {
    if (CsvTable::Field(r, t.Column("x_RunName").value()) == "late") late.push_back(r);
  }
  ASSERT_EQ(late.size(), 2u);
  EXPECT_EQ(CsvTable::Field(late[0], start), "2026-01-31T22:00:00Z");
  EXPECT_EQ(CsvTable::Field(late[0], period), "2026-01-01T00:00:00Z");
  EXPECT_EQ(CsvTable::Field(late[1], start), "2026-02-01T00:00:00Z");
  EXPECT_EQ(CsvTable::Field(late[1], period), "2026-02-01T00:00:00Z");
  EXPECT_EQ(CsvTable::Field(late[1], t.Column("BilledCost").value()), "196");
}

TYPED_TEST(ReportFocus, ImportsTheSharedSampleReportingItsQuirks) {
  const auto sample = frugal::testing::SharedDataDir() / "focus" / "focus_1.0_sample_800rows.csv";
  if (!std::filesystem::exists(sample)) GTEST_SKIP() << "shared FOCUS sample not present";
  const FocusImportSummary s = ImportFocus(*this->ledger_, sample).value();
  EXPECT_EQ(s.rows, 800);
  EXPECT_EQ(s.imported, 800);
  EXPECT_TRUE(s.skipped.empty());
  EXPECT_EQ(s.ignored_columns, std::vector<std::string>{"Id"});
  EXPECT_EQ(s.repaired.at("space-separated datetime read as UTC"), 800);
  EXPECT_GT(s.repaired.at("literal NULL read as null"), 0);
  EXPECT_EQ(s.repaired.at("allowed value in the wrong case normalized"), 6);  // Oracle rows
  EXPECT_EQ(s.repaired.at("number in AvailabilityZone (shifted column) dropped"), 40);
  EXPECT_GT(s.repaired.at("padded tag keys trimmed"), 0);
  EXPECT_GT(s.billed, Money::FromCents(1100));
  EXPECT_EQ(ImportFocus(*this->ledger_, sample).value().imported, 0);
}

TYPED_TEST(ReportFocus, RefusesAFileWithUnreadableRowsWholeUnlessToldToSkipThem) {
  const auto bad = this->dir_ / "bad.csv";
  std::ofstream(bad) << "BilledCost,ChargePeriodStart,ChargePeriodEnd\n"
                        "1.50,2026-01-01T00:00:00Z,2026-01-01T01:00:00Z\n"
                        "abc,2026-01-01T00:00:00Z,2026-01-01T01:00:00Z\n"
                        "2.00,yesterday,2026-01-01T01:00:00Z\n";
  // All or nothing: every bad row is named, and not even the good one is imported.
  const auto refused = ImportFocus(*this->ledger_, bad);
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().code, ErrorCode::kBadInput);
  const std::string& why = refused.error().message;
  EXPECT_NE(why.find("2 of 3 rows cannot be imported, so none is"), std::string::npos) << why;
  EXPECT_NE(why.find("bad.csv:3:1: BilledCost 'abc' is not an amount"), std::string::npos) << why;
  EXPECT_NE(why.find("bad.csv:4:6: ChargePeriodStart: invalid time 'yesterday'"), std::string::npos)
      << why;
  EXPECT_EQ(this->ledger_->CountRows("billing_rows").value(), 0);

  const FocusImportSummary s = ImportFocus(*this->ledger_, bad, BadRows::kSkip).value();
  EXPECT_EQ(s.imported, 1);
  EXPECT_EQ(s.bad_rows, 2);
  ASSERT_EQ(s.skipped.size(), 2u);
  EXPECT_NE(s.skipped[0].find("bad.csv:3:1"), std::string::npos) << s.skipped[0];
  EXPECT_NE(s.skipped[1].find("bad.csv:4:6"), std::string::npos) << s.skipped[1];

  const auto foreign = this->dir_ / "foreign.csv";
  std::ofstream(foreign) << "name,price\nA100,3.06\n";
  const auto not_focus = ImportFocus(*this->ledger_, foreign);
  ASSERT_FALSE(not_focus.has_value());
  EXPECT_EQ(not_focus.error().code, ErrorCode::kBadInput);
  EXPECT_EQ(this->ledger_->CountRows("billing_rows").value(), 1);
}

TEST(ParseTimestamp, RefusesDaysTheMonthDoesNotHave) {
  for (const char* bad : {"2026-02-29", "2026-02-30", "2026-04-31", "2100-02-29", "2026-00-10"}) {
    auto t = ParseTimestamp(bad);
    EXPECT_FALSE(t.has_value()) << "accepted " << bad;
  }
  EXPECT_EQ(ParseTimestamp("2028-02-29").value(),
            ParseTimestamp("2028-03-01").value() - FromHours(24));
  EXPECT_TRUE(ParseTimestamp("2000-02-29T23:59:59Z").has_value());
  EXPECT_TRUE(ParseTimestamp("2026-12-31").has_value());
}

TYPED_TEST(ReportFocus, ReadFocusChecksAFileWithoutALedger) {
  const auto file = this->dir_ / "cut.csv";
  std::ofstream(file) << "BilledCost,ChargePeriodStart,ChargePeriodEnd\n"
                         "1e300,2026-01-01T00:00:00Z,2026-01-01T01:00:00Z\n"
                         "2.00,2026-01-01T00:00:00Z\n"
                         "1.25,2026-01-01T00:00:00Z,2026-01-01T01:00:00Z\n";
  EXPECT_FALSE(ReadFocus(file).has_value());
  FocusBatch batch = ReadFocus(file, BadRows::kSkip).value();
  EXPECT_EQ(batch.summary.rows, 3);
  EXPECT_EQ(batch.rows.size(), 1u);
  ASSERT_EQ(batch.summary.skipped.size(), 2u);
  EXPECT_NE(batch.summary.skipped[0].find("beyond"), std::string::npos) << batch.summary.skipped[0];
  EXPECT_NE(batch.summary.skipped[1].find(":3: 2 fields, the header has 3"), std::string::npos)
      << batch.summary.skipped[1];
  EXPECT_EQ(this->ledger_->CountRows("billing_rows").value(), 0);
  const FocusImportSummary s = ImportFocus(*this->ledger_, std::move(batch)).value();
  EXPECT_EQ(s.imported, 1);
  EXPECT_EQ(s.billed, Money::FromMicros(1'250'000));
}

}  // namespace
}  // namespace frugal::ledger::testing
