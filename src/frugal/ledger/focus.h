#pragma once
// FOCUS (FinOps Open Cost and Usage Specification) CSV: export what frugal measured as FOCUS
// 1.2 rows, and import cloud bills in FOCUS into the ledger's billing rows, kept apart from
// measured segments.
//
// Export: one row per segment per calendar month it touched (a charge period never crosses
// its billing period), UTC times as YYYY-MM-DDTHH:MM:SSZ, nulls as empty unquoted fields
// (never empty strings), Tags as a JSON object, frugal's own columns prefixed x_.
// PricingCategory: on-demand → Standard, spot → Dynamic, reserved → Committed.

#include <filesystem>
#include <map>
#include <ostream>
#include <string>
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

struct FocusImportSummary {
  int64_t rows = 0;                          ///< data rows read
  int64_t imported = 0;                      ///< new billing rows
  int64_t duplicates = 0;                    ///< already in the ledger (same file imported before)
  int64_t linked = 0;                        ///< rows linked to a frugal run (x_RunId)
  Money billed;                              ///< BilledCost of the rows imported now
  std::vector<std::string> skipped;          ///< "file:line:col: why", one per skipped row
  std::map<std::string, int64_t> repaired;   ///< quirk → rows where it was tolerated
  std::vector<std::string> ignored_columns;  ///< non-FOCUS columns without the x_ prefix
};

/// A FOCUS file read and checked, not yet in any ledger: the billing rows to insert and the
/// summary of what reading found (rows, skipped, repaired, ignored columns).
struct FocusBatch {
  std::vector<Row> rows;
  FocusImportSummary summary;
};

/// The reading half of ImportFocus: every check, no ledger needed, so a command can refuse a
/// bad file before it opens (or creates) one. kBadInput as for ImportFocus.
[[nodiscard]] Result<FocusBatch> ReadFocus(const std::filesystem::path& file);

/// The writing half: inserts `batch` in one transaction and completes its summary (imported,
/// duplicates, linked, billed).
[[nodiscard]] Result<FocusImportSummary> ImportFocus(Ledger& ledger, FocusBatch batch);

/// Imports a FOCUS CSV file (1.0 to 1.2). Tolerates real-export quirks: space-separated
/// datetimes, literal NULL and empty-string nulls, case variants of allowed values, a number
/// shifted into AvailabilityZone, padded tag keys; each is counted in `repaired`. A row whose
/// cost or charge period cannot be read, or whose field count is not the header's, is skipped
/// and reported. Re-importing the same file
/// adds nothing. kBadInput when the file is not FOCUS (required columns missing).
[[nodiscard]] Result<FocusImportSummary> ImportFocus(Ledger& ledger,
                                                     const std::filesystem::path& file);

}  // namespace frugal::ledger
