#pragma once
// How the model is trained: precision, optimizer, method, batch, recompute and sharding.

#include <string_view>

#include "frugal/catalog/gpu.h"
#include "frugal/core/error.h"

namespace frugal::estimate {

using catalog::Precision;

enum class Optimizer {
  kAdamW,          ///< two fp32 moments
  kAdam8bit,       ///< two 8-bit moments (bitsandbytes)
  kSgd,            ///< SGD with momentum: one fp32 moment
  kAdafactor,      ///< factored second moment, no first moment
  kPagedAdam8bit,  ///< 8-bit moments in CUDA unified memory (bitsandbytes paged): they page
                   ///< out to the host under pressure, so they never decide whether a job fits
  kPagedAdamW,     ///< 32-bit moments in CUDA unified memory (bitsandbytes paged_adamw_32bit)
};
enum class Method {
  kFull,       ///< every weight trained
  kLora,       ///< frozen base in training precision, low-rank adapters on every linear layer
  kQlora,      ///< frozen 4-bit NF4 base (double-quantized), adapters in 16-bit
  kInference,  ///< weights-only load: forward passes, no gradients, optimizer or saved activations
};
/// Where mixed-precision training keeps the weights the optimizer updates.
enum class MasterWeights {
  kFp32,  ///< an fp32 master copy beside the 16-bit weights (AMP, DeepSpeed, Megatron)
  kNone,  ///< weights updated in place in 16 bits ("bf16-true", pure bf16)
  kAmp,   ///< torch AMP (autocast): fp32 weights and fp32 gradients, no separate master copy;
          ///< autocast's 16-bit copies of the matmul weights are saved for backward
};
/// Which linear layers LoRA adapts.
enum class LoraTargets {
  kAllLinear,     ///< q, k, v, o and the MLP matrices (QLoRA paper, most recipes today)
  kAttentionQv,   ///< q and v only (the original LoRA paper, PEFT's default for Llama)
  kAttentionQkv,  ///< q, k and v as three linear layers
  kFusedQkv,      ///< one fused QKV projection (GPT-2's c_attn, Falcon, Phi): one adapter
};
/// What a reported memory peak counts (what a measurement of it would read).
enum class MemoryBasis {
  kAllocated,  ///< torch.cuda.max_memory_allocated: live tensors only
  kReserved,   ///< torch.cuda.max_memory_reserved: tensors and the caching allocator's slack
  kNvidiaSmi,  ///< what nvidia-smi shows: reserved plus the CUDA context, cuBLAS and NCCL
               ///< workspaces (the device total a job must fit in)
};
enum class Recompute {
  kNone,       ///< every activation kept for backward
  kSelective,  ///< norms and element-wise ops recomputed; matmul inputs and attention kept
  kFull,       ///< only each layer's input kept; the forward pass runs twice
};
/// How attention is computed; decides whether the s×s score matrices are kept for backward.
enum class Attention {
  kFlash,  ///< FlashAttention or PyTorch SDPA's fused kernels: no score matrices kept
  kEager,  ///< matmul + softmax (+ dropout) as separate ops: scores, probabilities, mask kept
};
/// How the loss is computed over the vocabulary.
enum class Loss {
  kStandard,  ///< full logits, upcast to fp32, fp32 gradient (PyTorch cross_entropy)
  kChunked,   ///< logits kept in 16 bits, upcast and differentiated a chunk at a time (torchtune)
  kFused,     ///< fused linear + cross-entropy (Liger): logits never materialised beyond a chunk
};
/// What lives in host memory instead of on the GPU (ZeRO-Offload, ZeRO-Infinity, FSDP).
enum class Offload {
  kNone,
  kOptimizer,  ///< optimizer states (and the fp32 master copy) on the host; step on the CPU
  kAll,        ///< optimizer states, gradients and parameters (FSDP cpu_offload, ZeRO-3 param)
};

[[nodiscard]] std::string_view OptimizerName(Optimizer o);
[[nodiscard]] std::string_view MethodName(Method m);
[[nodiscard]] std::string_view RecomputeName(Recompute r);
[[nodiscard]] std::string_view MasterWeightsName(MasterWeights m);
[[nodiscard]] std::string_view LoraTargetsName(LoraTargets t);
[[nodiscard]] std::string_view AttentionName(Attention a);
[[nodiscard]] std::string_view LossName(Loss l);
[[nodiscard]] std::string_view OffloadName(Offload o);
[[nodiscard]] std::string_view MemoryBasisName(MemoryBasis b);
/// "allocated", "reserved" or "nvidia-smi" (also "nvidia_smi", "device"); kBadInput lists them.
[[nodiscard]] Result<MemoryBasis> ParseMemoryBasis(std::string_view text);
/// Parsers accept the names above ("adamw", "adam8bit", "sgd", "adafactor"; "full", "lora",
/// "qlora"; "none", "selective", "full"), case-insensitively; kBadInput lists the choices.
[[nodiscard]] Result<Optimizer> ParseOptimizer(std::string_view text);
[[nodiscard]] Result<Method> ParseMethod(std::string_view text);
[[nodiscard]] Result<Recompute> ParseRecompute(std::string_view text);
/// "fp32", "none" or "amp"; "all", "qv", "qkv" or "qkv_fused".
[[nodiscard]] Result<MasterWeights> ParseMasterWeights(std::string_view text);
[[nodiscard]] Result<LoraTargets> ParseLoraTargets(std::string_view text);
/// "flash" (also "sdpa") or "eager"; "standard", "chunked" or "fused"; "none", "optimizer" or
/// "all".
[[nodiscard]] Result<Attention> ParseAttention(std::string_view text);
[[nodiscard]] Result<Loss> ParseLoss(std::string_view text);
[[nodiscard]] Result<Offload> ParseOffload(std::string_view text);

/// The recompute a framework applies when the user states none: full activation recompute for
/// models of 100B parameters and more (Megatron-LM and Megatron-DeepSpeed as GPT-3 175B, BLOOM
/// 176B and OPT-175B were trained), none below.
[[nodiscard]] Recompute DefaultRecompute(double params);

/// One training configuration on `gpus` GPUs: tensor_parallel × pipeline_parallel GPUs hold one
/// copy of the model, and gpus / (tensor_parallel × pipeline_parallel) copies train on
/// different data (the data-parallel degree, sharded further by ZeRO/FSDP).
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
  int zero_stage = 0;              ///< ZeRO / FSDP: 0 none, 1 optimizer, 2 +gradients, 3 +weights
  int gpus = 1;                    ///< all GPUs of the job
  int tensor_parallel = 1;         ///< Megatron tensor parallelism: each layer split over this many
  int pipeline_parallel = 1;       ///< pipeline stages (1F1B schedule), layers split evenly
  int virtual_stages = 1;          ///< interleaved 1F1B: model chunks per stage (Megatron's
                                   ///< virtual pipeline); the bubble shrinks by this factor
  bool sequence_parallel = false;  ///< Megatron sequence parallelism (with tensor_parallel > 1)
  int expert_parallel = 1;         ///< mixture of experts: the experts split over this many of the
                                   ///< data-parallel GPUs (tokens exchanged all-to-all)
  int context_parallel = 1;        ///< context parallelism (ring attention, Megatron --cp): each
                                   ///< sequence split over this many GPUs, K and V passed around
  Attention attention = Attention::kFlash;
  Loss loss = Loss::kStandard;
  Offload offload = Offload::kNone;
  bool optimizer_in_backward = false;  ///< each parameter stepped and its gradient freed in
                                       ///< backward (torchtune optimizer_in_bwd)
  /// What the reported peak counts; whether the job fits is always judged on the device total
  /// (kNvidiaSmi).
  MemoryBasis memory_basis = MemoryBasis::kNvidiaSmi;

