// Rules over the fleet: commitment candidates, untagged spend, studies that pruned nothing,
// forgotten capacity in imported bills.

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "frugal/audit/audit_data.h"
#include "frugal/catalog/twin.h"
#include "frugal/core/text.h"

namespace frugal::audit {
namespace {

using ledger::Segment;
using ledger::Timestamp;
constexpr int64_t kHourMs = 3'600'000;

/// Instances in use in each hour of the window (fractional where a segment covers part of it).
std::vector<double> HourlyUsage(const std::vector<const Segment*>& segments,
                                const AuditOptions& o) {
  const int64_t first = ledger::ToMillis(o.since);
  const auto hours = static_cast<size_t>((ledger::ToMillis(o.now) - first) / kHourMs);
  std::vector<double> usage(hours, 0.0);
  for (const Segment* s : segments) {
    const int64_t begin = std::max(ledger::ToMillis(s->start), first);
    const int64_t end = std::min(ledger::ToMillis(s->end.value_or(o.now)), ledger::ToMillis(o.now));
    for (int64_t t = begin; t < end;) {
      const auto h = static_cast<size_t>((t - first) / kHourMs);
      const int64_t hour_end = first + static_cast<int64_t>(h + 1) * kHourMs;
      const int64_t stop = std::min(end, hour_end);
      if (h < usage.size()) usage[h] += static_cast<double>(stop - t) / kHourMs;
      t = stop;
    }
  }
  return usage;
}

const catalog::Offer* FindOffer(const AuditOptions& o, const ledger::SegmentOffer& s,
                                CapacityTier tier) {
  if (o.catalog == nullptr) return nullptr;
  return catalog::TwinOffer(*o.catalog, {s.cloud, s.instance_type, s.region, s.zone}, tier);
}

bool HasAttribution(const ledger::Tags& tags, const Thresholds& t) {
  return std::any_of(t.attribution_tags.begin(), t.attribution_tags.end(),
                     [&](const std::string& k) { return !tags.Get(k).empty(); });
}

bool HasAttribution(const nlohmann::json& tags, const Thresholds& t) {
  for (const auto& [key, value] : tags.items()) {
    const std::string lower = ToLower(key);
    if (std::find(t.attribution_tags.begin(), t.attribution_tags.end(), lower) !=
            t.attribution_tags.end() &&
        !(value.is_string() && value.get<std::string>().empty())) {
      return true;
    }
  }
  return false;
}

/// Busy stretches of the inventory's on-demand instances as segments (run id 0; the zone
/// field carries the instance id): each reading at or above the idle threshold, merged with
/// the next when they touch.
std::vector<Segment> InventoryBusySegments(const AuditOptions& o) {
  std::vector<Segment> out;
  if (o.inventory == nullptr) return out;
  for (const InventoryInstance& i : o.inventory->instances) {
    if (i.tier != CapacityTier::kOnDemand || i.instance_type.empty()) continue;
    for (const UtilizationSpan& span : i.history) {
      if (span.gpu_util_pct < o.thresholds.idle_gpu_util_pct) continue;
      if (!out.empty() && out.back().offer.zone == i.id && out.back().end == span.start) {
        out.back().end = span.end;
        continue;
      }
      Segment s;
      s.offer.cloud = i.cloud;
      s.offer.instance_type = i.instance_type;
      s.offer.region = i.region;
      s.offer.zone = i.id;
      s.offer.gpu = i.gpu;
      s.offer.gpu_count = i.gpu_count;
      s.offer.price = i.price;
      s.start = span.start;
      s.end = span.end;
      out.push_back(std::move(s));
    }
  }
  return out;
}

using OfferKey = std::tuple<std::string, std::string, std::string>;  // cloud, type, region

/// The on-demand GPU segments of the ledger's runs, then the inventory's busy ones, by offer.
std::map<OfferKey, std::vector<const Segment*>> OnDemandUseByOffer(
    const AuditData& data, const std::vector<Segment>& inventory) {
  std::map<OfferKey, std::vector<const Segment*>> groups;
  for (const RunFacts& r : data.runs) {
    for (const Segment& s : r.segments) {
      if (s.offer.tier == CapacityTier::kOnDemand && s.offer.gpu_count > 0) {
        groups[{s.offer.cloud, s.offer.instance_type, s.offer.region}].push_back(&s);
      }
    }
  }
  for (const Segment& s : inventory) {
    groups[{s.offer.cloud, s.offer.instance_type, s.offer.region}].push_back(&s);
  }
  return groups;
}

/// A commitment to `level` instances of one offer, and what the window would have cost with
/// and without it.
struct CommitmentSizing {
  double discount = 0;
  double level = 0;
  double instance_hours = 0;
  double overflow_hours = 0;
  Money price;  // what was paid on demand, per hour
  Money without;
  Money with;
};

/// The level worth committing to given the hourly `usage`; nullopt when the catalog lacks the
/// offer's prices, the commitment has no discount, or committing would not save.
std::optional<CommitmentSizing> SizeCommitment(const ledger::SegmentOffer& offer,
                                               const std::vector<double>& usage,
                                               const AuditOptions& o) {
  const catalog::Offer* od = FindOffer(o, offer, CapacityTier::kOnDemand);
  const catalog::Offer* committed = FindOffer(o, offer, o.thresholds.commitment_tier);
  if (od == nullptr || committed == nullptr || od->price.per_hour.IsZero()) return std::nullopt;
  CommitmentSizing c;
  c.discount = 1 - committed->price.per_hour.RatioTo(od->price.per_hour);
  if (c.discount <= 0) return std::nullopt;
  // The level kept busy in a (1 − discount) share of hours: above it, a committed instance
  // would be idle often enough that on-demand is cheaper.
  std::vector<double> sorted = usage;
  std::sort(sorted.begin(), sorted.end(), std::greater<>());
  const auto index =
      static_cast<size_t>(std::ceil((1 - c.discount) * static_cast<double>(sorted.size())));
  c.level = std::floor(sorted[std::max<size_t>(index, 1) - 1] + 1e-9);
  if (c.level < 1) return std::nullopt;
  c.price = offer.price.per_hour;
  for (double u : usage) {
    c.instance_hours += u;
    c.overflow_hours += std::max(u - c.level, 0.0);
  }
  c.without = c.price.Scaled(c.instance_hours);
  c.with = c.price.Scaled((1 - c.discount) * c.level * static_cast<double>(usage.size())) +
           c.price.Scaled(c.overflow_hours);
  if (c.with >= c.without) return std::nullopt;
  return c;
}

Finding CommitmentFinding(const std::vector<const Segment*>& segments,
                          const std::vector<double>& usage, const CommitmentSizing& c,
                          double window_days, const AuditOptions& o) {
  const ledger::SegmentOffer& offer = segments.front()->offer;
  Finding f;
  f.rule = kCommitment;
  f.subject = fmt::format("{} {} {}", offer.cloud, offer.instance_type, offer.region);
  std::set<std::string> instances;
  for (const Segment* s : segments) {
    if (s->run_id == 0) {
      instances.insert(s->offer.zone);
    } else if (std::find(f.runs.begin(), f.runs.end(), s->run_id) == f.runs.end()) {
      f.runs.push_back(s->run_id);
    }
  }
  f.evidence = fmt::format(
      "{:.0f} instance-hours on demand over {:.0f} days (mean {:.2f} instances); {} or more "
      "in use {:.0f}% of hours",
      c.instance_hours, window_days, c.instance_hours / static_cast<double>(usage.size()), c.level,
      100.0 *
          static_cast<double>(std::count_if(usage.begin(), usage.end(),
                                            [&](double u) { return u >= c.level - 1e-9; })) /
          static_cast<double>(usage.size()));
  f.facts = {{"level", c.level},
             {"discount", c.discount},
             {"break_even_utilization", 1 - c.discount},
             {"instance_hours", c.instance_hours}};
  if (!instances.empty()) {
    f.facts["inventory_instances"] = std::vector<std::string>(instances.begin(), instances.end());
  }
  f.saving_per_month = PerMonth(c.without - c.with, o);
  f.saving_basis = fmt::format(
      "{} on demand − ({} instances × {} h × {} × {:.0f}% + {:.1f} h above the level on demand) "
      "= {}, × {} / window days; discount {:.0f}% from the catalog's {} offer",
      c.without.ToString(), c.level, usage.size(), c.price.ToString(), (1 - c.discount) * 100,
      c.overflow_hours, (c.without - c.with).ToString(), o.thresholds.month_days, c.discount * 100,
      CapacityTierName(o.thresholds.commitment_tier));
  f.action = fmt::format(
      "commit to {} × {} ({}); break-even utilization {:.0f}%: below it on demand is cheaper",
      c.level, offer.instance_type, CapacityTierName(o.thresholds.commitment_tier),
      (1 - c.discount) * 100);
  return f;
}

}  // namespace

void CommitmentCandidates(const AuditData& data, const AuditOptions& o, AuditResult& out) {
  const double window_days = ToHours(o.now - o.since) / 24;
  if (window_days < o.thresholds.commitment_min_days) {
    out.notes.push_back(
        fmt::format("{}: the window is {:.0f} days; steady use needs at least {} (use --since {}d)",
                    kCommitment, window_days, o.thresholds.commitment_min_days,
                    o.thresholds.commitment_min_days));
    return;
  }
  // The inventory's on-demand instances count as used in their busy readings (an idle one is
  // a candidate for stopping, not for a commitment); run id 0 marks them.
  const std::vector<Segment> inventory = InventoryBusySegments(o);
  for (const auto& [key, segments] : OnDemandUseByOffer(data, inventory)) {
    const Timestamp first_use =
        (*std::min_element(segments.begin(), segments.end(), [](auto* a, auto* b) {
          return a->start < b->start;
        }))->start;
    if (ToHours(o.now - std::max(first_use, o.since)) / 24 < o.thresholds.commitment_min_days) {
      continue;
    }
    const std::vector<double> usage = HourlyUsage(segments, o);
    if (usage.empty()) continue;
    const std::optional<CommitmentSizing> sizing =
        SizeCommitment(segments.front()->offer, usage, o);
    if (!sizing) continue;
    out.findings.push_back(CommitmentFinding(segments, usage, *sizing, window_days, o));
  }
}

void UntaggedSpend(const AuditData& data, const AuditOptions& o, AuditResult& out) {
  Money total;
  Money untagged;
  std::vector<ledger::RunId> runs;
  for (const RunFacts& r : data.runs) {
    Money spend;
    for (const Segment& s : r.segments) spend += s.offer.price.For(InWindow(s, o));
    total += spend;
    if (!HasAttribution(r.run.tags, o.thresholds)) {
      untagged += spend;
      runs.push_back(r.run.id);
    }
  }
  Money billed_total;
  Money billed_untagged;
  for (const BillingFact& b : data.billing) {
    billed_total += b.billed;
    if (!HasAttribution(b.tags, o.thresholds)) billed_untagged += b.billed;
  }
  const std::string keys = fmt::format("{}", fmt::join(o.thresholds.attribution_tags, ", "));
  auto add = [&](Money part, Money whole, std::string subject, std::vector<ledger::RunId> ids) {
    if (whole <= Money() || part.RatioTo(whole) * 100 <= o.thresholds.untagged_max_share_pct) {
      return;
    }
    Finding f;
    f.rule = kUntaggedSpend;
    f.subject = std::move(subject);
    f.runs = std::move(ids);
    f.evidence = fmt::format("{} of {} ({:.1f}%) has none of the tags {}", part.ToString(),
                             whole.ToString(), part.RatioTo(whole) * 100, keys);
    f.facts = {{"untagged", part.ToPlainString()},
               {"total", whole.ToPlainString()},
               {"share", part.RatioTo(whole)}};
    f.saving_basis = "not a saving: spend nobody can attribute cannot be budgeted or cut";
    f.saving_applies = false;
    f.action =
        fmt::format("tag runs (`frugal run --tag team=...`) and cloud resources with {}", keys);
    out.findings.push_back(std::move(f));
  };
  add(untagged, total, "ledger runs", std::move(runs));
  add(billed_untagged, billed_total, "imported bills", {});
}

void StudiesWithoutPruning(const AuditData& data, const AuditOptions& o, AuditResult& out) {
  for (const StudyFacts& s : data.studies) {
    int finished = 0;
    int pruned = 0;
    Money cost;
    for (const ledger::Trial& t : s.trials) {
      // ASHA with pause/promote parks a trial at a rung and promotes it only if it ranks
      // well: one left paused after reporting at a rung was stopped early, which is pruning.
      const bool paused_at_rung = t.state == ledger::TrialState::kPaused && !t.rungs.empty();
      if (t.state == ledger::TrialState::kPruned || paused_at_rung) ++pruned;
      if (t.state == ledger::TrialState::kCompleted) ++finished;
      cost += t.cost;
    }
    if (pruned > 0 || finished < o.thresholds.study_min_trials) continue;
    Finding f;
    f.rule = kStudyNoPruning;
    f.subject = fmt::format("study {}", s.study.definition.name);
    for (const ledger::Trial& t : s.trials) {
      if (t.run_id) f.runs.push_back(*t.run_id);
    }
    f.evidence =
        fmt::format("{} trials completed, none pruned; trials cost {}", finished, cost.ToString());
    f.facts = {{"completed", finished}, {"trials_cost", cost.ToPlainString()}};
    f.saving_basis =
        "not computed: what pruning saves depends on how early the losing trials could have "
        "been told apart, which a study that never stopped one does not show";
    f.action = "use a pruning scheduler (asha or hyperband) with a lower first rung";
    out.findings.push_back(std::move(f));
  }
}

namespace {

/// The catalog's GPU instance types, lower case.
std::set<std::string> GpuInstanceTypes(const catalog::Catalog& catalog) {
  std::set<std::string> gpu_types;
  for (const catalog::Offer& offer : catalog.offers()) {
    if (offer.gpu_count > 0) gpu_types.insert(ToLower(offer.instance_type));
  }
  return gpu_types;
}

struct BilledGpuResource {
  std::string type;
  Money billed;
  bool linked = false;
};

/// The GPU resources billed after `from`, by resource id (SKU id where the bill has none). A
/// billed resource is GPU capacity when its resource or SKU id names a catalog GPU instance
/// type (the longest name that matches), or else its charge description does (AWS bills name
/// the type only there).
std::map<std::string, BilledGpuResource> BilledGpuResources(const AuditData& data,
                                                            const std::set<std::string>& gpu_types,
                                                            Timestamp from) {
  std::map<std::string, BilledGpuResource> resources;
  for (const BillingFact& b : data.billing) {
    if (b.end <= from) continue;
    const std::string text = ToLower(b.resource_id + " " + b.sku_id);
    std::string type;
    for (const std::string& t : gpu_types) {
      if (text.find(t) != std::string::npos && t.size() > type.size()) type = t;
    }
    if (type.empty()) {
      const std::string described = InstanceTypeInDescription(b.charge_description);
      if (gpu_types.contains(described)) type = described;
    }
    if (type.empty()) continue;
    BilledGpuResource& r = resources[b.resource_id.empty() ? b.sku_id : b.resource_id];
    r.type = type;
    r.billed += b.billed;
    r.linked = r.linked || b.run_id.has_value();
  }
  return resources;
}

/// Whether a ledger run used `type` between `from` and `bill_end`.
bool LedgerRanOn(const AuditData& data, const std::string& type, Timestamp from, Timestamp bill_end,
                 const AuditOptions& o) {
  bool used = false;
  for (const RunFacts& run : data.runs) {
    for (const Segment& s : run.segments) {
      used = used || (ToLower(s.offer.instance_type) == type && s.end.value_or(o.now) > from &&
                      s.start < bill_end);
    }
  }
  return used;
}

Finding ForgottenFinding(const std::string& id, const BilledGpuResource& r, Timestamp from,
                         Timestamp bill_end, const AuditOptions& o) {
  Finding f;
  f.rule = kForgottenCapacity;
  f.subject = fmt::format("{} ({})", id, r.type);
  f.evidence = fmt::format("billed {} from {} to {} with no run in the ledger", r.billed.ToString(),
                           ledger::FormatTimestamp(from), ledger::FormatTimestamp(bill_end));
  f.facts = {{"billed", r.billed.ToPlainString()}, {"instance_type", r.type}};
  f.saving_per_month = r.billed.Scaled(o.thresholds.month_days / o.thresholds.forgotten_days);
  f.saving_basis = fmt::format("{} billed in the last {} days of the bill × {} / {}",
                               r.billed.ToString(), o.thresholds.forgotten_days,
                               o.thresholds.month_days, o.thresholds.forgotten_days);
  f.action = "find its owner and terminate it, or record its work with `frugal run`";
  return f;
}

}  // namespace

void ForgottenCapacity(const AuditData& data, const AuditOptions& o, AuditResult& out) {
  if (data.billing.empty()) {
    if (o.inventory == nullptr) {
      out.notes.push_back(
          fmt::format("{}: no imported bills in the window and no inventory (use --billing FILE or "
                      "--inventory FILE)",
                      kForgottenCapacity));
    }
    return;
  }
  if (o.catalog == nullptr) {
    out.notes.push_back(
        fmt::format("{}: no catalog to tell GPU instance types", kForgottenCapacity));
    return;
  }
  const std::set<std::string> gpu_types = GpuInstanceTypes(*o.catalog);
  Timestamp bill_end{};
  for (const BillingFact& b : data.billing) bill_end = std::max(bill_end, b.end);
  const Timestamp from =
      bill_end - std::chrono::duration_cast<Duration>(
                     std::chrono::duration<double, std::ratio<86400>>(o.thresholds.forgotten_days));
  for (const auto& [id, r] : BilledGpuResources(data, gpu_types, from)) {
    // Any ledger run on that instance type in the same two weeks accounts for the capacity.
    const bool used = r.linked || LedgerRanOn(data, r.type, from, bill_end, o);
    if (used || r.billed <= Money()) continue;
    out.findings.push_back(ForgottenFinding(id, r, from, bill_end, o));
  }
}

}  // namespace frugal::audit
