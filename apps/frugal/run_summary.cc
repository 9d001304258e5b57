// The status line and the end-of-run summary of `frugal run` and `frugal drill`.

#include <fmt/format.h>

#include <numeric>
#include <ostream>

#include "frugal/core/tier.h"
#include "frugal/run/run_text.h"
#include "run_support.h"

namespace frugal::cli {
namespace {

using run::RunResult;

std::string Gib(uint64_t bytes) {
  return fmt::format("{:.2f} GiB", static_cast<double>(bytes) / (1ull << 30));
}

std::string Bytes(uint64_t bytes) {
  if (bytes >= (1ull << 30)) return Gib(bytes);
  if (bytes >= (1ull << 20))
    return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1ull << 20));
  if (bytes >= 1024) return fmt::format("{:.1f} KiB", static_cast<double>(bytes) / 1024);
  return fmt::format("{} B", bytes);
}

std::string Seconds(Duration d) { return fmt::format("{:.2f}s", ToSeconds(d)); }

Duration Mean(const std::vector<Duration>& v) {
  if (v.empty()) return Duration(0);
  return std::accumulate(v.begin(), v.end(), Duration(0)) / static_cast<int64_t>(v.size());
}

Duration Max(const std::vector<Duration>& v) {
  return v.empty() ? Duration(0) : *std::max_element(v.begin(), v.end());
}

Paint PhasePaint(const std::string& phase) {
  if (phase == "running") return Paint::kGreen;
  if (phase == "killing") return Paint::kRed;
  return Paint::kYellow;
}

std::string StatusText(const run::RunStatus& s, const LinePrinter& printer) {
  std::string text = fmt::format("[{}] seg {} {} step {}", FormatDuration(s.elapsed), s.segment,
                                 printer.Painted(s.phase, PhasePaint(s.phase)), s.step);
  if (s.steps_per_second > 0) text += fmt::format(" ({:.1f}/s)", s.steps_per_second);
  text += " spent " + s.usage.spent.ToString();
  if (s.cap_fraction) text += fmt::format(" ({:.0f}% of cap)", 100 * *s.cap_fraction);
  if (s.eta_to_cap) text += " cap in " + FormatDuration(*s.eta_to_cap);
  if (s.preemptions > 0) text += fmt::format(" preemptions {}", s.preemptions);
  return text;
}

}  // namespace

StatusLine::StatusLine(Streams& s) : err_(s.err), printer_(s.err, s.err_terminal, s.color) {}

void StatusLine::Update(const run::RunStatus& status) {
  if (printer_.Status(StatusText(status, printer_))) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - last_plain_ < std::chrono::seconds(30)) return;
  last_plain_ = now;
  err_ << "frugal: " << StatusText(status, printer_) << "\n";
}

void StatusLine::Clear() { printer_.Clear(); }

