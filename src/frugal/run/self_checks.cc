#include "frugal/run/self_checks.h"

#include <fmt/format.h>

#include <algorithm>

namespace frugal::run {

std::vector<SelfCheck> RunSelfChecks(const RunResult& r, bool on_spot) {
  std::vector<SelfCheck> checks;
  const UtilizationSummary& u = r.utilization;
  // A failed run may have died of out-of-memory; only a clean run says the GPU was too big.
  const bool clean_exit =
      r.outcome == RunOutcome::kFinished || r.outcome == RunOutcome::kBudgetStop;
  // Judged on the samples taken while training: start-up and resumes idle the GPU on any size.
  if (u.gpu_util_training_mean && u.gpu_training_samples >= kMinTrainingSamples &&
      *u.gpu_util_training_mean < 50 && clean_exit) {
    checks.push_back(
        {CheckLevel::kAdvice, "gpu_underutilized",
         fmt::format("GPU utilization averaged {:.0f}% while training with no out-of-memory: a "
                     "smaller GPU or a larger batch would cost less",
                     *u.gpu_util_training_mean)});
  }
  if (on_spot && r.checkpoints_committed == 0) {
    checks.push_back({CheckLevel::kWarning, "spot_without_checkpoint",
                      "on spot capacity with no committed checkpoint: all work is lost at the "
                      "first preemption"});
  }
  if (!r.resume_times.empty()) {
    const Duration slowest = *std::max_element(r.resume_times.begin(), r.resume_times.end());
    if (slowest > kSpotReadyResume) {
      checks.push_back({CheckLevel::kWarning, "slow_resume",
                        fmt::format("resuming took up to {}: slower than {} is not spot-ready",
                                    FormatDuration(slowest), FormatDuration(kSpotReadyResume))});
    } else {
      checks.push_back({CheckLevel::kOk, "spot_ready",
                        fmt::format("resumed from a checkpoint in at most {}: spot-ready",
                                    FormatDurationAtMost(slowest))});
    }
  }
  if (r.checkpoints_rejected > 0) {
    checks.push_back(
        {CheckLevel::kWarning, "checkpoint_rejected",
         fmt::format("{} reported checkpoint(s) failed verification and were not committed",
                     r.checkpoints_rejected)});
  }
  if (r.garbage_report_lines > 0) {
    checks.push_back(
        {CheckLevel::kAdvice, "report_garbage",
         fmt::format("{} report line(s) were not protocol messages", r.garbage_report_lines)});
  }
  return checks;
}

}  // namespace frugal::run
