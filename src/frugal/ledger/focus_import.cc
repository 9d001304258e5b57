// FOCUS import: cloud bills into billing_rows, tolerant of what real exports do.

#include <fmt/format.h>

#include <cmath>
#include <set>
#include <unordered_map>

#include "frugal/core/csv.h"
#include "frugal/core/text.h"
#include "frugal/ledger/focus.h"

namespace frugal::ledger {
namespace {

constexpr const char* kQuirkLiteralNull = "literal NULL read as null";
constexpr const char* kQuirkEmptyNull = "empty string read as null";
constexpr const char* kQuirkSpaceTime = "space-separated datetime read as UTC";
constexpr const char* kQuirkCase = "allowed value in the wrong case normalized";
constexpr const char* kQuirkShifted = "number in AvailabilityZone (shifted column) dropped";
constexpr const char* kQuirkTagKeys = "padded tag keys trimmed";
constexpr const char* kQuirkBadTags = "unreadable Tags dropped";
constexpr const char* kQuirkListCost = "ListCost differs from ListUnitPrice x PricingQuantity";

uint64_t Fnv1a(std::string_view text, uint64_t hash = 1469598103934665603ull) {
  for (char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ull;
  }
  return hash;
}

bool IsFocusColumn(const std::string& name) {
  static const std::set<std::string> known = [] {
    std::set<std::string> s;
    for (const std::string& c : FocusExportColumns()) s.insert(c);
    // Columns of FOCUS 1.0/1.1 that 1.2 kept under other names or dropped.
    s.insert("ProviderName");
    s.insert("SkuPriceDetails");
    return s;
  }();
  return known.contains(name) || name.starts_with("x_");
}

/// One CSV row with FOCUS null handling and quirk counting.
class FocusRow {
 public:
  FocusRow(const CsvTable& table, const CsvRecord& record, FocusImportSummary& summary)
      : table_(table), record_(record), summary_(summary) {}

  std::optional<std::string> Get(std::string_view column) {
    std::optional<size_t> index = table_.Column(column);
    if (!index) return std::nullopt;
    const std::string& raw = CsvTable::Field(record_, *index);
    if (raw == "NULL" || raw == "null") {
      Note(kQuirkLiteralNull);
      return std::nullopt;
    }
    if (raw.empty()) {
      // An empty field is how strict CSV writes a null; count it only where FOCUS makes the
      // column non-nullable text or the file mixes both styles.
      if (mixed_nulls_) Note(kQuirkEmptyNull);
      return std::nullopt;
    }
    return raw;
  }

  std::string Where(std::string_view column) const {
    std::optional<size_t> index = table_.Column(column);
    return table_.Where(record_, index.value_or(0));
  }

  Result<Money> RequireMoney(std::string_view column) {
    std::optional<std::string> v = Get(column);
    if (!v) return Fail(ErrorCode::kBadInput, fmt::format("{}: {} is null", Where(column), column));
    return ParseAmount(column, *v);
  }

  std::optional<Money> OptionalMoney(std::string_view column) {
    std::optional<std::string> v = Get(column);
    if (!v) return std::nullopt;
    Result<Money> m = ParseAmount(column, *v);
    return m ? std::optional<Money>(*m) : std::nullopt;
  }

  Result<Timestamp> RequireTime(std::string_view column) {
    std::optional<std::string> v = Get(column);
    if (!v) return Fail(ErrorCode::kBadInput, fmt::format("{}: {} is null", Where(column), column));
    Result<Timestamp> t = ParseTimestamp(*v);
    if (!t)
      return Fail(ErrorCode::kBadInput,
                  fmt::format("{}: {}: {}", Where(column), column, t.error().message));
    if (v->find(' ') != std::string::npos) Note(kQuirkSpaceTime);
    return *t;
  }

