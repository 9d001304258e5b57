// FOCUS import, writing half: a read batch into billing_rows in one transaction, each row
// linked to the frugal run it names, a charge already there never inserted again.

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "frugal/core/text.h"
#include "frugal/ledger/focus.h"
#include "frugal/ledger/focus_key.h"

namespace frugal::ledger {
namespace {

constexpr const char* kQuirkRowNumberRunId =
    "x_RunId a ledger row number (an older frugal's export) linked by x_RunName";

std::string InsertSql() {
  std::string columns;
  std::string marks;
  for (const std::string& column : BillingRowColumns()) {
    columns += (columns.empty() ? "" : ", ") + column;
    marks += marks.empty() ? "?" : ", ?";
  }
  return fmt::format(
      "INSERT INTO billing_rows ({}) VALUES ({}) ON CONFLICT (row_key) DO NOTHING RETURNING id",
      columns, marks);
}

/// Runs by name (the run id `frugal run` prints), looked up once per name. Where several
/// runs share a name, the newest is the run, as for `frugal run` itself.
class RunsByName {
 public:
  explicit RunsByName(Connection& db) : db_(db) {}

  Result<std::optional<int64_t>> Find(const std::string& name) {
    if (auto it = found_.find(name); it != found_.end()) return it->second;
    const std::vector<Value> params = {name};
    const std::vector<Row> rows = FRUGAL_TRY(
        db_.Query("SELECT id FROM runs WHERE name = ? ORDER BY id DESC LIMIT 1", params));
    std::optional<int64_t> id;
    if (!rows.empty()) id = AsInt(rows[0][0]);
    found_.emplace(name, id);
    return id;
  }

 private:
  Connection& db_;
  std::map<std::string, std::optional<int64_t>> found_;
};

struct Link {
  std::optional<int64_t> run;
  std::string warning;         ///< why a row that names a run is not linked
  bool by_row_number = false;  ///< an older frugal's export, linked by x_RunName
};

/// The run a row names. Its x_RunId is the run's name; x_RunName, when also given, must agree.
/// An older frugal wrote the exporting ledger's row number as x_RunId, which means nothing in
/// another ledger: such a row is linked by its x_RunName.
Result<Link> Resolve(RunsByName& runs, const FocusBatchRow& row) {
  Link link;
  if (row.run_id.empty() && row.run_name.empty()) return link;
  auto missing = [&](const char* column, const std::string& name) {
    link.warning = fmt::format("{} '{}' names no run in this ledger", column, name);
    return link;
  };
  if (row.run_id.empty()) {
    link.run = FRUGAL_TRY(runs.Find(row.run_name));
    return link.run ? link : missing("x_RunName", row.run_name);
  }
  const bool disagree = !row.run_name.empty() && row.run_name != row.run_id;
  const std::optional<int64_t> by_id = FRUGAL_TRY(runs.Find(row.run_id));
  if (by_id && disagree) {
    link.warning =
        fmt::format("x_RunId '{}' and x_RunName '{}' disagree", row.run_id, row.run_name);
    return link;
  }
  if (by_id) {
    link.run = by_id;
    return link;
  }
  if (disagree && ParseInt(row.run_id)) {
    link.run = FRUGAL_TRY(runs.Find(row.run_name));
    link.by_row_number = link.run.has_value();
    return link.run ? link : missing("x_RunName", row.run_name);
  }
  return missing("x_RunId", row.run_id);
}

/// One warning per reason, naming the first row and how many more: a bill from another
/// ledger can name the same missing run on thousands of rows.
std::vector<std::string> Warnings(
    const std::vector<std::pair<std::string, const FocusBatchRow*>>& unlinked) {
  std::map<std::string, std::vector<const FocusBatchRow*>> by_reason;
  std::vector<std::string> order;
  for (const auto& [reason, row] : unlinked) {
    auto& rows = by_reason[reason];
    if (rows.empty()) order.push_back(reason);
    rows.push_back(row);
  }
  constexpr size_t kLinesShown = 10;
  std::vector<std::string> warnings;
  for (const std::string& reason : order) {
    const std::vector<const FocusBatchRow*>& rows = by_reason[reason];
    std::string text =
        fmt::format("{}:{}: {}; imported unlinked", rows[0]->file, rows[0]->line, reason);
    if (rows.size() > 1) {
      text += fmt::format(" ({} rows; also line", rows.size());
      for (size_t i = 1; i < rows.size() && i <= kLinesShown; ++i) {
        text += fmt::format("{} {}", i == 1 ? "" : ",", rows[i]->line);
      }
      if (rows.size() > kLinesShown + 1)
        text += fmt::format(" and {} more", rows.size() - 1 - kLinesShown);
      text += ")";
    }
    warnings.push_back(std::move(text));
  }
  return warnings;
}

constexpr int64_t kAttosPerMicro = 1'000'000'000'000;

/// Rounds one money column's amounts to micro-dollars so that what is stored sums to the
/// exact total rounded half to even, moving as few rows as it can (the largest-remainder
/// method): every amount is stored rounded down, then the rows with the largest remainders
/// get a micro-dollar more, as many as the total needs. So no row is off its own amount by a
/// micro-dollar or more, a row well past half a micro-dollar is rounded up, and the sum is off
/// the exact one by at most half a micro-dollar.
class KeptTotal {
 public:
  /// `a` as whole micro-dollars rounded down and the rest in 10^-18 dollars, in [0, 10^12).
  static std::pair<int64_t, int64_t> Split(FineAmount a) {
    return a.attos < 0 ? std::pair{a.micros - 1, a.attos + kAttosPerMicro}
                       : std::pair{a.micros, a.attos};
  }

