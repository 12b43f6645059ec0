// The tiling arithmetic of the cluster-cooperative kernels
// (kernels/coop/coop_tiling.h) on the host: which block of a cluster loads
// which slice of the input tile, that a cluster loads every tile element
// exactly once, and that the grids and conv tiles cover every output and
// every input a block needs.
#include "kernels/coop/coop_tiling.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace dissect::coop {
namespace {

TEST(CoopTilingTest, SlicesCoverTheUnitsDisjointlyAndInOrder) {
  for (int units = 0; units <= 40; ++units) {
    for (int parts : {1, 2, 3, 4, 8, 16}) {
      int next = 0;
      for (int rank = 0; rank < parts; ++rank) {
        const Range r = SliceOf(units, parts, rank);
        EXPECT_EQ(r.begin, next) << units << " units, " << parts << " parts, rank " << rank;
        EXPECT_GE(r.size(), 0);
        next = r.end;
      }
      EXPECT_EQ(next, units) << units << " units, " << parts << " parts";
    }
  }
}

TEST(CoopTilingTest, UnevenSplitsDifferByAtMostOneUnit) {
  // 16 channels over 3 blocks: 6, 5, 5; 5 channels over 8 blocks: five of
  // one and three empty slices.
  EXPECT_EQ(SliceOf(16, 3, 0).size(), 6);
  EXPECT_EQ(SliceOf(16, 3, 1).size(), 5);
  EXPECT_EQ(SliceOf(16, 3, 2).size(), 5);
  for (int rank = 0; rank < 8; ++rank) EXPECT_EQ(SliceOf(5, 8, rank).size(), rank < 5 ? 1 : 0);
  for (int units = 1; units <= 64; ++units) {
    for (int parts : {2, 4, 8, 16}) {
      int lo = units, hi = 0;
      for (int rank = 0; rank < parts; ++rank) {
        lo = std::min(lo, SliceOf(units, parts, rank).size());
        hi = std::max(hi, SliceOf(units, parts, rank).size());
      }
      EXPECT_LE(hi - lo, 1) << units << " units over " << parts;
    }
  }
}

TEST(CoopTilingTest, SliceOwnerIsTheRankWhoseSliceHoldsTheUnit) {
  for (int units = 1; units <= 40; ++units) {
    for (int parts : {1, 2, 3, 4, 8, 16}) {
      for (int u = 0; u < units; ++u) {
        const int owner = SliceOwner(units, parts, u);
        ASSERT_GE(owner, 0);
        ASSERT_LT(owner, parts);
        const Range r = SliceOf(units, parts, owner);
        EXPECT_TRUE(u >= r.begin && u < r.end)
            << "unit " << u << " of " << units << " over " << parts << ": owner " << owner;
      }
    }
  }
}

// What StageTile does in a cluster of `parts` blocks: each element of the
// tile is loaded from global memory by exactly one block (its slice) and
// ends up in every block's tile (own slice or a copy of a peer's).
TEST(CoopTilingTest, AClusterLoadsEveryTileElementExactlyOnce) {
  for (int unit_elements : {4, kConvUnitElements}) {
    for (int units : {1, 3, 7, 16}) {
      for (int parts : {1, 2, 4, 8, 16}) {
        const int elements = units * unit_elements;
        std::vector<int> loads(elements, 0);
        for (int rank = 0; rank < parts; ++rank) {
          const Range own = SliceElements(units, unit_elements, parts, rank);
          for (int e = own.begin; e < own.end; ++e) ++loads[e];
          // The rank's tile after the copies: own slice plus every peer's.
          std::vector<int> have(elements, 0);
          for (int from = 0; from < parts; ++from) {
            const Range r = SliceElements(units, unit_elements, parts, from);
            EXPECT_EQ(r.begin % 4, 0) << "slices are copied as float4";
            for (int e = r.begin; e < r.end; ++e) ++have[e];
          }
          for (int e = 0; e < elements; ++e) ASSERT_EQ(have[e], 1) << "element " << e;
        }
        for (int e = 0; e < elements; ++e) {
          ASSERT_EQ(loads[e], 1) << units << " units x " << unit_elements << " over " << parts
                                 << ": element " << e;
        }
      }
    }
  }
}

TEST(CoopTilingTest, GridsAreWholeClustersAndCoverEveryGroup) {
  for (int k : {1, 4, 5, 64, 100, 512, 1000}) {
    for (int s : {1, 2, 4, 8, 16}) {
      const Grid3 conv = ConvGrid(2, 14, 14, k, s);
      EXPECT_EQ(conv.x % s, 0);
      EXPECT_GE(conv.x * kConvFiltersPerBlock, k);
      EXPECT_LT((conv.x - s) * kConvFiltersPerBlock, k) << "a whole cluster of idle blocks";
      EXPECT_EQ(conv.z, 2);
      const Grid3 gemv = GemvGrid(3, k, s);
      EXPECT_EQ(gemv.x % s, 0);
      EXPECT_GE(gemv.x * kGemvRowsPerBlock, k);
      EXPECT_LT((gemv.x - s) * kGemvRowsPerBlock, k);
      EXPECT_EQ(gemv.y, 3);
    }
  }
  EXPECT_EQ(ConvGrid(1, 56, 56, 64, 1).y, 7 * 2);
  EXPECT_EQ(ConvGrid(1, 7, 7, 64, 1).y, 1);
}

// Every output pixel belongs to exactly one (spatial tile, thread), and every
// in-image tap of it is the tile element ConvTileSource maps to that input.
TEST(CoopTilingTest, ConvTilesCoverEveryOutputAndItsTaps) {
  for (auto [h, w] : {std::pair{7, 7}, {14, 14}, {13, 13}, {56, 56}, {9, 40}}) {
    const int tiles = ConvGrid(1, h, w, 1, 1).y;
    std::vector<int> covered(h * w, 0);
    for (int tile = 0; tile < tiles; ++tile) {
      for (int t = 0; t < kCoopThreads; ++t) {
        const int p = ConvOutRow(tile, t, w), q = ConvOutCol(tile, t, w);
        if (p >= h || q >= w) continue;
        ++covered[p * w + q];
        for (int r = 0; r < 3; ++r) {
          for (int s = 0; s < 3; ++s) {
            const int e = ConvTapElement(t, r, s);
            ASSERT_GE(e, 0);
            ASSERT_LT(e, kConvUnitElements);
            const ConvSource src = ConvTileSource(e + 2 * kConvUnitElements, 5, tile, h, w);
            EXPECT_EQ(src.c, 7);
            EXPECT_EQ(src.ih, p - 1 + r);
            EXPECT_EQ(src.iw, q - 1 + s);
            EXPECT_EQ(src.inside,
                      p - 1 + r >= 0 && p - 1 + r < h && q - 1 + s >= 0 && q - 1 + s < w);
          }
        }
      }
    }
    for (int i = 0; i < h * w; ++i) ASSERT_EQ(covered[i], 1) << h << "x" << w << " output " << i;
  }
}

}  // namespace
}  // namespace dissect::coop
