#pragma once
// What the planner makes of measurements beyond the options they were taken on: throughput
// measured on some GPUs carried to every other GPU and count (estimate/cross_gpu.h), the host
// RAM a job needs checked against every offer, and why a big instance lost to its fixed costs.

#include <optional>
#include <string>
#include <vector>

#include "frugal/catalog/catalog.h"
#include "frugal/plan/job_spec.h"
#include "frugal/plan/planner.h"

namespace frugal::plan {

/// A profile for `total` GPUs of `target` predicted from the spec's profiles that name a GPU
/// and a throughput (tokens or samples per second); nullopt when there are none, or the model
/// cannot carry them there (a precision the GPU lacks, no compute figures). `predicted_from`
/// says how.
[[nodiscard]] std::optional<MeasuredProfile> CarryProfiles(const JobSpec& spec,
                                                           const catalog::Catalog& c,
                                                           const catalog::GpuSpec& target,
                                                           int total);

/// A profile for the CPU-only `offer` carried from the spec's measurement on a CPU (cpu_vcpus
/// set) by the vCPU counts (estimate/cpu_scaling.h); nullopt when there is none or the offer
/// states no vCPUs.
[[nodiscard]] std::optional<MeasuredProfile> CarryToCpuOffer(const JobSpec& spec,
                                                             const catalog::Offer& offer);

/// Sets cpu_vcpus on the spec's profiles measured on a CPU offer it names (`offer:
/// aws:m6i.8xlarge`), from the catalog's vCPUs for it, so CarryToCpuOffer carries them to the
/// other CPU instances; the named offer itself keeps the measurement as given.
void ResolveCpuOfferMeasurements(JobSpec& spec, const catalog::Catalog& c);

/// Adds to `spec.measured` what the ledger recorded of the job (`newest_first`: its profiles,
/// newest first), the newest measurement of each GPU model: on the catalog GPU its device name
/// maps to (catalog::GpuFromDeviceName), on the GPU count it ran on, in the job's units (samples
/// per second for work in samples, else tokens per second), with its per-GPU peak memory where
/// NVML saw it; a CPU measurement (the newest) with its vCPUs, busy cores and peak RSS, for the
/// CPU offers. A job planned from measurements alone with no work in tokens or samples takes a
/// run that finished on its own as its runtime. A measurement is left out, with the reason in
/// `spec.recorded_measurements`, when an older one of a GPU model (or of a CPU) a newer one covers
/// (superseded), its device is a GPU the table does not list (kept and reported, never an error),
/// it lacks the job's units, a spec entry already names it or measures that GPU itself (the spec's
/// entry wins).
void AddRecordedMeasurements(JobSpec& spec, const catalog::Catalog& c,
                             const std::vector<RecordedMeasurement>& newest_first);

/// What the ledger's measurements of a job give `frugal estimate --profile NAME`: the newest
/// measurement of each GPU model its device maps to, in one unit (the newest's most specific:
/// samples, else tokens, else steps per second), and what became of each.
struct DeviceMeasurementsFromRecords {
  std::vector<estimate::DeviceMeasurement> measured;  ///< newest first
  std::vector<RecordedUse> uses;                      ///< every record, newest first
  std::string units;                                  ///< "samples", "tokens" or "steps"
};
[[nodiscard]] DeviceMeasurementsFromRecords SelectDeviceMeasurements(
    const std::vector<RecordedMeasurement>& newest_first, const catalog::Catalog& c);

/// Why `offer` cannot hold the job's host memory (memory.host_ram_gib, or on a CPU offer the
/// profile's peak_memory_gib), with the figures; empty when it can or the offer states no RAM.
[[nodiscard]] std::string HostRamShortfall(const JobSpec& spec, const catalog::Offer& offer,
                                           const MeasuredProfile* profile);

/// When the option that computes fastest lost because its launch overhead dwarfs its work:
/// "B200 x8 (gcp:a4-highgpu-8g:...) computes in 7m but lost: launch overhead 12m on a
/// 7-minute job ($21.30 against $4.10 for L4 x1)". `ranked` best first.
[[nodiscard]] std::optional<std::string> LaunchOverheadAdvice(const std::vector<Option>& ranked);

}  // namespace frugal::plan
