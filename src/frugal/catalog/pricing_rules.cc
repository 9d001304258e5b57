#include "frugal/catalog/pricing_rules.h"

#include <fmt/format.h>

#include "frugal/core/csv.h"
#include "frugal/core/text.h"

namespace frugal::catalog {

bool PreemptionRate::Matches(const Offer& o) const {
  if (cloud != "*" && cloud != o.cloud) return false;
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
      d.term = Tier::kReserved1y;
    } else if (term_text == "3y") {
      d.term = Tier::kReserved3y;
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
  std::vector<PreemptionRate> out;
  for (const CsvRecord& r : t.rows()) {
    auto v = ParseDouble(CsvTable::Field(r, rate));
    if (!v || *v < 0 || *v > 60) {
      return Fail(ErrorCode::kBadInput,
                  fmt::format("{}: field 'preemptions_per_hour': expected a rate in [0, 60]",
                              t.Where(r, rate)));
    }
    out.push_back(
        {CsvTable::Field(r, cloud), CsvTable::Field(r, gpu), *v, CsvTable::Field(r, source)});
  }
  return out;
}

void DeriveReservedOffers(const std::vector<ReservedDiscount>& discounts,
                          std::vector<Offer>& offers) {
  const size_t n = offers.size();
  for (size_t i = 0; i < n; ++i) {
    if (offers[i].tier != Tier::kOnDemand) continue;
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
  for (Offer& o : offers) {
    if (o.tier != Tier::kSpot || o.preemptions_per_hour > 0) continue;
    for (const PreemptionRate& r : rates) {
      if (r.Matches(o)) {
        o.preemptions_per_hour = r.per_hour;
        break;
      }
    }
  }
}

}  // namespace frugal::catalog
