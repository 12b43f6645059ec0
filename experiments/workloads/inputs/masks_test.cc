#include "experiments/workloads/inputs/masks.h"

#include <cmath>
#include <vector>

#include "gtest/gtest.h"

namespace dissect::sparsity {
namespace {

int64_t CountZeros(const Mask& mask) {
  int64_t zeros = 0;
  for (uint8_t k : mask.keep) zeros += (k == 0);
  return zeros;
}

TEST(MasksTest, UniformIsExact) {
  const Dims dims{2, 64, 7, 7};
  for (double target : {0.0, 0.1, 0.5, 0.9, 1.0}) {
    auto mask = GenerateMask(dims, target, MaskStructure::kUniform, 1);
    ASSERT_TRUE(mask.ok()) << mask.status();
    EXPECT_EQ(CountZeros(*mask), std::llround(target * dims.elements()));
    EXPECT_EQ(mask->zeros, CountZeros(*mask));
    EXPECT_NEAR(mask->achieved_fraction, target, 1.0 / dims.elements());
  }
}

TEST(MasksTest, ChannelMasksZeroWholePlanes) {
  const Dims dims{4, 128, 3, 5};
  for (double target : {0.05, 0.3, 0.7}) {
    auto mask = GenerateMask(dims, target, MaskStructure::kChannel, 7);
    ASSERT_TRUE(mask.ok()) << mask.status();
    EXPECT_NEAR(mask->achieved_fraction, target, 0.005);
    EXPECT_EQ(mask->zeros, CountZeros(*mask));
    for (int64_t p = 0; p < dims.n * dims.c; ++p) {
      int kept = 0;
      for (int64_t i = 0; i < dims.plane(); ++i) kept += mask->keep[p * dims.plane() + i];
      EXPECT_TRUE(kept == 0 || kept == dims.plane()) << "plane " << p << " kept " << kept;
    }
  }
}

TEST(MasksTest, Run32MasksZeroAlignedRuns) {
  // C = 80: runs of 32, 32 and 16 channels.
  const Dims dims{2, 80, 6, 6};
  for (double target : {0.1, 0.5}) {
    auto mask = GenerateMask(dims, target, MaskStructure::kRun32, 3);
    ASSERT_TRUE(mask.ok()) << mask.status();
    EXPECT_NEAR(mask->achieved_fraction, target, 0.005);
    EXPECT_EQ(mask->zeros, CountZeros(*mask));
    for (int64_t n = 0; n < dims.n; ++n) {
      for (int64_t hw = 0; hw < dims.plane(); ++hw) {
        for (int64_t g = 0; g * 32 < dims.c; ++g) {
          int kept = 0, size = 0;
          for (int64_t c = g * 32; c < std::min<int64_t>(dims.c, g * 32 + 32); ++c, ++size) {
            kept += mask->keep[(n * dims.c + c) * dims.plane() + hw];
          }
          EXPECT_TRUE(kept == 0 || kept == size) << n << "," << g << "," << hw;
        }
      }
    }
  }
}

TEST(MasksTest, SameSeedSameMask) {
  const Dims dims{1, 64, 4, 4};
  auto a = GenerateMask(dims, 0.4, MaskStructure::kRun32, 9);
  auto b = GenerateMask(dims, 0.4, MaskStructure::kRun32, 9);
  auto c = GenerateMask(dims, 0.4, MaskStructure::kRun32, 10);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_EQ(a->keep, b->keep);
  EXPECT_NE(a->keep, c->keep);
}

TEST(MasksTest, GranularityAndBadInput) {
  EXPECT_EQ(MaskGranularity({1, 64, 3, 3}, MaskStructure::kChannel), 9);
  EXPECT_EQ(MaskGranularity({1, 20, 3, 3}, MaskStructure::kRun32), 20);
  EXPECT_EQ(MaskGranularity({1, 20, 3, 3}, MaskStructure::kUniform), 1);
  EXPECT_FALSE(GenerateMask({1, 4, 1, 1}, 1.5, MaskStructure::kUniform, 1).ok());
  EXPECT_FALSE(GenerateMask({1, 4, 1, 1}, NAN, MaskStructure::kUniform, 1).ok());
  EXPECT_FALSE(GenerateMask({0, 4, 1, 1}, 0.5, MaskStructure::kUniform, 1).ok());
  EXPECT_FALSE(ParseMaskStructure("rows").ok());
  EXPECT_EQ(*ParseMaskStructure("run32"), MaskStructure::kRun32);
}

TEST(MasksTest, ApplyZeroesDroppedElements) {
  auto mask = GenerateMask({1, 8, 1, 1}, 0.5, MaskStructure::kUniform, 2);
  ASSERT_TRUE(mask.ok());
  std::vector<float> x(8, 1.0f);
  ASSERT_TRUE(ApplyMask(*mask, absl::MakeSpan(x)).ok());
  for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(x[i], mask->keep[i] ? 1.0f : 0.0f);
  std::vector<float> wrong(7);
  EXPECT_FALSE(ApplyMask(*mask, absl::MakeSpan(wrong)).ok());
}

}  // namespace
}  // namespace dissect::sparsity
