#pragma once
// The supervised runner's segment in flight, shared by supervised_runner.cc (the tuner's side)
// and supervised_segment.cc (the thread's side). Not part of the public API.

#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <thread>
#include <utility>

#include "frugal/run/report_channel.h"
#include "frugal/run/supervisor.h"
#include "frugal/tune/supervised_runner.h"

namespace frugal::tune {

/// One trial's segment: a thread running supervisor invocations, and what the tuner has read
/// of its reports. Fields marked (thread) are written by the thread and read by the tuner only
/// after `done` (under the runner's wake mutex) or after joining; the rest belong to the tuner.
struct SupervisedRunner::Active {
  Pending pending;
  run::SupervisorConfig config;  ///< made by the tuner before the thread starts
  int first_invocation = 0;      ///< invocations before this segment (seeds the chaos source)
  std::thread thread;
  std::atomic<bool> stop_requested{false};  ///< the tuner asked (pause, Stop, cap)
  bool released = false;          ///< StopInBackground: only its time is reported from now on
  double released_seconds = 0.0;  ///< time of its reports dropped when it was released
  bool done = false;              ///< under the runner's wake mutex
  Result<run::RunResult> result = Fail(ErrorCode::kFailed, "not run");  ///< (thread)
  std::optional<double> run_seconds;  ///< (thread) the run's segment seconds, every attempt
  int preemptions = 0;                ///< (thread)
  int invocations = 0;                ///< (thread)
  std::map<std::filesystem::path, std::unique_ptr<run::ReportReader>> readers;
  SteadyTime last_event;
  double fidelity = 0.0;                 ///< the last fidelity reported with the objective
  bool reported = false;                 ///< any objective report at all
  std::optional<SteadyTime> reached_at;  ///< target reported
  /// The furthest objective report in the trial's earlier report files, which the tuner may
  /// not have seen (it was killed while the trial reported): (fidelity, value).
  std::optional<std::pair<double, double>> earlier;
  /// The furthest objective report after it was released, told with its end: a trial that
  /// trains on before it stops keeps what it reached (fidelity, value).
  std::optional<std::pair<double, double>> after_release;
};

}  // namespace frugal::tune
