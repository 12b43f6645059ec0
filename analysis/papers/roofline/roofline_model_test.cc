#include "analysis/papers/roofline/roofline_model.h"

#include "gtest/gtest.h"

namespace dissect::analysis::papers::roofline {
namespace {

TEST(RooflineModelTest, SquareGemmIntensity) {
  // 2·4096^3 / (2·3·4096^2) = 4096 / 3 = 1365.33 FLOP/B.
  EXPECT_DOUBLE_EQ(GemmFlops(4096, 4096, 4096), 2.0 * 4096 * 4096 * 4096);
  EXPECT_DOUBLE_EQ(GemmBytes(4096, 4096, 4096, 2), 2.0 * 3 * 4096 * 4096);
  EXPECT_NEAR(GemmIntensity(4096, 4096, 4096, 2), 1365.333, 1e-3);
}

TEST(RooflineModelTest, DecodeGemvIntensityIsAboutOne) {
  // 2·4096^2 / (2·(4096 + 4096^2 + 4096)) = 4096 / 4098 = 0.99951.
  EXPECT_NEAR(GemmIntensity(1, 4096, 4096, 2), 4096.0 / 4098.0, 1e-12);
  // Batch 64 of Llama's up projection: 2·64·11008·4096 /
  // (2·(64·4096 + 4096·11008 + 64·11008)) = 62.657.
  EXPECT_NEAR(GemmIntensity(64, 11008, 4096, 2),
              64.0 * 11008 * 4096 / (64.0 * 4096 + 4096.0 * 11008 + 64.0 * 11008), 1e-9);
  EXPECT_NEAR(GemmIntensity(64, 11008, 4096, 2), 62.657, 0.001);
}

TEST(RooflineModelTest, RidgeAndAttainable) {
  // H100 SXM datasheet: 989 TFLOP/s dense fp16, 3.35 TB/s -> 295.2 FLOP/B.
  EXPECT_NEAR(RidgePoint(989, 3350), 295.22, 0.01);
  // Below the ridge: bandwidth × AI (1 FLOP/B at 3350 GB/s = 3.35 TFLOP/s).
  EXPECT_DOUBLE_EQ(Attainable(1.0, 989, 3350), 3.35);
  EXPECT_EQ(BoundAt(1.0, 989, 3350), Bound::kMemory);
  // Above it: the compute roof.
  EXPECT_DOUBLE_EQ(Attainable(1365.33, 989, 3350), 989);
  EXPECT_EQ(BoundAt(1365.33, 989, 3350), Bound::kCompute);
  // At the ridge both roofs agree, and it counts as compute-bound.
  EXPECT_NEAR(Attainable(RidgePoint(989, 3350), 989, 3350), 989, 1e-9);
  EXPECT_EQ(BoundAt(RidgePoint(989, 3350), 989, 3350), Bound::kCompute);
  EXPECT_EQ(BoundName(Bound::kMemory), "memory");
  EXPECT_EQ(RidgePoint(0, 3350), 0);
  EXPECT_EQ(RidgePoint(989, 0), 0);
}

TEST(RooflineModelTest, Fp32FmaPeak) {
  // 132 SMs × 128 lanes × 2 FLOP × 1980 MHz = 66.9 TFLOP/s.
  EXPECT_NEAR(Fp32FmaPeakTflops(132, Fp32LanesPerSm("9.0"), 1980), 66.908, 1e-3);
  EXPECT_EQ(Fp32LanesPerSm("8.0"), 64);
  EXPECT_EQ(Fp32LanesPerSm("1.0"), 0);
  EXPECT_EQ(Fp32FmaPeakTflops(132, 0, 1980), 0);
}

}  // namespace
}  // namespace dissect::analysis::papers::roofline
