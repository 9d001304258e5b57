#include "frugal/audit/report_charts.h"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "frugal/audit/audit_data.h"
#include "frugal/audit/svg_chart.h"

namespace frugal::audit {
namespace {

using ledger::Timestamp;
constexpr size_t kMaxTeams = 6;

/// Adds `cost` spread evenly over [start, end) to the buckets it overlaps.
void Spread(const ReportCharts& c, Timestamp start, Timestamp end, Money cost,
            std::vector<Money>& into) {
  const Duration whole = end - start;
  for (size_t i = 0; i < c.buckets.size(); ++i) {
    const Duration part = Overlap(start, end, c.buckets[i], c.buckets[i] + c.bucket_length);
    if (part.count() <= 0) continue;
    into[i] +=
        whole.count() <= 0
            ? cost
            : cost.Scaled(static_cast<double>(part.count()) / static_cast<double>(whole.count()));
  }
}

/// The series by name, largest first; past `keep` the rest are summed into "other".
std::vector<SpendSeries> Ranked(std::map<std::string, std::vector<Money>>&& by_name, size_t keep) {
  std::vector<SpendSeries> series;
  series.reserve(by_name.size());
  for (auto& [name, values] : by_name) series.push_back({name, std::move(values)});
  std::stable_sort(series.begin(), series.end(), [](const SpendSeries& a, const SpendSeries& b) {
    return a.Total() > b.Total();
  });
  if (series.size() > keep) {
    SpendSeries other{"other", std::vector<Money>(series.front().per_bucket.size())};
    for (size_t k = keep - 1; k < series.size(); ++k) {
      for (size_t i = 0; i < other.per_bucket.size(); ++i)
        other.per_bucket[i] += series[k].per_bucket[i];
    }
    series.resize(keep - 1);
    series.push_back(std::move(other));
  }
  return series;
}

/// FOCUS 1.0 PricingCategory as a tier: Standard is on demand, Dynamic is spot, Committed
/// (Commitment-Based in the 1.0 previews) is reserved; Other and empty stay apart.
std::string TierOfBill(const BillingFact& b) {
  if (b.pricing_category == "Standard" || b.pricing_category == "On-Demand") return "on_demand";
  if (b.pricing_category == "Dynamic") return "spot";
  if (b.pricing_category == "Committed" || b.pricing_category == "Commitment-Based") {
    return "reserved";
  }
  return "billed (other)";
}

size_t UtilBucket(double util) {
  return std::min<size_t>(9, static_cast<size_t>(std::max(util, 0.0) / 10));
}

void Buckets(const AuditOptions& o, ReportCharts& c) {
  const double days = ToHours(o.now - o.since) / 24;
  const int bucket_days = days > 420 ? 30 : days >= 28 ? 7 : 1;
  c.bucket_length = std::chrono::hours(24 * bucket_days);
  for (Timestamp t = o.since; t < o.now; t += c.bucket_length) c.buckets.push_back(t);
}

/// Spend per bucket by team and by tier, as the charts stack it.
struct SpendTally {
  explicit SpendTally(const ReportCharts& charts) : c(charts), zeros(charts.buckets.size()) {}

  void Add(const std::string& team, const std::string& tier, Timestamp start, Timestamp end,
           Money cost) {
    Spread(c, start, end, cost, teams.try_emplace(team, zeros).first->second);
    Spread(c, start, end, cost, tiers.try_emplace(tier, zeros).first->second);
  }

