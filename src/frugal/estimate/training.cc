#include "frugal/estimate/training.h"

#include <fmt/format.h>

#include "frugal/core/text.h"

namespace frugal::estimate {

std::string_view OptimizerName(Optimizer o) {
  switch (o) {
    case Optimizer::kAdamW:
      return "adamw";
    case Optimizer::kAdam8bit:
      return "adam8bit";
    case Optimizer::kSgd:
      return "sgd";
    case Optimizer::kAdafactor:
      return "adafactor";
    case Optimizer::kPagedAdam8bit:
      return "paged_adam8bit";
    case Optimizer::kPagedAdamW:
      return "paged_adamw";
  }
  return "?";
}

std::string_view MethodName(Method m) {
  switch (m) {
    case Method::kFull:
      return "full";
    case Method::kLora:
      return "lora";
    case Method::kQlora:
      return "qlora";
    case Method::kInference:
      return "inference";
  }
  return "?";
}

std::string_view RecomputeName(Recompute r) {
  switch (r) {
    case Recompute::kNone:
      return "none";
    case Recompute::kSelective:
      return "selective";
    case Recompute::kFull:
      return "full";
  }
  return "?";
}

std::string_view MasterWeightsName(MasterWeights m) {
  switch (m) {
    case MasterWeights::kFp32:
      return "fp32";
    case MasterWeights::kNone:
      return "none";
    case MasterWeights::kAmp:
      return "amp";
  }
  return "?";
}

std::string_view LoraTargetsName(LoraTargets t) {
  switch (t) {
    case LoraTargets::kAllLinear:
      return "all";
    case LoraTargets::kAttentionQv:
      return "qv";
    case LoraTargets::kAttentionQkv:
      return "qkv";
    case LoraTargets::kFusedQkv:
      return "qkv_fused";
  }
  return "?";
}

std::string_view MemoryBasisName(MemoryBasis b) {
  switch (b) {
    case MemoryBasis::kAllocated:
      return "allocated";
    case MemoryBasis::kReserved:
      return "reserved";
    case MemoryBasis::kNvidiaSmi:
      return "nvidia-smi";
  }
  return "?";
}

Result<MemoryBasis> ParseMemoryBasis(std::string_view text) {
  const std::string t = ToLower(Trim(text));
  if (t == "allocated") return MemoryBasis::kAllocated;
  if (t == "reserved") return MemoryBasis::kReserved;
  if (t == "nvidia-smi" || t == "nvidia_smi" || t == "device") return MemoryBasis::kNvidiaSmi;
  return Fail(
      ErrorCode::kBadInput,
      fmt::format("unknown memory basis '{}' (expected allocated, reserved or nvidia-smi)", text));
}

std::string_view AttentionName(Attention a) { return a == Attention::kFlash ? "flash" : "eager"; }

std::string_view LossName(Loss l) {
  switch (l) {
    case Loss::kStandard:
      return "standard";
    case Loss::kChunked:
      return "chunked";
    case Loss::kFused:
      return "fused";
  }
  return "?";
}

std::string_view OffloadName(Offload o) {
  switch (o) {
    case Offload::kNone:
      return "none";
    case Offload::kOptimizer:
      return "optimizer";
    case Offload::kAll:
      return "all";
  }
  return "?";
}

Result<Attention> ParseAttention(std::string_view text) {
  const std::string t = ToLower(Trim(text));
  if (t == "flash" || t == "sdpa" || t == "flash_attention_2") return Attention::kFlash;
  if (t == "eager") return Attention::kEager;
  return Fail(ErrorCode::kBadInput,
              fmt::format("unknown attention '{}' (expected flash, sdpa or eager)", text));
}

Result<Loss> ParseLoss(std::string_view text) {
  const std::string t = ToLower(Trim(text));
  if (t == "standard") return Loss::kStandard;
  if (t == "chunked") return Loss::kChunked;
  if (t == "fused") return Loss::kFused;
  return Fail(ErrorCode::kBadInput,
              fmt::format("unknown loss '{}' (expected standard, chunked or fused)", text));
}

Result<Offload> ParseOffload(std::string_view text) {
  const std::string t = ToLower(Trim(text));
  if (t == "none") return Offload::kNone;
  if (t == "optimizer") return Offload::kOptimizer;
  if (t == "all") return Offload::kAll;
  return Fail(ErrorCode::kBadInput,
              fmt::format("unknown offload '{}' (expected none, optimizer or all)", text));
}

Recompute DefaultRecompute(double params) {
  return params >= 100e9 ? Recompute::kFull : Recompute::kNone;
}

Result<MasterWeights> ParseMasterWeights(std::string_view text) {
  const std::string t = ToLower(Trim(text));
  if (t == "fp32") return MasterWeights::kFp32;
  if (t == "none") return MasterWeights::kNone;
  if (t == "amp") return MasterWeights::kAmp;
  return Fail(ErrorCode::kBadInput,
              fmt::format("unknown master weights '{}' (expected fp32, none or amp)", text));
}

Result<LoraTargets> ParseLoraTargets(std::string_view text) {
  const std::string t = ToLower(Trim(text));
  if (t == "all" || t == "all-linear" || t == "all_linear") return LoraTargets::kAllLinear;
  if (t == "qv") return LoraTargets::kAttentionQv;
  if (t == "qkv") return LoraTargets::kAttentionQkv;
  if (t == "qkv_fused" || t == "fused_qkv") return LoraTargets::kFusedQkv;
  return Fail(ErrorCode::kBadInput,
              fmt::format("unknown LoRA targets '{}' (expected all, qv, qkv or qkv_fused)", text));
}

Result<Optimizer> ParseOptimizer(std::string_view text) {
  const std::string t = ToLower(Trim(text));
  if (t == "adamw" || t == "adam") return Optimizer::kAdamW;
  if (t == "adam8bit" || t == "adamw8bit" || t == "adam-8bit") return Optimizer::kAdam8bit;
  if (t == "sgd") return Optimizer::kSgd;
  if (t == "adafactor") return Optimizer::kAdafactor;
  if (t == "paged_adam8bit" || t == "paged_adamw8bit" || t == "paged-adam8bit")
    return Optimizer::kPagedAdam8bit;
  if (t == "paged_adamw" || t == "paged_adamw32bit" || t == "paged_adamw_32bit")
    return Optimizer::kPagedAdamW;
  return Fail(ErrorCode::kBadInput,
              fmt::format("unknown optimizer '{}' (expected adamw, adam8bit, paged_adam8bit, "
                          "paged_adamw, sgd or adafactor)",
                          text));
}

Result<Method> ParseMethod(std::string_view text) {
  const std::string t = ToLower(Trim(text));
  if (t == "full") return Method::kFull;
  if (t == "lora") return Method::kLora;
  if (t == "qlora") return Method::kQlora;
  if (t == "inference") return Method::kInference;
  return Fail(ErrorCode::kBadInput,
              fmt::format("unknown method '{}' (expected full, lora, qlora or inference)", text));
}

Result<Recompute> ParseRecompute(std::string_view text) {
  const std::string t = ToLower(Trim(text));
  if (t == "none" || t == "off") return Recompute::kNone;
  if (t == "selective") return Recompute::kSelective;
  if (t == "full") return Recompute::kFull;
  return Fail(ErrorCode::kBadInput,
              fmt::format("unknown recompute '{}' (expected none, selective or full)", text));
}

int Training::DataParallel() const {
  const int model_parallel = ModelParallel();
  if (model_parallel <= 0) return std::max(1, gpus);
  return std::max(1, gpus / model_parallel);
}

int Training::GlobalBatch() const {
  return global_batch > 0 ? global_batch : micro_batch * DataParallel();
}

int Training::AccumulationSteps() const {
  const int per_step = micro_batch * DataParallel();
  if (global_batch <= 0 || per_step <= 0) return 1;
  return std::max(1, global_batch / per_step);
}

Result<void> Training::Validate() const {
  if (gpus < 1)
    return Fail(ErrorCode::kBadInput, fmt::format("gpus must be at least 1, got {}", gpus));
  if (micro_batch < 1) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("micro_batch must be at least 1, got {}", micro_batch));
  }
  if (global_batch < 0) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("global_batch must not be negative, got {}", global_batch));
  }
  for (const auto& [value, name] :
       {std::pair{tensor_parallel, "tensor_parallel"},
        std::pair{pipeline_parallel, "pipeline_parallel"},
        std::pair{virtual_stages, "virtual_stages"}, std::pair{expert_parallel, "expert_parallel"},
        std::pair{context_parallel, "context_parallel"}}) {
    if (value < 1 || value > 4096) {
      return Fail(ErrorCode::kBadInput,
                  fmt::format("{} must be between 1 and 4096, got {}", name, value));
    }
  }
  if (gpus % ModelParallel() != 0) {
    return Fail(
        ErrorCode::kBadInput,
        fmt::format("gpus {} is not a multiple of tensor_parallel {} × pipeline_parallel {}{}",
                    gpus, tensor_parallel, pipeline_parallel,
                    context_parallel > 1 ? fmt::format(" × context_parallel {}", context_parallel)
                                         : std::string()));
  }
  if (DataParallel() % expert_parallel != 0) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("expert_parallel {} does not divide the data-parallel GPUs {}",
                            expert_parallel, DataParallel()));
  }
  if (sequence_parallel && tensor_parallel < 2) {
    return Fail(ErrorCode::kBadInput, "sequence_parallel needs tensor_parallel of 2 or more");
  }
  if (global_batch > 0 && global_batch % (micro_batch * DataParallel()) != 0) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("global_batch {} is not a multiple of micro_batch {} × data-parallel "
                            "GPUs {}",
                            global_batch, micro_batch, DataParallel()));
  }
  if (zero_stage < 0 || zero_stage > 3) {
    return Fail(ErrorCode::kBadInput, fmt::format("zero stage must be 0-3, got {}", zero_stage));
  }
  if (method != Method::kFull && lora_rank < 1) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("lora_rank must be at least 1, got {}", lora_rank));
  }
  return {};
}

bool IsMixedPrecision(Precision p) {
  return p == Precision::kBf16 || p == Precision::kFp16 || p == Precision::kFp8;
}

}  // namespace frugal::estimate
