#pragma once
// Where preemption notices come from, besides signals to the supervisor (signal_watcher.h):
// a seeded chaos source for drills and tests, and cloud metadata endpoints
// (metadata_notice.h). The supervisor polls every source on each tick.

#include <chrono>
#include <cstdint>
#include <optional>
#include <random>
#include <string>

#include "frugal/core/duration.h"
#include "frugal/run/report_channel.h"

namespace frugal::run {

using SteadyTime = std::chrono::steady_clock::time_point;

struct PreemptionNotice {
  std::string source;  ///< "signal SIGTERM", "chaos", "aws instance-action", ...
  std::string detail;
  /// The run's owner asking it to stop (a tuner pausing a trial), not capacity being reclaimed:
  /// handled the same way, told the user as what it is.
  bool stop_request = false;
};

class PreemptionSource {
 public:
  virtual ~PreemptionSource() = default;
  /// A new segment started at `now` (a source may schedule relative to it).
  virtual void SegmentStarted(SteadyTime now) = 0;
  /// A notice, once, when one is due.
  virtual std::optional<PreemptionNotice> Poll(SteadyTime now) = 0;
  /// The command reported progress at `step` (a source may schedule by progress).
  virtual void Progress(int64_t /*step*/) {}
  /// The whole progress report, read at `at` (a profile measures throughput from these).
  virtual void ProgressReported(const ProgressReport& /*report*/, SteadyTime /*at*/) {}
};

/// When a chaos source starts counting down to its notice in a segment.
enum class ChaosArming {
  /// From the segment's first progress report: the command has loaded, installed its notice
  /// handler and is training, however long its start took (a loaded machine, a slow import).
  /// A command that never reports progress is never preempted.
  kAtFirstProgress,
  /// From the moment the segment started (a command that speaks no protocol).
  kAtSegmentStart,
};

/// Preempts each segment once at a random moment: uniformly between 0.5× and 1.5× `every`
/// after the segment's first progress report (or its start, per `arming`), from a generator
/// seeded with `seed` (so a drill replays exactly: one draw per segment, whenever it arms).
/// After `max_preemptions` notices (0: unlimited) it stays quiet, so the job can finish.
class ChaosPreemptions : public PreemptionSource {
 public:
  ChaosPreemptions(Duration every, uint64_t seed, int max_preemptions = 0,
                   ChaosArming arming = ChaosArming::kAtFirstProgress);
  void SegmentStarted(SteadyTime now) override;
  std::optional<PreemptionNotice> Poll(SteadyTime now) override;
  void ProgressReported(const ProgressReport& report, SteadyTime at) override;
  [[nodiscard]] int fired() const { return fired_; }

 private:
  Duration every_;
  std::mt19937_64 rng_;
  int max_preemptions_;
  ChaosArming arming_;
  int fired_ = 0;
  /// This segment's drawn delay, until it is armed.
  std::optional<Duration> unarmed_delay_;
  std::optional<SteadyTime> next_;
};

}  // namespace frugal::run
