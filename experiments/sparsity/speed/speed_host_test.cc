// CPU tests of sparsity_speed's host logic: GEMM forms, the mask-to-matrix
// mapping (channel → whole rows of X, run32 → 32 consecutive K entries of
// one column), the tile bitmap, the reference and the error measure.
#include "experiments/sparsity/speed/speed_host.h"

#include <cmath>
#include <limits>
#include <vector>

#include "experiments/workloads/inputs/masks.h"
#include "gtest/gtest.h"
#include "kernels/sparsity_gemm/skip_gemm_layout.h"

namespace dissect::sparsity_speed {
namespace {

using l1_bypass::LayerShape;
using l1_bypass::LayerType;

LayerShape Conv3x3(int c, int hw, int k) {
  LayerShape l;
  l.name = "test.conv";
  l.type = LayerType::kConv;
  l.c = c, l.h = hw, l.w = hw, l.k = k, l.r = 3, l.s = 3, l.stride = 1, l.pad = 1;
  return l;
}

LayerShape Fc(int c, int k) {
  LayerShape l;
  l.name = "test.fc";
  l.type = LayerType::kFc;
  l.c = c, l.k = k;
  return l;
}

TEST(FormOfTest, ConvIsIm2colAndFcIsBatchColumns) {
  absl::StatusOr<GemmForm> conv = FormOf(Conv3x3(128, 28, 64), 2);
  ASSERT_TRUE(conv.ok()) << conv.status();
  EXPECT_EQ(conv->m, 64);
  EXPECT_EQ(conv->k, 128 * 9);
  EXPECT_EQ(conv->n, 2 * 28 * 28);
  EXPECT_TRUE(conv->activation == (sparsity::Dims{2, 128, 28, 28}));
  absl::StatusOr<GemmForm> fc = FormOf(Fc(2048, 1000), 8);
  ASSERT_TRUE(fc.ok()) << fc.status();
  EXPECT_EQ(fc->m, 1000);
  EXPECT_EQ(fc->k, 2048);
  EXPECT_EQ(fc->n, 8);
  EXPECT_TRUE(fc->activation == (sparsity::Dims{1, 2048, 1, 8}));
  LayerShape pool = Fc(4, 4);
  pool.type = LayerType::kPool;
  EXPECT_FALSE(FormOf(pool, 1).ok());
  EXPECT_FALSE(FormOf(Fc(4, 4), 0).ok());
}

TEST(ActivationMatrixTest, Im2colPutsChannelFastestAndPadsWithZeros) {
  const LayerShape layer = Conv3x3(2, 2, 1);  // 2 channels, 2 x 2, pad 1
  const GemmForm form = *FormOf(layer, 1);
  std::vector<float> act(8);
  for (int i = 0; i < 8; ++i) act[i] = static_cast<float>(i + 1);  // c*4 + h*2 + w + 1
  absl::StatusOr<std::vector<float>> x = ActivationMatrix(layer, form, act);
  ASSERT_TRUE(x.ok()) << x.status();
  ASSERT_EQ(x->size(), 18u * 4u);
  // Column (p=0, q=0): tap (r=1, s=1) is input (0, 0), k = 4·2 + c.
  EXPECT_EQ((*x)[0 * 18 + 8], 1.f);
  EXPECT_EQ((*x)[0 * 18 + 9], 5.f);
  // Tap (r=0, s=0) of column (0, 0) lies in the padding.
  EXPECT_EQ((*x)[0 * 18 + 0], 0.f);
  // Column (p=1, q=1) = 3: tap (r=0, s=0) is input (0, 0).
  EXPECT_EQ((*x)[3 * 18 + 0], 1.f);
  EXPECT_EQ((*x)[3 * 18 + 1], 5.f);
  EXPECT_FALSE(ActivationMatrix(layer, form, absl::Span<const float>(act.data(), 7)).ok());
}

// The mask's structures as the brief maps them onto X.
TEST(ActivationMatrixTest, ChannelMaskZeroesWholeRowsOfX) {
  const LayerShape layer = Fc(64, 8);
  const GemmForm form = *FormOf(layer, 4);
  absl::StatusOr<sparsity::Mask> mask =
      sparsity::GenerateMask(form.activation, 0.5, sparsity::MaskStructure::kChannel, 7);
  ASSERT_TRUE(mask.ok()) << mask.status();
  std::vector<float> act = RandomActivations(form.activation.elements(), 1);
  ASSERT_TRUE(sparsity::ApplyMask(*mask, absl::MakeSpan(act)).ok());
  const std::vector<float> x = *ActivationMatrix(layer, form, act);
  int zero_rows = 0;
  for (int64_t k = 0; k < form.k; ++k) {
    int zeros = 0;
    for (int64_t b = 0; b < form.n; ++b) zeros += x[b * form.k + k] == 0.f;
    EXPECT_TRUE(zeros == 0 || zeros == form.n) << "row " << k << " partly zero";
    zero_rows += zeros == form.n;
  }
  EXPECT_EQ(zero_rows, 32);
}

TEST(ActivationMatrixTest, Run32MaskZeroesAlignedKSegmentsOfOneColumn) {
  for (const LayerShape& layer : {Fc(128, 8), Conv3x3(64, 4, 8)}) {
    SCOPED_TRACE(layer.name);
    const GemmForm form = *FormOf(layer, 2);
    absl::StatusOr<sparsity::Mask> mask =
        sparsity::GenerateMask(form.activation, 0.5, sparsity::MaskStructure::kRun32, 3);
    ASSERT_TRUE(mask.ok()) << mask.status();
    std::vector<float> act = RandomActivations(form.activation.elements(), 2);
    ASSERT_TRUE(sparsity::ApplyMask(*mask, absl::MakeSpan(act)).ok());
    const std::vector<float> x = *ActivationMatrix(layer, form, act);
    int zero_segments = 0;
    for (int64_t col = 0; col < form.n; ++col) {
      for (int64_t k0 = 0; k0 < form.k; k0 += 32) {
        int zeros = 0;
        for (int64_t k = k0; k < k0 + 32; ++k) zeros += x[col * form.k + k] == 0.f;
        // Conv columns on the border hold padding zeros, whole taps of C = 64.
        EXPECT_TRUE(zeros == 0 || zeros == 32) << "column " << col << " segment " << k0;
        zero_segments += zeros == 32;
      }
    }
    EXPECT_GT(zero_segments, 0);
  }
}

TEST(TileBitmapTest, MarksTilesHoldingANonzeroIncludingEdgeTiles) {
  const int64_t k = 20, n = 17;  // 2 x 2 tiles, the last ones partial
  std::vector<float> x(k * n, 0.f);
  x[0 * k + 0] = 1.f;    // tile (0, 0)
  x[16 * k + 15] = 2.f;  // tile (0, 1): row 15, column 16
  const std::vector<uint8_t> bitmap = TileBitmap(x, k, n);
  ASSERT_EQ(bitmap.size(), 4u);
  EXPECT_EQ(bitmap[sparsity_gemm::TileIndex(0, 0, n)], 1);
  EXPECT_EQ(bitmap[sparsity_gemm::TileIndex(0, 1, n)], 1);
  EXPECT_EQ(bitmap[sparsity_gemm::TileIndex(1, 0, n)], 0);
  EXPECT_EQ(bitmap[sparsity_gemm::TileIndex(1, 1, n)], 0);
}

TEST(ReferenceTest, FusedMultiplyAddsInKOrder) {
  // W 2 x 3, X 3 x 2, column-major.
  const std::vector<float> w = {1, 2, 3, 4, 5, 6};  // W[0,:] = 1 3 5, W[1,:] = 2 4 6
  const std::vector<float> x = {1, 0, 2, 0, 1, 1};  // X[:,0] = 1 0 2, X[:,1] = 0 1 1
  EXPECT_EQ(ReferenceColumn(w, x, 2, 3, 0), (std::vector<float>{11, 14}));
  EXPECT_EQ(ReferenceColumn(w, x, 2, 3, 1), (std::vector<float>{8, 10}));
  // One rounding per step: (1 + 2^-24) * (1 - 2^-24) + -1 is -2^-48 fused.
  const float a = 1.f + std::ldexp(1.f, -23), b = 1.f - std::ldexp(1.f, -23);
  EXPECT_EQ(ReferenceColumn(std::vector<float>{a, -1.f}, std::vector<float>{b, 1.f}, 1, 2, 0)[0],
            std::fmaf(-1.f, 1.f, std::fmaf(a, b, 0.f)));
}

TEST(MaxRelativeErrorTest, RelativeToTheResultsScale) {
  EXPECT_DOUBLE_EQ(*MaxRelativeError(std::vector<float>{1, 2, 4}, std::vector<float>{1, 2, 4}), 0);
  EXPECT_DOUBLE_EQ(*MaxRelativeError(std::vector<float>{1, 2.5f, 4}, std::vector<float>{1, 2, 4}),
                   0.125);
  EXPECT_DOUBLE_EQ(*MaxRelativeError(std::vector<float>{0, 0}, std::vector<float>{0, 0}), 0);
  EXPECT_TRUE(std::isinf(*MaxRelativeError(std::vector<float>{1, 0}, std::vector<float>{0, 0})));
  EXPECT_TRUE(std::isinf(*MaxRelativeError(std::vector<float>{NAN, 0}, std::vector<float>{1, 0})));
  EXPECT_FALSE(MaxRelativeError(std::vector<float>{1}, std::vector<float>{1, 2}).ok());
}

TEST(RandomTest, ActivationsNeverZeroAndZeroFractionCounts) {
  const std::vector<float> a = RandomActivations(10000, 5);
  EXPECT_EQ(ZeroFraction(a), 0);
  for (float v : a) ASSERT_TRUE(v > 0.f && v <= 1.f);
  EXPECT_DOUBLE_EQ(ZeroFraction(std::vector<float>{0, 1, 0, 2}), 0.5);
  EXPECT_EQ(ZeroFraction({}), 0);
  EXPECT_EQ(RandomWeights(4, 9), RandomWeights(4, 9));
}

}  // namespace
}  // namespace dissect::sparsity_speed