  /// Counts the amount of a row stored (rounded down) with id `id`.
  void Add(FineAmount a, int64_t id) {
    const auto [floor, rest] = Split(a);
    row_floors_ += floor;
    floors_ += floor;
    rest_ += rest;
    floors_ += rest_ / kAttosPerMicro;
    rest_ %= kAttosPerMicro;
    // Only rows with a remainder can be rounded up.
    if (rest > 0) remainders_.emplace_back(rest, id);
  }

  /// The ids of the rows to store a micro-dollar more: the largest remainders first (the
  /// earlier row among equal ones), as many as rounding the total half to even adds.
  [[nodiscard]] std::vector<int64_t> RoundedUp() const {
    constexpr int64_t kHalf = kAttosPerMicro / 2;
    // floors_ already holds the whole micro-dollars of the remainders' sum; what remains of
    // it decides the last one, half to even.
    const bool up = rest_ > kHalf || (rest_ == kHalf && floors_ % 2 != 0);
    std::vector<std::pair<int64_t, int64_t>> order = remainders_;
    std::stable_sort(order.begin(), order.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    const auto wanted = static_cast<size_t>(floors_ - row_floors_ + (up ? 1 : 0));
    std::vector<int64_t> ids;
    for (size_t i = 0; i < wanted && i < order.size(); ++i) ids.push_back(order[i].second);
    return ids;
  }

  /// The exact total as plain decimal text ("0.0000036").
  [[nodiscard]] std::string ExactTotal() const {
    __extension__ typedef __int128 Int128;
    const Int128 total = static_cast<Int128>(floors_) * kAttosPerMicro + rest_;
    const bool negative = total < 0;
    const Int128 magnitude = negative ? -total : total;
    constexpr Int128 kAttosPerDollar = static_cast<Int128>(kAttosPerMicro) * 1'000'000;
    const auto dollars = static_cast<int64_t>(magnitude / kAttosPerDollar);
    const auto fraction = static_cast<int64_t>(magnitude % kAttosPerDollar);
    std::string text = fmt::format("{}{}.{:018d}", negative ? "-" : "", dollars, fraction);
    while (text.back() == '0') text.pop_back();
    if (text.back() == '.') text.pop_back();
    return text;
  }

  /// What the rows store once those RoundedUp() names get their micro-dollar: the exact total
  /// rounded half to even.
  [[nodiscard]] int64_t StoredMicros() const {
    return row_floors_ + static_cast<int64_t>(RoundedUp().size());
  }

 private:
  int64_t row_floors_ = 0;  ///< the rows' amounts rounded down, summed
  int64_t floors_ = 0;      ///< that plus the whole micro-dollars of the remainders' sum
  int64_t rest_ = 0;        ///< the remainders' sum below a micro-dollar, in [0, 10^12)
  std::vector<std::pair<int64_t, int64_t>> remainders_;  ///< (remainder, row id)
};

/// Gives the rows each column's KeptTotal names their micro-dollar more.
Result<void> RoundUp(Connection& db, const std::map<size_t, KeptTotal>& kept) {
  for (const auto& [column, total] : kept) {
    std::vector<Row> ids;
    for (const int64_t id : total.RoundedUp()) ids.push_back(Row{id});
    if (ids.empty()) continue;
    const std::string& name = BillingRowColumns()[column];
    FRUGAL_TRY(db.ExecuteMany(
        fmt::format("UPDATE billing_rows SET {} = {} + 1 WHERE id = ?", name, name), ids));
  }
  return {};
}

/// One attempt at inserting a batch, inside its transaction: what it has counted so far.
class BatchInsert {
 public:
  BatchInsert(Connection& c, FocusImportSummary& summary) : c_(c), summary_(summary), runs_(c) {}