  const ReportCharts& c;
  const std::vector<Money> zeros;
  std::map<std::string, std::vector<Money>> teams;
  std::map<std::string, std::vector<Money>> tiers;
};

void AddRunSpend(const RunFacts& r, const AuditOptions& o, SpendTally& tally) {
  const std::string team = r.run.tags.team.empty() ? "(no team)" : r.run.tags.team;
  for (const ledger::Segment& s : r.segments) {
    const Timestamp end = std::min(s.end.value_or(o.now), o.now);
    const Money cost = s.offer.price.For(end - s.start);
    tally.Add(team, std::string(CapacityTierName(s.offer.tier)), s.start, end, cost);
  }
}

// Run-hours by utilization: each clock hour with samples, weighted by the GPU time in it.
void AddRunUtilHours(const RunFacts& r, const AuditOptions& o, ReportCharts& c) {
  for (const auto& [hour, util] : HourlyGpuUtil(r)) {
    const Timestamp from = ledger::FromMillis(hour * 3'600'000);
    Duration held(0);
    for (const ledger::Segment& s : r.segments) {
      if (s.offer.gpu_count > 0) {
        held += Overlap(s.start, s.end.value_or(o.now), from, from + std::chrono::hours(1));
      }
    }
    c.util_hours[UtilBucket(util)] += ToHours(held);
  }
}

void AddUnlinkedBills(const AuditData& data, SpendTally& tally) {
  for (const BillingFact& b : data.billing) {
    if (b.run_id) continue;  // a linked row is the run's own spend, counted above
    const std::string team = BillingTag(b, "team");
    tally.Add(team.empty() ? "(no team)" : team, TierOfBill(b), b.start, b.end, b.billed);
  }
}

// Capacity the inventory lists bills whether or not a run used it.
void AddInventorySpend(const AuditData& data, const AuditOptions& o, SpendTally& tally) {
  for (const InventorySpend& spend : InventorySpendOf(data, o)) {
    const InventoryInstance& i = *spend.instance;
    const Timestamp start = std::max(spend.start, o.since);
    if (start >= o.now) continue;
    const Money cost = spend.Between(start, o.now);
    tally.Add(i.tags.team.empty() ? "(no team)" : i.tags.team,
              std::string(CapacityTierName(i.tier)), start, o.now, cost);
  }
}

void AddInventoryUtilHours(const AuditOptions& o, ReportCharts& c) {
  if (o.inventory == nullptr) return;
  for (const InventoryInstance& i : o.inventory->instances) {
    for (const UtilizationSpan& s : i.history) {
      c.util_hours[UtilBucket(s.gpu_util_pct)] += ToHours(Overlap(s.start, s.end, o.since, o.now));
    }
  }
}

// The findings' monthly savings summed by rule, largest first.
void RankSavings(const std::vector<Finding>& findings, ReportCharts& c) {
  std::map<std::string, Money> by_rule;
  for (const Finding& f : findings) {
    if (f.saving_per_month && *f.saving_per_month > Money()) by_rule[f.rule] += *f.saving_per_month;
  }
  c.savings_by_rule.assign(by_rule.begin(), by_rule.end());
  std::stable_sort(c.savings_by_rule.begin(), c.savings_by_rule.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
}

}  // namespace

Money SpendSeries::Total() const {
  Money total;
  for (Money m : per_bucket) total += m;
  return total;
}

void BuildCharts(const AuditData& data, const AuditOptions& o, AuditResult& out) {
  ReportCharts& c = out.charts;
  Buckets(o, c);
  SpendTally tally(c);
  for (const RunFacts& r : data.runs) {
    AddRunSpend(r, o, tally);
    AddRunUtilHours(r, o, c);
  }
  AddUnlinkedBills(data, tally);
  AddInventorySpend(data, o, tally);
  AddInventoryUtilHours(o, c);
  c.spend_by_team = Ranked(std::move(tally.teams), kMaxTeams);
  c.spend_by_tier = Ranked(std::move(tally.tiers), kMaxTeams);
  RankSavings(out.findings, c);
}

std::vector<RenderedChart> RenderCharts(const AuditResult& result) {
  const ReportCharts& c = result.charts;
  std::vector<RenderedChart> charts;
  std::vector<std::string> labels;
  for (Timestamp t : c.buckets) {
    labels.push_back(fmt::format("{:%m-%d}", std::chrono::floor<std::chrono::days>(t)));
  }
  auto spend = [&](const std::string& title, const std::vector<SpendSeries>& series) {
    BarChart chart{title, "$", labels, {}};
    for (const SpendSeries& s : series) {
      std::vector<double> v;
      for (Money m : s.per_bucket) v.push_back(m.dollars());
      chart.series.push_back({s.name, std::move(v)});
    }
    if (!chart.series.empty()) charts.push_back({title, StackedBarSvg(chart)});
  };
  const std::string per = c.bucket_length >= std::chrono::hours(24 * 7)
                              ? fmt::format("per {} days", ToHours(c.bucket_length) / 24)
                              : "per day";
  spend("Spend by team, " + per, c.spend_by_team);
  spend("Spend by pricing tier, " + per, c.spend_by_tier);
  double hours = 0;
  for (double h : c.util_hours) hours += h;
  if (hours > 0) {
    BarChart hist{"GPU utilization over run-hours", " h", {}, {{"run-hours", {}}}};
    for (size_t i = 0; i < c.util_hours.size(); ++i) {
      hist.labels.push_back(fmt::format("{}–{}%", i * 10, i * 10 + 10));
      hist.series[0].values.push_back(c.util_hours[i]);
    }
    charts.push_back({hist.title, StackedBarSvg(hist)});
  }
  if (!c.savings_by_rule.empty()) {
    BarChart bars{"Saving per month by rule", "$", {}, {{"saving", {}}}};
    for (const auto& [rule, money] : c.savings_by_rule) {
      bars.labels.push_back(rule);
      bars.series[0].values.push_back(money.dollars());
    }
    charts.push_back({bars.title, HorizontalBarSvg(bars)});
  }
  return charts;
}

}  // namespace frugal::audit