  /// The value matched case-insensitively against the allowed ones; nullopt when unknown.
  std::optional<std::string> Allowed(std::string_view column,
                                     std::initializer_list<std::string_view> allowed) {
    std::optional<std::string> v = Get(column);
    if (!v) return std::nullopt;
    for (std::string_view a : allowed) {
      if (*v == a) return v;
      if (ToLower(*v) == ToLower(a)) {
        Note(kQuirkCase);
        return std::string(a);
      }
    }
    return std::nullopt;
  }

  void Note(const char* quirk) {
    if (noted_.insert(quirk).second) summary_.repaired[quirk] += 1;
  }
  void set_mixed_nulls(bool mixed) { mixed_nulls_ = mixed; }

 private:
  Result<Money> ParseAmount(std::string_view column, const std::string& text) {
    Result<Money> m = Money::Parse(text);
    if (m) return m;
    Result<double> d = ParseDouble(text);  // scientific notation ("1.5E-7")
    if (d) {
      Result<Money> checked = Money::FromDollarsChecked(*d);
      if (checked) return checked;
      return Fail(ErrorCode::kBadInput,
                  fmt::format("{}: {}: {}", Where(column), column, checked.error().message));
    }
    return Fail(ErrorCode::kBadInput,
                fmt::format("{}: {} '{}' is not an amount", Where(column), column, text));
  }

