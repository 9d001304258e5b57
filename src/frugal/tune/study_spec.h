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
#include "frugal/core/tier.h"
#include "frugal/ledger/types.h"
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
  double grace = 3.0;         ///< no pruning before this much fidelity (the first rung)
  bool grace_stated = false;  ///< `grace` was written in the spec (not the default)
  /// Early rungs below the grace period (grace/η, grace/η², … down to min, at whole multiples
  /// of min) that prune only once their ranks are shown to agree with the rung above (see
  /// RungLadder::early). Default: on for asha and asha-stop when `grace` and `rungs` are left
  /// unstated (a stated grace is a promise of no pruning before it).
  bool early_rungs = false;
  double reduction_factor = 3.0;
  std::vector<double> rungs;              ///< explicit rungs; empty = grace·η^k up to max
  std::optional<Duration> cost_per_unit;  ///< prior for the gate's cost estimate
  /// A numeric parameter that sets each trial's own length of training (its schedule, as
  /// `epochs` does when the learning rate anneals to the trial's end). When set, the ladder
  /// is read as fractions of `max`: a trial of length L reports at rung fidelity f·L/max,
  /// rounded up to a whole unit, and completes at L. "" = every trial uses the ladder as is.
  std::string scale_by;
  /// "file:line:col" of `max` in the spec, for checks against a replay table ("" when absent).
  std::string max_where;

  /// The trial's own full fidelity under scale_by: its `scale_by` value capped at max (none
  /// without scale_by, or when the config lacks a positive number there).
  [[nodiscard]] std::optional<double> LengthOf(const Config& config) const;
};

struct Resources {
  int gpus = 1;
  bool gpus_stated = false;          ///< `gpus` was written in the spec (not the default)
  std::optional<CapacityTier> tier;  ///< a rented tier; unset: not stated
  /// A catalog offer: "aws:g5.xlarge", "aws:g5.xlarge spot", "aws:g5.xlarge:us-east-1" or a
  /// full id "aws:g5.xlarge:us-east-1:spot" ("" = not stated). Priced by ResolvePricing.
  std::string offer;
  std::string gpu;          ///< a GPU name: the cheapest catalog offer with it ("" = not stated)
  std::string offer_where;  ///< "file:line:col" of `offer` or `gpu`, for resolution errors
  std::optional<Rate> price_per_gpu_hour;
  /// Set by ResolvePricing: the catalog offer chosen, and what the ledger records trials on.
  std::string offer_id;
  ledger::SegmentOffer record;
  int workers = 1;
  std::optional<Duration> checkpoint_min;  ///< checkpoint every checkpoint_min..checkpoint_max
  std::optional<Duration> checkpoint_max;
};

struct PlateauGate {
  double epsilon = 0.0;
  std::optional<int64_t> trials;  ///< stop when N trials started without improvement by ε
  std::optional<Money> spend;     ///< or when this much was spent without improvement
  bool operator==(const PlateauGate&) const = default;
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
  std::map<std::string, std::string> tags;  ///< on every trial's run; a policy checks them
  std::vector<std::string> command;         ///< the trial command (empty for replay)
  std::optional<ChaosSpec> chaos;           ///< injected preemptions (trial commands only)
  std::optional<ReplaySource> replay;
  SearchSpace space;
  Objective objective;
  FidelitySpec fidelity;
  SchedulerKind scheduler = SchedulerKind::kAsha;
  /// `scheduler` was written in the spec. Left unstated, a study whose budget pays for fewer
  /// than kMinRunsForPruning full runs prunes nothing (`none`): the ladder does not pay there.
  bool scheduler_stated = false;
  int median_min_trials = 3;
  int bracket_size = 0;
  SamplerKind sampler = SamplerKind::kTpe;  /// TPE after 10 random points (bench/RESULTS.md)
  uint64_t seed = 1;
  Resources resources;
  Gates gates;
  std::string source;  ///< where the spec came from, for messages
  /// The spec's directory: a relative replay dir resolves here, and trial commands run here.
  std::filesystem::path base_dir;

  /// The rung ladder the scheduler uses (explicit rungs, or grace·η^k capped at max).
  RungLadder Ladder() const;
  /// The fidelity at which a trial with `config` reports rung `rung` of `ladder` (this spec's
  /// Ladder()), with scale_by applied.
  double RungFidelity(const RungLadder& ladder, const Config& config, int rung) const;
};

/// Full runs a budget must pay for before the default scheduler prunes (bench/RESULTS.md,
/// "Tuner endgame": below it, no pruning beat every pruning setting on the replayed tables).
inline constexpr double kMinRunsForPruning = 10.0;

/// Whether `name` can name a study: it is a file name in the data directory, so it is
/// non-empty, has no spaces or slashes, and does not start with '.' ("." and ".." would escape).
bool IsStudyName(std::string_view name);
inline constexpr const char* kStudyNameRule =
    "must be non-empty, without spaces or slashes, and not start with '.'";

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
