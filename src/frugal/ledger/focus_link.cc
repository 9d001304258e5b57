// FOCUS import, writing half: a read batch into billing_rows in one transaction, each row
// linked to the frugal run it names, a charge already there never inserted again.

#include <fmt/format.h>

#include <map>

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

/// Inserts the rows in one transaction; counts new, duplicate and linked rows.
Result<void> InsertBillingRows(Connection& db, const std::vector<FocusBatchRow>& batch,
                               FocusImportSummary& summary) {
  const std::string insert = InsertSql();
  const size_t run_column = BillingRowColumn("run_id");
  const size_t billed_column = BillingRowColumn("billed_cost_micros");
  const size_t description_column = BillingRowColumn("charge_description");
  const size_t key_column = BillingRowColumn("row_key");
  return Transact(db, TxnMode::kWrite, [&](Connection& c) -> Result<void> {
    // Re-run from scratch when the transaction is retried.
    summary.imported = summary.duplicates = summary.linked = 0;
    summary.billed = Money();
    summary.repaired.erase(kQuirkRowNumberRunId);
    RunsByName runs(c);
    std::vector<std::pair<std::string, const FocusBatchRow*>> unlinked;
    // Rows imported before ledger schema 5 are found by the key they got then, too.
    const bool legacy_keys =
        !FRUGAL_TRY(c.Query("SELECT 1 FROM billing_rows WHERE legacy_row_key IS NOT NULL LIMIT 1"))
             .empty();
    for (const FocusBatchRow& row : batch) {
      const Link link = FRUGAL_TRY(Resolve(runs, row));
      if (legacy_keys) {
        const std::vector<Value> params = {row.legacy_key};
        if (!FRUGAL_TRY(c.Query("SELECT 1 FROM billing_rows WHERE legacy_row_key = ?", params))
                 .empty()) {
          ++summary.duplicates;
          continue;
        }
      }
      Row values = row.values;
      values[run_column] = OrNull(link.run);
      if (FRUGAL_TRY(c.Query(insert, values)).empty()) {
        ++summary.duplicates;
        // A row imported before schema 6 gets the description it was stored without.
        FRUGAL_TRY(
            c.Query("UPDATE billing_rows SET charge_description = ? WHERE row_key = ? AND "
                    "charge_description IS NULL",
                    std::vector<Value>{values[description_column], values[key_column]}));
        continue;
      }
      ++summary.imported;
      // Only what is imported now is worth a word: a duplicate's link was settled before.
      if (!link.warning.empty()) unlinked.emplace_back(link.warning, &row);
      if (link.by_row_number) summary.repaired[kQuirkRowNumberRunId] += 1;
      summary.billed += Money::FromMicros(AsInt(values[billed_column]));
      if (link.run) ++summary.linked;
    }
    summary.warnings = Warnings(unlinked);
    return {};
  });
}

}  // namespace

Result<FocusImportSummary> ImportFocus(Ledger& ledger, FocusBatch batch) {
  FRUGAL_TRY(InsertBillingRows(ledger.connection(), batch.rows, batch.summary));
  return std::move(batch.summary);
}

}  // namespace frugal::ledger