  /// Rows imported before ledger schema 5 are found by the key they got then, too.
  Result<void> LookForLegacyKeys() {
    legacy_keys_ =
        !FRUGAL_TRY(c_.Query("SELECT 1 FROM billing_rows WHERE legacy_row_key IS NOT NULL "
                             "LIMIT 1"))
             .empty();
    return {};
  }

  /// Inserts `row` (a duplicate is counted, not inserted), linked to its run.
  Result<void> Insert(const FocusBatchRow& row) {
    const Link link = FRUGAL_TRY(Resolve(runs_, row));
    if (legacy_keys_) {
      const std::vector<Value> params = {row.legacy_key};
      if (!FRUGAL_TRY(c_.Query("SELECT 1 FROM billing_rows WHERE legacy_row_key = ?", params))
               .empty()) {
        ++summary_.duplicates;
        return {};
      }
    }
    Row values = row.values;
    values[run_column_] = OrNull(link.run);
    // Stored rounded down; the rows that round up are settled once all are in.
    bool sub_micro = false;
    for (const auto& [column, fine] : row.amounts) {
      values[column] = KeptTotal::Split(fine).first;
      sub_micro = sub_micro || fine.attos != 0;
    }
    const std::vector<Row> inserted = FRUGAL_TRY(c_.Query(insert_, values));
    if (inserted.empty()) {
      ++summary_.duplicates;
      // A row imported before schema 6 gets the description it was stored without.
      FRUGAL_TRY(
          c_.Query("UPDATE billing_rows SET charge_description = ? WHERE row_key = ? AND "
                   "charge_description IS NULL",
                   std::vector<Value>{values[description_column_], values[key_column_]}));
      return {};
    }
    ++summary_.imported;
    for (const auto& [column, fine] : row.amounts) kept_[column].Add(fine, AsInt(inserted[0][0]));
    if (sub_micro) ++summary_.sub_micro_rows;
    // Only what is imported now is worth a word: a duplicate's link was settled before.
    if (!link.warning.empty()) unlinked_.emplace_back(link.warning, &row);
    if (link.by_row_number) summary_.repaired[kQuirkRowNumberRunId] += 1;
    if (link.run) ++summary_.linked;
    return {};
  }

  /// The warnings and totals of what was inserted; the sub-micro amounts rounded up.
  Result<void> Finish() {
    summary_.warnings = Warnings(unlinked_);
    FRUGAL_TRY(RoundUp(c_, kept_));
    const size_t billed_column = BillingRowColumn("billed_cost_micros");
    summary_.billed = Money::FromMicros(kept_[billed_column].StoredMicros());
    summary_.billed_exact = kept_[billed_column].ExactTotal();
    return {};
  }

 private:
  Connection& c_;
  FocusImportSummary& summary_;
  RunsByName runs_;
  const std::string insert_ = InsertSql();
  const size_t run_column_ = BillingRowColumn("run_id");
  const size_t description_column_ = BillingRowColumn("charge_description");
  const size_t key_column_ = BillingRowColumn("row_key");
  bool legacy_keys_ = false;
  /// Billed, effective and list cost, each kept on its own, over the rows inserted now (a
  /// duplicate's were kept when it was).
  std::map<size_t, KeptTotal> kept_;
  std::vector<std::pair<std::string, const FocusBatchRow*>> unlinked_;
};

/// Inserts the rows in one transaction; counts new, duplicate and linked rows.
Result<void> InsertBillingRows(Connection& db, const std::vector<FocusBatchRow>& batch,
                               FocusImportSummary& summary) {
  return Transact(db, TxnMode::kWrite, [&](Connection& c) -> Result<void> {
    // Re-run from scratch when the transaction is retried.
    summary.imported = summary.duplicates = summary.linked = 0;
    summary.billed = Money();
    summary.sub_micro_rows = 0;
    summary.repaired.erase(kQuirkRowNumberRunId);
    BatchInsert insert(c, summary);
    FRUGAL_TRY(insert.LookForLegacyKeys());
    for (const FocusBatchRow& row : batch) FRUGAL_TRY(insert.Insert(row));
    return insert.Finish();
  });
}

}  // namespace

std::string SubMicroNote(const FocusImportSummary& summary) {
  if (summary.sub_micro_rows == 0) return "";
  return fmt::format(
      "{} row{} amounts finer than a micro-dollar, stored rounded so that each cost column's "
      "total is kept (BilledCost {} in the file, {} stored)",
      summary.sub_micro_rows, summary.sub_micro_rows == 1 ? " has" : "s have", summary.billed_exact,
      summary.billed.ToPlainString());
}

Result<FocusImportSummary> ImportFocus(Ledger& ledger, FocusBatch batch) {
  FRUGAL_TRY(InsertBillingRows(ledger.connection(), batch.rows, batch.summary));
  return std::move(batch.summary);
}

}  // namespace frugal::ledger
