// FOCUS import: run links by name, all-or-nothing bad rows, charge keys that do not depend on
// how a file spells a charge, the schema 5 re-keying, currencies and amounts; on SQLite and on
// the real PostgreSQL fixture.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <functional>
#include <sstream>

#include "backends.h"
#include "frugal/core/csv.h"
#include "frugal/ledger/focus.h"
#include "frugal/ledger/focus_key.h"
#include "frugal/ledger/focus_row.h"
#include "frugal/ledger/schema.h"

namespace frugal::ledger::testing {
namespace {

using frugal::testing::WriteTestFile;

Timestamp Day(int day, double hour = 0) {  // January 2026
  return ParseTimestamp(fmt::format("2026-01-{:02}", day)).value() + FromHours(hour);
}

RunId AddRun(Ledger& ledger, const std::string& name, Timestamp start, Timestamp end) {
  NewRun run;
  run.name = name;
  run.start = start;
  const RunId id = ledger.BeginRun(run).value();
  const SegmentOffer offer{"aws",
                           "g5.xlarge",
                           "us-east-1",
                           "",
                           "A10G",
                           1,
                           CapacityTier::kOnDemand,
                           Rate{Money::FromCents(100)},
                           std::nullopt};
  EXPECT_TRUE(ledger.OpenSegment(id, offer, start).has_value());
  EXPECT_TRUE(ledger.FinishRun(id, RunStatus::kSucceeded, end).has_value());
  return id;
}

/// A bill as cells, header first, so tests can respell it.
using Table = std::vector<std::vector<std::string>>;

/// Three charges: a sub-micro request charge, a commitment-covered hour, and the first charge
/// again (a bill can hold the same charge twice; both count).
Table Bill() {
  return {{"ProviderName", "BillingAccountId", "ChargePeriodStart", "ChargePeriodEnd", "BilledCost",
           "EffectiveCost", "ListCost", "BillingCurrency", "ChargeCategory", "PricingCategory",
           "ResourceId", "SkuId", "ConsumedQuantity", "ConsumedUnit", "CommitmentDiscountId",
           "CommitmentDiscountStatus", "Tags"},
          {"AWS", "123", "2026-01-01T00:00:00Z", "2026-01-01T01:00:00Z", "0.00000080000",
           "0.0000008", "0.0000008", "USD", "Usage", "Standard", "q-1", "sqs", "2.000000000000000",
           "Requests", "", "", R"({"team":"ml"})"},
          {"AWS", "123", "2026-01-01T00:00:00Z", "2026-01-01T01:00:00Z", "1.5", "1.5", "3", "USD",
           "Usage", "Committed", "i-2", "g5", "1", "Hours", "sp-1", "Used", "{}"},
          {"AWS", "123", "2026-01-01T00:00:00Z", "2026-01-01T01:00:00Z", "0.00000080000",
           "0.0000008", "0.0000008", "USD", "Usage", "Standard", "q-1", "sqs", "2.000000000000000",
           "Requests", "", "", R"({"team":"ml"})"}};
}

std::string ToCsv(const Table& table, const std::string& eol = "\n") {
  std::string csv;
  for (const std::vector<std::string>& row : table) {
    for (size_t i = 0; i < row.size(); ++i) csv += (i ? "," : "") + CsvEscape(row[i]);
    csv += eol;
  }
  return csv;
}

/// The table with each data cell replaced by f(column, cell).
Table Respell(Table table,
              const std::function<std::string(const std::string&, const std::string&)>& f) {
  for (size_t r = 1; r < table.size(); ++r) {
    for (size_t c = 0; c < table[r].size(); ++c) table[r][c] = f(table[0][c], table[r][c]);
  }
  return table;
}

Table Reversed(Table table) {
  for (std::vector<std::string>& row : table) std::reverse(row.begin(), row.end());
  return table;
}

template <typename B>
class FocusImport : public BackendTest<B> {
 protected:
  std::filesystem::path Write(const std::string& name, const std::string& text) {
    const auto path = dir_ / name;
    WriteTestFile(path, text);
    return path;
  }

  /// (run name or "-") of each billing row, in charge period then id order.
  std::vector<std::string> LinkedRuns(Ledger& ledger) {
    const std::vector<Row> rows =
        ledger.connection()
            .Query(
                "SELECT r.name FROM billing_rows b LEFT JOIN runs r ON r.id = b.run_id "
                "ORDER BY b.charge_period_start_ms, b.id")
            .value();
    std::vector<std::string> names;
    for (const Row& r : rows) names.push_back(IsNull(r[0]) ? "-" : AsText(r[0]));
    return names;
  }

