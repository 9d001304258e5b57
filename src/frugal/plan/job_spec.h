#pragma once
// The job spec (YAML, apiVersion frugal/v1, kind Job): what to train, how much, what was
// measured, the constraints and the fault tolerance. Documented field by field in
// docs/job-spec.md; every error names file:line:column and the field.

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "frugal/catalog/offer.h"
#include "frugal/core/money.h"
#include "frugal/estimate/cross_gpu.h"
#include "frugal/estimate/estimator.h"
#include "frugal/plan/checkpointing.h"
#include "frugal/plan/fixed_costs.h"
#include "frugal/plan/recorded_measurement.h"

namespace frugal::plan {

/// The values the planner may choose among; each list is non-empty after loading.
struct KnobSpace {
  std::vector<estimate::Precision> precisions;
  std::vector<estimate::Recompute> recomputes;
  std::vector<int> micro_batches;
  std::vector<int> zero_stages;
  std::vector<estimate::Method> methods;
};

/// A measured run: runtime or throughput (and optionally peak memory) on an offer or a GPU.
struct MeasuredProfile {
  std::string offer;  ///< instance type or an offer-id prefix ("seed:option-a"); or empty
  std::string gpu;    ///< canonical GPU name; or empty
  int gpus = 0;       ///< GPU count it was measured on; 0 matches any
  std::optional<double> runtime_hours;
  std::optional<double> tokens_per_second;
  std::optional<double> samples_per_second;  ///< units: work.samples × epochs
  std::optional<double> peak_memory_gib;     ///< per GPU; on a CPU offer, host RAM
  /// Measured on a CPU with this many vCPUs (a recorded measurement): carried to every CPU
  /// offer by its vCPU count (estimate/cpu_scaling.h), never matched to an offer directly.
  std::optional<double> cpu_vcpus;
  std::optional<double> cpu_busy_cores;  ///< mean cores busy where it was measured
  std::string predicted_from;  ///< set on profiles carried to another GPU (measured_transfer.h)
  std::string source;          ///< "profile 'x' measured <when> on <device>" for a recorded profile
  std::optional<int64_t> profile_id;  ///< the ledger profile a `profile:` entry or a run gave
  /// Set on the profiles the plan took from the ledger itself (measured_transfer.h
  /// AddRecordedMeasurements): not named in the spec, so never an error against the catalog.
  std::optional<RecordedMeasurement> recorded;
  std::string where;       ///< file:line:col, for messages
  std::string gpus_where;  ///< file:line:col of `gpus` (of `gpu` when it is absent)
};

struct Constraints {
  std::optional<double> deadline_hours;
  std::optional<Money> budget;
  std::optional<double> max_gpu_hours;
  std::vector<std::string> clouds;
  std::vector<std::string> clouds_where;  ///< file:line:col of each of `clouds`
  std::vector<std::string> regions;
  std::vector<CapacityTier> tiers;
  std::vector<std::string> gpus;  ///< canonical names
  int max_gpus = 8;
  std::optional<double> reserved_utilization;  ///< share of a reservation this job's team uses
  /// constraints.fewer_gpus_within: options within this share of the cheapest rank by fewer
  /// GPUs first; unset: kDefaultFewerGpusWithin (planner.h); 0 ranks by cost alone.
  std::optional<double> fewer_gpus_within;
};

/// Where one copy of data is stored: a cloud and one of its regions.
struct DataLocation {
  std::string cloud;        ///< lower case; empty: not stated (the audit reads it as the compute's)
  std::string region;       ///< empty: not declared
  std::string where;        ///< file:line:col of `location` (or `region`), for messages
  std::string cloud_where;  ///< file:line:col of `cloud` (or `location`); empty when unstated
  [[nodiscard]] bool declared() const { return !region.empty(); }
  /// "aws:ap-south-1".
  [[nodiscard]] std::string Label() const { return cloud + ":" + region; }
};

/// Where the job's data lives, how big it is and how it is prepared (optional). The planner
/// prices moving it to every offer (data_locality.h); the audit reads it from the specs runs
/// recorded.
struct DataSpec {
  std::string cloud;              ///< where the dataset is stored; empty: the compute's cloud
  std::string region;             ///< empty: not declared
  std::string where;              ///< file:line:col of `location` or `region`
  std::string cloud_where;        ///< file:line:col of `cloud` or `location`
  std::optional<double> size_gb;  ///< what one run reads, in GB (10^9 bytes)
  std::string size_where;         ///< file:line:col of the data section, for messages
  /// How many runs will read it (`runs`): above 1 the planner weighs one copy near the compute,
  /// kept `keep_hours`, against egress on every run.
  int runs = 1;
  double keep_hours = 730;  ///< how long such a copy is kept (billed as storage); default a month
  /// Preprocessing: runs declaring the same cache key would produce the same output.
  std::string cache_key;
  std::optional<double> preprocess_hours;  ///< how long the step takes on the job's offer
  std::string cache;  ///< where the output is kept and reused; empty: recomputed every run
  DataLocation cache_location;          ///< the cache's cloud and region, when given as a map
  std::optional<double> cache_size_gb;  ///< what a run reads from the cache, in GB
  [[nodiscard]] bool declared() const { return !region.empty() || !cache_key.empty(); }
  [[nodiscard]] DataLocation Location() const { return {cloud, region, where, cloud_where}; }
};

struct JobSpec {
  std::string source;  ///< the file it came from
  std::string name;
  /// What the job's measurements are recorded under in the ledger (`frugal run --spec` records
  /// one per run; the next plan reads the newest): `name:`, else the spec file's stem.
  std::string measurement_name;
  std::map<std::string, std::string> tags;
  std::vector<std::filesystem::path>
      catalog_files;          ///< custom offers, resolved from the spec's folder
  std::string catalog_where;  ///< file:line:col of the catalog key, for messages
  estimate::Model model;
  /// The model's family; only a transformer is modelled from its shape, the others are planned
  /// from measured profiles (carried to other GPUs by estimate/cross_gpu.h).
  estimate::ModelFamily family = estimate::ModelFamily::kTransformer;
  bool modelled = true;                ///< false: runtime only from measured profiles
  std::optional<double> host_ram_gib;  ///< memory.host_ram_gib: the job's peak host RAM
  LaunchOverrides launch;              ///< fixed_costs: the job's launch and billing overrides
  estimate::Training baseline;         ///< the knobs as the user wrote them (gpus unset)
  /// training.network_gbps: the network between nodes (Gbit/s per node) for jobs that span
  /// nodes; 0 when unstated (the estimator's default).
  double network_gbps = 0;
  /// training.memory_headroom: the share of usable GPU memory to keep free; unset: the
  /// default (estimate::kDefaultMemoryHeadroom) or --memory-headroom.
  std::optional<double> memory_headroom;
  estimate::Work work;
  KnobSpace knobs;
  std::vector<MeasuredProfile> measured;
  /// What became of the measurements the ledger holds under the job's name (newest first);
  /// filled by AddRecordedMeasurements, empty when the ledger was not read.
  std::vector<RecordedUse> recorded_measurements;
  Constraints constraints;
  FaultTolerance fault_tolerance;
  DataSpec data;
};

/// Loads and validates a job spec. `gpu_names` (the catalog's canonical names) resolve and
/// check GPU names. With `drills_dir` (`<data dir>/drills`), the fault tolerance comes from the
/// drill record `fault_tolerance.drill` names, or the one named like the job when present,
/// under the spec's own fault_tolerance keys. kBadInput "file:line:col: field 'x': ..." on any
/// error, including a `catalog` file that does not exist.
[[nodiscard]] Result<JobSpec> LoadJobSpec(const std::filesystem::path& path,
                                          const std::vector<std::string>& gpu_names,
                                          const std::filesystem::path& drills_dir = {});
/// As LoadJobSpec, from text (tests); `source` names it in errors, relative paths resolve
/// against `base_dir`.
[[nodiscard]] Result<JobSpec> ParseJobSpec(std::string_view text, const std::string& source,
                                           const std::filesystem::path& base_dir,
                                           const std::vector<std::string>& gpu_names,
                                           const std::filesystem::path& drills_dir = {});

/// Only the `data:` section of a job spec's text (the audit reads it from the specs runs
/// recorded, without the catalog the rest needs). An empty DataSpec when there is none;
/// kBadInput with file:line:col for a malformed section.
[[nodiscard]] Result<DataSpec> ParseDataSection(std::string_view text, const std::string& source);

}  // namespace frugal::plan
