#pragma once
// How the model is trained: precision, optimizer, method, batch, recompute and sharding.

#include <string_view>

#include "frugal/catalog/gpu.h"
#include "frugal/core/error.h"

namespace frugal::estimate {

using catalog::Precision;

enum class Optimizer {
  kAdamW,      ///< two fp32 moments
  kAdam8bit,   ///< two 8-bit moments (bitsandbytes)
  kSgd,        ///< SGD with momentum: one fp32 moment
  kAdafactor,  ///< factored second moment, no first moment
};
enum class Method {
  kFull,   ///< every weight trained
  kLora,   ///< frozen base in training precision, low-rank adapters on every linear layer
  kQlora,  ///< frozen 4-bit NF4 base (double-quantized), adapters in 16-bit
};
/// Where mixed-precision training keeps the weights the optimizer updates.
enum class MasterWeights {
  kFp32,  ///< an fp32 master copy beside the 16-bit weights (AMP, DeepSpeed, Megatron)
  kNone,  ///< weights updated in place in 16 bits ("bf16-true", pure bf16)
};
/// Which linear layers LoRA adapts.
enum class LoraTargets {
  kAllLinear,    ///< q, k, v, o and the MLP matrices (QLoRA paper, most recipes today)
  kAttentionQv,  ///< q and v only (the original LoRA paper, PEFT's default for Llama)
};
enum class Recompute {
  kNone,       ///< every activation kept for backward
  kSelective,  ///< norms and element-wise ops recomputed; matmul inputs and attention kept
  kFull,       ///< only each layer's input kept; the forward pass runs twice
};

[[nodiscard]] std::string_view OptimizerName(Optimizer o);
[[nodiscard]] std::string_view MethodName(Method m);
[[nodiscard]] std::string_view RecomputeName(Recompute r);
[[nodiscard]] std::string_view MasterWeightsName(MasterWeights m);
[[nodiscard]] std::string_view LoraTargetsName(LoraTargets t);
/// Parsers accept the names above ("adamw", "adam8bit", "sgd", "adafactor"; "full", "lora",
/// "qlora"; "none", "selective", "full"), case-insensitively; kBadInput lists the choices.
[[nodiscard]] Result<Optimizer> ParseOptimizer(std::string_view text);
[[nodiscard]] Result<Method> ParseMethod(std::string_view text);
[[nodiscard]] Result<Recompute> ParseRecompute(std::string_view text);
/// "fp32" or "none"; "all" or "qv".
[[nodiscard]] Result<MasterWeights> ParseMasterWeights(std::string_view text);
[[nodiscard]] Result<LoraTargets> ParseLoraTargets(std::string_view text);

/// One training configuration on `gpus` data-parallel GPUs.
struct Training {
  Precision precision = Precision::kBf16;
  Optimizer optimizer = Optimizer::kAdamW;
  Method method = Method::kFull;
  int lora_rank = 16;
  LoraTargets lora_targets = LoraTargets::kAllLinear;
  MasterWeights master_weights = MasterWeights::kFp32;
  int micro_batch = 1;   ///< sequences per GPU per forward pass
  int global_batch = 0;  ///< sequences per optimizer step; 0: micro_batch × gpus
  Recompute recompute = Recompute::kNone;
  int zero_stage = 0;  ///< ZeRO / FSDP: 0 none, 1 optimizer, 2 +gradients, 3 +weights
  int gpus = 1;

  /// Gradient-accumulation steps that turn micro-batches into the global batch.
  [[nodiscard]] int AccumulationSteps() const;
  /// Checks ranges and that the global batch is a multiple of micro_batch × gpus; kBadInput.
  [[nodiscard]] Result<void> Validate() const;
};

/// True for precisions whose weights and activations are stored in 16 bits (bf16, fp16, fp8:
/// fp8 training keeps 16-bit master copies of activations and weights in today's stacks).
[[nodiscard]] bool IsMixedPrecision(Precision p);

}  // namespace frugal::estimate
