#include "experiments/sparsity/structured/compressible_memory.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace dissect::sparsity {
namespace {

TEST(RoundUpToGranularityTest, RoundsUpToMultiples) {
  constexpr size_t kTwoMiB = size_t{2} << 20;
  EXPECT_EQ(RoundUpToGranularity(0, kTwoMiB), 0u);
  EXPECT_EQ(RoundUpToGranularity(1, kTwoMiB), kTwoMiB);
  EXPECT_EQ(RoundUpToGranularity(kTwoMiB, kTwoMiB), kTwoMiB);
  EXPECT_EQ(RoundUpToGranularity(kTwoMiB + 1, kTwoMiB), 2 * kTwoMiB);
  EXPECT_EQ(RoundUpToGranularity(size_t{256} << 20, kTwoMiB), size_t{256} << 20);
}

TEST(ZeroWordCountTest, RoundsToNearest) {
  EXPECT_EQ(ZeroWordCount(1000, 0), 0u);
  EXPECT_EQ(ZeroWordCount(1000, 25), 250u);
  EXPECT_EQ(ZeroWordCount(1000, 100), 1000u);
  EXPECT_EQ(ZeroWordCount(3, 50), 2u);  // 1.5 rounds away from zero
  EXPECT_EQ(ZeroWordCount(7, 99), 7u);
}

size_t CountZeros(const std::vector<uint32_t>& words) {
  return static_cast<size_t>(std::count(words.begin(), words.end(), 0u));
}

TEST(ZeroFractionWordsTest, ExactZeroCountAndNonZeroElsewhere) {
  for (int pct : {0, 25, 50, 75, 90, 99, 100}) {
    const std::vector<uint32_t> words = ZeroFractionWords(100003, pct, 7);
    ASSERT_EQ(words.size(), 100003u);
    EXPECT_EQ(CountZeros(words), ZeroWordCount(words.size(), pct)) << pct << " %";
  }
}

TEST(ZeroFractionWordsTest, ZerosSpreadOverTheBuffer) {
  const std::vector<uint32_t> words = ZeroFractionWords(1 << 20, 50, 11);
  const std::vector<uint32_t> first(words.begin(), words.begin() + (1 << 19));
  const std::vector<uint32_t> second(words.begin() + (1 << 19), words.end());
  // Half the zeros in each half, within a few standard deviations (~360).
  EXPECT_NEAR(static_cast<double>(CountZeros(first)), 1 << 18, 3000);
  EXPECT_NEAR(static_cast<double>(CountZeros(second)), 1 << 18, 3000);
}

TEST(ZeroFractionWordsTest, DeterministicPerSeed) {
  EXPECT_EQ(ZeroFractionWords(4096, 75, 3), ZeroFractionWords(4096, 75, 3));
  EXPECT_NE(ZeroFractionWords(4096, 75, 3), ZeroFractionWords(4096, 75, 4));
}

}  // namespace
}  // namespace dissect::sparsity
