#include "probes/sparsity/stats.h"

#include <cmath>
#include <limits>
#include <vector>

#include "gtest/gtest.h"

namespace dissect::sparsity {
namespace {

SparsityCounts MustCount(const Dims& dims, const std::vector<float>& x) {
  absl::StatusOr<SparsityCounts> counts = CountSparsity(dims, x);
  EXPECT_TRUE(counts.ok()) << counts.status();
  return counts.ok() ? *counts : SparsityCounts{};
}

TEST(StatsTest, SmallTensorEveryFigure) {
  // N=1, C=4, H=1, W=2 in NCHW: c0 [0 0], c1 [1 0], c2 [0 0], c3 [2 3].
  const Dims dims{1, 4, 1, 2};
  const SparsityCounts counts = MustCount(dims, {0, 0, 1, 0, 0, 0, 2, 3});
  EXPECT_EQ(counts.zeros, 5);
  EXPECT_EQ(counts.channel_zeros, (std::vector<int64_t>{2, 1, 2, 0}));
  EXPECT_EQ(counts.zero_warp_vectors, 0);
  EXPECT_EQ(counts.zero_tiles, 0);
  EXPECT_EQ(counts.two_four_groups, 2);
  const LayerSparsity s = Summarize(counts);
  EXPECT_EQ(s.elements, 8);
  EXPECT_DOUBLE_EQ(s.zero_fraction, 5.0 / 8);
  EXPECT_DOUBLE_EQ(s.dead_channel_fraction, 0.5);
  EXPECT_EQ(s.channel_sparsity, (std::vector<double>{0, 0.5, 1, 1}));
  EXPECT_DOUBLE_EQ(s.channel_min, 0);
  EXPECT_DOUBLE_EQ(s.channel_median, 0.75);
  EXPECT_DOUBLE_EQ(s.channel_max, 1);
  EXPECT_DOUBLE_EQ(s.two_four_fraction, 1);
}

TEST(StatsTest, WarpVectorsIncludeThePartialLastOne) {
  // C = 40: vectors of 32 and 8 channels. Image 0 keeps only channel 35,
  // image 1 only channel 5.
  const Dims dims{2, 40, 1, 1};
  std::vector<float> x(dims.elements(), 0.0f);
  x[dims.Index(0, 35, 0, 0)] = 1;
  x[dims.Index(1, 5, 0, 0)] = 1;
  const SparsityCounts counts = MustCount(dims, x);
  EXPECT_EQ(WarpVectorCount(dims), 4);
  EXPECT_EQ(counts.zero_warp_vectors, 2);
  EXPECT_EQ(GroupCount(dims), 20);
  EXPECT_EQ(counts.two_four_groups, 20);
  // Tile rows 0-15 (channel 5), 16-31 (zero), 32-39 (channel 35).
  EXPECT_EQ(TileCount(dims), 3);
  EXPECT_EQ(counts.zero_tiles, 1);
  EXPECT_DOUBLE_EQ(Summarize(counts).warp_zero_fraction, 0.5);
}

TEST(StatsTest, TilesSpanImagesAndPartialColumns) {
  // Columns (n*H + h)*W + w: 2 images x 10 = 20 columns, tiles of columns
  // 0-15 and 16-19. A NaN (not zero) at image 1, w 7 = column 17; -0 is zero.
  const Dims dims{2, 16, 1, 10};
  std::vector<float> x(dims.elements(), -0.0f);
  x[dims.Index(1, 3, 0, 7)] = std::numeric_limits<float>::quiet_NaN();
  const SparsityCounts counts = MustCount(dims, x);
  EXPECT_EQ(TileCount(dims), 2);
  EXPECT_EQ(counts.zero_tiles, 1);
  EXPECT_EQ(counts.zeros, dims.elements() - 1);
  EXPECT_DOUBLE_EQ(Summarize(counts).tile_zero_fraction, 0.5);
  EXPECT_DOUBLE_EQ(Summarize(counts).dead_channel_fraction, 15.0 / 16);
}

TEST(StatsTest, TwoFourGroupsPadTheLastGroupWithZeros) {
  // C = 7 at one position: [1 1 1 0 | 1 1 0] -> 3 nonzeros (no), 2 (yes).
  EXPECT_EQ(MustCount({1, 7, 1, 1}, {1, 1, 1, 0, 1, 1, 0}).two_four_groups, 1);
  // [1 1 0 0 | 1 1 1]: yes, no (3 nonzeros in a group of 3).
  EXPECT_EQ(MustCount({1, 7, 1, 1}, {1, 1, 0, 0, 1, 1, 1}).two_four_groups, 1);
  // [0 1 1 1 | 1 1]: no, yes (a group of 2 always fits 2:4).
  EXPECT_EQ(MustCount({1, 6, 1, 1}, {0, 1, 1, 1, 1, 1}).two_four_groups, 1);
}

TEST(StatsTest, OddChannelCountMedian) {
  const LayerSparsity s = Summarize(MustCount({1, 3, 1, 2}, {0, 0, 1, 0, 1, 1}));
  EXPECT_EQ(s.channel_sparsity, (std::vector<double>{0, 0.5, 1}));
  EXPECT_DOUBLE_EQ(s.channel_median, 0.5);
}

TEST(StatsTest, BadInput) {
  EXPECT_FALSE(CountSparsity({1, 4, 1, 1}, std::vector<float>(3)).ok());
  EXPECT_FALSE(CountSparsity({1, 0, 1, 1}, {}).ok());
}

TEST(StatsTest, DescribeDifferenceNamesTheFirstMismatch) {
  const SparsityCounts a = MustCount({1, 4, 1, 2}, {0, 0, 1, 0, 0, 0, 2, 3});
  SparsityCounts b = a;
  EXPECT_EQ(DescribeDifference(a, b), "");
  b.channel_zeros[2] = 1;
  EXPECT_EQ(DescribeDifference(a, b), "zeros of channel 2: expected 2, got 1");
  b.zero_tiles = 4;
  EXPECT_EQ(DescribeDifference(a, b), "zero tiles: expected 0, got 4");
}

}  // namespace
}  // namespace dissect::sparsity
