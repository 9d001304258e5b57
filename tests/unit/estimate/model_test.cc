#include "frugal/estimate/model.h"

#include <gtest/gtest.h>

namespace frugal::estimate {
namespace {

TEST(Model, Llama2SevenBArchitectureGivesItsPublishedParameterCount) {
  ModelSpec spec;
  spec.layers = 32;
  spec.hidden = 4096;
  spec.heads = 32;
  spec.ffn = 11008;
  spec.vocab = 32000;
  auto m = ResolveModel(spec);
  ASSERT_TRUE(m) << m.error().message;
  // 2·32000·4096 + 32·(4·4096² + 3·4096·11008 + 2·4096) + 4096
  EXPECT_DOUBLE_EQ(m->params, 6'738'415'616.0);
  EXPECT_EQ(m->kv_heads, 32);
  EXPECT_FALSE(m->shape_derived);
}

TEST(Model, GroupedQueryAttentionShrinksKeyAndValueProjections) {
  ModelSpec spec;  // Llama 3 8B
  spec.layers = 32;
  spec.hidden = 4096;
  spec.heads = 32;
  spec.kv_heads = 8;
  spec.ffn = 14336;
  spec.vocab = 128256;
  auto m = ResolveModel(spec);
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_DOUBLE_EQ(m->KvRatio(), 0.25);
  EXPECT_DOUBLE_EQ(m->params, 8'030'261'248.0);
  // Matmul parameters leave out the input embedding only.
  EXPECT_DOUBLE_EQ(m->MatmulParams(), 8'030'261'248.0 - 128256.0 * 4096.0);
}

TEST(Model, GeluDefaultsToFourTimesHiddenAndTiedEmbeddingsCountOnce) {
  ModelSpec spec;
  spec.layers = 2;
  spec.hidden = 256;
  spec.vocab = 1000;
  spec.mlp = Mlp::kGelu;
  spec.tied_embeddings = true;
  auto m = ResolveModel(spec);
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_EQ(m->ffn, 1024);
  EXPECT_EQ(m->heads, 2);
  // 1000·256 + 2·(4·256² + 2·256·1024 + 2·256) + 256
  EXPECT_DOUBLE_EQ(m->params, 256000.0 + 2.0 * (262144.0 + 524288.0 + 512.0) + 256.0);
  EXPECT_DOUBLE_EQ(m->MatmulParams(), m->params);
}

TEST(Model, SwiGluDefaultFfnIsEightThirdsRoundedTo256) {
  ModelSpec spec;
  spec.layers = 4;
  spec.hidden = 1000 + 24;  // 8/3·1024 = 2730.7 → 2816
  auto m = ResolveModel(spec);
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_EQ(m->ffn, 2816);
}

TEST(Model, BareParameterCountDerivesALlamaLikeShape) {
  ModelSpec spec;
  spec.params = 7e9;
  auto m = ResolveModel(spec);
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_TRUE(m->shape_derived);
  EXPECT_DOUBLE_EQ(m->params, 7e9);
  EXPECT_EQ(m->hidden % 128, 0);
  EXPECT_GE(m->hidden, 3840);
  EXPECT_LE(m->hidden, 4352);
  EXPECT_NEAR(m->layers, 32, 2);
}

TEST(Model, RejectsMissingAndInconsistentShapes) {
  EXPECT_FALSE(ResolveModel(ModelSpec{}));
  ModelSpec half;
  half.params = 1e9;
  half.layers = 12;
  EXPECT_FALSE(ResolveModel(half));
  ModelSpec heads;
  heads.layers = 2;
  heads.hidden = 256;
  heads.heads = 3;
  auto bad = ResolveModel(heads);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("heads"), std::string::npos);
  ModelSpec kv;
  kv.layers = 2;
  kv.hidden = 256;
  kv.heads = 4;
  kv.kv_heads = 3;
  EXPECT_FALSE(ResolveModel(kv));
  ModelSpec negative;
  negative.layers = -1;
  negative.hidden = 256;
  EXPECT_EQ(ResolveModel(negative).error().code, ErrorCode::kBadInput);
  ModelSpec absurd;
  absurd.params = 1e30;  // the derived hidden size would overflow an int
  auto too_big = ResolveModel(absurd);
  ASSERT_FALSE(too_big);
  EXPECT_EQ(too_big.error().code, ErrorCode::kBadInput);
  absurd.params = 1.8e12;  // GPT-4 scale is fine
  EXPECT_TRUE(ResolveModel(absurd)) << ResolveModel(absurd).error().message;
}

}  // namespace
}  // namespace frugal::estimate
