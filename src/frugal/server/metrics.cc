#include "frugal/server/metrics.h"

#include <fmt/format.h>

#include <array>
#include <map>
#include <set>
#include <tuple>

namespace frugal::server {
namespace {

using Labels = std::vector<std::pair<std::string, std::string>>;

std::string LabelText(const Labels& labels) {
  if (labels.empty()) return "";
  std::string out = "{";
  for (size_t i = 0; i < labels.size(); ++i) {
    if (i > 0) out += ',';
    out += labels[i].first + "=\"" + EscapeLabel(labels[i].second) + "\"";
  }
  return out + "}";
}

class Exposition {
 public:
  void Family(std::string_view name, std::string_view type, std::string_view help) {
    out_ += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
  }
  void Sample(std::string_view name, const Labels& labels, double value) {
    out_ += fmt::format("{}{} {}\n", name, LabelText(labels), value);
  }
  void Histogram(std::string_view name, std::string_view help, const std::vector<double>& values,
                 const std::vector<double>& bounds) {
    Family(name, "histogram", help);
    double sum = 0;
    for (double v : values) sum += v;
    for (double le : bounds) {
      size_t n = 0;
      for (double v : values) {
        if (v <= le) ++n;
      }
      out_ += fmt::format("{}_bucket{{le=\"{}\"}} {}\n", name, fmt::format("{:g}", le), n);
    }
    out_ += fmt::format("{}_bucket{{le=\"+Inf\"}} {}\n", name, values.size());
    out_ += fmt::format("{}_sum {}\n", name, sum);
    out_ += fmt::format("{}_count {}\n", name, values.size());
  }
  std::string Take() { return std::move(out_); }

