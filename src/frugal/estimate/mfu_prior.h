#pragma once
// The prior on hardware FLOPs utilization: what share of a GPU's dense peak a training job
// achieves, before anything has been measured. The table and its factors are documented in
// docs/estimate.md and fitted on bench/estimate/calibration.csv.

#include <string>
#include <string_view>
#include <vector>

#include "frugal/estimate/training.h"

namespace frugal::estimate {

/// How the GPUs of a job talk to each other.
enum class Interconnect {
  kSingle,     ///< one GPU
  kNvlink,     ///< one node, NVLink/NVSwitch (or AMD Infinity Fabric, TPU ICI)
  kPcie,       ///< one node, PCIe only
  kMultiNode,  ///< more than one node: NVLink inside, network between
};
[[nodiscard]] std::string_view InterconnectName(Interconnect i);

/// The GPUs a job runs on, as the estimator needs them.
struct Hardware {
  std::string gpu;           ///< canonical name, for messages
  std::string architecture;  ///< GPU family: "Ampere", "Hopper", "Turing", ...
  double memory_gib = 0;     ///< per GPU
  double peak_flops = 0;     ///< dense peak per GPU at the training precision, FLOP/s
  bool has_nvlink = false;   ///< NVLink/NVSwitch (or Infinity Fabric, ICI) between GPUs
  double nvlink_gbps = 0;    ///< NVLink bandwidth per GPU, GB/s both directions; 0 if none
  double network_gbps = 0;   ///< network between nodes, Gbit/s per node; 0: not known
};

/// The interconnect of `gpus` GPUs of a kind: one is kSingle; up to 8 (one node) kNvlink when
/// the part has NVLink, else kPcie; more is kMultiNode.
[[nodiscard]] Interconnect InterconnectFor(bool has_nvlink, int gpus);

/// One line of the prior's explanation, e.g. {"model size 0.3-1B", 0.8}.
struct MfuFactor {
  std::string what;
  double factor = 1.0;
};

struct MfuPrior {
  double hfu = 0;                  ///< hardware FLOPs utilization the runtime model divides by
  std::vector<MfuFactor> factors;  ///< base and multipliers, for --verbose and docs
};

/// The compute utilization: base utilization of the GPU family for 16-bit training of a ≥3B
/// model, times factors for precision, model size, method, offload and selective recompute;
/// clamped to [0.05, 0.75]. Communication between GPUs is not in it: EstimateStepTime
/// (parallelism.h) adds it per step.
[[nodiscard]] MfuPrior PriorUtilization(const Hardware& hw, const Training& t, double params);

/// PriorUtilization(...).hfu without the explanation (no allocation; the planner's hot path).
[[nodiscard]] double PriorHfu(const Hardware& hw, const Training& t, double params);

/// The family's 16-bit base utilization (the fitted table); 0.35 for an unknown family.
[[nodiscard]] double FamilyBaseUtilization(std::string_view architecture);

}  // namespace frugal::estimate
