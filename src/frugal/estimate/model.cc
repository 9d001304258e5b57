#include "frugal/estimate/model.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "frugal/core/numbers.h"
#include "frugal/core/text.h"

namespace frugal::estimate {

std::string_view MlpName(Mlp m) {
  switch (m) {
    case Mlp::kSwiGlu:
      return "swiglu";
    case Mlp::kGelu:
      return "gelu";
  }
  return "?";
}

Result<Mlp> ParseMlp(std::string_view text) {
  const std::string t = ToLower(Trim(text));
  if (t == "swiglu" || t == "gated") return Mlp::kSwiGlu;
  if (t == "gelu" || t == "relu" || t == "plain") return Mlp::kGelu;
  return Fail(ErrorCode::kBadInput,
              fmt::format("unknown mlp '{}' (expected swiglu or gelu)", text));
}

namespace {

constexpr int kDefaultVocab = 32000;
constexpr int kHeadDim = 128;
constexpr double kMaxParams = 1e14;

int RoundUp(double value, int multiple) {
  return static_cast<int>(std::ceil(value / D(multiple))) * multiple;
}

int DefaultFfn(int hidden, Mlp mlp) {
  return mlp == Mlp::kSwiGlu ? RoundUp(8.0 * D(hidden) / 3.0, 256) : 4 * hidden;
}

Result<void> RequirePositive(const std::optional<int>& value, std::string_view field) {
  if (value && *value <= 0) {
    return Fail(ErrorCode::kBadInput, fmt::format("{} must be positive, got {}", field, *value));
  }
  return {};
}

// Llama-family shapes keep hidden ≈ 128 × layers; with that, a bare parameter count implies a
// hidden size (rounded to the 128-wide head) good enough for activation memory.
void DeriveShape(double params, Model& m) {
  const double per_layer_share = 12.0 / kHeadDim;  // params ≈ 12·h²·(h/128)
  double hidden = std::cbrt(params / per_layer_share);
  // Embeddings take a share at small sizes; iterate once with them included.
  const double embed = 2.0 * kDefaultVocab * hidden;
  hidden = std::cbrt(std::max(params - embed, params * 0.3) / per_layer_share);
  m.hidden = std::max(kHeadDim, RoundUp(hidden, kHeadDim));
  m.layers = std::max(1, static_cast<int>(std::lround(D(m.hidden) / kHeadDim)));
  m.shape_derived = true;
}

}  // namespace

double Model::ExpertParams() const {
  const double mlp_matrices = mlp == Mlp::kSwiGlu ? 3.0 : 2.0;
  return mlp_matrices * D(hidden) * D(ffn);
}

double Model::InactiveExpertParams() const {
  return D(layers) * D(std::max(0, experts - experts_per_token)) * ExpertParams();
}

double Model::LayerLinearParams() const {
  const double h = D(hidden);
  const double kv = h * KvRatio();
  const double attention = 2.0 * h * h + 2.0 * h * kv;  // q, o full width; k, v at kv width
  const double router = experts > 1 ? h * D(experts) : 0.0;
  return attention + D(experts) * ExpertParams() + router;
}

double Model::LayerParams() const { return LayerLinearParams() + 2.0 * D(hidden); }

double Model::EmbeddingParams() const {
  return (tied_embeddings ? 1.0 : 2.0) * D(vocab) * D(hidden);
}

double Model::MatmulParams() const {
  // The input lookup is not a multiply; when tied the head still multiplies. A shape derived
  // for a tiny count can hold an embedding larger than the count itself (a 1M model with a
  // 32000 × 128 table): never subtract more than there is.
  const double lookup = tied_embeddings ? 0.0 : D(vocab) * D(hidden);
  return std::max(0.0, params - lookup);
}

double ArchitectureParams(const Model& m) {
  return m.EmbeddingParams() + D(m.layers) * m.LayerParams() + D(m.hidden);
}

Result<Model> ResolveModel(const ModelSpec& spec) {
  for (const auto& [value, name] : {std::pair{spec.layers, "layers"},
                                    {spec.hidden, "hidden"},
                                    {spec.heads, "heads"},
                                    {spec.kv_heads, "kv_heads"},
                                    {spec.ffn, "ffn"},
                                    {spec.vocab, "vocab"}}) {
    FRUGAL_TRY(RequirePositive(value, name));
  }
  if (spec.seq <= 0) {
    return Fail(ErrorCode::kBadInput, fmt::format("seq must be positive, got {}", spec.seq));
  }
  if (spec.params && !(*spec.params > 0)) {
    return Fail(ErrorCode::kBadInput, "params must be positive");
  }
  // Beyond this the derived shape no longer fits an int; no model is within orders of it.
  if (spec.params && *spec.params > kMaxParams) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("params {:g} is beyond {:g} (100 trillion)", *spec.params, kMaxParams));
  }
  Model m;
  m.seq = spec.seq;
  m.mlp = spec.mlp;
  m.tied_embeddings = spec.tied_embeddings;
  m.vocab = spec.vocab.value_or(kDefaultVocab);
  if (spec.layers && spec.hidden) {
    m.layers = *spec.layers;
    m.hidden = *spec.hidden;
  } else if (spec.params) {
    if (spec.layers || spec.hidden) {
      return Fail(ErrorCode::kBadInput, "give both layers and hidden, or neither");
    }
    DeriveShape(*spec.params, m);
  } else {
    return Fail(ErrorCode::kBadInput,
                "the model needs params, or an architecture with at least layers and hidden");
  }
  m.heads = spec.heads.value_or(std::max(1, m.hidden / kHeadDim));
  m.kv_heads = spec.kv_heads.value_or(m.heads);
  if (m.hidden % m.heads != 0) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("hidden {} is not divisible by heads {}", m.hidden, m.heads));
  }
  if (m.kv_heads > m.heads || m.heads % m.kv_heads != 0) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("kv_heads {} must divide heads {}", m.kv_heads, m.heads));
  }
  m.ffn = spec.ffn.value_or(DefaultFfn(m.hidden, m.mlp));
  FRUGAL_TRY(RequirePositive(spec.experts, "experts"));
  FRUGAL_TRY(RequirePositive(spec.experts_per_token, "experts_per_token"));
  m.experts = spec.experts.value_or(1);
  // Unstated, a mixture of experts routes each token to two (Mixtral, GShard).
  m.experts_per_token = spec.experts_per_token.value_or(m.experts > 1 ? 2 : 1);
  if (m.experts_per_token > m.experts) {
    return Fail(ErrorCode::kBadInput, fmt::format("experts_per_token {} is more than experts {}",
                                                  m.experts_per_token, m.experts));
  }
  m.params = spec.params.value_or(ArchitectureParams(m));
  return m;
}

}  // namespace frugal::estimate
