#pragma once
// The model being trained: a parameter count, or a decoder-only transformer architecture from
// which the parameter count and the activation shapes follow.

#include <optional>
#include <string_view>

#include "frugal/core/error.h"

namespace frugal::estimate {

/// Shape of each layer's feed-forward block.
enum class Mlp {
  kSwiGlu,  ///< gated (Llama, Mistral, Qwen): three ffn×hidden matrices
  kGelu,    ///< plain two-matrix MLP (GPT-2/3, BLOOM, OPT)
};
[[nodiscard]] std::string_view MlpName(Mlp m);
[[nodiscard]] Result<Mlp> ParseMlp(std::string_view text);

/// What the user tells us about the model. Either `params` or `layers`+`hidden` must be set;
/// the rest have defaults documented on ResolveModel.
struct ModelSpec {
  std::optional<double> params;  ///< total parameters; overrides the architecture's count
  std::optional<int> layers;
  std::optional<int> hidden;
  std::optional<int> heads;
  std::optional<int> kv_heads;
  std::optional<int> ffn;  ///< feed-forward inner width
  std::optional<int> vocab;
  int seq = 2048;  ///< training sequence length in tokens
  Mlp mlp = Mlp::kSwiGlu;
  bool tied_embeddings = false;          ///< output head shares the input embedding matrix
  std::optional<int> experts;            ///< mixture of experts: MLPs per layer (default 1)
  std::optional<int> experts_per_token;  ///< experts each token is routed to (default 2 for a
                                         ///< mixture of experts, 1 for a dense model)
};

/// A complete architecture: every shape is known (some may have been derived).
struct Model {
  int layers = 0;
  int hidden = 0;
  int heads = 0;
  int kv_heads = 0;
  int ffn = 0;
  int vocab = 0;
  int seq = 0;
  Mlp mlp = Mlp::kSwiGlu;
  bool tied_embeddings = false;
  int experts = 1;             ///< MLPs per layer (mixture of experts when more than 1)
  int experts_per_token = 1;   ///< experts each token runs through (top-k routing)
  bool shape_derived = false;  ///< layers/hidden were guessed from a bare parameter count
  double params = 0;           ///< total parameters (the user's figure when given)

  /// Parameters of one transformer layer (attention, MLP, two norms).
  [[nodiscard]] double LayerParams() const;
  /// Parameters of the linear layers inside one transformer layer (LoRA/QLoRA targets): every
  /// expert's MLP and the router included.
  [[nodiscard]] double LayerLinearParams() const;
  /// Parameters of one expert's MLP (the one MLP of a dense model).
  [[nodiscard]] double ExpertParams() const;
  /// Parameters of the experts a token is not routed to, over all layers: in memory, not in
  /// the FLOPs (0 for a dense model).
  [[nodiscard]] double InactiveExpertParams() const;
  /// Input embedding plus output head (one matrix when tied).
  [[nodiscard]] double EmbeddingParams() const;
  /// Parameters that take part in matrix multiplies per token: everything except the input
  /// embedding lookup (the output head does multiply, tied or not).
  [[nodiscard]] double MatmulParams() const;
  /// kv_heads / heads: the fraction of K and V width kept by grouped-query attention.
  [[nodiscard]] double KvRatio() const {
    return static_cast<double>(kv_heads) / static_cast<double>(heads);
  }
};

/// Parameter count the architecture implies: embeddings + layers × LayerParams + final norm.
[[nodiscard]] double ArchitectureParams(const Model& m);

/// Completes a spec into a Model. Defaults: heads = hidden/128, kv_heads = heads, ffn =
/// 8/3·hidden rounded up to a multiple of 256 (SwiGLU) or 4·hidden (GELU), vocab = 32000.
/// With only `params`, the shape is derived from the Llama-family aspect ratio (hidden ≈
/// 128·layers, so params ≈ 12·hidden³/128 + embeddings) and marked shape_derived.
/// kBadInput names the field that is missing, non-positive or inconsistent.
[[nodiscard]] Result<Model> ResolveModel(const ModelSpec& spec);

}  // namespace frugal::estimate
