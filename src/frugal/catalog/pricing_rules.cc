#include "frugal/catalog/pricing_rules.h"

#include <fmt/format.h>

#include <memory>

#include "frugal/core/csv.h"
#include "frugal/core/text.h"

namespace frugal::catalog {

bool PreemptionRate::Matches(const Offer& o) const {
  if (cloud != "*" && cloud != o.cloud) return false;
  if (o.gpu_count < min_gpus) return false;
  if (gpu == "*") return true;
  if (gpu.ends_with('*')) return o.gpu.starts_with(gpu.substr(0, gpu.size() - 1));
  return gpu == o.gpu;
}

Result<std::vector<ReservedDiscount>> ReadReservedDiscounts(const std::filesystem::path& path) {
  const CsvTable t = FRUGAL_TRY(CsvTable::Load(path));
  const size_t cloud = FRUGAL_TRY(t.RequireColumn("cloud"));
  const size_t term = FRUGAL_TRY(t.RequireColumn("term"));
  const size_t discount = FRUGAL_TRY(t.RequireColumn("discount"));
  const size_t source = FRUGAL_TRY(t.RequireColumn("source"));
  std::vector<ReservedDiscount> out;
  for (const CsvRecord& r : t.rows()) {
    ReservedDiscount d;
    d.cloud = CsvTable::Field(r, cloud);
    const std::string& term_text = CsvTable::Field(r, term);
    if (term_text == "1y") {
      d.term = CapacityTier::kReserved1y;
    } else if (term_text == "3y") {
      d.term = CapacityTier::kReserved3y;
    } else {
      return Fail(ErrorCode::kBadInput,
                  fmt::format("{}: field 'term': expected 1y or 3y", t.Where(r, term)));
    }
    auto v = ParseDouble(CsvTable::Field(r, discount));
    if (!v || *v < 0 || *v >= 1) {
      return Fail(
          ErrorCode::kBadInput,
          fmt::format("{}: field 'discount': expected a fraction in [0, 1)", t.Where(r, discount)));
    }
    d.discount = *v;
    d.source = CsvTable::Field(r, source);
    out.push_back(std::move(d));
  }
  return out;
}

Result<std::vector<PreemptionRate>> ReadPreemptionRates(const std::filesystem::path& path) {
  const CsvTable t = FRUGAL_TRY(CsvTable::Load(path));
  const size_t cloud = FRUGAL_TRY(t.RequireColumn("cloud"));
  const size_t gpu = FRUGAL_TRY(t.RequireColumn("gpu"));
  const size_t rate = FRUGAL_TRY(t.RequireColumn("preemptions_per_hour"));
  const size_t source = FRUGAL_TRY(t.RequireColumn("source"));
  const std::optional<size_t> min_gpus = t.Column("min_gpus");
  const std::optional<size_t> available = t.Column("available_share");
  const std::optional<size_t> outage = t.Column("mean_outage_hours");
  // An optional column's value in [low, high], `fallback` when the column is absent.
  const auto number = [&](const CsvRecord& r, std::optional<size_t> column, const char* name,
                          double low, double high, double fallback) -> Result<double> {
    if (!column) return fallback;
    auto v = ParseDouble(CsvTable::Field(r, *column));
    if (!v || !(*v >= low && *v <= high)) {
      return Fail(ErrorCode::kBadInput, fmt::format("{}: field '{}': expected a number in [{:g}, "
                                                    "{:g}]",
                                                    t.Where(r, *column), name, low, high));
    }
    return *v;
  };
  std::vector<PreemptionRate> out;
  for (const CsvRecord& r : t.rows()) {
    PreemptionRate p;
    p.cloud = CsvTable::Field(r, cloud);
    p.gpu = CsvTable::Field(r, gpu);
    p.per_hour = FRUGAL_TRY(number(r, rate, "preemptions_per_hour", 0, 60, 0));
    p.min_gpus = static_cast<int>(FRUGAL_TRY(number(r, min_gpus, "min_gpus", 0, 1024, 0)));
    p.available_share = FRUGAL_TRY(number(r, available, "available_share", 0.01, 1, 1));
    p.mean_outage_hours = FRUGAL_TRY(number(r, outage, "mean_outage_hours", 0, 1000, 0));
    p.source = CsvTable::Field(r, source);
    out.push_back(std::move(p));
  }
  return out;
}

size_t CountReservedOffers(const std::vector<ReservedDiscount>& discounts,
                           const std::vector<Offer>& offers) {
  size_t derived = 0;
  for (const Offer& o : offers) {
    if (o.tier != CapacityTier::kOnDemand) continue;
    for (const ReservedDiscount& d : discounts) derived += d.cloud == o.cloud ? 1u : 0u;
  }
  return derived;
}

void DeriveReservedOffers(const std::vector<ReservedDiscount>& discounts,
                          std::vector<Offer>& offers) {
  const size_t n = offers.size();
  offers.reserve(n + CountReservedOffers(discounts, offers));
  for (size_t i = 0; i < n; ++i) {
    if (offers[i].tier != CapacityTier::kOnDemand) continue;
    for (const ReservedDiscount& d : discounts) {
      if (d.cloud != offers[i].cloud) continue;
      Offer reserved = offers[i];
      reserved.tier = d.term;
      reserved.price = Rate{offers[i].price.per_hour.Scaled(1.0 - d.discount)};
      reserved.price_estimated = true;
      offers.push_back(std::move(reserved));
    }
  }
}

void ApplyPreemptionRates(const std::vector<PreemptionRate>& rates, std::vector<Offer>& offers) {
  std::vector<std::shared_ptr<const std::string>> sources;
  sources.reserve(rates.size());
  for (const PreemptionRate& r : rates)
    sources.push_back(std::make_shared<const std::string>(r.source));
  for (Offer& o : offers) {
    if (o.tier != CapacityTier::kSpot || o.preemptions_per_hour > 0) continue;
    for (size_t i = 0; i < rates.size(); ++i) {
      const PreemptionRate& r = rates[i];
      if (r.Matches(o)) {
        o.preemptions_per_hour = r.per_hour;
        o.spot_risk = {r.available_share, r.mean_outage_hours, sources[i]};
        break;
      }
    }
  }
}

}  // namespace frugal::catalog
