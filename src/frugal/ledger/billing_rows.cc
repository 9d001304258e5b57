#include "frugal/ledger/billing_rows.h"

namespace frugal::ledger {

Result<std::vector<BillingRow>> BillingRowsOverlapping(Ledger& ledger, Timestamp from,
                                                       Timestamp to) {
  const std::vector<Value> params{ToMillis(from), ToMillis(to)};
  std::vector<Row> rows = FRUGAL_TRY(ledger.connection().Query(
      "SELECT provider, resource_id, sku_id, service_name, region_id, charge_period_start_ms, "
      "charge_period_end_ms, billed_cost_micros, tags, run_id, pricing_category, "
      "effective_cost_micros, commitment_discount_id, commitment_discount_name, "
      "commitment_discount_status, charge_description FROM billing_rows "
      "WHERE charge_period_end_ms > ? AND charge_period_start_ms < ? ORDER BY id",
      params));
  std::vector<BillingRow> out;
  for (const Row& r : rows) {
    BillingRow f;
    f.provider = AsText(r[0]);
    f.resource_id = AsText(r[1]);
    f.sku_id = AsText(r[2]);
    f.service_name = AsText(r[3]);
    f.region = AsText(r[4]);
    f.start = FromMillis(AsInt(r[5]));
    f.end = FromMillis(AsInt(r[6]));
    f.billed = Money::FromMicros(AsInt(r[7]));
    f.tags = nlohmann::json::parse(AsText(r[8]), nullptr, /*allow_exceptions=*/false);
    if (!f.tags.is_object()) f.tags = nlohmann::json::object();
    f.run_id = AsOptionalInt(r[9]);
    f.pricing_category = AsText(r[10]);
    if (const std::optional<int64_t> micros = AsOptionalInt(r[11])) {
      f.effective = Money::FromMicros(*micros);
    }
    f.commitment_id = AsText(r[12]);
    f.commitment_name = AsText(r[13]);
    f.commitment_status = AsText(r[14]);
    f.charge_description = AsText(r[15]);
    out.push_back(std::move(f));
  }
  return out;
}

Result<std::vector<std::string>> StudiesCreatedBefore(Ledger& ledger, Timestamp t) {
  const std::vector<Value> params{ToMillis(t)};
  std::vector<std::string> names;
  for (const Row& r : FRUGAL_TRY(ledger.connection().Query(
           "SELECT name FROM studies WHERE created_ms < ? ORDER BY id", params))) {
    names.push_back(AsText(r[0]));
  }
  return names;
}

}  // namespace frugal::ledger
