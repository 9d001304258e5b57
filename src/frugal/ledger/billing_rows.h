#pragma once
// Reading back the imported FOCUS rows (billing_rows) and the studies the audit judges: the
// queries the audit makes of the ledger, kept here with the schema they read.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "frugal/ledger/ledger.h"

namespace frugal::ledger {

/// One imported bill row, as the audit reads it.
struct BillingRow {
  std::string provider;
  std::string resource_id;
  std::string sku_id;
  std::string service_name;
  std::string region;
  std::string pricing_category;  ///< FOCUS PricingCategory: On-Demand, Commitment-Based, ...
  Timestamp start{};
  Timestamp end{};
  Money billed;
  std::optional<Money> effective;  ///< FOCUS EffectiveCost (amortized), when the bill has it
  nlohmann::json tags = nlohmann::json::object();
  std::optional<RunId> run_id;
  std::string commitment_id;       ///< FOCUS CommitmentDiscountId ("" when none)
  std::string commitment_name;     ///< FOCUS CommitmentDiscountName
  std::string commitment_status;   ///< FOCUS CommitmentDiscountStatus: Used, Unused or ""
  std::string charge_description;  ///< FOCUS ChargeDescription ("" when none)
};

/// The imported rows whose charge period overlaps [from, to), in import order.
[[nodiscard]] Result<std::vector<BillingRow>> BillingRowsOverlapping(Ledger& ledger, Timestamp from,
                                                                     Timestamp to);

/// The names of the studies created before `t`, oldest first.
[[nodiscard]] Result<std::vector<std::string>> StudiesCreatedBefore(Ledger& ledger, Timestamp t);

}  // namespace frugal::ledger
