// The decode-step model's arithmetic on Llama-2-7B (fp16), against numbers
// worked out by hand: a wrong weight or KV-cache byte count fails here.
#include "analysis/papers/roofline/decode_model.h"

#include <optional>

#include "gtest/gtest.h"

namespace dissect::analysis::papers::roofline {
namespace {

constexpr DecoderShape kLlama2_7b;  // 4096 hidden, 11008 FFN, 32 layers, fp16

TEST(DecodeModelTest, LayerLinearsAreLlamaTwosFiveWeightMatrices) {
  const std::vector<Linear> linears = LayerLinears(kLlama2_7b);
  ASSERT_EQ(linears.size(), 5u);
  const int64_t expected[5][2] = {
      {12288, 4096}, {4096, 4096}, {11008, 4096}, {11008, 4096}, {4096, 11008}};
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(linears[i].n, expected[i][0]) << i;
    EXPECT_EQ(linears[i].k, expected[i][1]) << i;
  }
}

// Per layer 4·4096² + 3·4096·11008 = 67 108 864 + 135 266 304 = 202 375 168.
TEST(DecodeModelTest, WeightsAreEveryLinearOfEveryLayerOnce) {
  EXPECT_DOUBLE_EQ(WeightParams(kLlama2_7b), 32.0 * 202375168);
  EXPECT_DOUBLE_EQ(WeightParams(kLlama2_7b), 6476005376.0);
  EXPECT_DOUBLE_EQ(WeightBytes(kLlama2_7b), 12952010752.0);
  DecoderShape fp32 = kLlama2_7b;
  fp32.element_bytes = 4;
  EXPECT_DOUBLE_EQ(WeightBytes(fp32), 2 * 12952010752.0);
}

// K and V, 32 layers × 4096 × 2 bytes: 512 KiB per token per sequence.
TEST(DecodeModelTest, KvCacheIsKAndVOfEveryLayerTokenAndSequence) {
  EXPECT_DOUBLE_EQ(KvCacheBytes(kLlama2_7b, 1, 1), 524288.0);
  EXPECT_DOUBLE_EQ(KvCacheBytes(kLlama2_7b, 1, 2048), 1073741824.0);  // 1 GiB
  EXPECT_DOUBLE_EQ(KvCacheBytes(kLlama2_7b, 64, 8192), 64.0 * 4294967296.0);
  EXPECT_DOUBLE_EQ(KvCacheBytes(kLlama2_7b, 4, 0), 0.0);
}

TEST(DecodeModelTest, FlopsAreTwoPerWeightPerTokenPlusAttention) {
  EXPECT_DOUBLE_EQ(LinearFlops(kLlama2_7b, 1), 12952010752.0);
  EXPECT_DOUBLE_EQ(LinearFlops(kLlama2_7b, 16), 16 * 12952010752.0);
  // 4 × 32 layers × 2048 × 4096.
  EXPECT_DOUBLE_EQ(AttentionFlops(kLlama2_7b, 1, 2048), 1073741824.0);
  EXPECT_DOUBLE_EQ(AttentionFlops(kLlama2_7b, 8, 2048), 8 * 1073741824.0);
}

// 2000 GB/s and 500 TFLOP/s: ridge 250 FLOP/B.
TEST(DecodeModelTest, StepAtBatchOneIsItsBytesOverBandwidth) {
  const StepModel m = ModelStep(kLlama2_7b, 1, 2048, 2000, 500);
  EXPECT_DOUBLE_EQ(m.bytes, 12952010752.0 + 1073741824.0);
  EXPECT_DOUBLE_EQ(m.flops, 12952010752.0 + 1073741824.0);
  EXPECT_DOUBLE_EQ(m.memory_s, 14025752576.0 / 2e12);
  EXPECT_DOUBLE_EQ(m.compute_s, 14025752576.0 / 5e14);
  EXPECT_DOUBLE_EQ(m.seconds, m.memory_s);
  EXPECT_EQ(m.bound, Bound::kMemory);
}

TEST(DecodeModelTest, StepOfManyShortSequencesIsComputeBound) {
  const StepModel m = ModelStep(kLlama2_7b, 1024, 1, 2000, 500);
  EXPECT_EQ(m.bound, Bound::kCompute);
  EXPECT_DOUBLE_EQ(m.seconds, m.compute_s);
  EXPECT_GT(m.compute_s, m.memory_s);
}

// Without a KV cache the step's intensity is 2·B FLOP per 2 bytes of
// weight: compute-bound from B = ridge = 250.
TEST(DecodeModelTest, ComputeBoundBatchWithoutKvCacheIsTheRidge) {
  EXPECT_EQ(ComputeBoundBatch(kLlama2_7b, 0, 2000, 500), std::optional<int64_t>(250));
}

// A short context: the batch where the step turns, and no earlier.
TEST(DecodeModelTest, ComputeBoundBatchIsTheFirstComputeBoundOne) {
  const std::optional<int64_t> batch = ComputeBoundBatch(kLlama2_7b, 16, 2000, 500);
  ASSERT_TRUE(batch.has_value());
  EXPECT_EQ(*batch, 299);  // 6.476 ms of weights / 21.73 µs per sequence = 298.07
  EXPECT_EQ(ModelStep(kLlama2_7b, *batch, 16, 2000, 500).bound, Bound::kCompute);
  EXPECT_EQ(ModelStep(kLlama2_7b, *batch - 1, 16, 2000, 500).bound, Bound::kMemory);
}

// At 2048 tokens each sequence adds 1 GiB of KV cache for 14 GFLOP (13
// FLOP/B, far left of the ridge): memory-bound at every batch.
TEST(DecodeModelTest, LongContextIsNeverComputeBound) {
  EXPECT_EQ(ComputeBoundBatch(kLlama2_7b, 2048, 2000, 500), std::nullopt);
  EXPECT_EQ(ModelStep(kLlama2_7b, 100000, 2048, 2000, 500).bound, Bound::kMemory);
}

TEST(DecodeModelTest, NoRoofNoBatch) {
  EXPECT_EQ(ComputeBoundBatch(kLlama2_7b, 0, 0, 500), std::nullopt);
  EXPECT_EQ(ComputeBoundBatch(kLlama2_7b, 0, 2000, 0), std::nullopt);
}

}  // namespace
}  // namespace dissect::analysis::papers::roofline
