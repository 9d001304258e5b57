#include "frugal/serving/served_model.h"

#include <fmt/format.h>

#include "frugal/core/text.h"
#include "frugal/estimate/model_yaml.h"

namespace frugal::serving {
namespace {

using YAML::Node;
namespace est = estimate;

constexpr double kMinParams = 1;

/// A mixture of experts' active parameters: stated (with `experts`), or derived from a stated
/// architecture; a bare parameter count with experts must state them.
Result<std::optional<double>> ReadActiveParams(const YamlDoc& doc, const Node& m,
                                               const est::Model& shape) {
  const auto active = FRUGAL_TRY(doc.OptionalCount(m, "active_params"));
  if (active) {
    if (shape.experts <= 1) {
      return Fail(doc.ErrorAt(m["active_params"], "active_params",
                              "only for a mixture of experts: give experts (and "
                              "experts_per_token) too"));
    }
    if (!(*active >= kMinParams && *active <= shape.params)) {
      return Fail(doc.ErrorAt(
          m["active_params"], "active_params",
          fmt::format("must be between 1 and params ({:g}), got {:g}", shape.params, *active)));
    }
    return active;
  }
  if (shape.experts > 1 && shape.shape_derived) {
    return Fail(doc.ErrorAt(m, "active_params",
                            "missing: a mixture of experts given by its parameter count needs "
                            "its active parameters (Mixtral 8x7B: params 46.7b, active_params "
                            "12.9b), or its architecture (layers, hidden, ffn)"));
  }
  return std::optional<double>();
}

}  // namespace

Result<ServedModel> ReadServedModel(const YamlDoc& doc, const YAML::Node& root) {
  const Node m = FRUGAL_TRY(est::ModelSection(doc, root));
  FRUGAL_TRY(est::CheckModelKeys(doc, m, "type",
                                 {"active_params", "flops_per_item", "weights", "kv_cache"}));
  ServedModel out;
  if (auto type = FRUGAL_TRY(doc.OptionalString(m, "type"))) {
    auto a = ParseArchitecture(*type);
    if (!a) return Fail(doc.ErrorAt(m["type"], "type", a.error().message));
    out.architecture = *a;
  }
  out.shape = FRUGAL_TRY(est::ReadModelShape(doc, m));
  out.active_params = FRUGAL_TRY(ReadActiveParams(doc, m, out.shape));
  out.flops_per_item = FRUGAL_TRY(doc.OptionalCount(m, "flops_per_item"));
  if (out.flops_per_item && !(*out.flops_per_item >= 1 && *out.flops_per_item < 1e18)) {
    return Fail(
        doc.ErrorAt(m["flops_per_item"], "flops_per_item", "must be between 1 and 1e18 FLOPs"));
  }
  if (out.architecture == Architecture::kCnn && !out.flops_per_item) {
    return Fail(doc.ErrorAt(m, "flops_per_item",
                            "a cnn needs its forward FLOPs per item (ResNet-50 at 224 px: 8.2g)"));
  }
  if (auto w = FRUGAL_TRY(doc.OptionalString(m, "weights"))) {
    auto parsed = ParseWeightFormat(*w);
    if (!parsed) return Fail(doc.ErrorAt(m["weights"], "weights", parsed.error().message));
    out.weights = *parsed;
  }
  if (auto kv = FRUGAL_TRY(doc.OptionalString(m, "kv_cache"))) {
    const std::string k = ToLower(*kv);
    if (k == "fp16" || k == "bf16") {
      out.kv_cache_bytes = 2;
    } else if (k == "fp8" || k == "int8") {
      out.kv_cache_bytes = 1;
    } else {
      return Fail(doc.ErrorAt(m["kv_cache"], "kv_cache",
                              fmt::format("unknown '{}' (expected fp16, bf16 or fp8)", *kv)));
    }
  }
  return out;
}

std::string_view ArchitectureName(Architecture a) {
  switch (a) {
    case Architecture::kDecoder:
      return "decoder";
    case Architecture::kEncoder:
      return "encoder";
    case Architecture::kCnn:
      return "cnn";
  }
  return "?";
}

Result<Architecture> ParseArchitecture(std::string_view text) {
  const std::string t = ToLower(Trim(text));
  if (t == "decoder" || t == "generative" || t == "llm") return Architecture::kDecoder;
  if (t == "encoder" || t == "classifier" || t == "embedding") return Architecture::kEncoder;
  if (t == "cnn" || t == "vision") return Architecture::kCnn;
  return Fail(ErrorCode::kBadInput,
              fmt::format("unknown model type '{}' (expected decoder, encoder or cnn)", text));
}

std::string_view WeightFormatName(WeightFormat w) {
  switch (w) {
    case WeightFormat::kFp32:
      return "fp32";
    case WeightFormat::kFp16:
      return "fp16";
    case WeightFormat::kBf16:
      return "bf16";
    case WeightFormat::kFp8:
      return "fp8";
    case WeightFormat::kInt8:
      return "int8";
    case WeightFormat::kW8A8:
      return "w8a8";
    case WeightFormat::kInt4:
      return "int4";
  }
  return "?";
}

Result<WeightFormat> ParseWeightFormat(std::string_view text) {
  const std::string t = ToLower(Trim(text));
  if (t == "fp32") return WeightFormat::kFp32;
  if (t == "fp16") return WeightFormat::kFp16;
  if (t == "bf16") return WeightFormat::kBf16;
  if (t == "fp8") return WeightFormat::kFp8;
  if (t == "int8" || t == "w8a16") return WeightFormat::kInt8;
  if (t == "w8a8") return WeightFormat::kW8A8;
  if (t == "int4" || t == "awq" || t == "gptq" || t == "w4a16") return WeightFormat::kInt4;
  return Fail(ErrorCode::kBadInput,
              fmt::format("unknown weight format '{}' (expected fp32, fp16, bf16, fp8, int8, "
                          "w8a8, int4, awq or gptq)",
                          text));
}

double WeightBytes(WeightFormat w) {
  switch (w) {
    case WeightFormat::kFp32:
      return 4;
    case WeightFormat::kFp16:
    case WeightFormat::kBf16:
      return 2;
    case WeightFormat::kFp8:
    case WeightFormat::kInt8:
    case WeightFormat::kW8A8:
      return 1;
    case WeightFormat::kInt4:
      return (4.0 + 32.0 / 128.0) / 8.0;
  }
  return 2;
}

}  // namespace frugal::serving
