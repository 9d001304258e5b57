// One segment of a run: start the command, watch it, stop it.

#include <fmt/format.h>
#include <sys/wait.h>

#include <algorithm>
#include <cerrno>
#include <csignal>

#include "frugal/core/log.h"
#include "frugal/run/protocol.h"
#include "frugal/run/supervisor.h"
#include "frugal/run/supervisor_internal.h"

namespace frugal::run {
namespace {

constexpr Duration kTick(100);
constexpr Duration kStatusInterval(500);

}  // namespace

Result<SegmentEnd> Supervisor::RunSegment(int number,
                                          const std::optional<CommittedCheckpoint>& resume,
                                          Loop& loop) {
  Segment seg;
  seg.number = number;
  loop.segment = number;
  FRUGAL_TRY(StartSegment(seg, resume, loop));
  std::optional<ExitStatus> exit;
  while (!(exit = seg.child->Poll())) {
    const SteadyTime now = clock_.Steady();
    Duration wait = kTick;
    if (seg.phase != SegmentPhase::kRunning && seg.phase != SegmentPhase::kKilled) {
      wait =
          std::clamp(std::chrono::duration_cast<Duration>(seg.deadline - now), Duration(0), kTick);
    }
    loop.signals.WaitFor(wait);
    ReapOrphans(seg.child->pid());
    HandleReports(seg, loop);
    Tick(seg, loop);
  }
  // What the command reported just before it exited still counts (its last checkpoint above all).
  HandleReports(seg, loop);
  result_.child_exit = exit;
  const SegmentEnd end = EndOf(seg, *exit);
  StopLeftovers(seg, loop);
  CloseSegment(seg, end, *exit, loop);
  return end;
}

Result<void> Supervisor::StartSegment(Segment& seg,
                                      const std::optional<CommittedCheckpoint>& resume,
                                      Loop& loop) {
  FRUGAL_TRY(store_.Prepare());
  const int number = seg.number;
  const std::filesystem::path report =
      config_.run_dir / "reports" / fmt::format("segment-{}.jsonl", number);
  std::error_code ec;
  std::filesystem::create_directories(report.parent_path(), ec);
  std::filesystem::remove(report, ec);
  seg.reader = std::make_unique<ReportReader>(report);

  SpawnOptions spawn;
  spawn.argv = config_.command;
  spawn.stdout_to = config_.child_stdout;
  spawn.env = {{std::string(kEnvRunId), config_.run_id},
               {std::string(kEnvCheckpointDir), store_.staging_dir().string()},
               {std::string(kEnvResumeFrom), resume ? resume->resume_path.string() : ""},
               {std::string(kEnvReport), report.string()},
               {std::string(kEnvProtocol), std::to_string(kProtocolVersion)},
               {std::string(kEnvSegment), std::to_string(number)}};
  seg.started = clock_.Steady();
  seg.resumed = resume.has_value();
  seg.rate_window_start = seg.started;
  seg.rate_window_step = resume ? resume->step : 0;
  seg.child = FRUGAL_TRY(ChildProcess::Spawn(spawn));
  RecordCommandGroup(seg.child->pid());
  ++result_.segments;
  seg.opened_at = loop.next_segment_opens.value_or(clock_.Wall());
  loop.next_segment_opens.reset();
  recorder_.SegmentOpened({number, seg.opened_at,
                           resume ? std::optional(resume->resume_path) : std::nullopt,
                           resume ? resume->step : 0});
  if (resume)
    log::Info("segment {}: resuming from step {} ({})", number, resume->step,
              resume->resume_path.string());
  for (auto& source : sources_) source->SegmentStarted(seg.started);
  if (sampler_) {
    sampler_->Take(seg.child->pid());  // the baseline the first recorded sample is measured from
    loop.next_sample = seg.started + config_.sample_interval;
  }
  return {};
}

SegmentEnd Supervisor::EndOf(const Segment& seg, const ExitStatus& exit) {
  // A command that reported its result and exited cleanly has finished, even when a stop was
  // on its way (a notice that came as it ended): requeueing it would pay for a second start.
  const bool finished =
      exit.Succeeded() && (seg.phase == SegmentPhase::kRunning || seg.reported_result);
  if (finished && seg.phase != SegmentPhase::kRunning &&
      seg.pending_end == SegmentEnd::kPreempted) {
    // The notice came as the command finished: no segment ended preempted and no work was
    // lost, so it is no preemption (its notice stays in the events).
    --result_.preemptions;
  }
  if (finished) return SegmentEnd::kFinished;
  return seg.phase == SegmentPhase::kRunning ? SegmentEnd::kFailed : seg.pending_end;
}

void Supervisor::CloseSegment(const Segment& seg, SegmentEnd end, const ExitStatus& exit,
                              Loop& loop) {
  const int number = seg.number;
  result_.garbage_report_lines += seg.reader->garbage_lines();
  if (seg.reader->garbage_lines() > 0) {
    const std::string w = fmt::format("segment {}: {} garbage report line(s) ignored", number,
                                      seg.reader->garbage_lines());
    result_.warnings.push_back(w);
    Record(EventKind::kWarning, number, w, loop);
  }
  if (end == SegmentEnd::kPreempted) {
    const int64_t lost = std::max<int64_t>(0, loop.last_step - loop.last_committed_step);
    result_.lost_steps.push_back(lost);
    RunEvent e{EventKind::kPreempted,
               number,
               clock_.Wall(),
               fmt::format("{} step(s) since the last checkpoint", lost),
               lost,
               std::nullopt,
               std::nullopt,
               std::nullopt};
    recorder_.Event(e);
  }
  loop.guard.Accrue(loop.Elapsed(clock_.Steady()));
  const WallTime closed_at = clock_.Wall();
  const Duration length = RecordedLength(seg.opened_at, closed_at);
  const Money cost = config_.price.For(length);
  loop.recorded.AddHeld(length, config_.price, config_.gpus);
  loop.last_segment_closed = closed_at;
  SegmentClose close{number, closed_at, end, exit, cost, loop.last_step};
  recorder_.SegmentClosed(close);
  recorder_.RecordHeartbeat({number, clock_.Wall(), loop.guard.usage(), loop.last_step});
  log::Info("segment {} ended: {} ({})", number, SegmentEndName(end), exit.Describe());
}

void Supervisor::HandleReports(Segment& seg, Loop& loop) {
  for (ReportMessage& message : seg.reader->Poll()) {
    const SteadyTime now = clock_.Steady();
    if (auto* p = std::get_if<ProgressReport>(&message)) {
      OnProgress(seg, *p, loop, now);
    } else if (auto* c = std::get_if<CheckpointReport>(&message)) {
      OnCheckpoint(seg, *c, loop, now);
    } else if (auto* r = std::get_if<ResultReport>(&message)) {
      result_.result = *r;
      seg.reported_result = true;
    }
  }
}

void Supervisor::OnProgress(Segment& seg, const ProgressReport& p, Loop& loop, SteadyTime now) {
  loop.last_step = p.step;
  for (auto& source : sources_) {
    source->Progress(p.step);
    source->ProgressReported(p, now);
  }
  if (!seg.first_progress_at) {
    seg.first_progress_at = now;
    seg.first_step = p.step;
    const auto took = std::chrono::duration_cast<Duration>(now - seg.started);
    if (seg.resumed) {
      result_.resume_times.push_back(took);
      recorder_.Event({EventKind::kResumed, seg.number, clock_.Wall(),
                       "first progress after resume", p.step, std::nullopt, took, std::nullopt});
    } else if (!result_.first_progress) {
      result_.first_progress = took;
    }
  }
  const double window = std::chrono::duration<double>(now - seg.rate_window_start).count();
  if (window >= 2.0) {
    seg.steps_per_second = static_cast<double>(p.step - seg.rate_window_step) / window;
    seg.rate_window_start = now;
    seg.rate_window_step = p.step;
  }
}

void Supervisor::OnCheckpoint(Segment& seg, const CheckpointReport& c, Loop& loop, SteadyTime now) {
  Result<CommittedCheckpoint> committed = store_.Commit(c);
  if (!committed) {
    ++result_.checkpoints_rejected;
    log::Warning("checkpoint at step {} not committed: {}", c.step, committed.error().message);
    Record(EventKind::kCheckpointRejected, seg.number, committed.error().message, loop);
    return;
  }
  ++result_.checkpoints_committed;
  result_.commit_times.push_back(committed->commit_time);
  result_.last_checkpoint_bytes = committed->bytes;
  loop.last_committed_step = committed->step;
  recorder_.Event({EventKind::kCheckpointCommitted, seg.number, clock_.Wall(),
                   committed->dir.filename().string(), committed->step, committed->bytes,
                   committed->commit_time, std::nullopt});
  log::Debug("checkpoint at step {} committed ({} bytes)", committed->step, committed->bytes);
  // Checkpoint done after a notice: no need to wait out the rest of the grace period.
  if (seg.phase == SegmentPhase::kCheckpointing) {
    seg.child->SignalGroup(SIGTERM);
    seg.phase = SegmentPhase::kStopping;
    seg.deadline = now + config_.stop_grace;
  }
}

void Supervisor::BeginStop(Segment& seg, SegmentEnd reason, Loop& /*loop*/) {
  if (seg.phase != SegmentPhase::kRunning) return;
  seg.pending_end = reason;
  // SIGUSR1 terminates a process that does not handle it; a command that never spoke the
  // protocol gets the plain SIGTERM its own code may handle instead.
  if (seg.reader->messages() == 0) {
    seg.child->SignalGroup(SIGTERM);
    seg.phase = SegmentPhase::kStopping;
    seg.deadline = clock_.Steady() + config_.stop_grace;
    return;
  }
  seg.child->SignalGroup(SIGUSR1);
  seg.phase = SegmentPhase::kCheckpointing;
  seg.deadline = clock_.Steady() + config_.checkpoint_grace;
}

void Supervisor::Tick(Segment& seg, Loop& loop) {
  // One step per timer and per source of stop, in this order: the caps first (a cap reached
  // wins over a notice in the same tick), then notices, interrupts, the stop's own deadlines,
  // and what is only told (heartbeat, sample, status).
  const SteadyTime now = clock_.Steady();
  if (now >= loop.next_accrual) AccrueBudget(seg, loop, now);
  TakePreemptionSignal(seg, loop);
  if (seg.phase == SegmentPhase::kRunning) PollSources(seg, loop, now);
  TakeInterrupt(seg, loop);
  EscalateStop(seg, now);
  if (now >= loop.next_heartbeat) {
    loop.next_heartbeat = now + config_.heartbeat_interval;
    recorder_.RecordHeartbeat({seg.number, clock_.Wall(), loop.guard.usage(), loop.last_step});
  }
  if (sampler_ && now >= loop.next_sample) TakeSample(seg, loop, now);
  if (status_callback_ && now >= loop.next_status) {
    loop.next_status = now + kStatusInterval;
    status_callback_(StatusOf(seg, loop, now));
  }
}

void Supervisor::AccrueBudget(Segment& seg, Loop& loop, SteadyTime now) {
  loop.next_accrual = now + config_.accrual_interval;
  const BudgetCheck check = loop.guard.Accrue(loop.Elapsed(now));
  if (check.warn) {
    const std::string d =
        fmt::format("{:.0f}% of the {} cap ({}) used", 100 * loop.guard.Fraction(*check.warn),
                    CapKindName(*check.warn), loop.guard.CapText(*check.warn));
    log::Warning("budget: {}", d);
    recorder_.Event({EventKind::kBudgetWarning, seg.number, clock_.Wall(), d, std::nullopt,
                     std::nullopt, std::nullopt, check.warn});
  }
  if (check.exceeded && seg.phase == SegmentPhase::kRunning) {
    loop.cap_hit = check.exceeded;
    log::Warning("budget: the {} cap ({}) is reached; asking the command to checkpoint and stop",
                 CapKindName(*check.exceeded), loop.guard.CapText(*check.exceeded));
    recorder_.Event({EventKind::kBudgetStop, seg.number, clock_.Wall(), "cap reached", std::nullopt,
                     std::nullopt, std::nullopt, check.exceeded});
    BeginStop(seg, SegmentEnd::kBudgetStop, loop);
  }
}

void Supervisor::TakePreemptionSignal(Segment& seg, Loop& loop) {
  const int sig = loop.signals.TakePreemptionSignal();
  if (sig == 0 || seg.phase != SegmentPhase::kRunning) return;
  loop.self_signalled = true;
  ++result_.preemptions;
  Record(EventKind::kPreemptionNotice, seg.number, "signal " + SignalName(sig), loop);
  log::Warning("preemption notice: {} to frugal", SignalName(sig));
  BeginStop(seg, SegmentEnd::kPreempted, loop);
}

void Supervisor::PollSources(Segment& seg, Loop& loop, SteadyTime now) {
  for (auto& source : sources_) {
    const std::optional<PreemptionNotice> notice = source->Poll(now);
    if (!notice) continue;
    ++result_.preemptions;
    Record(EventKind::kPreemptionNotice, seg.number, notice->source + ": " + notice->detail, loop);
    if (notice->stop_request) {
      log::Info("stop request from {}: {}", notice->source, notice->detail);
    } else {
      log::Warning("preemption notice from {}: {}", notice->source, notice->detail);
    }
    BeginStop(seg, SegmentEnd::kPreempted, loop);
    return;
  }
}

void Supervisor::TakeInterrupt(Segment& seg, Loop& loop) {
  if (!loop.signals.TakeInterrupt()) return;
  ++loop.interrupts;
  if (seg.phase == SegmentPhase::kRunning) {
    log::Warning("interrupted; asking the command to checkpoint and stop (again to kill it)");
    BeginStop(seg, SegmentEnd::kInterrupted, loop);
  } else if (loop.interrupts > 1 && seg.phase != SegmentPhase::kKilled) {
    seg.child->SignalGroup(SIGKILL);
    seg.phase = SegmentPhase::kKilled;
  }
}

void Supervisor::EscalateStop(Segment& seg, SteadyTime now) {
  if (seg.phase == SegmentPhase::kCheckpointing && now >= seg.deadline) {
    seg.child->SignalGroup(SIGTERM);
    seg.phase = SegmentPhase::kStopping;
    seg.deadline = now + config_.stop_grace;
  } else if (seg.phase == SegmentPhase::kStopping && now >= seg.deadline) {
    log::Warning("the command did not stop within {} of SIGTERM; killing its process group",
                 FormatDuration(config_.stop_grace));
    seg.child->SignalGroup(SIGKILL);
    seg.phase = SegmentPhase::kKilled;
  }
}

void Supervisor::TakeSample(Segment& seg, Loop& loop, SteadyTime now) {
  loop.next_sample = now + config_.sample_interval;
  monitor::Sample s = sampler_->Take(seg.child->pid());
  recorder_.RecordSample(seg.number, s);
  if (seg.first_progress_at && s.gpu_util_percent)
    loop.training_gpu_util.push_back(*s.gpu_util_percent);
  loop.samples.push_back(s);
}

RunStatus Supervisor::StatusOf(const Segment& seg, const Loop& loop, SteadyTime now) const {
  RunStatus st;
  st.elapsed = loop.Elapsed(now);
  st.segment = seg.number;
  static constexpr const char* kPhases[] = {"running", "checkpointing", "stopping", "killing"};
  st.phase = kPhases[static_cast<int>(seg.phase)];
  st.step = loop.last_step;
  st.steps_per_second = seg.steps_per_second;
  st.usage = loop.guard.usage();
  st.preemptions = result_.preemptions;
  double highest = 0;
  bool any = false;
  for (CapKind k : {CapKind::kDollars, CapKind::kGpuHours, CapKind::kWall}) {
    const bool set = (k == CapKind::kDollars && loop.guard.caps().dollars) ||
                     (k == CapKind::kGpuHours && loop.guard.caps().gpu_hours) ||
                     (k == CapKind::kWall && loop.guard.caps().wall);
    if (set) {
      any = true;
      highest = std::max(highest, loop.guard.Fraction(k));
    }
  }
  if (any) {
    st.cap_fraction = highest;
    // Every cap grows linearly with wall time here, so the remaining share scales with it.
    if (highest > 0 && highest < 1) {
      st.eta_to_cap = Duration(static_cast<int64_t>(static_cast<double>(st.usage.wall.count()) *
                                                    (1 - highest) / highest));
    }
  }
  return st;
}

void Supervisor::StopLeftovers(Segment& seg, Loop& loop) {
  ReapOrphans(seg.child->pid());
  if (!seg.child->GroupAlive()) return;
  const std::string w = fmt::format(
      "segment {}: the command exited but left processes running in its group; stopping them",
      seg.number);
  log::Warning("{}", w);
  result_.warnings.push_back(w);
  Record(EventKind::kWarning, seg.number, w, loop);
  seg.child->SignalGroup(SIGTERM);
  // Real time, whatever the run's clock: this waits on processes dying, and must end.
  const SteadyTime deadline = std::chrono::steady_clock::now() + config_.stop_grace;
  while (seg.child->GroupAlive() && std::chrono::steady_clock::now() < deadline) {
    loop.signals.WaitFor(Duration(20));
    ReapOrphans(seg.child->pid());
  }
  if (seg.child->GroupAlive()) seg.child->SignalGroup(SIGKILL);
  for (int i = 0; i < 100 && seg.child->GroupAlive(); ++i) {
    loop.signals.WaitFor(Duration(10));
    ReapOrphans(seg.child->pid());
  }
}

}  // namespace frugal::run