  /// GPUs that work on the same sequences together: tensor_parallel × pipeline_parallel ×
  /// context_parallel (each of the context-parallel ranks holds the TP × PP shard of the model).
  [[nodiscard]] int ModelParallel() const {
    return tensor_parallel * pipeline_parallel * context_parallel;
  }
  /// Data-parallel degree: gpus / ModelParallel() (at least 1), the replicas that read
  /// different sequences.
  [[nodiscard]] int DataParallel() const;
  /// The ranks that share ZeRO/FSDP shards and reduce gradients together: the data-parallel
  /// replicas times the context-parallel ranks (Megatron's data-parallel group with CP).
  [[nodiscard]] int ShardParallel() const { return DataParallel() * context_parallel; }
  /// Sequences per optimizer step: global_batch, or micro_batch × DataParallel() when unset.
  [[nodiscard]] int GlobalBatch() const;
  /// Gradient-accumulation steps (micro-batches per pipeline per step) that turn micro-batches
  /// into the global batch.
  [[nodiscard]] int AccumulationSteps() const;
  /// Checks ranges, that gpus is a multiple of tensor × pipeline parallel, and that the global
  /// batch is a multiple of micro_batch × DataParallel(); kBadInput naming the field.
  [[nodiscard]] Result<void> Validate() const;
};

/// True for precisions whose weights and activations are stored in 16 bits (bf16, fp16, fp8:
/// fp8 training keeps 16-bit master copies of activations and weights in today's stacks).
[[nodiscard]] bool IsMixedPrecision(Precision p);

}  // namespace frugal::estimate
