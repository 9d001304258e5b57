#pragma once
// The planner: every offer × GPU count × knobs for a job, priced with spot risk and the
// deadline, ranked, with the losers grouped by why they lost and advice on cheaper knobs.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "frugal/catalog/catalog.h"
#include "frugal/estimate/estimator.h"
#include "frugal/plan/checkpointing.h"
#include "frugal/plan/data_locality.h"
#include "frugal/plan/job_spec.h"

namespace frugal::plan {

enum class Objective { kCost, kTime };

struct Option;

/// Command-line overrides of the spec's constraints and how much to show.
struct PlanRequest {
  std::optional<double> deadline_hours;
  std::optional<Money> budget;
  Objective objective = Objective::kCost;
  /// --memory-headroom: the share of usable GPU memory to keep free (beats the spec's).
  std::optional<double> memory_headroom;
  size_t top = 10;
  /// When set, ranked options it returns true for (a team policy forbids them) are taken out
  /// of the ranking before `top` applies, into Plan::refused.
  std::function<bool(const Option&)> refuse;
};

/// How an option runs.
enum class RunKind {
  kPlain,     ///< on-demand (or spot/reserved priced plainly)
  kSpot,      ///< spot with checkpoints; preemptions priced in
  kFallback,  ///< spot, switching to on-demand when the deadline is at risk
  kReserved,  ///< a reservation's cost for this job at the stated utilization (estimated)
};
[[nodiscard]] std::string_view RunKindName(RunKind k);

struct Option {
  const catalog::Offer* offer = nullptr;
  const catalog::Offer* fallback_offer = nullptr;  ///< kFallback: the on-demand offer
  RunKind kind = RunKind::kPlain;
  int instances = 1;
  int gpus = 0;  ///< total GPUs (0 for CPU offers)
  estimate::Training knobs;
  bool measured = false;  ///< runtime from a measured profile
  /// Set when the runtime was carried from measurements on other GPUs: how.
  std::string predicted_from;
  double launch_hours = 0;  ///< boot + setup + data staging (+ preprocessing) before the work
  /// Spot: the expected wait for capacity at the start (in launch_hours); each restart waits
  /// the offer's mean outage (in the spot run's restart time).
  double capacity_wait_hours = 0;
  DataCost data;            ///< what bringing the data costs (in expected_cost, launch_hours)
  double billed_hours = 0;  ///< wall time as the cloud bills it
  double peak_gib = 0;      ///< per GPU (0 when unknown: CPU, or measured without a peak)
  /// The peak as knobs.memory_basis counts it (training.memory_basis; a measured peak is what
  /// NVML showed, the nvidia-smi basis, and is reported as is).
  double reported_peak_gib = 0;
  bool peak_known = false;  ///< false: no model or measurement gives the peak
  double capacity_gib = 0;  ///< usable per GPU: the nameplate less reservation and ECC
  double nameplate_gib = 0;
  bool inside_headroom = false;  ///< the peak leaves less than the plan's headroom free
  double work_hours = 0;         ///< undisturbed wall time
  double wall_hours = 0;         ///< expected, preemptions included
  double gpu_hours = 0;
  Money expected_cost;
  bool meets_deadline = true;
  double deadline_miss_probability = 0;
  SpotRun spot;          ///< kSpot/kFallback
  FallbackRun fallback;  ///< kFallback
  bool estimated_price = false;

  [[nodiscard]] double HeadroomGib() const { return capacity_gib - peak_gib; }
};

/// Options that lost, grouped by one reason: "A100-40GB x1: does not fit, needs 47.2 GiB".
struct Exclusion {
  std::string reason;
  size_t offers = 0;  ///< how many offer × count options it covers
};

/// An option PlanRequest::refuse took out, with the rank it had before.
struct RefusedOption {
  Option option;
  size_t rank = 0;  ///< 1-based, among every ranked option
};

struct Plan {
  std::vector<Option> options;  ///< ranked, best first; the first `top`
  /// Refused options that ranked above the last option shown (at most `top` of them).
  std::vector<RefusedOption> refused;
  size_t refused_count = 0;         ///< every option refused
  std::vector<Exclusion> excluded;  ///< grouped reasons, most common first
  std::vector<std::string> advice;
  std::optional<double> deadline_hours;
  std::optional<Money> budget;
  double memory_headroom = estimate::kDefaultMemoryHeadroom;  ///< share of usable memory kept free
  /// Options within this share of the cheapest rank by fewer GPUs (constraints.fewer_gpus_within).
  double fewer_gpus_within = 0;
  std::string prices_as_of;  ///< the catalog's snapshot date (YYYY-MM-DD)
  double tokens = 0;
  DataSource data;       ///< where runs read the data from (data_locality.h)
  size_t ranked = 0;     ///< options that passed every constraint
  size_t evaluated = 0;  ///< knob combinations estimated
};

/// Plans `spec` over `c` (custom offers already loaded into it). Spot options meet the
/// deadline when their miss probability is at most kMaxDeadlineRisk.
[[nodiscard]] Result<Plan> MakePlan(const JobSpec& spec, const catalog::Catalog& c,
                                    const PlanRequest& request);

inline constexpr double kMaxDeadlineRisk = 0.10;

/// By cost, options within 5% of the cheapest rank by fewer GPUs: a saving that small is inside
/// the estimate's error on what splitting costs (the host's PCIe topology, overlap taken as
/// perfect, one more machine to fail), and an engineer takes the simpler layout there.
inline constexpr double kDefaultFewerGpusWithin = 0.05;

}  // namespace frugal::plan
