#pragma once
// FOCUS (FinOps Open Cost and Usage Specification) CSV: export what frugal measured as FOCUS
// 1.2 rows, and import cloud bills in FOCUS into the ledger's billing rows, kept apart from
// measured segments.
//
// Export: one row per segment per calendar month it touched (a charge period never crosses
// its billing period), UTC times as YYYY-MM-DDTHH:MM:SSZ, nulls as empty unquoted fields
// (never empty strings), Tags as a JSON object, frugal's own columns prefixed x_; x_RunId and
// x_RunName carry the run's name (the run id users know), never the ledger's row number.
// PricingCategory: on-demand → Standard, spot → Dynamic, reserved → Committed.

#include <filesystem>
#include <map>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "frugal/core/error.h"
#include "frugal/ledger/ledger.h"

namespace frugal::ledger {

/// The FOCUS 1.2 columns in export order, followed by frugal's x_ columns.
[[nodiscard]] const std::vector<std::string>& FocusExportColumns();

struct FocusExportOptions {
  Timestamp since{};
  Timestamp until{};  ///< exclusive
  Timestamp now{};    ///< open segments are charged up to here
  std::string billing_account_id = "frugal";
  std::string billing_account_name = "frugal ledger";
};

/// Writes the header and one row per segment-month overlapping [since, until). Returns the
/// number of data rows.
[[nodiscard]] Result<int64_t> ExportFocus(Ledger& ledger, const FocusExportOptions& options,
                                          std::ostream& out);

/// An amount to 18 decimals: whole micro-dollars (toward zero) and the rest in 10^-18 dollars,
/// of the same sign (|attos| < 10^12). The ledger keeps micro-dollars; the import rounds so
/// that a column's total is kept (ImportFocus). Digits past the 18th decimal are dropped.
struct FineAmount {
  int64_t micros = 0;
  int64_t attos = 0;
};

struct FocusImportSummary {
  int64_t rows = 0;        ///< data rows read
  int64_t imported = 0;    ///< new billing rows
  int64_t duplicates = 0;  ///< charges already in the ledger (the same bill imported before)
  int64_t linked = 0;      ///< rows linked to a frugal run (x_RunId, else x_RunName)
  Money billed;            ///< BilledCost of the rows imported now, as stored
  /// The exact BilledCost of the rows imported now, as plain decimal text (up to 18 decimals):
  /// `billed` is this rounded half to even to the micro-dollar.
  std::string billed_exact = "0";
  /// Rows imported now with an amount (BilledCost, EffectiveCost, ListCost) finer than a
  /// micro-dollar. Such amounts are stored rounded down or up to the micro-dollar so that each
  /// column's total over the import is the exact total rounded half to even: those with the
  /// largest remainders round up, as many as the total needs (the largest-remainder method).
  int64_t sub_micro_rows = 0;
  /// "file:line:col: Field why", one per problem of a bad row; with BadRows::kSkip these rows
  /// were left out.
  std::vector<std::string> skipped;
  int64_t bad_rows = 0;  ///< rows with at least one entry in `skipped`
  /// "file:line: why" for rows that name a run this ledger has not, or names that disagree;
  /// those rows are imported unlinked.
  std::vector<std::string> warnings;
  std::map<std::string, int64_t> repaired;   ///< quirk → rows where it was tolerated
  std::vector<std::string> ignored_columns;  ///< non-FOCUS columns without the x_ prefix
};

/// One readable row of a FOCUS file, ready to insert.
struct FocusBatchRow {
  Row values;              ///< billing_rows values in BillingRowColumns() order (focus_key.h)
  std::string file;        ///< as errors name it
  int line = 0;            ///< where the row starts
  std::string run_id;      ///< x_RunId as written ("" when null or absent)
  std::string run_name;    ///< x_RunName as written ("" when null or absent)
  std::string legacy_key;  ///< the key frugal gave this row before ledger schema 5
  /// The exact amounts of the money columns the row has: (index in `values`, amount). The
  /// row's key is hashed from each rounded on its own (half away from zero); what is stored
  /// keeps the column's total (see FocusImportSummary::sub_micro_rows).
  std::vector<std::pair<size_t, FineAmount>> amounts;
};

/// A FOCUS file read and checked, not yet in any ledger: the billing rows to insert and the
/// summary of what reading found (rows, bad rows, repaired, ignored columns).
struct FocusBatch {
  std::vector<FocusBatchRow> rows;
  FocusImportSummary summary;
};

/// What an import does with rows it cannot read (a cost or charge period that is not one, a
/// currency other than USD, a field count not the header's).
enum class BadRows {
  kRefuse,  ///< the file is refused whole: kBadInput listing every bad row; nothing imported
  kSkip,    ///< the other rows are imported; the bad ones are listed in `skipped`
};

/// The reading half of ImportFocus: every check, no ledger needed, so a command can refuse a
/// bad file before it opens (or creates) one. kBadInput when the file is not FOCUS (required
/// columns missing), is not CSV (e.g. it ends inside a quoted field), or, with
/// BadRows::kRefuse, has a bad row.
[[nodiscard]] Result<FocusBatch> ReadFocus(const std::filesystem::path& file,
                                           BadRows bad_rows = BadRows::kRefuse);

/// The writing half: inserts `batch` in one transaction and completes its summary (imported,
/// duplicates, linked, billed, warnings). A row is linked to the run whose name (the run id
/// `frugal run` prints) is its x_RunId, or its x_RunName when it has no x_RunId.
[[nodiscard]] Result<FocusImportSummary> ImportFocus(Ledger& ledger, FocusBatch batch);

/// What an import did with amounts finer than a micro-dollar, for people: "3 rows have amounts
/// finer than a micro-dollar: each column's total is kept (BilledCost 0.0000012 in the file,
/// 0.000001 stored)"; "" when no row had one.
[[nodiscard]] std::string SubMicroNote(const FocusImportSummary& summary);

/// Imports a FOCUS CSV file (1.0 to 1.2). Tolerates real-export quirks: space-separated
/// datetimes, literal NULL and empty-string nulls, case variants of allowed values, a number
/// shifted into AvailabilityZone, padded tag keys; each is counted in `repaired`. Bad rows as
/// `bad_rows` says. A charge already in the ledger is not imported again, however the file
/// spells it (focus_key.h). kBadInput as for ReadFocus.
[[nodiscard]] Result<FocusImportSummary> ImportFocus(Ledger& ledger,
                                                     const std::filesystem::path& file,
                                                     BadRows bad_rows = BadRows::kRefuse);

}  // namespace frugal::ledger
