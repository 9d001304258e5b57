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
  return m == MasterWeights::kFp32 ? "fp32" : "none";
}

std::string_view LoraTargetsName(LoraTargets t) {
  return t == LoraTargets::kAllLinear ? "all" : "qv";
}

Result<MasterWeights> ParseMasterWeights(std::string_view text) {
  const std::string t = ToLower(Trim(text));
  if (t == "fp32") return MasterWeights::kFp32;
  if (t == "none") return MasterWeights::kNone;
  return Fail(ErrorCode::kBadInput,
              fmt::format("unknown master weights '{}' (expected fp32 or none)", text));
}

Result<LoraTargets> ParseLoraTargets(std::string_view text) {
  const std::string t = ToLower(Trim(text));
  if (t == "all" || t == "all-linear" || t == "all_linear") return LoraTargets::kAllLinear;
  if (t == "qv") return LoraTargets::kAttentionQv;
  return Fail(ErrorCode::kBadInput,
              fmt::format("unknown LoRA targets '{}' (expected all or qv)", text));
}

Result<Optimizer> ParseOptimizer(std::string_view text) {
  const std::string t = ToLower(Trim(text));
  if (t == "adamw" || t == "adam") return Optimizer::kAdamW;
  if (t == "adam8bit" || t == "adamw8bit" || t == "adam-8bit") return Optimizer::kAdam8bit;
  if (t == "sgd") return Optimizer::kSgd;
  if (t == "adafactor") return Optimizer::kAdafactor;
  return Fail(
      ErrorCode::kBadInput,
      fmt::format("unknown optimizer '{}' (expected adamw, adam8bit, sgd or adafactor)", text));
}

Result<Method> ParseMethod(std::string_view text) {
  const std::string t = ToLower(Trim(text));
  if (t == "full") return Method::kFull;
  if (t == "lora") return Method::kLora;
  if (t == "qlora") return Method::kQlora;
  return Fail(ErrorCode::kBadInput,
              fmt::format("unknown method '{}' (expected full, lora or qlora)", text));
}

Result<Recompute> ParseRecompute(std::string_view text) {
  const std::string t = ToLower(Trim(text));
  if (t == "none" || t == "off") return Recompute::kNone;
  if (t == "selective") return Recompute::kSelective;
  if (t == "full") return Recompute::kFull;
  return Fail(ErrorCode::kBadInput,
              fmt::format("unknown recompute '{}' (expected none, selective or full)", text));
}

int Training::AccumulationSteps() const {
  const int per_step = micro_batch * gpus;
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
  if (global_batch > 0 && global_batch % (micro_batch * gpus) != 0) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("global_batch {} is not a multiple of micro_batch {} × gpus {}",
                            global_batch, micro_batch, gpus));
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
