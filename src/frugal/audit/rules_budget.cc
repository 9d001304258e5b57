// Budgets: the burn rate of each team's and project's spend, forecast to the end of the
// budget's period and set against the budget.

#include <fmt/format.h>

#include <vector>

#include "frugal/audit/audit_data.h"
#include "frugal/ledger/report.h"

namespace frugal::audit {
namespace {

using ledger::ForecastSpend;
using ledger::Timestamp;

/// Spend the budget covers in [from, to): ledger segments by their run's tags, plus imported
/// bills not linked to a run by their tags, prorated by how much of their charge period
/// falls inside, plus the inventory's instances by their tags.
Money SpendBetween(const Budget& b, const AuditData& data,
                   const std::vector<InventorySpend>& inventory, Timestamp from, Timestamp to) {
  Money spend;
  for (const InventorySpend& i : inventory) {
    if (b.Covers(i.instance->tags.team, i.instance->tags.project)) spend += i.Between(from, to);
  }
  for (const ledger::SegmentFact& f : data.budget_segments) {
    if (!b.Covers(f.tags.team, f.tags.project)) continue;
    const ledger::Segment& s = f.segment;
    spend += s.offer.price.For(Overlap(s.start, s.end.value_or(to), from, to));
  }
  for (const BillingFact& row : data.budget_billing) {
    if (row.run_id || !b.Covers(BillingTag(row, "team"), BillingTag(row, "project"))) continue;
    const Duration inside = Overlap(row.start, row.end, from, to);
    const Duration whole = row.end - row.start;
    if (whole.count() <= 0) {
      if (row.start >= from && row.start < to) spend += row.billed;
      continue;
    }
    spend +=
        row.billed.Scaled(static_cast<double>(inside.count()) / static_cast<double>(whole.count()));
  }
  return spend;
}

}  // namespace

void BudgetForecasts(const AuditData& data, const AuditOptions& o, AuditResult& out) {
  const double burn_days = o.thresholds.budget_burn_days;
  const Timestamp burn_from = o.now - o.thresholds.BudgetBurnWindow();
  const std::vector<InventorySpend> inventory = InventorySpendOf(data, o);
  for (const Budget& b : o.thresholds.budgets) {
    BudgetStatus st;
    st.budget = b;
    st.period = PeriodAround(b.period, o.now);
    st.spent = SpendBetween(b, data, inventory, st.period.start, o.now);
    st.burn_days = burn_days;
    const Money burned = SpendBetween(b, data, inventory, burn_from, o.now);
    const double days_left = ToHours(st.period.end - o.now) / 24;
    st.burn_per_day = burned.Scaled(1 / burn_days);
    // The report's month forecast is the same function over the same window (report.h).
    st.forecast =
        ForecastSpend(st.spent, burned, std::chrono::duration_cast<Duration>(o.now - burn_from),
                      std::chrono::duration_cast<Duration>(st.period.end - o.now));
    out.budgets.push_back(st);
    if (st.forecast <= b.amount) continue;
    const Money over = st.forecast - b.amount;
    Finding f;
    f.rule = kBudgetForecast;
    f.subject = b.Label();
    f.evidence = fmt::format(
        "{} spent of {} this {} (from {}); burning {}/day over the last {} days, so {} by {}",
        st.spent.ToString(), b.amount.ToString(), BudgetPeriodName(b.period),
        ledger::FormatTimestamp(st.period.start), st.burn_per_day.ToString(), burn_days,
        st.forecast.ToString(), ledger::FormatTimestamp(st.period.end));
    f.facts = {{"budget", b.amount.ToPlainString()},
               {"spent", st.spent.ToPlainString()},
               {"burn_per_day", st.burn_per_day.ToPlainString()},
               {"forecast", st.forecast.ToPlainString()},
               {"overrun", over.ToPlainString()}};
    const bool already = st.spent > b.amount;
    const Money room = already ? Money() : b.amount - st.spent;
    f.saving_basis = fmt::format("not a saving: a forecast overrun of {}", over.ToString());
    f.saving_applies = false;
    f.action = already ? fmt::format("the budget is spent: stop or re-approve {}'s work", b.Label())
                       : fmt::format(
                             "cut the burn to {}/day for the {:.1f} days left (or raise "
                             "the budget)",
                             room.Scaled(1 / std::max(days_left, 1.0 / 24)).ToString(), days_left);
    out.findings.push_back(std::move(f));
  }
}

}  // namespace frugal::audit