  const CsvTable& table_;
  const CsvRecord& record_;
  FocusImportSummary& summary_;
  std::set<std::string> noted_;
  bool mixed_nulls_ = false;
};

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
void NoteQuirks(FocusRow& row) {
  row.Allowed("ChargeFrequency", {"One-Time", "Recurring", "Usage-Based"});
  if (std::optional<std::string> zone = row.Get("AvailabilityZone")) {
    if (ParseDouble(*zone)) row.Note(kQuirkShifted);
  }
  const std::optional<Money> list = row.OptionalMoney("ListCost");
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

/// The billing_rows values of one readable row (column order of kInsertBillingRow); nullopt
/// and a reason in `summary.skipped` when its cost or charge period cannot be read.
std::optional<Row> ReadBillingRow(const CsvTable& table, const CsvRecord& record,
                                  const std::string& source, bool literal_nulls,
                                  std::unordered_map<uint64_t, int>& seen,
                                  FocusImportSummary& summary) {
  // A row cut short (a truncated download) or with stray separators would shift or drop
  // fields; it is skipped whole rather than read partly.
  if (record.fields.size() != table.header().size()) {
    summary.skipped.push_back(fmt::format("{}:{}: {} fields, the header has {}", table.source(),
                                          record.line, record.fields.size(),
                                          table.header().size()));
    return std::nullopt;
  }
  FocusRow row(table, record, summary);
  row.set_mixed_nulls(literal_nulls);
  Result<Money> billed = row.RequireMoney("BilledCost");
  Result<Timestamp> start = billed ? row.RequireTime("ChargePeriodStart") : Result<Timestamp>{};
  Result<Timestamp> end = start ? row.RequireTime("ChargePeriodEnd") : Result<Timestamp>{};
  if (!billed || !start || !end) {
    const Error& e = !billed ? billed.error() : !start ? start.error() : end.error();
    summary.skipped.push_back(e.message);
    return std::nullopt;
  }
  NoteQuirks(row);
  const std::optional<std::string> pricing =
      row.Allowed("PricingCategory", {"Standard", "Dynamic", "Committed", "Other"});
  uint64_t hash = 1469598103934665603ull;
  for (const std::string& f : record.fields) hash = Fnv1a(f + '\x1f', hash);
  // Identical rows in one file stay distinct; the same file again maps onto the same keys.
  const int occurrence = seen[hash]++;
  std::optional<int64_t> run;
  if (std::optional<std::string> id = row.Get("x_RunId")) {
    if (Result<int64_t> parsed = ParseInt(*id)) run = *parsed;
  }
  auto money = [&](const char* column) {
    std::optional<Money> m = row.OptionalMoney(column);
    return m ? Value{m->micros()} : Value{};
  };
  std::optional<std::string> quantity = row.Get("ConsumedQuantity");
  return Row{source,
             fmt::format("{:016x}#{}", hash, occurrence),
             OrNull(row.Get("ProviderName")),
             OrNull(row.Get("BillingAccountId")),
             OrNull(row.Get("SubAccountId")),
             ToMillis(*start),
             ToMillis(*end),
             billed->micros(),
             money("EffectiveCost"),
             money("ListCost"),
             OrNull(row.Get("BillingCurrency")),
             OrNull(row.Get("ChargeCategory")),
             OrNull(pricing),
             OrNull(row.Get("ServiceName")),
             OrNull(row.Get("ResourceId")),
             OrNull(row.Get("RegionId")),
             OrNull(row.Get("SkuId")),
             quantity ? Value{ParseDouble(*quantity).value_or(0)} : Value{},
             OrNull(row.Get("ConsumedUnit")),
             ReadTags(row).dump(),
             OrNull(run),
             ToMillis(Now()),
             OrNull(row.Get("CommitmentDiscountId")),
             OrNull(row.Get("CommitmentDiscountName")),
             OrNull(row.Allowed("CommitmentDiscountStatus", {"Used", "Unused"}))};
}

constexpr size_t kRunIdColumn = 20;
constexpr const char* kInsertBillingRow =
    "INSERT INTO billing_rows (source, row_key, provider, billing_account_id, sub_account_id, "
    "charge_period_start_ms, charge_period_end_ms, billed_cost_micros, effective_cost_micros, "
    "list_cost_micros, billing_currency, charge_category, pricing_category, service_name, "
    "resource_id, region_id, sku_id, consumed_quantity, consumed_unit, tags, run_id, "
    "imported_ms, commitment_discount_id, commitment_discount_name, commitment_discount_status) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (row_key) DO NOTHING RETURNING id";

/// Inserts the rows in one transaction; counts new, duplicate and linked rows.
Result<void> InsertBillingRows(Connection& db, std::vector<Row>& inserts,
                               FocusImportSummary& summary) {
  return Transact(db, TxnMode::kWrite, [&](Connection& c) -> Result<void> {
    summary.imported = summary.duplicates = summary.linked = 0;
    summary.billed = Money();
    for (Row& values : inserts) {
      // Link only to runs this ledger has.
      if (!IsNull(values[kRunIdColumn])) {
        std::vector<Row> found = FRUGAL_TRY(
            c.Query("SELECT id FROM runs WHERE id = ?", std::vector<Value>{values[kRunIdColumn]}));
        if (found.empty()) values[kRunIdColumn] = Value{};
      }
      std::vector<Row> rows = FRUGAL_TRY(c.Query(kInsertBillingRow, values));
      if (rows.empty()) {
        ++summary.duplicates;
        continue;
      }
      ++summary.imported;
      summary.billed += Money::FromMicros(AsInt(values[7]));
      if (!IsNull(values[kRunIdColumn])) ++summary.linked;
    }
    return {};
  });
}

}  // namespace

Result<FocusBatch> ReadFocus(const std::filesystem::path& file) {
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
  std::unordered_map<uint64_t, int> seen;
  for (const CsvRecord& record : table.rows()) {
    ++summary.rows;
    std::optional<Row> row =
        ReadBillingRow(table, record, file.filename().string(), literal_nulls, seen, summary);
    if (row) batch.rows.push_back(std::move(*row));
  }
  batch.summary = std::move(summary);
  return batch;
}

Result<FocusImportSummary> ImportFocus(Ledger& ledger, FocusBatch batch) {
  FRUGAL_TRY(InsertBillingRows(ledger.connection(), batch.rows, batch.summary));
  return std::move(batch.summary);
}

Result<FocusImportSummary> ImportFocus(Ledger& ledger, const std::filesystem::path& file) {
  FocusBatch batch = FRUGAL_TRY(ReadFocus(file));
  return ImportFocus(ledger, std::move(batch));
}

}  // namespace frugal::ledger
