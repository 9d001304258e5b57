#include "frugal/queue/queue_view.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "frugal/core/duration.h"
#include "frugal/core/table.h"
#include "frugal/core/text.h"
#include "frugal/queue/queue_service.h"
#include "frugal/queue/warm_start.h"

namespace frugal::queue {
namespace {

using ledger::QueueJobState;
using nlohmann::json;

std::string Time(std::optional<int64_t> ms) { return ms ? FormatUtcTime(*ms / 1000) : "-"; }

json TimeOrNull(std::optional<int64_t> ms) { return ms ? json(FormatUtcTime(*ms / 1000)) : json(); }

json DollarsOrNull(std::optional<int64_t> micros) {
  return micros ? json(Money::FromMicros(*micros).dollars()) : json();
}

/// The job's ETA and how it stands against its deadline (queue_view.h).
void Estimate(JobView& v, Seconds now) {
  const ledger::QueueJobRow& r = v.row;
  // The expected finish of its newest placement; 0 when it has none.
  const Seconds placed_finish = v.latest ? v.latest->finish_ms.value_or(0) / 1000 : 0;
  if (r.state == QueueJobState::kSucceeded && r.finished_ms) {
    v.eta = *r.finished_ms / 1000;
    v.eta_basis = "finished";
  } else if (r.state == QueueJobState::kStarting || r.state == QueueJobState::kRunning) {
    const std::optional<double> measured =
        v.progress && v.request ? MeasuredFinish(*v.progress, v.request->steps) : std::nullopt;
    Seconds expected = 0;
    if (placed_finish > 0 && (v.latest->verdict == "start" || v.latest->verdict == "late")) {
      expected = placed_finish;
    } else if (r.started_ms && v.request) {
      expected = *r.started_ms / 1000 + static_cast<Seconds>(v.request->runtime_hours * 3600);
    }
    if (measured) {
      v.eta = std::max(static_cast<Seconds>(std::ceil(*measured)), now);
      v.eta_basis = "measured";
    } else if (expected > 0) {
      v.eta = std::max(expected, now);
      v.eta_basis = expected >= now ? "expected_runtime" : "overdue";
    }
  } else if (r.state == QueueJobState::kWaiting && placed_finish > 0) {
    v.eta = placed_finish;
    v.eta_basis = "placement";
  }
  const Seconds deadline = v.request ? v.request->deadline : kNever;
  if (v.eta && deadline != kNever) {
    v.deadline_slack_seconds = deadline - *v.eta;
    v.will_miss = *v.deadline_slack_seconds < 0;
  }
  // Flagged late with no ETA to measure against: a miss is all that is known. With one, the
  // slack says it (a late job can finish before its deadline, inside the safety margin).
  if (r.state == QueueJobState::kWaiting && !v.eta && v.latest && v.latest->verdict == "late")
    v.will_miss = true;
}

/// Spend per run name, from the ledger runs active since `since_ms`.
Result<std::map<std::string, ledger::RunSummary>> RunsSince(ledger::Ledger& ledger,
                                                            int64_t since_ms, Seconds now) {
  ledger::RunFilter filter;
  filter.since = ledger::FromMillis(since_ms);
  std::map<std::string, ledger::RunSummary> by_name;
  for (ledger::RunSummary& s :
       FRUGAL_TRY(ledger.ListRuns(filter, ledger::FromMillis(now * 1000)))) {
    by_name[s.run.name] = std::move(s);
  }
  return by_name;
}

Result<std::vector<JobView>> Build(ledger::Ledger& ledger, std::vector<ledger::QueueJobRow> rows,
                                   Seconds now) {
  std::vector<JobView> views;
  if (rows.empty()) return views;
  std::map<int64_t, ledger::QueueDecisionRow> latest;
  for (ledger::QueueDecisionRow& d :
       FRUGAL_TRY(ledger::ListLatestQueueDecisions(ledger.connection()))) {
    const int64_t id = d.job_id;
    latest[id] = std::move(d);
  }
  int64_t since_ms = rows.front().submitted_ms;
  for (const ledger::QueueJobRow& r : rows) since_ms = std::min(since_ms, r.submitted_ms);
  const std::map<std::string, ledger::RunSummary> runs =
      FRUGAL_TRY(RunsSince(ledger, since_ms, now));
  for (ledger::QueueJobRow& r : rows) {
    JobView v;
    if (Result<JobRequest> request = RequestFromJson(r.request)) v.request = std::move(*request);
    if (const auto it = latest.find(r.id); it != latest.end()) v.latest = it->second;
    if (const auto it = runs.find(r.run_id); !r.run_id.empty() && it != runs.end()) {
      v.spend = it->second.cost;
      v.spend_gpu_hours = it->second.gpu_hours;
      v.tier = it->second.tier;
    }
    v.row = std::move(r);
    if ((v.row.state == QueueJobState::kStarting || v.row.state == QueueJobState::kRunning) &&
        !v.row.run_id.empty()) {
      v.progress = ReadMeasuredProgress(RunDirOf(v.row.run_id) / "journal.jsonl");
    }
    Estimate(v, now);
    views.push_back(std::move(v));
  }
  return views;
}

std::string Slack(const JobView& v) {
  if (!v.deadline_slack_seconds) return v.will_miss ? "will miss" : "-";
  const Seconds s = *v.deadline_slack_seconds;
  const std::string d = FormatDuration(std::chrono::seconds(s < 0 ? -s : s));
  if (v.will_miss)
    return (v.row.state == QueueJobState::kSucceeded ? "missed by " : "will miss by ") + d;
  return d + " to spare";
}

}  // namespace

Result<std::vector<JobView>> ListJobs(ledger::Ledger& ledger, std::span<const std::string> states,
                                      Seconds now) {
  // Parsed here, at the edge: a state that is none of the queue's is refused (it would list
  // nothing, as if there were no such jobs).
  std::vector<QueueJobState> wanted;
  for (const std::string& s : states) wanted.push_back(FRUGAL_TRY(ledger::ParseQueueJobState(s)));
  Result<std::vector<ledger::QueueJobRow>> rows =
      ledger::ListQueueJobs(ledger.connection(), wanted);
  if (!rows) {
    // A read-only command on a ledger not created yet reads an empty one with no tables.
    if (ledger.connection().where().find("(none yet)") != std::string::npos)
      return std::vector<JobView>();
    return Fail(rows.error());
  }
  return Build(ledger, std::move(*rows), now);
}

Result<ledger::QueueJobRow> FindJob(ledger::Ledger& ledger, int64_t id) {
  std::optional<ledger::QueueJobRow> row;
  if (Result<std::optional<ledger::QueueJobRow>> r = ledger::GetQueueJob(ledger.connection(), id)) {
    row = std::move(*r);
  } else if (ledger.connection().where().find("(none yet)") == std::string::npos) {
    return Fail(r.error());
  }
  if (!row) return Fail(ErrorCode::kBadInput, fmt::format("no queue job {}", id));
  return std::move(*row);
}

Result<JobView> ShowJob(ledger::Ledger& ledger, int64_t id, Seconds now) {
  ledger::QueueJobRow row = FRUGAL_TRY(FindJob(ledger, id));
  std::vector<JobView> views = FRUGAL_TRY(Build(ledger, {std::move(row)}, now));
  JobView& v = views.front();
  v.decisions = FRUGAL_TRY(ledger::ListQueueDecisions(ledger.connection(), id));
  return std::move(v);
}

json JobViewJson(const JobView& v) {
  const ledger::QueueJobRow& row = v.row;
  json j = {{"id", row.id},
            {"name", row.name},
            {"state", ledger::QueueJobStateName(row.state)},
            {"pool", row.pool},
            {"devices", row.devices},
            {"pid", row.pid ? json(*row.pid) : json()},
            {"run_id", row.run_id},
            {"reason", row.reason},
            {"submitted", Time(row.submitted_ms)},
            {"started", TimeOrNull(row.started_ms)},
            {"finished", TimeOrNull(row.finished_ms)},
            {"exit_code", row.exit_code ? json(*row.exit_code) : json()},
            {"expected_cost_usd", DollarsOrNull(row.expected_cost_micros)}};
  if (v.request) {
    const JobRequest& r = *v.request;
    j["deadline"] = r.deadline == kNever ? json() : json(FormatUtcTime(r.deadline));
    j["tags"] = r.tags;
    j["gpus"] = r.cpu_only ? 0 : r.units;
    j["warm_start"] = r.warm_start.empty() ? json() : json(r.warm_start);
    j["preemptions"] = r.spot.preemptions;
  }
  j["command"] = json::parse(row.command, nullptr, false);
  j["eta"] = v.eta ? json(FormatUtcTime(*v.eta)) : json();
  j["eta_basis"] = v.eta_basis.empty() ? json() : json(v.eta_basis);
  j["deadline_slack_seconds"] = v.deadline_slack_seconds ? json(*v.deadline_slack_seconds) : json();
  j["will_miss"] = v.will_miss;
  j["spend_usd"] = v.spend.dollars();
  j["spend_gpu_hours"] = std::round(v.spend_gpu_hours * 10000) / 10000;
  j["tier"] = v.tier ? json(CapacityTierName(*v.tier)) : json();
  if (v.latest) {
    j["on_demand_cost_usd"] = DollarsOrNull(v.latest->on_demand_micros);
  }
  const bool on_slurm = v.request && v.request->executor == "slurm" && row.pid && *row.pid > 0;
  j["slurm_job_id"] = on_slurm ? json(*row.pid) : json();
  const int64_t steps = v.request ? v.request->steps : 0;
  j["steps"] = steps > 0 ? json(steps) : json();
  j["progress_step"] = v.progress ? json(v.progress->step) : json();
  j["steps_per_second"] = v.progress && v.progress->steps_per_second > 0
                              ? json(std::round(v.progress->steps_per_second * 1000) / 1000)
                              : json();
  j["progress_fraction"] =
      v.progress && steps > 0
          ? json(std::round(std::min(1.0, static_cast<double>(v.progress->step) /
                                              static_cast<double>(steps)) *
                            10000) /
                 10000)
          : json();
  return j;
}

json ShowJson(const JobView& v) {
  json j = JobViewJson(v);
  json ds = json::array();
  for (const ledger::QueueDecisionRow& d : v.decisions) {
    ds.push_back({{"time", Time(d.time_ms)},
                  {"verdict", d.verdict},
                  {"pool", d.pool},
                  {"start", Time(d.start_ms)},
                  {"finish", Time(d.finish_ms)},
                  {"cost_usd", DollarsOrNull(d.cost_micros)},
                  {"on_demand_cost_usd", DollarsOrNull(d.on_demand_micros)},
                  {"reason", d.reason}});
  }
  j["decisions"] = std::move(ds);
  return j;
}

json ListJson(std::span<const JobView> jobs) {
  json list = json::array();
  for (const JobView& v : jobs) list.push_back(JobViewJson(v));
  return {{"jobs", std::move(list)}};
}

void PrintJobTable(std::span<const JobView> jobs, std::ostream& out) {
  Table t({{"id", Align::kRight},
           {"name"},
           {"state"},
           {"pool"},
           {"expected", Align::kRight},
           {"spent", Align::kRight},
           {"eta"},
           {"deadline"},
           {"why"}});
  for (const JobView& v : jobs) {
    const ledger::QueueJobRow& r = v.row;
    t.AddRow({std::to_string(r.id), r.name, std::string(ledger::QueueJobStateName(r.state)),
              r.pool.empty() ? "-" : r.pool,
              r.expected_cost_micros ? Money::FromMicros(*r.expected_cost_micros).ToString() : "-",
              // Owned capacity's spend is its reported rate, paid whether used or not: said so
              // beside an expected (marginal) cost of nothing.
              v.spend.ToString() + (v.tier == CapacityTier::kOwned ? " owned" : ""),
              v.eta ? FormatUtcTime(*v.eta) : "-", Slack(v), r.reason});
  }
  t.Render(out);
}

void PrintJob(const JobView& v, std::ostream& out) {
  const ledger::QueueJobRow& r = v.row;
  out << fmt::format("job {} ({}): {}\n", r.id, r.name, ledger::QueueJobStateName(r.state));
  const json doc = JobViewJson(v);
  for (const char* key : {"pool", "slurm_job_id", "devices", "run_id", "warm_start", "deadline",
                          "submitted", "started", "finished", "exit_code", "reason"}) {
    if (doc.contains(key) && !doc[key].is_null() && doc[key] != "") {
      out << fmt::format("  {:<10} {}\n", key,
                         doc[key].is_string() ? doc[key].get<std::string>() : doc[key].dump());
    }
  }
  if (v.eta) {
    out << fmt::format("  {:<10} {} ({}); deadline: {}\n", "eta", FormatUtcTime(*v.eta),
                       v.eta_basis, Slack(v));
  }
  if (v.progress) {
    std::string line = fmt::format("step {}", v.progress->step);
    if (v.request && v.request->steps > 0) {
      line += fmt::format(" of {} ({:.0f}%)", v.request->steps,
                          100.0 * std::min(1.0, static_cast<double>(v.progress->step) /
                                                    static_cast<double>(v.request->steps)));
    }
    if (v.progress->steps_per_second > 0) {
      line += fmt::format(", {:.3g} steps/s", v.progress->steps_per_second);
    }
    out << fmt::format("  {:<10} {}\n", "progress", line);
  }
  out << fmt::format("  {:<10} {} ({:.2f} GPU-h)\n", "spent", v.spend.ToString(),
                     v.spend_gpu_hours);
  out << "  decisions:\n";
  for (const ledger::QueueDecisionRow& d : v.decisions) {
    out << fmt::format("    {}  {}\n", Time(d.time_ms), d.reason);
  }
}

}  // namespace frugal::queue