namespace {

/// What the run cost (the ledger's figures, and the caps' where they differ) and any cap hit.
void PrintSpend(std::ostream& out, const run::SupervisorConfig& config, const RunResult& r) {
  // Spend and GPU-hours are the segments' (the ledger's figures: `runs`, `report`, FOCUS); the
  // caps counted the supervisor's whole time, which is a little more.
  out << fmt::format("  spend        {} at {}{}", r.recorded.spent.ToString(),
                     config.price.ToString(),
                     config.offer.empty() ? "" : " (" + config.offer + ")");
  if (r.recorded_total.spent != r.recorded.spent) {
    out << fmt::format(", {} over all attempts", r.recorded_total.spent.ToString());
  }
  out << "\n";
  out << fmt::format("  GPU-hours    {:.4f} ({} GPU{}), wall {}\n", r.recorded.gpu_hours,
                     config.gpus, config.gpus == 1 ? "" : "s", FormatDuration(r.usage.wall));
  if (r.usage.spent != r.recorded.spent || r.total.spent != r.recorded_total.spent) {
    out << fmt::format("  caps counted {}{} (the supervisor's whole time)\n",
                       r.usage.spent.ToString(),
                       r.total.spent != r.usage.spent
                           ? fmt::format(", {} over all attempts", r.total.spent.ToString())
                           : "");
  }
  if (r.cap)
    out << fmt::format("  cap          {} reached; overshoot {}\n", run::CapKindName(*r.cap),
                       r.overshoot);
}

/// Segments, preemptions, progress, checkpoints and resumes.
void PrintProgress(std::ostream& out, const RunResult& r) {
  out << fmt::format("  segments     {}, preemptions {}, restarts {}\n", r.segments, r.preemptions,
                     r.restarts);
  if (r.recommended_tier)
    out << fmt::format("  deadline     resume on {} ({})\n", CapacityTierName(*r.recommended_tier),
                       r.advice);
  if (!r.lost_steps.empty()) {
    out << fmt::format("  lost work    {} step(s) over {} preemption(s)\n",
                       std::accumulate(r.lost_steps.begin(), r.lost_steps.end(), int64_t{0}),
                       r.lost_steps.size());
  }
  out << fmt::format("  progress     step {}", r.last_step);
  if (r.first_progress) out << fmt::format(", first progress after {}", Seconds(*r.first_progress));
  out << "\n";
  if (r.checkpoints_committed > 0) {
    out << fmt::format(
        "  checkpoints  {} committed ({} rejected), commit mean {} max {}, last {}\n",
        r.checkpoints_committed, r.checkpoints_rejected, Seconds(Mean(r.commit_times)),
        Seconds(Max(r.commit_times)), Bytes(r.last_checkpoint_bytes));
  } else {
    out << fmt::format("  checkpoints  none committed ({} rejected)\n", r.checkpoints_rejected);
  }
  if (!r.resume_times.empty()) {
    out << fmt::format("  resume       to first progress: mean {} max {}\n",
                       Seconds(Mean(r.resume_times)), Seconds(Max(r.resume_times)));
  }
}

/// What the sampler saw of the CPU, memory, I/O and GPU.
void PrintUtilization(std::ostream& out, const run::UtilizationSummary& u) {
  out << fmt::format(
      "  utilization  CPU {:.2f} cores mean, {:.2f} p95; peak RSS {}; I/O wait {:.0f}%\n",
      u.cpu_cores_mean, u.cpu_cores_p95, Gib(u.peak_rss_bytes), 100 * u.io_wait_fraction_mean);
  if (u.gpu_util_mean) {
    out << fmt::format(
        "               GPU {:.0f}% mean, {:.0f}% p95, idle {:.0f}% of samples, peak memory {}\n",
        *u.gpu_util_mean, u.gpu_util_p95.value_or(0), 100 * u.gpu_idle_fraction.value_or(0),
        Gib(u.gpu_peak_memory_bytes.value_or(0)));
    if (u.gpu_util_training_mean) {
      out << fmt::format(
          "               GPU {:.0f}% mean while training ({} samples after the first "
          "progress)\n",
          *u.gpu_util_training_mean, u.gpu_training_samples);
    }
  } else {
    out << "               GPU: none seen\n";
  }
}

}  // namespace

void PrintRunSummary(std::ostream& out, const run::SupervisorConfig& config, const RunResult& r,
                     const std::vector<run::SelfCheck>& checks) {
  out << fmt::format("run {} (attempt {}): {}\n", config.run_id, r.attempt, r.message);
  PrintSpend(out, config, r);
  PrintProgress(out, r);
  if (r.utilization.samples > 0) PrintUtilization(out, r.utilization);
  for (const std::string& w : r.warnings) out << "  warning      " << w << "\n";
  for (const run::SelfCheck& c : checks) {
    const char* label = c.level == run::CheckLevel::kOk       ? "ok"
                        : c.level == run::CheckLevel::kAdvice ? "advice"
                                                              : "check";
    out << fmt::format("  {:<12} {}\n", label, c.message);
  }
}

