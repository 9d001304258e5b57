#pragma once
// The billing_rows table as FOCUS import fills it, and the key that keeps a charge from being
// imported twice.
//
// Key format (schema 5): "v2:<16 hex digits>#<n>". The hex digits are the FNV-1a hash of the
// row's stored, normalized values, taken by column name: amounts in micro-dollars (each
// rounded on its own, half away from zero: what is stored of an amount finer than a
// micro-dollar may be the other neighbour, where the import kept a column's total, focus.h),
// times in
// UTC milliseconds, quantities as doubles, allowed values in their canonical case, tags as
// normalized JSON, a null currency as USD. So the same charge maps onto the same key whatever
// the file's column order, null spelling ("NULL" or empty) or number format ("8e-07" or
// "0.00000080000"). Only what the ledger keeps counts: the file name, the import time and the
// run link do not. <n> numbers identical rows within one file (0, 1, ...), so a bill that
// really has the same charge twice keeps both.
//
// Before schema 5 the key was "<16 hex digits>#<n>" hashed from the raw field text in file
// order. The migration to schema 5 recomputes every stored row's key from its stored values
// and keeps the old key in legacy_row_key, which the import still matches (see ImportFocus).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "frugal/core/error.h"
#include "frugal/ledger/sql.h"

namespace frugal::ledger {

/// The billing_rows columns an import writes, in the order of a FocusBatchRow's values.
[[nodiscard]] const std::vector<std::string>& BillingRowColumns();

/// Index of a column in BillingRowColumns(); aborts on a name that is not there.
[[nodiscard]] size_t BillingRowColumn(std::string_view name);

/// The hash of a billing row's charge: every column of BillingRowColumns() but the file name,
/// the key, the run link, the import time and the charge description (text about the charge,
/// kept out so that rows keyed before schema 6 keep their keys), normalized as the header
/// comment says.
[[nodiscard]] uint64_t ChargeHash(const Row& values);

/// "v2:<hash>#<occurrence>".
[[nodiscard]] std::string ChargeKey(uint64_t hash, int occurrence);

/// The key frugal gave a row before schema 5: FNV-1a over the raw fields in file order.
[[nodiscard]] uint64_t LegacyFieldsHash(const std::vector<std::string>& fields);
[[nodiscard]] std::string LegacyKey(uint64_t hash, int occurrence);

/// Migration step of schema 5: gives every stored row its charge key (numbering identical
/// charges by id). Runs inside the migration's transaction.
[[nodiscard]] Result<void> RecomputeChargeKeys(Connection& db);

}  // namespace frugal::ledger
