#include "frugal/ledger/focus_key.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

namespace frugal::ledger {
namespace {

constexpr uint64_t kFnvOffset = 1469598103934665603ull;

uint64_t Fnv1a(std::string_view text, uint64_t hash) {
  for (char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ull;
  }
  return hash;
}

enum class Kind { kText, kInteger, kReal };

struct KeyedColumn {
  const char* name;
  Kind kind;
};

// The columns that say what was charged, by name and type; the rest of BillingRowColumns()
// (source, row_key, run_id, imported_ms) says where and when it came from.
constexpr KeyedColumn kKeyed[] = {
    {"provider", Kind::kText},
    {"billing_account_id", Kind::kText},
    {"sub_account_id", Kind::kText},
    {"charge_period_start_ms", Kind::kInteger},
    {"charge_period_end_ms", Kind::kInteger},
    {"billed_cost_micros", Kind::kInteger},
    {"effective_cost_micros", Kind::kInteger},
    {"list_cost_micros", Kind::kInteger},
    {"billing_currency", Kind::kText},
    {"charge_category", Kind::kText},
    {"pricing_category", Kind::kText},
    {"service_name", Kind::kText},
    {"resource_id", Kind::kText},
    {"region_id", Kind::kText},
    {"sku_id", Kind::kText},
    {"consumed_quantity", Kind::kReal},
    {"consumed_unit", Kind::kText},
    {"tags", Kind::kText},
    {"commitment_discount_id", Kind::kText},
    {"commitment_discount_name", Kind::kText},
    {"commitment_discount_status", Kind::kText},
};

/// One value as key text; a database may hand back a number as text (or the reverse), so the
/// column's type decides, not the value's.
std::string Canonical(const KeyedColumn& column, const Value& v) {
  if (IsNull(v)) {
    // Rows imported before schema 5 left the currency null where the file had none; the
    // ledger holds US dollars only, so both mean USD.
    return std::string_view(column.name) == "billing_currency" ? "USD" : std::string("\x01null");
  }
  switch (column.kind) {
    case Kind::kInteger:
      return std::to_string(AsInt(v));
    case Kind::kReal:
      return fmt::format("{}", AsDouble(v));
    case Kind::kText:
      break;
  }
  return AsText(v);
}

}  // namespace

const std::vector<std::string>& BillingRowColumns() {
  static const std::vector<std::string> columns = {"source",
                                                   "row_key",
                                                   "provider",
                                                   "billing_account_id",
                                                   "sub_account_id",
                                                   "charge_period_start_ms",
                                                   "charge_period_end_ms",
                                                   "billed_cost_micros",
                                                   "effective_cost_micros",
                                                   "list_cost_micros",
                                                   "billing_currency",
                                                   "charge_category",
                                                   "pricing_category",
                                                   "service_name",
                                                   "resource_id",
                                                   "region_id",
                                                   "sku_id",
                                                   "consumed_quantity",
                                                   "consumed_unit",
                                                   "tags",
                                                   "run_id",
                                                   "imported_ms",
                                                   "commitment_discount_id",
                                                   "commitment_discount_name",
                                                   "commitment_discount_status",
                                                   "charge_description"};
  return columns;
}

size_t BillingRowColumn(std::string_view name) {
  const std::vector<std::string>& columns = BillingRowColumns();
  const auto it = std::find(columns.begin(), columns.end(), name);
  FRUGAL_CHECK(it != columns.end());
  return static_cast<size_t>(it - columns.begin());
}

uint64_t ChargeHash(const Row& values) {
  FRUGAL_CHECK(values.size() == BillingRowColumns().size());
  uint64_t hash = kFnvOffset;
  for (const KeyedColumn& column : kKeyed) {
    hash = Fnv1a(column.name, hash);
    hash = Fnv1a("=", hash);
    hash = Fnv1a(Canonical(column, values[BillingRowColumn(column.name)]), hash);
    hash = Fnv1a("\x1f", hash);
  }
  return hash;
}

std::string ChargeKey(uint64_t hash, int occurrence) {
  return fmt::format("v2:{:016x}#{}", hash, occurrence);
}

uint64_t LegacyFieldsHash(const std::vector<std::string>& fields) {
  uint64_t hash = kFnvOffset;
  for (const std::string& f : fields) hash = Fnv1a(f + '\x1f', hash);
  return hash;
}

std::string LegacyKey(uint64_t hash, int occurrence) {
  return fmt::format("{:016x}#{}", hash, occurrence);
}

Result<void> RecomputeChargeKeys(Connection& db) {
  // Only the keyed columns: this runs at schema 5, before later versions add the others.
  std::string select = "SELECT id";
  for (const KeyedColumn& column : kKeyed) select += fmt::format(", {}", column.name);
  select += " FROM billing_rows ORDER BY id";
  const std::vector<Row> stored = FRUGAL_TRY(db.Query(select));
  std::unordered_map<uint64_t, int> seen;
  std::vector<Row> updates;
  updates.reserve(stored.size());
  for (const Row& r : stored) {
    Row values(BillingRowColumns().size());
    for (size_t i = 0; i < std::size(kKeyed); ++i) {
      values[BillingRowColumn(kKeyed[i].name)] = r[i + 1];
    }
    const uint64_t hash = ChargeHash(values);
    updates.push_back(Row{ChargeKey(hash, seen[hash]++), r[0]});
  }
  // Old keys have no "v2:" prefix, so no new key can collide with one not yet rewritten.
  return db.ExecuteMany("UPDATE billing_rows SET row_key = ? WHERE id = ?", updates);
}

}  // namespace frugal::ledger