// One function: the summary document, one field a line, reads as its schema.
nlohmann::json RunSummaryJson(const run::SupervisorConfig& config, const RunResult& r,
                              const std::vector<run::SelfCheck>& checks) {
  auto ms = [](const std::vector<Duration>& v) {
    nlohmann::json a = nlohmann::json::array();
    for (Duration d : v) a.push_back(d.count());
    return a;
  };
  nlohmann::json checks_json = nlohmann::json::array();
  for (const run::SelfCheck& c : checks) {
    checks_json.push_back({{"id", c.id},
                           {"level", c.level == run::CheckLevel::kOk       ? "ok"
                                     : c.level == run::CheckLevel::kAdvice ? "advice"
                                                                           : "warning"},
                           {"message", c.message}});
  }
  const run::UtilizationSummary& u = r.utilization;
  auto opt = [](const auto& v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
  return {{"run_id", config.run_id},
          {"run_dir", run::EscapeNonUtf8(config.run_dir.string())},
          {"attempt", r.attempt},
          {"outcome", run::RunOutcomeName(r.outcome)},
          {"exit_code", r.exit_code},
          {"message", r.message},
          {"offer", config.offer},
          {"price_per_hour", config.price.per_hour.ToPlainString()},
          {"gpus", config.gpus},
          {"spent", r.recorded.spent.ToPlainString()},
          {"spent_all_attempts", r.recorded_total.spent.ToPlainString()},
          {"gpu_hours", r.recorded.gpu_hours},
          {"wall_ms", r.usage.wall.count()},
          {"caps_counted",
           {{"spent", r.usage.spent.ToPlainString()},
            {"spent_all_attempts", r.total.spent.ToPlainString()},
            {"gpu_hours", r.usage.gpu_hours}}},
          {"cap", r.cap ? nlohmann::json(run::CapKindName(*r.cap)) : nlohmann::json()},
          {"overshoot", r.overshoot},
          {"segments", r.segments},
          {"preemptions", r.preemptions},
          {"restarts", r.restarts},
          {"recommended_tier", r.recommended_tier
                                   ? nlohmann::json(CapacityTierName(*r.recommended_tier))
                                   : nlohmann::json()},
          {"advice", r.advice},
          {"lost_steps", r.lost_steps},
          {"last_step", r.last_step},
          {"first_progress_ms",
           r.first_progress ? nlohmann::json(r.first_progress->count()) : nlohmann::json()},
          {"checkpoints_committed", r.checkpoints_committed},
          {"checkpoints_rejected", r.checkpoints_rejected},
          {"checkpoint_commit_ms", ms(r.commit_times)},
          {"last_checkpoint_bytes", r.last_checkpoint_bytes},
          {"resume_ms", ms(r.resume_times)},
          {"result", r.result ? nlohmann::json(r.result->metrics) : nlohmann::json()},
          {"garbage_report_lines", r.garbage_report_lines},
          {"utilization",
           {{"samples", u.samples},
            {"cpu_cores_mean", u.cpu_cores_mean},
            {"cpu_cores_p95", u.cpu_cores_p95},
            {"peak_rss_bytes", u.peak_rss_bytes},
            {"io_wait_fraction_mean", u.io_wait_fraction_mean},
            {"gpu_util_mean", opt(u.gpu_util_mean)},
            {"gpu_util_p95", opt(u.gpu_util_p95)},
            {"gpu_util_training_mean", opt(u.gpu_util_training_mean)},
            {"gpu_training_samples", u.gpu_training_samples},
            {"gpu_idle_fraction", opt(u.gpu_idle_fraction)},
            {"gpu_peak_memory_bytes", opt(u.gpu_peak_memory_bytes)}}},
          {"warnings", r.warnings},
          {"self_checks", checks_json}};
}

}  // namespace frugal::cli
