#pragma once
// Measurements the ledger recorded for a job, as the planner takes them: what `frugal run
// --spec` measured of the job (or `frugal profile` under the job's name) reaches the next plan
// of the same spec without a `measured:` entry. The ledger layer stores them
// (ledger/profiles.h); the run layer reads them out (run/profile.h); this layer only sees
// plain figures.

#include <cstdint>
#include <optional>
#include <string>

namespace frugal::plan {

/// One recorded measurement of a job, in the figures the ledger keeps.
struct RecordedMeasurement {
  int64_t profile_id = 0;
  std::string run_id;       ///< the supervised run's id ("r-20261126-..."); empty for a profile
  std::string recorded_at;  ///< RFC 3339 UTC
  std::string device;       ///< as measured: "NVIDIA A100-SXM4-80GB", or a CPU model
  std::string device_kind = "cpu";  ///< "gpu" or "cpu"
  int device_count = 1;             ///< GPUs, or for a CPU the vCPUs the command could use
  double steps_per_second = 0;
  std::optional<double> tokens_per_second;
  std::optional<double> samples_per_second;
  std::optional<uint64_t> peak_gpu_memory_bytes;  ///< summed over the GPUs
  uint64_t peak_rss_bytes = 0;                    ///< host memory of the process tree
  double cpu_cores = 0;                           ///< mean CPU cores busy
  double wall_seconds = 0;                        ///< the command's whole run
  std::string ended;  ///< "finished" when the command ran to its end (wall is then its runtime)
};

/// What the planner made of one recorded measurement: used (on the catalog GPU `gpu`), or not
/// and why (`note`).
struct RecordedUse {
  RecordedMeasurement measurement;
  std::string gpu;  ///< the catalog GPU the device maps to; empty when it maps to none
  bool used = false;
  std::string note;  ///< why it was not used, or which measurement superseded it
};

}  // namespace frugal::plan
