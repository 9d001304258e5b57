#pragma once
// Measured profiles in the ledger (table profiles, schema 7): what a command did on one
// machine, under a name. `frugal profile` records them; plan and estimate read the newest one
// of a name with LatestProfile to replace their prior with a measurement (docs/profile.md).
//
// Throughput is in the job's own units: steps per second always, tokens and samples per second
// when the command's progress reports carried cumulative counts (docs/protocol.md). The device
// is the GPU model NVML names ("NVIDIA A100-SXM4-80GB"), or the CPU model for a run without a
// GPU ("CPU: AMD EPYC 7B13"; device_kind "cpu").

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "frugal/core/error.h"
#include "frugal/ledger/types.h"

namespace frugal::ledger {

class Ledger;

using ProfileId = int64_t;

struct NewProfile {
  std::string name;
  Timestamp time{};                 ///< when the measurement ended
  std::string command;              ///< the command line, space-joined
  std::string device;               ///< "NVIDIA H100 80GB HBM3", or "AMD EPYC 7B13" for a CPU
  std::string device_kind = "cpu";  ///< "gpu" or "cpu"
  int device_count = 1;             ///< GPUs visible; for a CPU, the vCPUs the command could use
  Duration wall{0};                 ///< the command's whole run, start-up included
  Duration measured{0};             ///< first to last progress report: what the rates are over
  int64_t steps = 0;                ///< steps inside the measured stretch
  double steps_per_second = 0;
  std::optional<double> tokens_per_second;
  std::optional<double> samples_per_second;
  std::optional<uint64_t> peak_gpu_memory_bytes;  ///< summed over GPUs; NVML only
  uint64_t peak_rss_bytes = 0;                    ///< host memory of the process tree
  double cpu_cores = 0;         ///< mean CPU cores busy over the wall time (1.0 = one core)
  std::string ended;            ///< "steps", "time", "finished": what ended the measurement
  std::optional<RunId> run_id;  ///< the ledger run it was measured in, when it was one
};

struct Profile {
  ProfileId id = 0;
  NewProfile record;
};

/// Stores a profile. kBadInput for an empty name or device, or a rate that is not a positive
/// finite number.
[[nodiscard]] Result<ProfileId> RecordProfile(Ledger& ledger, const NewProfile& profile);

/// Every profile, newest first; only those named `name` when it is given.
[[nodiscard]] Result<std::vector<Profile>> ListProfiles(Ledger& ledger,
                                                        const std::optional<std::string>& name);

/// The newest profile named `name`, or nullopt when there is none. This is what plan and
/// estimate read: its throughput, its device, its id (and run id) and when it was measured.
[[nodiscard]] Result<std::optional<Profile>> LatestProfile(Ledger& ledger, const std::string& name);

/// The profile with this id, or nullopt.
[[nodiscard]] Result<std::optional<Profile>> GetProfile(Ledger& ledger, ProfileId id);

/// The newest profile named `name_or_id`, else the profile with that id (`profile show`).
/// kBadInput when there is neither, saying where to look.
[[nodiscard]] Result<Profile> FindProfile(Ledger& ledger, const std::string& name_or_id);

}  // namespace frugal::ledger
