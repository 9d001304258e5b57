// FOCUS 1.2 export of measured segments.

#include <fmt/format.h>

#include <algorithm>

#include "frugal/core/csv.h"
#include "frugal/core/timestamp.h"
#include "frugal/ledger/focus.h"

namespace frugal::ledger {
namespace {

/// `t` rounded down to a whole second (FOCUS date-times have no fraction).
Timestamp FloorSecond(Timestamp t) {
  const int64_t ms = ToMillis(t);
  return FromMillis(ms - (((ms % 1000) + 1000) % 1000));
}

/// FOCUS date-times are whole seconds: "2026-01-01T00:00:00Z". A period's end is rounded up,
/// so a row's printed period always covers the time it charges and is never empty.
std::string FocusTime(Timestamp t) { return FormatTimestamp(FloorSecond(t)); }
std::string FocusEndTime(Timestamp t) {
  const Timestamp floor = FloorSecond(t);
  return FormatTimestamp(floor == t ? t : floor + std::chrono::seconds(1));
}

std::string Decimal(double v) {
  std::string s = fmt::format("{:.6f}", v);
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

std::string ServiceName(const std::string& cloud) {
  if (cloud == "aws") return "Amazon Elastic Compute Cloud";
  if (cloud == "gcp") return "Compute Engine";
  if (cloud == "azure") return "Virtual Machines";
  return cloud + " compute";
}

std::string ProviderName(const std::string& cloud) {
  if (cloud == "aws") return "AWS";
  if (cloud == "gcp") return "Google Cloud";
  if (cloud == "azure") return "Microsoft";
  return cloud;
}

using Cells = std::map<std::string, std::string>;

/// The commitment discount columns of a segment on a reserved tier.
void AddCommitmentCells(const SegmentOffer& offer, double hours, Cells& c) {
  c["CommitmentDiscountCategory"] = "Usage";
  c["CommitmentDiscountId"] = fmt::format("frugal:{}:{}:{}:{}", offer.cloud, offer.instance_type,
                                          offer.region, CapacityTierName(offer.tier));
  c["CommitmentDiscountName"] =
      fmt::format("{} {} {}", offer.instance_type, offer.region, CapacityTierName(offer.tier));
  c["CommitmentDiscountQuantity"] = Decimal(hours);
  c["CommitmentDiscountStatus"] = "Used";
  c["CommitmentDiscountType"] = "Reserved";
  c["CommitmentDiscountUnit"] = "Hours";
}

/// frugal's own columns (x_): the run and segment a row charges, and its GPUs.
void AddRunCells(const Segment& s, const Run& run, const Utilization& util, double hours,
                 Cells& c) {
  const SegmentOffer& offer = s.offer;
  // A run is known by its name (the run id `frugal run` prints); the ledger's row number
  // means nothing in another ledger, so the import links by name.
  c["x_RunId"] = run.name;
  c["x_RunName"] = run.name;
  c["x_RunStatus"] = std::string(RunStatusName(run.status));
  c["x_SegmentId"] = std::to_string(s.id);
  c["x_SegmentEndReason"] = s.end_reason ? std::string(EndReasonName(*s.end_reason)) : "";
  c["x_GpuModel"] = offer.gpu;
  c["x_GpuCount"] = std::to_string(offer.gpu_count);
  c["x_GpuHours"] = Decimal(hours * offer.gpu_count);
  c["x_GpuUtilization"] = util.gpu_util ? Decimal(*util.gpu_util) : "";
  c["x_Tier"] = CapacityTierName(offer.tier);
}

// One function: the FOCUS columns a segment's row fills, one a line, in the column order.
Cells SegmentCells(const SegmentFact& fact, const Run& run, const Utilization& util, Timestamp from,
                   Timestamp to, const FocusExportOptions& o) {
  const Segment& s = fact.segment;
  const SegmentOffer& offer = s.offer;
  const Duration length = std::chrono::duration_cast<Duration>(to - from);
  const double hours = ToHours(length);
  const Money cost = offer.price.For(length);
  const Rate list = offer.on_demand_price.value_or(offer.price);
  const bool committed = IsReservedTier(offer.tier);
  const std::string pricing = offer.tier == CapacityTier::kSpot ? "Dynamic"
                              : committed                       ? "Committed"
                                                                : "Standard";
  const std::string gpu =
      offer.gpu.empty() ? "no GPU" : fmt::format("{} x{}", offer.gpu, offer.gpu_count);
  Cells c;
  c["AvailabilityZone"] = offer.zone;
  c["BilledCost"] = cost.ToPlainString();
  c["BillingAccountId"] = o.billing_account_id;
  c["BillingAccountName"] = o.billing_account_name;
  c["BillingCurrency"] = "USD";
  c["BillingPeriodStart"] = FocusTime(MonthStart(from, 0));
  c["BillingPeriodEnd"] = FocusTime(MonthStart(from, 1));
  c["ChargeCategory"] = "Usage";
  c["ChargeDescription"] =
      fmt::format("{} on {} {} in {} ({}), frugal run {} segment {}", gpu, offer.cloud,
                  offer.instance_type, offer.region, CapacityTierName(offer.tier), s.run_id, s.id);
  c["ChargeFrequency"] = "Usage-Based";
  c["ChargePeriodStart"] = FocusTime(from);
  c["ChargePeriodEnd"] = FocusEndTime(to);
  if (committed) AddCommitmentCells(offer, hours, c);
  c["ConsumedQuantity"] = Decimal(hours);
  c["ConsumedUnit"] = "Hours";
  c["ContractedCost"] = cost.ToPlainString();
  c["ContractedUnitPrice"] = offer.price.per_hour.ToPlainString();
  c["EffectiveCost"] = cost.ToPlainString();
  c["InvoiceIssuerName"] = ProviderName(offer.cloud);
  c["ListCost"] = list.For(length).ToPlainString();
  c["ListUnitPrice"] = list.per_hour.ToPlainString();
  c["PricingCategory"] = pricing;
  c["PricingCurrency"] = "USD";
  c["PricingCurrencyContractedUnitPrice"] = offer.price.per_hour.ToPlainString();
  c["PricingCurrencyEffectiveCost"] = cost.ToPlainString();
  c["PricingCurrencyListUnitPrice"] = list.per_hour.ToPlainString();
  c["PricingQuantity"] = Decimal(hours);
  c["PricingUnit"] = "Hours";
  c["ProviderName"] = ProviderName(offer.cloud);
  c["PublisherName"] = ProviderName(offer.cloud);
  c["RegionId"] = offer.region;
  c["RegionName"] = offer.region;
  c["ResourceId"] = fmt::format("frugal-run-{}-segment-{}", s.run_id, s.id);
  c["ResourceName"] = run.name;
  c["ResourceType"] = "Virtual Machine";
  c["ServiceCategory"] = "Compute";
  c["ServiceName"] = ServiceName(offer.cloud);
  c["ServiceSubcategory"] = "Virtual Machines";
  c["SkuId"] = offer.instance_type;
  c["SkuMeter"] = "Instance hours";
  c["SkuPriceId"] =
      fmt::format("{}:{}:{}", offer.instance_type, offer.region, CapacityTierName(offer.tier));
  c["SkuPriceDetails"] = nlohmann::json{{"x_GpuModel", offer.gpu},
                                        {"x_GpuCount", offer.gpu_count},
                                        {"x_Tier", CapacityTierName(offer.tier)}}
                             .dump();
  const nlohmann::json tags = run.tags.ToJson();
  if (!tags.empty()) c["Tags"] = tags.dump();
  AddRunCells(s, run, util, hours, c);
  return c;
}

}  // namespace

// A table, one entry a line: the export's columns, in the order they are written.
const std::vector<std::string>& FocusExportColumns() {
  static const std::vector<std::string> kColumns = {"AvailabilityZone",
                                                    "BilledCost",
                                                    "BillingAccountId",
                                                    "BillingAccountName",
                                                    "BillingAccountType",
                                                    "BillingCurrency",
                                                    "BillingPeriodEnd",
                                                    "BillingPeriodStart",
                                                    "CapacityReservationId",
                                                    "CapacityReservationStatus",
                                                    "ChargeCategory",
                                                    "ChargeClass",
                                                    "ChargeDescription",
                                                    "ChargeFrequency",
                                                    "ChargePeriodEnd",
                                                    "ChargePeriodStart",
                                                    "CommitmentDiscountCategory",
                                                    "CommitmentDiscountId",
                                                    "CommitmentDiscountName",
                                                    "CommitmentDiscountQuantity",
                                                    "CommitmentDiscountStatus",
                                                    "CommitmentDiscountType",
                                                    "CommitmentDiscountUnit",
                                                    "ConsumedQuantity",
                                                    "ConsumedUnit",
                                                    "ContractedCost",
                                                    "ContractedUnitPrice",
                                                    "EffectiveCost",
                                                    "InvoiceId",
                                                    "InvoiceIssuerName",
                                                    "ListCost",
                                                    "ListUnitPrice",
                                                    "PricingCategory",
                                                    "PricingCurrency",
                                                    "PricingCurrencyContractedUnitPrice",
                                                    "PricingCurrencyEffectiveCost",
                                                    "PricingCurrencyListUnitPrice",
                                                    "PricingQuantity",
                                                    "PricingUnit",
                                                    "ProviderName",
                                                    "PublisherName",
                                                    "RegionId",
                                                    "RegionName",
                                                    "ResourceId",
                                                    "ResourceName",
                                                    "ResourceType",
                                                    "ServiceCategory",
                                                    "ServiceName",
                                                    "ServiceSubcategory",
                                                    "SkuId",
                                                    "SkuMeter",
                                                    "SkuPriceDetails",
                                                    "SkuPriceId",
                                                    "SubAccountId",
                                                    "SubAccountName",
                                                    "SubAccountType",
                                                    "Tags",
                                                    "x_RunId",
                                                    "x_RunName",
                                                    "x_RunStatus",
                                                    "x_SegmentId",
                                                    "x_SegmentEndReason",
                                                    "x_GpuModel",
                                                    "x_GpuCount",
                                                    "x_GpuHours",
                                                    "x_GpuUtilization",
                                                    "x_Tier"};
  return kColumns;
}

Result<int64_t> ExportFocus(Ledger& ledger, const FocusExportOptions& asked, std::ostream& out) {
  if (asked.until <= asked.since) {
    return Fail(ErrorCode::kBadInput, "export: --until must be after --since");
  }
  // The window's edges fall on whole seconds, so a row clipped there prints exactly the period
  // it charges, and exports of adjacent windows split a segment's cost without a gap or overlap.
  FocusExportOptions options = asked;
  options.since = FloorSecond(asked.since);
  options.until = FloorSecond(asked.until);
  options.now = FloorSecond(asked.now);
  const std::vector<std::string>& columns = FocusExportColumns();
  for (size_t i = 0; i < columns.size(); ++i) out << (i ? "," : "") << columns[i];
  out << "\n";
  std::vector<SegmentFact> facts = FRUGAL_TRY(ledger.SegmentsBetween(options.since, options.until));
  std::map<RunId, std::pair<Run, Utilization>> runs;
  int64_t rows = 0;
  for (const SegmentFact& fact : facts) {
    const Segment& s = fact.segment;
    if (!runs.contains(s.run_id)) {
      Run run = FRUGAL_TRY(ledger.GetRun(s.run_id));
      Utilization util = FRUGAL_TRY(ledger.UtilizationOf(s.run_id));
      runs.emplace(s.run_id, std::make_pair(std::move(run), util));
    }
    const auto& [run, util] = runs.at(s.run_id);
    Timestamp from = std::max(s.start, options.since);
    const Timestamp end = std::min({s.end.value_or(options.now), options.until, options.now});
    while (from < end) {
      const Timestamp to = std::min(end, MonthStart(from, 1));
      const Cells cells = SegmentCells(fact, run, util, from, to, options);
      for (size_t i = 0; i < columns.size(); ++i) {
        auto it = cells.find(columns[i]);
        // A null is an empty, unquoted field; a value is never an empty string.
        if (i) out << ',';
        if (it != cells.end() && !it->second.empty()) out << CsvEscape(it->second);
      }
      out << "\n";
      ++rows;
      from = to;
    }
  }
  if (!out) return Fail(ErrorCode::kFailed, "export: write failed");
  return rows;
}

}  // namespace frugal::ledger
