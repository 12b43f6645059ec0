// FLOPs and compulsory bytes of an attention launch: what the attention
// experiment writes as its flops, bytes and arithmetic_intensity.

#include "kernels/attention/attention_shape.h"

#include "gtest/gtest.h"

namespace dissect::attention {
namespace {

TEST(AttentionShapeTest, DecodeIntensityIsAboutOne) {
  // One query, 4096 keys: 4·4096·128 FLOP per head over
  // 2·128·(2 + 2·4096) B: 4096 / 4097 ≈ 1.
  const AttentionShape decode{1, 32, 1, 4096, 128, false};
  EXPECT_NEAR(AttentionFlops(decode) / AttentionBytes(decode),
              4.0 * 4096 / (2.0 * (2 + 2 * 4096)), 1e-12);
}

TEST(AttentionShapeTest, CausalPrefillCountsHalfTheFlops) {
  // 4096 tokens: half of 4·4096^2·128 per head over 2·128·4·4096 B
  // = 4096 / 4 = 1024 FLOP/B.
  const AttentionShape prefill{1, 32, 4096, 4096, 128, true};
  EXPECT_DOUBLE_EQ(AttentionFlops(prefill), 2.0 * 32 * 4096.0 * 4096 * 128);
  EXPECT_DOUBLE_EQ(AttentionBytes(prefill), 2.0 * 32 * 128 * 4 * 4096);
  EXPECT_DOUBLE_EQ(AttentionFlops(prefill) / AttentionBytes(prefill), 1024.0);
}

}  // namespace
}  // namespace dissect::attention