 private:
  std::string out_;
};

std::string Tag(const std::string& value) { return value.empty() ? "-" : value; }

struct Running {
  double runs = 0;
  double gpus = 0;
};

/// The fleet's figures summed per label set, as the families below expose them.
struct FleetTotals {
  using Key3 = std::tuple<std::string, std::string, std::string>;  // team, project, tier
  std::map<Key3, Money> spend;
  std::map<Key3, double> gpu_seconds;
  std::map<std::pair<std::string, std::string>, Money> burn;  // per hour, by team and tier
  std::map<std::string, Running> running;
  std::map<std::string, double> preemptions;
  std::map<std::string, double> lost_work;
};

FleetTotals SumFleet(const ledger::FleetFacts& facts) {
  FleetTotals t;
  std::map<std::string, std::set<ledger::RunId>> running_runs;
  for (const ledger::SpendGroup& g : facts.ended) {
    const std::string tier(CapacityTierName(g.tier));
    const FleetTotals::Key3 key{Tag(g.team), Tag(g.project), tier};
    t.spend[key] += g.spend;
    t.gpu_seconds[key] += g.gpu_seconds;
    if (g.preemptions > 0) t.preemptions[tier] += static_cast<double>(g.preemptions);
  }
  for (const ledger::SegmentFact& f : facts.open) {
    const ledger::Segment& s = f.segment;
    const std::string tier(CapacityTierName(s.offer.tier));
    const FleetTotals::Key3 key{Tag(f.tags.team), Tag(f.tags.project), tier};
    t.spend[key] += s.Cost(facts.now);
    t.gpu_seconds[key] += s.GpuHours(facts.now) * 3600.0;
    if (!s.end) {
      t.burn[{Tag(f.tags.team), tier}] += s.offer.price.per_hour;
      running_runs[tier].insert(s.run_id);
      t.running[tier].gpus += static_cast<double>(s.offer.gpu_count);
    }
    if (s.end_reason == ledger::EndReason::kPreempted) t.preemptions[tier] += 1;
  }
  for (const auto& [tier, lost] : facts.lost_work_seconds) {
    t.lost_work[std::string(CapacityTierName(tier))] += lost;
  }
  for (const auto& [tier, ids] : running_runs) {
    t.running[tier].runs = static_cast<double>(ids.size());
  }
  return t;
}

/// Spend, GPU-seconds, burn rate and what runs now.
void ExposeSpend(const FleetTotals& t, Exposition& e) {
  e.Family("frugal_spend_dollars_total", "counter",
           "Dollars spent on rented capacity, every segment up to now, by the run's team and "
           "project and the segment's pricing tier.");
  for (const auto& [k, m] : t.spend) {
    e.Sample("frugal_spend_dollars_total",
             {{"team", std::get<0>(k)}, {"project", std::get<1>(k)}, {"tier", std::get<2>(k)}},
             m.dollars());
  }
  e.Family("frugal_gpu_seconds_total", "counter", "GPU-seconds rented, by team, project and tier.");
  for (const auto& [k, v] : t.gpu_seconds) {
    e.Sample("frugal_gpu_seconds_total",
             {{"team", std::get<0>(k)}, {"project", std::get<1>(k)}, {"tier", std::get<2>(k)}}, v);
  }
  e.Family("frugal_burn_rate_dollars_per_hour", "gauge",
           "What the capacity running now costs per hour, by team and tier.");
  for (const auto& [k, m] : t.burn) {
    e.Sample("frugal_burn_rate_dollars_per_hour", {{"team", k.first}, {"tier", k.second}},
             m.dollars());
  }
  e.Family("frugal_runs_running", "gauge", "Runs with an open segment, by tier.");
  for (const auto& [tier, r] : t.running) e.Sample("frugal_runs_running", {{"tier", tier}}, r.runs);
  e.Family("frugal_gpus_running", "gauge", "GPUs of the open segments, by tier.");
  for (const auto& [tier, r] : t.running) e.Sample("frugal_gpus_running", {{"tier", tier}}, r.gpus);
}

/// Each budget's amount, what it has spent this period, and the share.
void ExposeBudgets(const std::vector<BudgetSpend>& budgets, Exposition& e) {
  e.Family("frugal_budget_dollars", "gauge", "A declared budget's amount for its period.");
  for (const BudgetSpend& b : budgets) {
    e.Sample("frugal_budget_dollars",
             {{"budget", b.budget.Label()},
              {"period", std::string(audit::BudgetPeriodName(b.budget.period))}},
             b.budget.amount.dollars());
  }
  e.Family("frugal_budget_spent_dollars", "gauge",
           "Ledger spend a budget covers since the start of its current period.");
  for (const BudgetSpend& b : budgets) {
    e.Sample("frugal_budget_spent_dollars",
             {{"budget", b.budget.Label()},
              {"period", std::string(audit::BudgetPeriodName(b.budget.period))}},
             b.spent.dollars());
  }
  e.Family("frugal_budget_used_ratio", "gauge",
           "Share of a budget spent in its current period (1 = all of it).");
  for (const BudgetSpend& b : budgets) {
    const double amount = b.budget.amount.dollars();
    e.Sample("frugal_budget_used_ratio",
             {{"budget", b.budget.Label()},
              {"period", std::string(audit::BudgetPeriodName(b.budget.period))}},
             amount > 0 ? b.spent.dollars() / amount : 0.0);
  }
}

/// Preemptions, the work they cost, and how long checkpoints take to write and resume from.
void ExposePreemptions(const FleetTotals& t, const ledger::FleetFacts& facts, Exposition& e) {
  e.Family("frugal_preemptions_total", "counter", "Segments that ended in a preemption, by tier.");
  for (const auto& [tier, n] : t.preemptions)
    e.Sample("frugal_preemptions_total", {{"tier", tier}}, n);
  e.Family("frugal_lost_work_seconds_total", "counter",
           "Seconds of work redone after preemptions: from the last committed checkpoint (or the "
           "segment's start) to the preemption, by tier.");
  for (const auto& [tier, s] : t.lost_work) {
    e.Sample("frugal_lost_work_seconds_total", {{"tier", tier}}, s);
  }
  const std::vector<double> bounds = {0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300};
  e.Histogram("frugal_checkpoint_commit_duration_seconds",
              "Time to write and commit one checkpoint.", facts.checkpoint_write_seconds, bounds);
  e.Histogram("frugal_checkpoint_resume_duration_seconds",
              "Time from a resume to the command's first progress report.", facts.resume_seconds,
              bounds);
}

}  // namespace

std::string EscapeLabel(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

Result<std::vector<BudgetSpend>> LoadBudgetSpend(ledger::Ledger& ledger,
                                                 const std::vector<audit::Budget>& budgets,
                                                 ledger::Timestamp now) {
  std::vector<BudgetSpend> out;
  for (const audit::Budget& b : budgets) {
    const audit::PeriodBounds period = audit::PeriodAround(b.period, now);
    out.push_back(
        {b, FRUGAL_TRY(ledger::SpendBetween(ledger, b.team, b.project, period.start, now))});
  }
  return out;
}

std::string RenderMetrics(const ledger::FleetFacts& facts, const std::vector<BudgetSpend>& budgets,
                          double scrape_seconds) {
  const FleetTotals totals = SumFleet(facts);
  Exposition e;
  ExposeSpend(totals, e);
  ExposeBudgets(budgets, e);
  ExposePreemptions(totals, facts, e);
  e.Family("frugal_ledger_scrape_duration_seconds", "gauge",
           "Time this scrape took to read the ledger.");
  e.Sample("frugal_ledger_scrape_duration_seconds", {}, scrape_seconds);
  return e.Take();
}

}  // namespace frugal::server
