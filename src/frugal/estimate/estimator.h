#pragma once
// One job on one configuration: memory per GPU, FLOPs, utilization, wall-clock and GPU-hours.

#include <optional>
#include <string>
#include <vector>

#include "frugal/estimate/flops.h"
#include "frugal/estimate/memory.h"
#include "frugal/estimate/mfu_prior.h"
#include "frugal/estimate/model.h"
#include "frugal/estimate/parallelism.h"
#include "frugal/estimate/training.h"

namespace frugal::estimate {

/// The amount of training: exactly one of tokens, samples (× epochs), or steps.
struct Work {
  std::optional<double> tokens;
  std::optional<double> samples;
  double epochs = 1;
  std::optional<double> tokens_per_sample;  ///< default: the model's sequence length
  std::optional<double> steps;              ///< optimizer steps of global_batch sequences
};

/// Tokens the work amounts to. kBadInput when none or more than one form is given, or a
/// figure is not positive.
[[nodiscard]] Result<double> WorkTokens(const Work& w, const Model& m, const Training& t);

/// What was measured on this configuration; either replaces the utilization prior.
struct Measured {
  std::optional<double> tokens_per_second;  ///< whole job (all GPUs together)
  std::optional<double> mfu;                ///< model FLOPs utilization, 0-1
};

enum class UtilizationSource { kPrior, kMeasuredThroughput, kMeasuredMfu };
[[nodiscard]] std::string_view UtilizationSourceName(UtilizationSource s);

struct Estimate {
  Model model;
  Training training;
  MemoryBreakdown memory;     ///< per GPU
  double capacity_bytes = 0;  ///< per GPU
  bool fits = false;
  double tokens = 0;
  double steps = 0;  ///< optimizer steps
  Flops flops;
  double prior_hfu = 0;    ///< the prior's overall utilization (compute and communication),
                           ///< always computed for comparison
  double compute_hfu = 0;  ///< the prior's compute utilization (PriorHfu), before communication
  StepTime step;           ///< one optimizer step under the prior, seconds by what they go to
  UtilizationSource source = UtilizationSource::kPrior;
  double mfu = 0;  ///< model FLOPs / (GPUs × peak × wall)
  double wall_seconds = 0;
  /// What makes this estimate less sure or the layout wasteful, one sentence each (ZeRO-3
  /// across nodes, a large pipeline bubble, a utilization so low the batch is to blame);
  /// EstimateWarnings fills it.
  std::vector<std::string> warnings;

  [[nodiscard]] double HeadroomBytes() const { return capacity_bytes - memory.Total(); }
  [[nodiscard]] double WallHours() const { return wall_seconds / 3600.0; }
  [[nodiscard]] double GpuHours() const { return WallHours() * training.gpus; }
};

/// The warnings of `e` (set in Estimate::warnings by EstimateTraining), each naming the knob to
/// change (the job spec's field and the estimate flag):
/// - ZeRO-3 over more than one node: every micro-step gathers the weights over the network,
///   and how much of it the micro-batch's compute does not hide;
/// - tensor parallelism wider than a node: its all-reduces cross the network at every layer;
/// - a pipeline bubble above kBubbleWarnShare of the step, with the global batch that brings it
///   under (also when no global batch was given: one micro-batch per pipeline);
/// - utilization collapsed (MFU under kLowMfuWarn, or compute under kComputeShareWarn of the
///   step): what the rest of the step goes to (bubble, tensor-parallel or data-parallel
///   traffic, launches) and the knob that shrinks it.
inline constexpr double kBubbleWarnShare = 0.25;
inline constexpr double kLowMfuWarn = 0.05;
inline constexpr double kComputeShareWarn = 0.5;
[[nodiscard]] std::vector<std::string> EstimateWarnings(const Estimate& e);

/// Estimates training `tokens` tokens of `m` with `t` on t.gpus GPUs of `hw`. Under the prior,
/// runtime is steps × step time: compute (total FLOPs / (GPUs × peak × compute utilization))
/// plus the pipeline bubble and the communication EstimateStepTime adds; a measured throughput
/// or MFU replaces all of it. kBadInput for an invalid training config or a GPU without a peak
/// figure.
[[nodiscard]] Result<Estimate> EstimateTraining(const Model& m, const Training& t,
                                                const Hardware& hw, double tokens,
                                                const Measured& measured = {});

}  // namespace frugal::estimate
