// Rules over the inventory of running capacity: idle instances, forgotten ones (idle for a
// week, or running for two weeks with no history and no run in the ledger), and committed
// (reserved) instances used below their break-even; and commitments whose bill says a share of
// them went unused (FOCUS CommitmentDiscountStatus).

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "frugal/audit/audit_data.h"
#include "frugal/catalog/twin.h"

namespace frugal::audit {
namespace {

using ledger::Timestamp;

Duration Days(double days) {
  return std::chrono::duration_cast<Duration>(
      std::chrono::duration<double, std::ratio<86400>>(days));
}

/// What an instance bills in a month of `month_days`, used or not.
Money MonthOf(const InventoryInstance& i, const AuditOptions& o) {
  return i.price.per_hour.Scaled(24 * o.thresholds.month_days);
}

/// The instance's history clipped to the window.
std::vector<UtilizationSpan> InWindow(const InventoryInstance& i, const AuditOptions& o) {
  std::vector<UtilizationSpan> spans;
  for (UtilizationSpan s : i.history) {
    s.start = std::max(s.start, o.since);
    s.end = std::min(s.end, o.now);
    if (s.end > s.start) spans.push_back(s);
  }
  return spans;
}

/// Whether every reading of the last `forgotten_idle_days` of history is idle (and the
/// history covers those days).
bool IdleForAWeek(const std::vector<UtilizationSpan>& spans, const AuditOptions& o,
                  Timestamp& from) {
  if (spans.empty()) return false;
  from = spans.back().end - Days(o.thresholds.forgotten_idle_days);
  if (spans.front().start > from) return false;
  return std::all_of(spans.begin(), spans.end(), [&](const UtilizationSpan& s) {
    return s.end <= from || s.gpu_util_pct < o.thresholds.idle_gpu_util_pct;
  });
}

/// Whether a ledger run used capacity like this instance's in [from, now).
bool LedgerUsed(const InventoryInstance& i, const AuditData& data, Timestamp from,
                const AuditOptions& o) {
  for (const RunFacts& r : data.runs) {
    for (const ledger::Segment& s : r.segments) {
      const bool same = s.offer.cloud == i.cloud && s.offer.region == i.region &&
                        (i.instance_type.empty() ? s.offer.gpu == i.gpu
                                                 : s.offer.instance_type == i.instance_type);
      if (same && s.end.value_or(o.now) > from) return true;
    }
  }
  return false;
}

Finding Forgotten(const InventoryInstance& i, std::string evidence, const AuditOptions& o) {
  Finding f;
  f.rule = kForgottenCapacity;
  f.subject = i.Label();
  f.evidence = std::move(evidence);
  f.facts = {{"instance", i.id},
             {"price_per_hour", i.price.per_hour.ToPlainString()},
             {"owner", i.tags.ToJson()}};
  f.saving_per_month = MonthOf(i, o);
  f.saving_basis = fmt::format("{} × 24 h × {} days: it bills every hour it runs",
                               i.price.ToString(), o.thresholds.month_days);
  const std::string owner = i.tags.owner.empty() ? i.tags.team : i.tags.owner;
  f.action = owner.empty() ? "find its owner and terminate it"
                           : fmt::format("ask {} and terminate it", owner);
  return f;
}

/// Whether the instance had idle_min_hours of idle readings (then it is reported as idle).
bool IdleInstance(const InventoryInstance& i, const std::vector<UtilizationSpan>& spans,
                  const AuditOptions& o, AuditResult& out) {
  Duration idle(0);
  for (const UtilizationSpan& s : spans) {
    if (s.gpu_util_pct < o.thresholds.idle_gpu_util_pct) idle += s.end - s.start;
  }
  const double idle_hours = ToHours(idle);
  if (idle_hours < o.thresholds.idle_min_hours) return false;
  const Duration observed = spans.back().end - spans.front().start;
  const Money cost = i.price.For(idle);
  Finding f;
  f.rule = kIdleGpu;
  f.subject = i.Label();
  f.evidence = fmt::format(
      "{:.1f} hours with GPU utilization under {}% in {} of history ({} to {})", idle_hours,
      o.thresholds.idle_gpu_util_pct, FormatDuration(observed),
      ledger::FormatTimestamp(spans.front().start), ledger::FormatTimestamp(spans.back().end));
  f.facts = {{"instance", i.id}, {"idle_hours", idle_hours}, {"idle_cost", cost.ToPlainString()}};
  f.saving_per_month = cost.Scaled(o.thresholds.month_days / (ToHours(observed) / 24));
  f.saving_basis = fmt::format("{} paid for idle hours in {} of history, × {} / history days",
                               cost.ToString(), FormatDuration(observed), o.thresholds.month_days);
  f.action = "stop it when its GPUs go idle (an idle timeout), or share it through a queue";
  out.findings.push_back(std::move(f));
  return true;
}

/// Right-sizing keeps each remaining GPU at most this busy.
constexpr double kRightSizeUtilPct = 80;

/// An instance whose mean GPU utilization over its history is under underutil_gpu_util_pct:
/// the work of its GPUs fits on fewer of them. A ledger run on the same capacity is judged by
/// the run rules instead.
void UnderusedInstance(const InventoryInstance& i, const std::vector<UtilizationSpan>& spans,
                       const AuditData& data, const AuditOptions& o, AuditResult& out) {
  Duration observed(0);
  double util_hours = 0;
  for (const UtilizationSpan& s : spans) {
    observed += s.end - s.start;
    util_hours += s.gpu_util_pct * ToHours(s.end - s.start);
  }
  const double hours = ToHours(observed);
  if (hours * 60 < o.thresholds.underutil_min_minutes || hours <= 0) return;
  const double mean = util_hours / hours;
  if (mean >= o.thresholds.underutil_gpu_util_pct) return;
  if (LedgerUsed(i, data, spans.front().start, o)) return;
  Finding f;
  f.rule = kUnderutilized;
  f.subject = i.Label();
  f.evidence = fmt::format("mean GPU utilization {:.0f}% over {} of history on {}x {} ({} to {})",
                           mean, FormatDuration(observed), i.gpu_count, i.gpu,
                           ledger::FormatTimestamp(spans.front().start),
                           ledger::FormatTimestamp(spans.back().end));
  f.facts = {{"instance", i.id},
             {"mean_gpu_util_pct", mean},
             {"gpus", i.gpu_count},
             {"gpu_hours", hours * i.gpu_count},
             {"gpu", i.gpu}};
  // The busy GPU-time of all its GPUs, packed onto the fewest that stay under the ceiling.
  const int needed =
      std::max(1, static_cast<int>(std::ceil(i.gpu_count * mean / kRightSizeUtilPct - 1e-9)));
  if (needed >= i.gpu_count) {
    f.saving_basis = fmt::format(
        "not computed: its {} GPU(s) would each stay above {:.0f}% busy on fewer, so only a "
        "smaller GPU model could save, and the inventory gives no memory use to show one fits",
        i.gpu_count, kRightSizeUtilPct);
    f.action = "raise utilization (larger batch, more data-loader workers) or share it";
    out.findings.push_back(std::move(f));
    return;
  }
  const Money paid = i.price.For(observed);
  const Money saving = paid.Scaled(1.0 - static_cast<double>(needed) / i.gpu_count);
  f.saving_per_month = saving.Scaled(o.thresholds.month_days / (hours / 24));
  f.saving_basis = fmt::format(
      "{} paid over {} of history × (1 − {} of {} GPUs) = {}, × {} / history days; {} GPUs "
      "carry its {:.0f}% mean at most {:.0f}% busy each, at the same price per GPU",
      paid.ToString(), FormatDuration(observed), needed, i.gpu_count, saving.ToString(),
      o.thresholds.month_days, needed, mean, kRightSizeUtilPct);
  f.action = fmt::format("move its work to {}x {} (or pack more jobs onto it)", needed, i.gpu);
  f.facts["right_size_gpus"] = needed;
  out.findings.push_back(std::move(f));
}

}  // namespace

void InventoryIdleAndForgotten(const AuditData& data, const AuditOptions& o, AuditResult& out) {
  if (o.inventory == nullptr) return;
  for (const InventoryInstance& i : o.inventory->instances) {
    // Committed capacity is paid whether it runs or not: UnderusedCommitments judges it.
    if (IsReservedTier(i.tier)) continue;
    const std::vector<UtilizationSpan> spans = InWindow(i, o);
    Timestamp from{};
    if (IdleForAWeek(spans, o, from)) {
      out.findings.push_back(
          Forgotten(i,
                    fmt::format("GPU utilization under {}% in every reading from {} to {}",
                                o.thresholds.idle_gpu_util_pct, ledger::FormatTimestamp(from),
                                ledger::FormatTimestamp(spans.back().end)),
                    o));
      continue;
    }
    if (!spans.empty()) {
      if (!IdleInstance(i, spans, o, out)) UnderusedInstance(i, spans, data, o, out);
      continue;
    }
    if (!i.launched) {
      out.notes.push_back(fmt::format("{}: {} has neither a launch time nor utilization history",
                                      kForgottenCapacity, i.Label()));
      continue;
    }
    const Timestamp since = o.now - Days(o.thresholds.forgotten_days);
    if (since < o.since) {
      // The runs that could account for it were not loaded: say so rather than guess.
      out.notes.push_back(fmt::format(
          "{}: {} has no utilization {}, and the window is shorter than the {} days "
          "without a run that make it forgotten",
          kForgottenCapacity, i.Label(), i.history.empty() ? "history" : "reading in the window",
          o.thresholds.forgotten_days));
      continue;
    }
    if (*i.launched <= since && !LedgerUsed(i, data, since, o)) {
      out.findings.push_back(
          Forgotten(i,
                    fmt::format("running since {} with no utilization {} and no run in the ledger "
                                "on {} in {} since {}",
                                ledger::FormatTimestamp(*i.launched),
                                i.history.empty() ? "history" : "reading in the window",
                                i.instance_type.empty() ? i.gpu : i.instance_type, i.region,
                                ledger::FormatTimestamp(since)),
                    o));
    }
  }
}

namespace {

/// One commitment's amortized cost in the window, as its bill splits it.
struct BilledCommitment {
  std::string name;
  Money used, unused;
  Timestamp first{Timestamp::max()}, last{Timestamp::min()};
};

/// Commitments the imported bills mark Used and Unused (FOCUS CommitmentDiscountStatus): the
/// unused share of their amortized cost (EffectiveCost) in the window, when it is above
/// commitment_max_unused_pct. Returns whether the bills had any commitment to judge.
bool BilledCommitments(const AuditData& data, const AuditOptions& o, AuditResult& out) {
  std::map<std::string, BilledCommitment> commitments;
  for (const BillingFact& b : data.billing) {
    if (b.commitment_id.empty() || b.end <= b.start) continue;
    if (b.commitment_status != "Used" && b.commitment_status != "Unused") continue;
    // The row's cost in proportion to the part of its charge period inside the window.
    const double inside =
        ToHours(Overlap(b.start, b.end, o.since, o.now)) / ToHours(b.end - b.start);
    if (inside <= 0) continue;
    BilledCommitment& c = commitments[b.commitment_id];
    if (!b.commitment_name.empty()) c.name = b.commitment_name;
    const Money cost = b.effective.value_or(b.billed).Scaled(inside);
    (b.commitment_status == "Used" ? c.used : c.unused) += cost;
    c.first = std::min(c.first, std::max(b.start, o.since));
    c.last = std::max(c.last, std::min(b.end, o.now));
  }
  for (const auto& [id, c] : commitments) {
    const Money total = c.used + c.unused;
    if (total <= Money() || c.unused <= Money()) continue;
    const double unused_share = c.unused.RatioTo(total);
    if (unused_share * 100 <= o.thresholds.commitment_max_unused_pct) continue;
    const double days = ToHours(c.last - c.first) / 24;
    Finding f;
    f.rule = kUnderusedCommitment;
    f.subject = c.name.empty() ? "commitment " + id : fmt::format("commitment {} ({})", c.name, id);
    f.evidence = fmt::format(
        "{} of its {} amortized cost over {:.1f} days of bills went unused ({:.0f}%; FOCUS "
        "CommitmentDiscountStatus Unused)",
        c.unused.ToString(), total.ToString(), days, unused_share * 100);
    f.facts = {{"commitment_id", id},
               {"unused", c.unused.ToPlainString()},
               {"used", c.used.ToPlainString()},
               {"unused_share", unused_share},
               {"days", days}};
    if (days > 0) {
      f.saving_per_month = c.unused.Scaled(o.thresholds.month_days / days);
      f.saving_basis = fmt::format(
          "{} unused in {:.1f} days × {} days: what the unused share costs a month, recovered by "
          "moving on-demand work onto the commitment or by a smaller one at renewal",
          c.unused.ToString(), days, o.thresholds.month_days);
    } else {
      f.saving_basis = "the commitment's bills cover no time in the window";
    }
    f.action =
        "move on-demand work that the commitment covers onto it (same family, region or "
        "service); at renewal, commit to what is used";
    out.findings.push_back(std::move(f));
  }
  return !commitments.empty();
}

// The finding for a reserved instance used (`used`, a share of `observed`) below its
// break-even against the on-demand offer `od`.
Finding BelowBreakEvenFinding(const InventoryInstance& i, const AuditOptions& o, double used,
                              Duration observed, const catalog::Offer& od, double break_even) {
  const Money on_demand_use = od.price.per_hour.Scaled(used);
  Finding f;
  f.rule = kUnderusedCommitment;
  f.subject = i.Label();
  f.evidence = fmt::format(
      "{} busy (GPU utilization ≥ {}%) {:.0f}% of {} of history; break-even {:.0f}% at {} "
      "committed against {} on demand",
      CapacityTierName(i.tier), o.thresholds.idle_gpu_util_pct, used * 100,
      FormatDuration(observed), break_even * 100, i.price.ToString(), od.price.ToString());
  f.facts = {{"instance", i.id},
             {"used_share", used},
             {"break_even", break_even},
             {"on_demand_offer", od.Id()}};
  f.saving_per_month = (i.price.per_hour - on_demand_use).Scaled(24 * o.thresholds.month_days);
  f.saving_basis = fmt::format(
      "({} − {} × {:.1f}% used) × 24 h × {} days: the commitment's month over what its busy "
      "hours cost on demand",
      i.price.ToString(), od.price.ToString(), used * 100, o.thresholds.month_days);
  f.action = fmt::format(
      "move on-demand {} work onto it; at the end of the term do not renew it (or sell it "
      "where the cloud allows)",
      i.instance_type);
  return f;
}

// One reserved instance of the inventory: a finding when its history shows it used below its
// break-even, a note when its history is too short or its on-demand price unknown.
void JudgeReservedInstance(const InventoryInstance& i, const AuditOptions& o, AuditResult& out) {
  const std::vector<UtilizationSpan> spans = InWindow(i, o);
  const Duration observed = spans.empty() ? Duration(0) : spans.back().end - spans.front().start;
  if (ToHours(observed) / 24 < o.thresholds.commitment_min_history_days) {
    out.notes.push_back(fmt::format(
        "{}: {} has {} of utilization history; judging it needs {} days", kUnderusedCommitment,
        i.Label(), FormatDuration(observed), o.thresholds.commitment_min_history_days));
    return;
  }
  Duration busy(0);
  for (const UtilizationSpan& s : spans) {
    if (s.gpu_util_pct >= o.thresholds.idle_gpu_util_pct) busy += s.end - s.start;
  }
  const double used = ToHours(busy) / ToHours(observed);
  const catalog::Offer* od =
      o.catalog != nullptr && !i.instance_type.empty()
          ? catalog::TwinOffer(*o.catalog, {i.cloud, i.instance_type, i.region, ""},
                               CapacityTier::kOnDemand)
          : nullptr;
  if (od == nullptr) {
    out.notes.push_back(fmt::format(
        "{}: {} is used {:.0f}% of the time, but its break-even needs the on-demand price of "
        "'{}' in {} {}, which the catalog does not have",
        kUnderusedCommitment, i.Label(), used * 100, i.instance_type, i.cloud, i.region));
    return;
  }
  const double break_even = i.price.per_hour.RatioTo(od->price.per_hour);
  if (used >= break_even) return;
  out.findings.push_back(BelowBreakEvenFinding(i, o, used, observed, *od, break_even));
}

}  // namespace

void UnderusedCommitments(const AuditData& data, const AuditOptions& o, AuditResult& out) {
  const bool billed = BilledCommitments(data, o, out);
  if (o.inventory == nullptr) {
    if (!billed) {
      out.notes.push_back(fmt::format(
          "{}: commitments are judged from bills that mark their unused share (FOCUS "
          "CommitmentDiscountStatus, --billing FILE) or from the reserved instances of an "
          "inventory (--inventory FILE)",
          kUnderusedCommitment));
    }
    return;
  }
  for (const InventoryInstance& i : o.inventory->instances) {
    if (IsReservedTier(i.tier)) JudgeReservedInstance(i, o, out);
  }
}

}  // namespace frugal::audit
