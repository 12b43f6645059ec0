#include "experiments/sparsity/structured/sparse24.h"

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/sparsity_24/sp_gemm.h"

namespace dissect::sparsity {
namespace {

Matrix RandomMatrix(int64_t rows, int64_t cols, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  Matrix m{rows, cols, {}};
  for (int64_t i = 0; i < rows * cols; ++i) m.values.push_back(RoundToHalf(dist(rng)));
  return m;
}

float HalfOf(uint32_t word, int half) {
  const uint32_t h = (word >> (16 * half)) & 0xffff;
  const int sign = h >> 15, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  float v = exp == 0 ? std::ldexp(static_cast<float>(mant), -24)
                     : std::ldexp(static_cast<float>(mant | 0x400), exp - 25);
  return sign ? -v : v;
}

TEST(LayerGemmShapeTest, ConvIsIm2colFcUsesBatch) {
  auto conv = LayerGemmShape("vgg16.conv3_1", 32);
  ASSERT_TRUE(conv.ok()) << conv.status();
  EXPECT_EQ(conv->n, 56 * 56);
  EXPECT_EQ(conv->k, 128 * 9);
  EXPECT_EQ(conv->m, 256);
  auto res = LayerGemmShape("resnet50.res3b_branch2b", 32);
  ASSERT_TRUE(res.ok()) << res.status();
  EXPECT_EQ(res->n, 28 * 28);
  EXPECT_EQ(res->k, 128 * 9);
  EXPECT_EQ(res->m, 128);
  auto fc = LayerGemmShape("vgg16.fc6", 32);
  ASSERT_TRUE(fc.ok()) << fc.status();
  EXPECT_EQ(fc->n, 32);
  EXPECT_EQ(fc->k, 25088);
  EXPECT_EQ(fc->m, 4096);
  EXPECT_FALSE(LayerGemmShape("vgg16.pool1", 32).ok());
  EXPECT_FALSE(LayerGemmShape("no.such", 32).ok());
  EXPECT_FALSE(LayerGemmShape("vgg16.fc6", 0).ok());
}

TEST(PaddedShapeTest, RoundsToTheBlockTile) {
  const GemmShape p = PaddedShape({32, 2048, 1000});
  EXPECT_EQ(p.n, 64);
  EXPECT_EQ(p.k, 2048);
  EXPECT_EQ(p.m, 1024);
  const GemmShape q = PaddedShape({784, 1150, 128});
  EXPECT_EQ(q.n, 832);
  EXPECT_EQ(q.k, 1152);
  EXPECT_EQ(q.m, 128);
}

TEST(PruneTo24Test, KeepsTheTwoLargestAscending) {
  const Matrix a{1, 12, {1, -3, 2, 0.5f, 0, 0, 0, 0, 1, 1, 1, 1}};
  const Pruned24 p = PruneTo24(a);
  EXPECT_EQ(p.kept, (std::vector<uint8_t>{1, 2, 0, 1, 0, 1}));
  EXPECT_EQ(p.values.values, (std::vector<float>{0, -3, 2, 0, 0, 0, 0, 0, 1, 1, 0, 0}));
  EXPECT_DOUBLE_EQ(p.kept_magnitude_fraction, 7.0 / 10.5);
  EXPECT_DOUBLE_EQ(ZeroFraction(p.values), 8.0 / 12);
}

TEST(PruneTo24Test, KeptIndicesAscendEvenWhenTheLargestComesLast) {
  const Pruned24 p = PruneTo24(Matrix{1, 4, {2, 0, 0, 5}});
  EXPECT_EQ(p.kept, (std::vector<uint8_t>{0, 3}));
}

TEST(PruneTo24Test, AllZeroKeepsEverything) {
  const Pruned24 p = PruneTo24(Matrix{2, 4, std::vector<float>(8, 0.0f)});
  EXPECT_DOUBLE_EQ(p.kept_magnitude_fraction, 1.0);
}

TEST(MetadataNibbleTest, IndicesInTwoBitFields) {
  EXPECT_EQ(MetadataNibble(0, 1), 0x4u);
  EXPECT_EQ(MetadataNibble(1, 2), 0x9u);
  EXPECT_EQ(MetadataNibble(1, 3), 0xDu);
  EXPECT_EQ(MetadataNibble(2, 3), 0xEu);
}

TEST(PackTest, HandPickedPositions) {
  Matrix a{16, 32, std::vector<float>(16 * 32, 0.0f)};
  a.values[3 * 32 + 18] = 1.0f;   // lane 13, k16 half 1, register 0, low half
  a.values[12 * 32 + 9] = -2.0f;  // lane 16, k16 half 0, register 3, high half
  const std::vector<uint32_t> dense = PackDenseA(a);
  ASSERT_EQ(dense.size(), 32u * kSp24DenseAWords);
  EXPECT_EQ(dense[13 * 8 + 4], 0x3C00u);
  EXPECT_EQ(dense[16 * 8 + 3], 0xC0000000u);

  Matrix s{16, 32, std::vector<float>(16 * 32, 0.0f)};
  s.values[9 * 32 + 21] = 1.0f;  // row 9, group 5 keeps 1 and 3
  s.values[9 * 32 + 23] = 2.0f;
  const PackedSparseA sp = PackSparseA(PruneTo24(s));
  // Lane 4 × (9 % 8) + 5 / 4 = 5, bits 16 + 4 × (5 % 4) = 20.
  EXPECT_EQ((sp.metadata[5] >> 20) & 0xf, 0xDu);
  // Compressed columns 10, 11: lane 5, register 1 + 2 = 3.
  EXPECT_EQ(sp.values[5 * 4 + 3], 0x3C00u | (0x4000u << 16));

  const std::vector<uint32_t> b =
      PackB([](int64_t j, int64_t k) { return j == 6 && k == 17 ? 1.0f : 0.0f; }, 32, 8, 32, 8);
  // (k 17, n 6): lane 24, register 2, high half.
  EXPECT_EQ(b[24 * 4 + 2], 0x3C000000u);
}

// Rebuilds A and B from packed words with the PTX ISA's per-element
// formulas (a_i / b_i of lane 4 g + t) and checks they give the matrices
// back: the packing places every element where the instruction reads it.
TEST(PackTest, IsaElementFormulasRecoverTheMatrices) {
  const Matrix a = RandomMatrix(32, 64, 1);
  const Pruned24 pruned = PruneTo24(a);
  const std::vector<uint32_t> dense = PackDenseA(a);
  const PackedSparseA sparse = PackSparseA(pruned);
  const int64_t k_steps = 2;
  for (int64_t rt = 0; rt < 2; ++rt) {
    for (int64_t ks = 0; ks < k_steps; ++ks) {
      const int64_t tile = rt * k_steps + ks;
      for (int lane = 0; lane < 32; ++lane) {
        const int g = lane / 4, t = lane % 4;
        for (int h = 0; h < 2; ++h) {
          for (int i = 0; i < 8; ++i) {
            const int row = g + 8 * ((i >> 1) & 1), col = 2 * t + (i & 1) + 8 * (i >> 2);
            const uint32_t word = dense[(tile * 32 + lane) * 8 + 4 * h + i / 2];
            EXPECT_EQ(HalfOf(word, i % 2), a.at(rt * 16 + row, ks * 32 + 16 * h + col));
          }
        }
        for (int i = 0; i < 8; ++i) {
          const int row = g + 8 * ((i >> 1) & 1), chunk = t + 4 * (i >> 2), slot = i & 1;
          const uint32_t meta = sparse.metadata[tile * 32 + 4 * g + chunk / 4];
          const int nibble = (meta >> (16 * (row / 8) + 4 * (chunk % 4))) & 0xf;
          const int index = slot == 0 ? nibble & 3 : nibble >> 2;
          const uint32_t word = sparse.values[(tile * 32 + lane) * 4 + i / 2];
          EXPECT_EQ(HalfOf(word, i % 2),
                    pruned.values.at(rt * 16 + row, ks * 32 + 4 * chunk + index));
        }
      }
    }
  }
  const Matrix w = RandomMatrix(16, 64, 2);  // W: M × K
  const std::vector<uint32_t> b =
      PackB([&](int64_t j, int64_t k) { return w.at(j, k); }, 64, 16, 64, 16);
  for (int64_t ct = 0; ct < 2; ++ct) {
    for (int64_t ks = 0; ks < k_steps; ++ks) {
      for (int lane = 0; lane < 32; ++lane) {
        const int g = lane / 4, t = lane % 4;
        for (int i = 0; i < 8; ++i) {
          const int k = 2 * t + (i & 1) + 8 * (i >> 1);
          const uint32_t word = b[((ct * k_steps + ks) * 32 + lane) * 4 + i / 2];
          EXPECT_EQ(HalfOf(word, i % 2), w.at(ct * 8 + g, ks * 32 + k));
        }
      }
    }
  }
}

TEST(PackTest, BPaddingIsZero) {
  const std::vector<uint32_t> b = PackB([](int64_t, int64_t) { return 1.0f; }, 20, 5, 32, 8);
  // (k 24, n 0) lies beyond k_real: lane 0, register 3.
  EXPECT_EQ(b[0 * 4 + 3], 0u);
  // (k 0, n 5) lies beyond m_real: lane 20, register 0.
  EXPECT_EQ(b[20 * 4 + 0], 0u);
  EXPECT_EQ(b[0], 0x3C003C00u);
}

TEST(ReferenceTest, ProductAndRelativeError) {
  const Matrix a{2, 3, {1, 2, 3, 0, -1, 4}};
  const WeightFn w = [](int64_t j, int64_t k) { return static_cast<float>(j + k); };
  const std::vector<double> c = ReferenceProduct(a, w, {0, 1}, {0, 2});
  // Row 0: Σ (k) x = 0 + 2 + 6 = 8; with j = 2: Σ (k + 2) x = 8 + 12 = 20.
  EXPECT_EQ(c, (std::vector<double>{8, 20, 7, 13}));
  const std::vector<float> got = {8, 0, 20, 7.07f, 0, 13};
  EXPECT_NEAR(MaxRelError(got, 3, c, {0, 1}, {0, 2}), 0.01, 1e-6);
}

TEST(SpreadIndicesTest, EvenlySpreadEndsIncluded) {
  EXPECT_EQ(SpreadIndices(10, 3), (std::vector<int64_t>{0, 4, 9}));
  EXPECT_EQ(SpreadIndices(3, 8), (std::vector<int64_t>{0, 1, 2}));
  EXPECT_TRUE(SpreadIndices(0, 4).empty());
}

}  // namespace
}  // namespace dissect::sparsity