  frugal::testing::TempDir dir_;
};
TYPED_TEST_SUITE(FocusImport, Backends, BackendNames);

TYPED_TEST(FocusImport, LinksAnotherLedgersExportByRunNameNotByRowNumber) {
  // A laptop's ledger exports two runs; the team's ledger has another run at row 1 and the
  // second run under the same name at row 2.
  auto laptop = this->Open();
  ASSERT_TRUE(laptop);
  AddRun(*laptop, "r-alpha", Day(1), Day(1, 2));
  AddRun(*laptop, "r-beta", Day(2), Day(2, 1));
  FocusExportOptions o;
  o.since = Day(1);
  o.until = o.now = Day(3);
  std::ostringstream csv;
  ASSERT_EQ(ExportFocus(*laptop, o, csv).value(), 2);
  const auto file = this->Write("laptop.csv", csv.str());

  auto team = Ledger::Open(this->NewLocation()).value();
  AddRun(*team, "r-zeta", Day(5), Day(5, 1));
  AddRun(*team, "r-beta", Day(2), Day(2, 1));
  const FocusImportSummary s = ImportFocus(*team, file).value();
  EXPECT_EQ(s.imported, 2);
  EXPECT_EQ(s.linked, 1);
  EXPECT_EQ(this->LinkedRuns(*team), (std::vector<std::string>{"-", "r-beta"}));
  ASSERT_EQ(s.warnings.size(), 1u);
  EXPECT_EQ(s.warnings[0],
            file.string() + ":2: x_RunId 'r-alpha' names no run in this ledger; imported unlinked");
  const FocusImportSummary again = ImportFocus(*team, file).value();
  EXPECT_EQ(again.duplicates, 2);
  EXPECT_TRUE(again.warnings.empty()) << again.warnings[0];

  // Back into the ledger it came from, every row finds its run again, and nothing doubles.
  EXPECT_EQ(ImportFocus(*laptop, file).value().linked, 2);
  EXPECT_EQ(this->LinkedRuns(*laptop), (std::vector<std::string>{"r-alpha", "r-beta"}));
  EXPECT_EQ(ImportFocus(*laptop, file).value().duplicates, 2);
}

TYPED_TEST(FocusImport, ChecksXRunNameAndWarnsAboutRunsItCannotFind) {
  auto ledger = this->Open();
  ASSERT_TRUE(ledger);
  AddRun(*ledger, "r-1", Day(1), Day(1, 1));
  AddRun(*ledger, "r-2", Day(1), Day(1, 1));
  std::string csv = "BilledCost,ChargePeriodStart,ChargePeriodEnd,ResourceId,x_RunId,x_RunName\n";
  const std::vector<std::pair<std::string, std::string>> refs = {
      {"r-1", "r-1"},  // line 2: agrees
      {"r-1", "r-2"},  // line 3: disagrees
      {"999", ""},     // line 4: no such run
      {"", "r-2"},     // line 5: by name alone
      {"7", "r-1"},    // line 6: an older frugal's export (x_RunId its row number)
      {"r-9", ""},     // lines 7 and 8: one warning for both
      {"r-9", ""}};
  for (size_t i = 0; i < refs.size(); ++i) {
    csv += fmt::format("1,2026-01-01T00:00:00Z,2026-01-01T01:00:00Z,res-{},{},{}\n", i,
                       refs[i].first, refs[i].second);
  }
  const auto file = this->Write("runs.csv", csv);
  const FocusImportSummary s = ImportFocus(*ledger, file).value();
  EXPECT_EQ(s.imported, 7);
  EXPECT_EQ(s.linked, 3);
  EXPECT_EQ(this->LinkedRuns(*ledger),
            (std::vector<std::string>{"r-1", "-", "-", "r-2", "r-1", "-", "-"}));
  const std::string where = file.string();
  EXPECT_EQ(s.warnings,
            (std::vector<std::string>{
                where + ":3: x_RunId 'r-1' and x_RunName 'r-2' disagree; imported unlinked",
                where + ":4: x_RunId '999' names no run in this ledger; imported unlinked",
                where + ":7: x_RunId 'r-9' names no run in this ledger; imported unlinked "
                        "(2 rows; also line 8)"}));
  EXPECT_EQ(s.repaired.size(), 1u);
}

TYPED_TEST(FocusImport, ImportsTheSameChargesOnceHoweverAFileSpellsThem) {
  auto ledger = this->Open();
  ASSERT_TRUE(ledger);
  const FocusImportSummary first =
      ImportFocus(*ledger, this->Write("bill.csv", ToCsv(Bill()))).value();
  EXPECT_EQ(first.imported, 3);  // the repeated charge counts twice, as the bill says
  const std::map<std::string, Table> respelled = {
      {"reordered.csv", Reversed(Bill())},
      {"nulls.csv", Respell(Bill(), [](auto&, auto& v) { return v.empty() ? "NULL" : v; })},
      {"numbers.csv", Respell(Bill(),
                              [](auto& column, auto& v) -> std::string {
                                if (v == "0.00000080000" || v == "0.0000008") return "8e-07";
                                if (v == "1.5") return "1.50000000000";
                                if (column == "ConsumedQuantity") return v == "1" ? "1E0" : "2";
                                return v;
                              })},
      {"sql-times.csv", Respell(Bill(),
                                [](auto&, auto& v) -> std::string {
                                  if (!v.ends_with(":00Z")) return v;
                                  return v.substr(0, 10) + " " + v.substr(11, 8);
                                })},
      {"case.csv", Respell(Bill(),
                           [](auto&, auto& v) -> std::string {
                             if (v == "Standard") return "standard";
                             return v == "Used" ? "USED" : v;
                           })},
      {"tags.csv", Respell(Bill(), [](auto&, auto& v) -> std::string {
         return v == R"({"team":"ml"})" ? R"({ " team" : "ml" })" : v;
       })}};
  for (const auto& [name, table] : respelled) {
    const FocusImportSummary again = ImportFocus(*ledger, this->Write(name, ToCsv(table))).value();
    EXPECT_EQ(again.imported, 0) << name;
    EXPECT_EQ(again.duplicates, 3) << name;
  }
  const FocusImportSummary crlf =
      ImportFocus(*ledger, this->Write("crlf.csv", "\xEF\xBB\xBF" + ToCsv(Bill(), "\r\n"))).value();
  EXPECT_EQ(crlf.imported, 0);
  EXPECT_EQ(ledger->CountRows("billing_rows").value(), 3);
  EXPECT_EQ(AsInt(ledger->connection()
                      .Query("SELECT SUM(billed_cost_micros) FROM billing_rows")
                      .value()[0][0]),
            1'500'002);
}

/// How an older frugal keyed a row: by the raw text of its fields (before schema 5), or by
/// its charge (schema 5).
enum class OldKey { kRawText, kCharge };

/// Stores the batch the way an older frugal did: without the charge description (schema 6),
/// keyed as `key` says.
void InsertAsOlderSchema(Ledger& ledger, const FocusBatch& batch, OldKey key) {
  // Schema 6 added charge_description, the last column.
  std::vector<std::string> columns = BillingRowColumns();
  ASSERT_EQ(columns.back(), "charge_description");
  columns.pop_back();
  std::string sql = "INSERT INTO billing_rows (";
  for (size_t i = 0; i < columns.size(); ++i) sql += (i ? ", " : "") + columns[i];
  sql += ") VALUES (?";
  for (size_t i = 1; i < columns.size(); ++i) sql += ", ?";
  sql += ")";
  for (const FocusBatchRow& row : batch.rows) {
    Row values = row.values;
    values.pop_back();
    if (key == OldKey::kRawText) values[BillingRowColumn("row_key")] = row.legacy_key;
    ASSERT_TRUE(ledger.connection().Query(sql, values).has_value());
  }
}

void InsertAsSchemaFour(Ledger& ledger, const FocusBatch& batch) {
  InsertAsOlderSchema(ledger, batch, OldKey::kRawText);
}

TYPED_TEST(FocusImport, SchemaFiveRekeysRowsImportedBeforeSoTheyAreNotImportedAgain) {
  const auto bill = this->Write("bill.csv", ToCsv(Bill()));
  {
    OpenOptions v4;
    v4.schema_version = 4;
    auto old = this->Open(v4);
    ASSERT_TRUE(old);
    InsertAsSchemaFour(*old, ReadFocus(bill).value());
    // The old key let the same charges in a second time from a file with other columns.
    FocusBatch reordered = ReadFocus(this->Write("reordered.csv", ToCsv(Reversed(Bill())))).value();
    reordered.rows.resize(1);
    InsertAsSchemaFour(*old, reordered);
    // A ledger from before schema 4 kept no commitment columns.
    ASSERT_TRUE(old->connection()
                    .Query("UPDATE billing_rows SET commitment_discount_id = NULL, "
                           "commitment_discount_status = NULL WHERE resource_id = 'i-2'")
                    .has_value());
  }
  auto ledger = this->Open();
  ASSERT_TRUE(ledger);
  EXPECT_EQ(SchemaVersion(ledger->connection()).value(), kSchemaVersion);
  const std::vector<Row> keys =
      ledger->connection()
          .Query("SELECT row_key, legacy_row_key FROM billing_rows ORDER BY id")
          .value();
  ASSERT_EQ(keys.size(), 4u);
  for (const Row& k : keys) {
    EXPECT_TRUE(AsText(k[0]).starts_with("v2:")) << AsText(k[0]);
    EXPECT_FALSE(IsNull(k[1]));
  }
  // Rows 1 and 4 (one charge, stored twice by the old key) keep both rows, now numbered.
  EXPECT_EQ(AsText(keys[3][0]), AsText(keys[0][0]).substr(0, 19) + "#2");

  // The same file: every row is found (the commitment row by its old key).
  const FocusImportSummary same = ImportFocus(*ledger, bill).value();
  EXPECT_EQ(same.imported, 0);
  EXPECT_EQ(same.duplicates, 3);
  // Respelled, the rows whose values the ledger kept are found by their recomputed key.
  Table repeated = Reversed(Bill());
  repeated.erase(repeated.begin() + 2);  // the commitment row
  const FocusImportSummary other =
      ImportFocus(*ledger, this->Write("other.csv", ToCsv(Respell(repeated,
                                                                  [](auto&, auto& v) {
                                                                    return v.empty() ? "NULL" : v;
                                                                  }))))
          .value();
  EXPECT_EQ(other.imported, 0);
  EXPECT_EQ(other.duplicates, 2);
  EXPECT_EQ(ledger->CountRows("billing_rows").value(), 4);
}

TYPED_TEST(FocusImport, SchemaSixKeepsChargeDescriptionsAndFillsThemInOnReimport) {
  Table bill = Bill();
  for (size_t i = 0; i < bill.size(); ++i) {
    bill[i].push_back(
        i == 0 ? "ChargeDescription"
               : fmt::format("$1.624 per On Demand Linux g5.4xlarge Instance Hour {}", i));
  }
  const auto file = this->Write("described.csv", ToCsv(bill));
  {
    // Imported by a frugal at schema 5, which kept no description.
    OpenOptions v5;
    v5.schema_version = 5;
    auto old = this->Open(v5);
    ASSERT_TRUE(old);
    InsertAsOlderSchema(*old, ReadFocus(this->Write("plain.csv", ToCsv(Bill()))).value(),
                        OldKey::kCharge);
  }
  auto ledger = this->Open();
  ASSERT_TRUE(ledger);
  // The description is no part of the charge: the same rows are found again, and gain it.
  const FocusImportSummary again = ImportFocus(*ledger, file).value();
  EXPECT_EQ(again.imported, 0);
  EXPECT_EQ(again.duplicates, 3);
  const std::vector<Row> stored =
      ledger->connection().Query("SELECT charge_description FROM billing_rows ORDER BY id").value();
  ASSERT_EQ(stored.size(), 3u);
  for (size_t i = 0; i < stored.size(); ++i) {
    EXPECT_EQ(AsText(stored[i][0]),
              fmt::format("$1.624 per On Demand Linux g5.4xlarge Instance Hour {}", i + 1));
  }
}

TEST(FocusAmounts, RefusesOtherCurrenciesLocaleNumbersAndBackwardChargePeriods) {
  frugal::testing::TempDir dir;
  const std::string head = "BilledCost,ChargePeriodStart,ChargePeriodEnd,BillingCurrency\n";
  const std::string hour = "2026-01-01T00:00:00Z,2026-01-01T01:00:00Z";
  WriteTestFile(dir / "eu.csv", head + "\"1,500\"," + hour + ",USD\n" +  // line 2
                                    "100," + hour + ",EUR\n" +           // line 3
                                    "$5," + hour + ",USD\n" +            // line 4
                                    "\"12,5\"," + hour + ",USD\n" +      // line 5
                                    "1.500.00," + hour + ",USD\n" +      // line 6
                                    "1,2026-01-02T00:00:00Z,2026-01-01T00:00:00Z,USD\n" + "2," +
                                    hour + ",usd\n");  // line 8: fine
  const auto refused = ReadFocus(dir / "eu.csv");
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().code, ErrorCode::kBadInput);
  const std::string& why = refused.error().message;
  for (const char* expected :
       {"eu.csv:2:1: BilledCost '1,500' is not an amount", "eu.csv:3:47: BillingCurrency 'EUR'",
        "eu.csv:4:1: BilledCost '$5' is not an amount",
        "eu.csv:5:1: BilledCost '12,5' is not an amount",
        "eu.csv:6:1: BilledCost '1.500.00' is not an amount",
        "eu.csv:7:24: ChargePeriodEnd 2026-01-01T00:00:00Z is before ChargePeriodStart"}) {
    EXPECT_NE(why.find(expected), std::string::npos) << expected << " not in:\n" << why;
  }
  EXPECT_EQ(why.find("eu.csv:8"), std::string::npos) << why;
  const FocusBatch skipped = ReadFocus(dir / "eu.csv", BadRows::kSkip).value();
  ASSERT_EQ(skipped.rows.size(), 1u);
  EXPECT_EQ(skipped.rows[0].values[BillingRowColumn("billing_currency")], Value{"USD"});
  EXPECT_EQ(skipped.summary.bad_rows, 6);
}

TEST(FocusAmounts, QuantityThatCannotBeStoredExactlyIsABadRow) {
  frugal::testing::TempDir dir;
  const std::string row = "1,2026-01-01T00:00:00Z,2026-01-01T01:00:00Z,";
  WriteTestFile(dir / "q.csv", "BilledCost,ChargePeriodStart,ChargePeriodEnd,ConsumedQuantity\n" +
                                   row + "1e41\n" +                 // line 2: was kept as 1e40
                                   row + "1e300\n" +                // line 3
                                   row + "1e309\n" +                // line 4: past a double
                                   row + "1.00000000000000001\n" +  // line 5: past its precision
                                   row + "1e-400\n" +               // line 6: below it
                                   row + "0.1\n" +                  // line 7: fine
                                   row + "2.5E3\n");                // line 8: fine
  const auto refused = ReadFocus(dir / "q.csv");
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().code, ErrorCode::kBadInput);
  const std::string& why = refused.error().message;
  for (int line = 2; line <= 6; ++line) {
    const std::string expected = fmt::format("q.csv:{}:45: ConsumedQuantity", line);
    EXPECT_NE(why.find(expected), std::string::npos) << expected << " not in:\n" << why;
  }
  EXPECT_NE(why.find("'1e41' cannot be stored exactly"), std::string::npos) << why;
  EXPECT_EQ(why.find("q.csv:7"), std::string::npos) << why;
  EXPECT_EQ(why.find("q.csv:8"), std::string::npos) << why;
  const FocusBatch kept = ReadFocus(dir / "q.csv", BadRows::kSkip).value();
  ASSERT_EQ(kept.rows.size(), 2u);
  EXPECT_EQ(kept.rows[0].values[BillingRowColumn("consumed_quantity")], Value{0.1});
  EXPECT_EQ(kept.rows[1].values[BillingRowColumn("consumed_quantity")], Value{2500.0});
}

