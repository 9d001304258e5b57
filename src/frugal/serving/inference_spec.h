#pragma once
// The inference spec (YAML, apiVersion frugal/v1, kind Inference): the model to serve and its
// weights' format, the workload, the latency objective, the hours it serves and the months it
// lives, what was measured, and (for `frugal tco`) what training it costs. Documented field by
// field in docs/inference-spec.md; every error names file:line:column and the field (exit 2).

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "frugal/catalog/offer.h"
#include "frugal/core/money.h"
#include "frugal/estimate/model.h"

namespace frugal::serving {

/// What the model does per request.
enum class Architecture {
  kDecoder,  ///< generative: prefill the prompt, then one decode step per output token
  kEncoder,  ///< a transformer encoder or classifier: one forward pass per item
  kCnn,      ///< any non-transformer network: one forward pass of `flops_per_item` per item
};
[[nodiscard]] std::string_view ArchitectureName(Architecture a);
[[nodiscard]] Result<Architecture> ParseArchitecture(std::string_view text);

/// How the weights are stored when served.
/// kInt8 is weight-only (w8a16: dequantized into 16-bit math); kW8A8 computes in int8 (weights
/// and activations, SmoothQuant, TensorRT's int8).
enum class WeightFormat { kFp32, kFp16, kBf16, kFp8, kInt8, kW8A8, kInt4 };
[[nodiscard]] std::string_view WeightFormatName(WeightFormat w);
/// fp32, fp16, bf16, fp8, int8 (w8a16), w8a8, int4 (awq, gptq, w4a16); kBadInput otherwise.
[[nodiscard]] Result<WeightFormat> ParseWeightFormat(std::string_view text);
/// Bytes per weight of the quantized linear layers: fp32 4, fp16/bf16 2, fp8/int8 1 (a scale
/// per output channel is negligible), int4 0.53125 (4 bits plus a 16-bit scale and a 16-bit
/// zero point per group of 128, as AWQ and GPTQ store them).
[[nodiscard]] double WeightBytes(WeightFormat w);

struct ServedModel {
  Architecture architecture = Architecture::kDecoder;
  estimate::Model shape;  ///< transformer shape (derived for a bare count)
  /// Mixture of experts: parameters a token runs through (every expert's weights are in
  /// memory, only these are read and multiplied per token); unset: derived from the shape.
  std::optional<double> active_params;
  std::optional<double> flops_per_item;  ///< forward FLOPs per item (CNNs; overrides encoders')
  WeightFormat weights = WeightFormat::kFp16;
  double kv_cache_bytes = 2;  ///< per element: 2 (fp16/bf16) or 1 (fp8)
};

struct Workload {
  double mean_rps = 0;  ///< requests per second, averaged over the serving hours
  double peak_rps = 0;
  /// Requests per second in each of the 24 hours of a serving day (empty: flat, see docs).
  std::vector<double> daily_shape;
  int input_tokens = 0;          ///< decoder: prompt tokens per request
  int output_tokens = 0;         ///< decoder: generated tokens per request
  double items_per_request = 1;  ///< encoder/cnn
  int tokens_per_item = 0;       ///< encoder: tokens per item
  /// The point at which one replica is reported (a benchmark's setting), at most one of them:
  /// decoder: `concurrency` requests run at a time (concurrent users); encoder/cnn: `batch`
  /// items per forward pass; either: `offered_rps`, requests/s offered to one replica. Unset:
  /// the replica is sized to the largest batch that fits and meets the latency.
  std::optional<int> concurrency;
  std::optional<int> batch;
  std::optional<double> offered_rps;
};

/// Latency objectives in seconds; unset ones are not checked.
struct LatencyObjective {
  std::optional<double> ttft_p50;  ///< time to first token
  std::optional<double> ttft_p95;
  std::optional<double> tpot_p50;  ///< time per output token after the first
  std::optional<double> tpot_p95;
  std::optional<double> request_p50;  ///< whole request (encoder/cnn)
  std::optional<double> request_p95;
  [[nodiscard]] bool any() const {
    return ttft_p50 || ttft_p95 || tpot_p50 || tpot_p95 || request_p50 || request_p95;
  }
};

/// The hours a deployment serves each month, and for how many months.
struct ServingSchedule {
  double hours_per_month = 730;  ///< 24/7: 730 (8,760 h a year / 12)
  std::string label = "24/7";
  int lifetime_months = 12;
  bool interruptible = false;       ///< tolerates interruption (batch inference): spot allowed
  double headroom = 0.2;            ///< spare capacity over the peak
  double restart_hours = 5.0 / 60;  ///< a spot replica's replacement: boot and load
};

/// Measured throughput of one replica (and optionally its latency) on a GPU or an offer.
struct MeasuredServing {
  std::string offer;      ///< instance type or offer-id prefix; or empty
  std::string gpu;        ///< canonical GPU name; or empty
  int gpus = 0;           ///< GPUs per replica it was measured on; 0: any
  double per_second = 0;  ///< output tokens/s (decoder) or items/s (encoder, cnn) per replica
  std::optional<int> concurrency;  ///< decoder: concurrent requests when measured
  LatencyObjective latency;        ///< measured latencies (seconds), replacing the model's
  std::string where;               ///< file:line:col, for messages
};

struct ServingConstraints {
  std::vector<std::string> clouds;
  std::vector<std::string> regions;
  std::vector<CapacityTier> tiers;
  std::vector<std::string> gpus;  ///< canonical names, and "cpu" for CPU instances
  int max_gpus_per_replica = 8;
  std::optional<int> gpus_per_replica;       ///< exactly this tensor-parallel degree
  std::optional<int> replicas_per_instance;  ///< data-parallel replicas on one instance
};

/// What the model's training costs, for the lifetime bill (`frugal tco`).
struct TrainingSource {
  std::filesystem::path job;  ///< a job spec, planned (its best option's expected cost)
  std::optional<Money> cost;  ///< a stated cost
  std::string run;            ///< a ledger run's actual spend
  std::string study;          ///< a ledger study's actual spend
  std::optional<int> retrain_every_months;
  std::optional<Money> retrain_cost;  ///< default: the first training's cost
  std::string where;                  ///< file:line:col of the section
  [[nodiscard]] bool declared() const {
    return !job.empty() || cost || !run.empty() || !study.empty();
  }
};

/// The deployment running today (optional): the levers are priced against it.
struct Deployment {
  std::string gpu;    ///< canonical GPU name, or "cpu"
  std::string offer;  ///< or an instance type
  int gpus_per_replica = 1;
  int replicas = 1;
  CapacityTier tier = CapacityTier::kOnDemand;
  std::string where;
};

struct InferenceSpec {
  std::string source;
  std::string name;
  std::map<std::string, std::string> tags;
  std::vector<std::filesystem::path> catalog_files;
  std::string catalog_where;
  ServedModel model;
  Workload workload;
  LatencyObjective latency;
  ServingSchedule schedule;
  std::vector<MeasuredServing> measured;
  ServingConstraints constraints;
  TrainingSource training;
  std::optional<Deployment> deployment;
};

/// True when the YAML file's `kind` is Inference (false for Job or no kind). kBadInput when
/// the file cannot be read or parsed.
[[nodiscard]] Result<bool> IsInferenceSpec(const std::filesystem::path& path);

/// Loads and validates an inference spec; `gpu_names` (the catalog's canonical names) resolve
/// GPU names. kBadInput "file:line:col: field 'x': ..." on any error, including a `catalog` or
/// `training.job` file that does not exist.
[[nodiscard]] Result<InferenceSpec> LoadInferenceSpec(const std::filesystem::path& path,
                                                      const std::vector<std::string>& gpu_names);
/// As LoadInferenceSpec, from text (tests); relative paths resolve against `base_dir`.
[[nodiscard]] Result<InferenceSpec> ParseInferenceSpec(std::string_view text,
                                                       const std::string& source,
                                                       const std::filesystem::path& base_dir,
                                                       const std::vector<std::string>& gpu_names);

}  // namespace frugal::serving
