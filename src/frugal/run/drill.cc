#include "frugal/run/drill.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "frugal/core/atomic_file.h"
#include "frugal/core/file_name.h"
#include "frugal/core/paths.h"
#include "frugal/run/run_journal.h"

namespace frugal::run {
namespace {

using nlohmann::json;

double Seconds(Duration d) { return std::chrono::duration<double>(d).count(); }

json Stats(const std::vector<Duration>& values) {
  if (values.empty()) return nullptr;
  Duration max{0}, sum{0};
  for (Duration d : values) {
    max = std::max(max, d);
    sum += d;
  }
  return {{"max", Seconds(max)}, {"mean", Seconds(sum) / static_cast<double>(values.size())}};
}

Duration Max(const std::vector<Duration>& values) {
  return values.empty() ? Duration(0) : *std::max_element(values.begin(), values.end());
}

}  // namespace

DrillPreemptions::DrillPreemptions(int preemptions, int64_t total_steps, Duration load,
                                   Duration work, uint64_t seed)
    : preemptions_(preemptions), load_(load), share_(work / (preemptions + 1)), rng_(seed) {
  if (total_steps <= 0) return;
  std::uniform_real_distribution<double> u(0.1, 0.7);
  for (int k = 0; k < preemptions; ++k) {
    const double fraction = (k + u(rng_)) / preemptions;
    step_targets_.push_back(
        std::max<int64_t>(1, static_cast<int64_t>(static_cast<double>(total_steps) * fraction)));
  }
}

void DrillPreemptions::SegmentStarted(SteadyTime now) {
  next_.reset();
  last_step_.reset();
  armed_ = fired_ < preemptions_;
  if (!armed_ || !step_targets_.empty()) return;
  std::uniform_real_distribution<double> part(0.2, 0.9);
  next_ = now + load_ +
          Duration(static_cast<int64_t>(static_cast<double>(share_.count()) * part(rng_)));
}

std::optional<PreemptionNotice> DrillPreemptions::Poll(SteadyTime now) {
  if (!armed_) return std::nullopt;
  const bool due = step_targets_.empty()
                       ? next_ && now >= *next_
                       : last_step_ && *last_step_ >= step_targets_[static_cast<size_t>(fired_)];
  if (!due) return std::nullopt;
  armed_ = false;
  next_.reset();
  ++fired_;
  return PreemptionNotice{"drill",
                          fmt::format("injected preemption {} of {}", fired_, preemptions_)};
}

void DrillObserver::SegmentOpened(const SegmentOpen& o) {
  if (o.segment > 1 && !o.resume_from) ++fresh_restarts_;
  next_.SegmentOpened(o);
}

void DrillObserver::SegmentClosed(const SegmentClose& c) {
  if (open_notice_) ++missed_;
  open_notice_.reset();
  next_.SegmentClosed(c);
}

void DrillObserver::Event(const RunEvent& e) {
  if (e.kind == EventKind::kPreemptionNotice) {
    open_notice_ = e.at;
  } else if (e.kind == EventKind::kCheckpointCommitted && open_notice_) {
    notice_to_checkpoint_.push_back(std::chrono::duration_cast<Duration>(e.at - *open_notice_));
    open_notice_.reset();
  }
  next_.Event(e);
}

bool SameResult(const ResultReport& a, const ResultReport& b, std::string* detail) {
  for (const auto& [name, value] : a.metrics) {
    const auto it = b.metrics.find(name);
    if (it == b.metrics.end()) {
      *detail = fmt::format("'{}' reported by one run only", name);
      return false;
    }
    const double scale = std::max({std::fabs(value), std::fabs(it->second), 1e-300});
    if (std::fabs(value - it->second) > 1e-9 * scale) {
      *detail = fmt::format("'{}' is {} uninterrupted, {} preempted", name, value, it->second);
      return false;
    }
  }
  for (const auto& [name, value] : b.metrics) {
    if (!a.metrics.contains(name)) {
      *detail = fmt::format("'{}' reported by one run only", name);
      return false;
    }
  }
  return true;
}

DrillFindings AssessDrill(const RunResult& baseline, const RunResult& drilled,
                          const DrillObserver& observer, int preemptions_planned) {
  DrillFindings f;
  f.preemptions_planned = preemptions_planned;
  f.preemptions = drilled.preemptions;
  f.checkpoint_write = observer.notice_to_checkpoint();
  f.checkpoint_misses = observer.missed();
  f.commit = drilled.commit_times;
  f.restart = drilled.resume_times;
  f.load = baseline.first_progress;
  f.lost_steps = drilled.lost_steps;
  f.baseline_wall = baseline.usage.wall;
  f.drilled_wall = drilled.usage.wall;
  f.finished = drilled.outcome == RunOutcome::kFinished;
  f.resumed_from_checkpoint = observer.fresh_restarts() == 0 && drilled.restarts > 0;
  // Lost work in time, at the baseline's step rate (steps over its time past loading).
  const Duration working = baseline.usage.wall - baseline.first_progress.value_or(Duration(0));
  if (baseline.last_step > 0 && working.count() > 0) {
    const double seconds_per_step = Seconds(working) / static_cast<double>(baseline.last_step);
    for (int64_t steps : f.lost_steps) {
      f.lost_work.push_back(
          Duration(static_cast<int64_t>(static_cast<double>(steps) * seconds_per_step * 1000)));
    }
  }
  if (baseline.result && drilled.result) {
    f.result_matches = SameResult(*baseline.result, *drilled.result, &f.result_detail);
  }

  if (baseline.outcome != RunOutcome::kFinished)
    f.reasons.push_back("the uninterrupted run did not finish");
  if (!f.finished) f.reasons.push_back("the preempted run did not finish: " + drilled.message);
  if (f.preemptions < preemptions_planned) {
    f.reasons.push_back(fmt::format("only {} of {} preemptions landed before the job ended",
                                    f.preemptions, preemptions_planned));
  }
  if (observer.fresh_restarts() > 0) {
    f.reasons.push_back(
        fmt::format("{} restart(s) started from scratch: no committed checkpoint to resume from",
                    observer.fresh_restarts()));
  }
  // Resume times are recorded only for restarts that resumed from a checkpoint; the ones
  // from scratch have their own reason above.
  const int64_t resumed = std::max<int64_t>(0, drilled.restarts - observer.fresh_restarts());
  if (f.restart.size() < static_cast<size_t>(resumed)) {
    f.reasons.push_back("a resumed command never reported progress");
  }
  if (Max(f.restart) >= kSpotReadyRestart) {
    f.reasons.push_back(fmt::format("a restart took {} to make progress (spot-ready is under {})",
                                    FormatDuration(Max(f.restart)),
                                    FormatDuration(kSpotReadyRestart)));
  }
  if (f.result_matches == false)
    f.reasons.push_back("the final result differs: " + f.result_detail);
  f.spot_ready = f.reasons.empty();
  const bool every_notice_checkpointed = f.checkpoint_misses == 0 && !f.checkpoint_write.empty();
  f.checkpoint_within_30s =
      every_notice_checkpointed && Max(f.checkpoint_write) <= std::chrono::seconds(30);
  f.checkpoint_within_120s =
      every_notice_checkpointed && Max(f.checkpoint_write) <= std::chrono::seconds(120);
  return f;
}

json DrillRecordJson(const std::string& name, const std::vector<std::string>& command,
                     const DrillFindings& f, WallTime at) {
  return {{"v", 1},
          {"name", name},
          {"command", command},
          {"measured_at", FormatWallTime(at)},
          {"preemptions", f.preemptions},
          {"checkpoint_write_seconds", Stats(f.checkpoint_write)},
          {"checkpoint_on_notice", f.checkpoint_misses == 0 && !f.checkpoint_write.empty()},
          {"restart_seconds", Stats(f.restart)},
          {"load_seconds", f.load ? json(Seconds(*f.load)) : json()},
          {"lost_work_seconds", Stats(f.lost_work)},
          {"result_matches", f.result_matches ? json(*f.result_matches) : json()},
          {"spot_ready", f.spot_ready},
          {"checkpoint_within_30s", f.checkpoint_within_30s},
          {"checkpoint_within_120s", f.checkpoint_within_120s},
          {"reasons", f.reasons}};
}

std::filesystem::path DrillRecordPath(const std::string& name) {
  return UserDataDir() / "drills" / (name + ".json");
}

Result<std::filesystem::path> SaveDrillRecord(const std::string& name, const json& record) {
  FRUGAL_TRY(CheckFileName(name, "the drill's name"));
  const std::filesystem::path path = DrillRecordPath(name);
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  if (ec)
    return Fail(ErrorCode::kFailed,
                fmt::format("{}: {}", path.parent_path().string(), ec.message()));
  FRUGAL_TRY(WriteFileAtomically(path, record.dump(2) + "\n"));
  return path;
}

}  // namespace frugal::run