TEST(FocusAmounts, ReadsFocusNumbersExactly) {
  const std::vector<std::pair<std::string, std::optional<std::string>>> cases = {
      {"8e-07", "0.0000008"},
      {"0.00000080000", "0.0000008"},
      {"1.5E3", "1500"},
      {"-2.50", "-2.5"},
      {"+.5", "0.5"},
      {"7.", "7"},
      {"0", "0"},
      {"-0.000", "0"},
      {"1e-999", "0"},
      {"12345678901234567890", "12345678901234567890"},
      {"1,500", std::nullopt},
      {"$5", std::nullopt},
      {"12,5", std::nullopt},
      {"1.5.0", std::nullopt},
      {"1e", std::nullopt},
      {"NaN", std::nullopt},
      {"inf", std::nullopt},
      {"0x10", std::nullopt},
      {" 3", std::nullopt},
      {"", std::nullopt},
      {"-", std::nullopt},
      {".", std::nullopt}};
  for (const auto& [text, plain] : cases) EXPECT_EQ(PlainDecimal(text), plain) << text;
  // A huge exponent is clamped, still beyond every amount.
  EXPECT_EQ(PlainDecimal("1e999999999999"), PlainDecimal("1e40"));
  EXPECT_FALSE(Money::Parse(PlainDecimal("1e40").value()).has_value());
}

}  // namespace
}  // namespace frugal::ledger::testing
