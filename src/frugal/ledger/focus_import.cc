// FOCUS import, reading half: a cloud bill's rows into billing-row values, tolerant of what
// real exports do and strict about what they must not do (focus_row.h).

#include <fmt/format.h>

#include <cmath>
#include <set>
#include <unordered_map>

#include "frugal/core/csv.h"
#include "frugal/core/text.h"
#include "frugal/ledger/focus.h"
#include "frugal/ledger/focus_key.h"
#include "frugal/ledger/focus_row.h"

namespace frugal::ledger {
namespace {

bool IsFocusColumn(const std::string& name) {
  static const std::set<std::string> kKnown = [] {
    std::set<std::string> s;
    for (const std::string& c : FocusExportColumns()) s.insert(c);
    // Columns of FOCUS 1.0/1.1 that 1.2 kept under other names or dropped.
    s.insert("ProviderName");
    s.insert("SkuPriceDetails");
    return s;
  }();
  return kKnown.contains(name) || name.starts_with("x_");
}

nlohmann::json ReadTags(FocusRow& row) {
  std::optional<std::string> text = row.Get("Tags");
  if (!text) return nlohmann::json::object();
  nlohmann::json parsed = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (!parsed.is_object()) {
    row.Note(kQuirkBadTags);
    return nlohmann::json::object();
  }
  nlohmann::json tags = nlohmann::json::object();
  for (auto& [key, value] : parsed.items()) {
    const std::string trimmed(Trim(key));
    if (trimmed != key) row.Note(kQuirkTagKeys);
    if (!tags.contains(trimmed)) tags[trimmed] = value;
  }
  return tags;
}

/// Checks that do not change what is stored but are worth telling the user.
void NoteQuirks(FocusRow& row, std::optional<Money> list) {
  row.Allowed("ChargeFrequency", {"One-Time", "Recurring", "Usage-Based"});
  if (std::optional<std::string> zone = row.Get("AvailabilityZone")) {
    if (ParseDouble(*zone)) row.Note(kQuirkShifted);
  }
  const std::optional<std::string> unit = row.Get("ListUnitPrice");
  const std::optional<std::string> quantity = row.Get("PricingQuantity");
  if (list && unit && quantity) {
    Result<double> u = ParseDouble(*unit);
    Result<double> q = ParseDouble(*quantity);
    if (u && q && std::abs(*u * *q - list->dollars()) > 1e-6 + 0.01 * std::abs(list->dollars())) {
      row.Note(kQuirkListCost);
    }
  }
}

/// The ledger keeps US dollars and frugal converts no currency: a row billed in another one
/// would be summed as dollars. A file without the column (or a null) is read as USD.
void CheckCurrency(FocusRow& row) {
  const std::optional<std::string> currency = row.Get("BillingCurrency");
  if (!currency || *currency == "USD") return;
  if (ToLower(*currency) == "usd") {
    row.Note(kQuirkCase);
    return;
  }
  row.Problem("BillingCurrency",
              fmt::format("BillingCurrency '{}' is not USD: the ledger keeps US dollars and "
                          "frugal converts no currency",
                          *currency));
}

/// False, with the problem in `summary.skipped`, for a row cut short (a truncated download) or
/// with stray separators: its fields would shift or drop, so it is never read partly.
bool HasEveryField(const CsvTable& table, const CsvRecord& record, FocusImportSummary& summary) {
  if (record.fields.size() == table.header().size()) return true;
  summary.skipped.push_back(fmt::format("{}:{}: {} fields, the header has {} ({})", table.source(),
                                        record.line, record.fields.size(), table.header().size(),
                                        record.fields.size() < table.header().size()
                                            ? "is the file cut off?"
                                            : "an unquoted comma in a field?"));
  return false;
}

/// The amounts and the charge period a row was read to, checked.
struct RowAmounts {
  std::optional<Money> billed, effective, list;
  FineAmount fine_billed, fine_effective, fine_list;
  std::optional<Timestamp> start, end;
  std::optional<double> quantity;
};

RowAmounts ReadAmounts(FocusRow& row) {
  RowAmounts a;
  a.billed = row.Amount("BilledCost", /*required=*/true, &a.fine_billed);
  a.start = row.Time("ChargePeriodStart");
  a.end = row.Time("ChargePeriodEnd");
  if (a.start && a.end && *a.end < *a.start) {
    row.Problem("ChargePeriodEnd", fmt::format("ChargePeriodEnd {} is before ChargePeriodStart {}",
                                               FormatTimestamp(*a.end), FormatTimestamp(*a.start)));
  }
  CheckCurrency(row);
  a.effective = row.Amount("EffectiveCost", /*required=*/false, &a.fine_effective);
  a.list = row.Amount("ListCost", /*required=*/false, &a.fine_list);
  a.quantity = row.Quantity("ConsumedQuantity");
  return a;
}

/// The billing_rows columns in the table's order (row_key still empty).
Row BillingValues(FocusRow& row, const RowAmounts& a, const std::string& source) {
  auto micros = [](const std::optional<Money>& m) { return m ? Value{m->micros()} : Value{}; };
  return Row{source,
             std::string(),  // row_key, once the file's identical rows are counted
             OrNull(row.Get("ProviderName")),
             OrNull(row.Get("BillingAccountId")),
             OrNull(row.Get("SubAccountId")),
             ToMillis(*a.start),
             ToMillis(*a.end),
             a.billed->micros(),
             micros(a.effective),
             micros(a.list),
             std::string("USD"),
             OrNull(row.Get("ChargeCategory")),
             OrNull(row.Allowed("PricingCategory", {"Standard", "Dynamic", "Committed", "Other"})),
             OrNull(row.Get("ServiceName")),
             OrNull(row.Get("ResourceId")),
             OrNull(row.Get("RegionId")),
             OrNull(row.Get("SkuId")),
             OrNull(a.quantity),
             OrNull(row.Get("ConsumedUnit")),
             ReadTags(row).dump(),
             Value{},  // run_id, linked when inserted
             ToMillis(Now()),
             OrNull(row.Get("CommitmentDiscountId")),
             OrNull(row.Get("CommitmentDiscountName")),
             OrNull(row.Allowed("CommitmentDiscountStatus", {"Used", "Unused"})),
             OrNull(row.Get("ChargeDescription"))};
}

/// The billing_rows values of one row (row_key still empty); nullopt, with every problem in
/// `summary.skipped`, when it cannot be imported.
std::optional<FocusBatchRow> ReadBillingRow(const CsvTable& table, const CsvRecord& record,
                                            const std::string& source, bool literal_nulls,
                                            FocusImportSummary& summary) {
  if (!HasEveryField(table, record, summary)) return std::nullopt;
  FocusRow row(table, record, literal_nulls, summary);
  const RowAmounts a = ReadAmounts(row);
  if (row.bad()) return std::nullopt;
  NoteQuirks(row, a.list);
  FocusBatchRow out;
  out.values = BillingValues(row, a, source);
  out.file = table.source();
  out.line = record.line;
  out.run_id = row.Get("x_RunId").value_or("");
  out.run_name = row.Get("x_RunName").value_or("");
  out.amounts.emplace_back(BillingRowColumn("billed_cost_micros"), a.fine_billed);
  if (a.effective)
    out.amounts.emplace_back(BillingRowColumn("effective_cost_micros"), a.fine_effective);
  if (a.list) out.amounts.emplace_back(BillingRowColumn("list_cost_micros"), a.fine_list);
  return out;
}

/// kBadInput listing every problem of every bad row.
Error BadRowsError(const FocusImportSummary& summary, const std::string& source) {
  std::string message = fmt::format(
      "{}: {} of {} rows cannot be imported, so none is (--skip-bad-rows imports "
      "the others):",
      source, summary.bad_rows, summary.rows);
  for (const std::string& why : summary.skipped) message += "\n  " + why;
  return Error{ErrorCode::kBadInput, message};
}

}  // namespace

Result<FocusBatch> ReadFocus(const std::filesystem::path& file, BadRows bad_rows) {
  CsvTable table = FRUGAL_TRY(CsvTable::Load(file));
  for (const char* required : {"BilledCost", "ChargePeriodStart", "ChargePeriodEnd"}) {
    Result<size_t> column = table.RequireColumn(required);
    if (!column) return Fail(column.error().Wrap("not a FOCUS file"));
  }
  FocusImportSummary summary;
  for (const std::string& name : table.header()) {
    if (!IsFocusColumn(name)) summary.ignored_columns.push_back(name);
  }
  // A file that writes NULL literally treats an empty field as a (non-conformant) empty string.
  bool literal_nulls = false;
  for (const CsvRecord& r : table.rows()) {
    for (const std::string& f : r.fields) literal_nulls = literal_nulls || f == "NULL";
    if (literal_nulls) break;
  }
  FocusBatch batch;
  // Identical charges in one file stay distinct; the same charges again map onto the same keys.
  std::unordered_map<uint64_t, int> charges;
  std::unordered_map<uint64_t, int> legacy;
  const size_t key = BillingRowColumn("row_key");
  for (const CsvRecord& record : table.rows()) {
    ++summary.rows;
    std::optional<FocusBatchRow> row =
        ReadBillingRow(table, record, file.filename().string(), literal_nulls, summary);
    if (!row) {
      ++summary.bad_rows;
      continue;
    }
    const uint64_t hash = ChargeHash(row->values);
    row->values[key] = ChargeKey(hash, charges[hash]++);
    const uint64_t fields_hash = LegacyFieldsHash(record.fields);
    row->legacy_key = LegacyKey(fields_hash, legacy[fields_hash]++);
    batch.rows.push_back(std::move(*row));
  }
  if (summary.bad_rows > 0 && bad_rows == BadRows::kRefuse) {
    return Fail(BadRowsError(summary, table.source()));
  }
  batch.summary = std::move(summary);
  return batch;
}

Result<FocusImportSummary> ImportFocus(Ledger& ledger, const std::filesystem::path& file,
                                       BadRows bad_rows) {
  FocusBatch batch = FRUGAL_TRY(ReadFocus(file, bad_rows));
  return ImportFocus(ledger, std::move(batch));
}

}  // namespace frugal::ledger
