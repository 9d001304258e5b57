#pragma once
// The study spec: what to tune (a trial command or a replay table), over which space, toward
// which objective, with which fidelity ladder, scheduler and sampler, on which resources, and
// under which gates. Read from YAML (docs/study-spec.md); every error names file:line:column.

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "frugal/core/duration.h"
#include "frugal/core/error.h"
#include "frugal/core/money.h"
#include "frugal/tune/sampler.h"
#include "frugal/tune/scheduler.h"
#include "frugal/tune/search_space.h"

namespace frugal::tune {

enum class Direction { kMinimize, kMaximize };

struct ReplaySource {
  std::filesystem::path dir;  ///< holds configs.csv and curves.csv
  std::string config_column = "config_id";
  std::string cost_column = "elapsed_s";  ///< cumulative job-seconds at each row
};

struct Objective {
  std::string metric;
  Direction direction = Direction::kMinimize;
  std::vector<std::string> watch;  ///< other metrics shown beside the objective
};

struct FidelitySpec {
  std::string name = "epoch";
  double min = 1.0;
  double max = 0.0;
  double grace = 3.0;  ///< no pruning before this much fidelity (the first rung)
  double reduction_factor = 3.0;
  std::vector<double> rungs;              ///< explicit rungs; empty = grace·η^k up to max
  std::optional<Duration> cost_per_unit;  ///< prior for the gate's cost estimate
};

struct Resources {
  int gpus = 1;
  std::string tier;   ///< on_demand, spot, reserved_1y, reserved_3y ("" = not stated)
  std::string offer;  ///< an offer name from the catalog ("" = not stated)
  std::optional<Rate> price_per_gpu_hour;
  int workers = 1;
  std::optional<Duration> checkpoint_min;  ///< checkpoint every checkpoint_min..checkpoint_max
  std::optional<Duration> checkpoint_max;
};

struct PlateauGate {
  double epsilon = 0.0;
  std::optional<int64_t> trials;  ///< stop when N trials started without improvement by ε
  std::optional<Money> spend;     ///< or when this much was spent without improvement
};

struct Gates {
  std::optional<Money> budget;
  std::optional<double> max_gpu_hours;
  std::optional<int64_t> max_trials;
  std::optional<Duration> trial_max_wall;
  std::optional<PlateauGate> plateau;
};

/// Injected preemptions for drills (the run supervisor's chaos source): each trial segment is
/// preempted at a random moment 0.5–1.5× `every` after it starts, at most `max` times in the
/// whole study (0: no limit).
struct ChaosSpec {
  Duration every{0};
  int64_t max = 0;
};

struct StudySpec {
  std::string name;
  std::map<std::string, std::string> tags;  ///< recorded on every trial's run; policy checks them
  std::vector<std::string> command;  ///< the trial command (empty for replay)
  std::optional<ChaosSpec> chaos;    ///< injected preemptions (trial commands only)
  std::optional<ReplaySource> replay;
  SearchSpace space;
  Objective objective;
  FidelitySpec fidelity;
  SchedulerKind scheduler = SchedulerKind::kAsha;
  int median_min_trials = 3;
  int bracket_size = 0;
  SamplerKind sampler = SamplerKind::kRandom;
  uint64_t seed = 1;
  Resources resources;
  Gates gates;
  std::string source;  ///< where the spec came from, for messages

  /// The rung ladder the scheduler uses (explicit rungs, or grace·η^k capped at max).
  RungLadder Ladder() const;
};

/// Parses a study spec. kBadInput "file:line:col: field 'x': ..." on any bad field; relative
/// replay directories resolve against `base_dir`.
[[nodiscard]] Result<StudySpec> ParseStudySpec(std::string_view yaml_text, std::string source,
                                               const std::filesystem::path& base_dir);
[[nodiscard]] Result<StudySpec> LoadStudySpec(const std::filesystem::path& path);

}  // namespace frugal::tune

namespace frugal::tune {

/// The spec's YAML with its trial source replaced by `replay` (for `tune STUDY.yaml --replay`),
/// so a resumed study re-reads the same effective spec. kBadInput on unparsable YAML.
[[nodiscard]] Result<std::string> WithReplaySource(std::string_view yaml_text,
                                                   const ReplaySource& replay);

}  // namespace frugal::tune
