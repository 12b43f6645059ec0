// The tile arithmetic of kernels/tiled_stream.cuh on the host: over every
// block and thread of a grid, ForEachTile visits each element of [0, n)
// exactly once, for any n (multiples of the tile, one off, smaller than one
// tile, zero) and any grid, with all fetches of a tile before its uses;
// ForEachTileRoaming has every block visit each element once, starting at
// tiles spread over the buffer, each block with its own step, so that no
// two blocks walk in step.
#include "kernels/tiled_stream.cuh"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace dissect {
namespace {

// Runs ForEachTile for every thread of `blocks` blocks over n elements and
// returns how often each element was used (with the value fetched for it).
template <int kBatch, int kThreads>
std::vector<int> Visits(size_t n, size_t blocks) {
  std::vector<int> used(n, 0);
  for (size_t b = 0; b < blocks; ++b) {
    for (size_t t = 0; t < kThreads; ++t) {
      int fetched = 0;
      ForEachTile<size_t, kBatch, kThreads>(
          n, b, blocks, t,
          [&](size_t i) {
            EXPECT_LT(i, n);
            ++fetched;
            return i;
          },
          [&](size_t i, size_t v) {
            EXPECT_EQ(v, i) << "the value fetched for element i";
            EXPECT_GT(fetched, 0);
            if (i < n) ++used[i];
          });
    }
  }
  return used;
}

template <int kBatch, int kThreads>
void ExpectEachElementOnce() {
  constexpr size_t kTile = kTileElements<kBatch, kThreads>;
  const std::vector<size_t> sizes = {
      0,     1,         kThreads - 1, kThreads,      kThreads + 1, kTile - 1,
      kTile, kTile + 1, 3 * kTile,    5 * kTile + 3, 7 * kTile - 1};
  for (size_t n : sizes) {
    for (size_t blocks : {1, 2, 3, 5, 16}) {
      SCOPED_TRACE(
          absl::StrCat("batch ", kBatch, ", threads ", kThreads, ", n ", n, ", blocks ", blocks));
      const std::vector<int> used = Visits<kBatch, kThreads>(n, blocks);
      for (size_t i = 0; i < n; ++i) {
        ASSERT_EQ(used[i], 1) << "element " << i;
      }
    }
    EXPECT_EQ((TileCount<kBatch, kThreads>(n)), (n + kTile - 1) / kTile);
  }
}

TEST(TiledStreamTest, VisitsEachElementOnce) {
  ExpectEachElementOnce<1, 4>();
  ExpectEachElementOnce<4, 4>();
  ExpectEachElementOnce<3, 8>();
  ExpectEachElementOnce<4, 256>();
}

// Each thread issues all fetches of a full tile before the first use.
TEST(TiledStreamTest, FetchesComeBeforeUses) {
  std::vector<std::string> order;
  ForEachTile<size_t, 4, 2>(
      8, 0, 1, 1,
      [&](size_t i) {
        order.push_back(absl::StrCat("f", i));
        return i;
      },
      [&](size_t i, size_t) { order.push_back(absl::StrCat("u", i)); });
  EXPECT_EQ(order, (std::vector<std::string>{"f1", "f3", "f5", "f7", "u1", "u3", "u5", "u7"}));
}

// The tiles a block owns are the same on every call (a pass re-reads them).
TEST(TiledStreamTest, TheLastPartialTileGoesToTheBlockWhoseTurnItIs) {
  // 2 full tiles of 4 (batch 2 × 2 threads) and a partial one, 3 blocks:
  // tiles 0, 1, 2 go to blocks 0, 1, 2.
  for (size_t b = 0; b < 3; ++b) {
    std::vector<size_t> seen;
    for (size_t t = 0; t < 2; ++t) {
      ForEachTile<size_t, 2, 2>(
          10, b, 3, t, [](size_t i) { return i; }, [&](size_t i, size_t) { seen.push_back(i); });
    }
    std::sort(seen.begin(), seen.end());
    const std::vector<std::vector<size_t>> want = {{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9}};
    EXPECT_EQ(seen, want[b]) << "block " << b;
  }
}

// Runs ForEachTileRoaming for every thread of block `block` of `blocks`
// over n elements: how often the block used each element, and the order
// in which thread 0 used its elements.
template <int kBatch, int kThreads>
std::vector<int> RoamingVisits(size_t n, size_t block, size_t blocks,
                               std::vector<size_t>* thread0_order = nullptr) {
  std::vector<int> used(n, 0);
  for (size_t t = 0; t < kThreads; ++t) {
    ForEachTileRoaming<size_t, kBatch, kThreads>(
        n, block, blocks, t, RoamingStepTiles(block, n / kTileElements<kBatch, kThreads>),
        [&](size_t i) {
          EXPECT_LT(i, n);
          return i;
        },
        [&](size_t i, size_t v) {
          EXPECT_EQ(v, i) << "the value fetched for element i";
          if (i < n) ++used[i];
          if (t == 0 && thread0_order != nullptr) thread0_order->push_back(i);
        });
  }
  return used;
}

// Every block's pass streams the whole buffer, each element once: an SM's
// footprint is the buffer, whichever blocks it runs.
template <int kBatch, int kThreads>
void ExpectEveryBlockVisitsEachElementOnce() {
  constexpr size_t kTile = kTileElements<kBatch, kThreads>;
  for (size_t n : {size_t{0}, size_t{1}, kTile - 1, kTile, kTile + 1, 3 * kTile, 5 * kTile + 3,
                   7 * kTile - 1, 8 * kTile}) {
    for (size_t blocks : {1, 2, 3, 5, 16}) {
      for (size_t b = 0; b < blocks; ++b) {
        SCOPED_TRACE(absl::StrCat("batch ", kBatch, ", threads ", kThreads, ", n ", n,
                                  ", block ", b, " of ", blocks));
        const std::vector<int> used = RoamingVisits<kBatch, kThreads>(n, b, blocks);
        for (size_t i = 0; i < n; ++i) {
          ASSERT_EQ(used[i], 1) << "element " << i;
        }
      }
    }
  }
}

TEST(TiledStreamTest, RoamingBlocksEachVisitEveryElementOnce) {
  ExpectEveryBlockVisitsEachElementOnce<1, 4>();
  ExpectEveryBlockVisitsEachElementOnce<4, 4>();
  ExpectEveryBlockVisitsEachElementOnce<3, 8>();
  ExpectEveryBlockVisitsEachElementOnce<4, 256>();
}

// The blocks start at different tiles, spread evenly, and walk on from
// there 2 b + 1 tiles at a time, wrapping around: 8 full tiles of 4
// elements (batch 2 x 2 threads) and a partial one, 4 blocks: starts at
// tiles 0, 2, 4, 6, steps 1, 3, 5, 7.
TEST(TiledStreamTest, RoamingBlocksStartSpreadOverTheBuffer) {
  constexpr size_t kN = 8 * 4 + 3;
  for (size_t b = 0; b < 4; ++b) {
    std::vector<size_t> order;
    RoamingVisits<2, 2>(kN, b, 4, &order);
    ASSERT_EQ(order.size(), 2 * 8 + 2u) << "block " << b;
    std::vector<size_t> want;
    for (size_t k = 0; k < 8; ++k) {
      const size_t tile = (2 * b + k * (2 * b + 1)) % 8;
      want.push_back(tile * 4);
      want.push_back(tile * 4 + 2);
    }
    want.push_back(32);  // the partial tile, last
    want.push_back(34);
    EXPECT_EQ(order, want) << "block " << b;
  }
  EXPECT_EQ(RoamingStartTile(131, 132, 1024), 1016u);
  EXPECT_EQ(RoamingStartTile(5, 8, 2), 1u) << "more blocks than tiles: starts repeat, in order";
}

TEST(TiledStreamTest, RoamingStepsAreCoprimeToTheTiles) {
  EXPECT_EQ(RoamingStepTiles(0, 1024), 1u);
  EXPECT_EQ(RoamingStepTiles(1, 1024), 3u);
  EXPECT_EQ(RoamingStepTiles(600, 1024), 177u) << "2 b + 1 wraps around";
  EXPECT_EQ(RoamingStepTiles(1, 6), 5u) << "3 and 4 share a factor with 6";
  EXPECT_EQ(RoamingStepTiles(4, 6), 5u) << "9 mod 6 = 3, then 4, then 5";
  EXPECT_EQ(RoamingStepTiles(7, 1), 0u);
  EXPECT_EQ(RoamingStepTiles(7, 0), 0u);
}

// How many of its trips block `b` reads the tile block `a` read `lag` trips
// before, the most over all lags: each such trip can hit what the other
// block just brought into L1 or L2 instead of reading it again.
size_t MostTripsInStep(size_t a, size_t b, size_t blocks, size_t tiles) {
  const auto tile = [&](size_t block, size_t trip) {
    return (RoamingStartTile(block, blocks, tiles) + trip * RoamingStepTiles(block, tiles)) % tiles;
  };
  size_t most = 0;
  for (size_t lag = 0; lag < tiles; ++lag) {
    size_t same = 0;
    for (size_t trip = lag; trip < tiles; ++trip) {
      if (tile(b, trip) == tile(a, trip - lag)) ++same;
    }
    most = std::max(most, same);
  }
  return most;
}

// No two blocks walk in step, however far one falls behind the other: with
// one step for all (the buffer in order), a block that fell behind another
// by their starts' distance read every tile just after it, and an H100's
// roaming reads ran at twice its L2 bandwidth, past its L2's capacity.
// 1056 blocks (8 per SM of an H100) over 256 tiles (8 MiB of 32 KiB
// tiles), as memory_bandwidth runs them: the first 16 blocks, of which
// blocks 0-4 start at tile 0 (more blocks than tiles: starts repeat).
TEST(TiledStreamTest, RoamingBlocksNeverWalkInStep) {
  constexpr size_t kBlocks = 1056, kTiles = 256;
  for (size_t a = 0; a < 16; ++a) {
    for (size_t b = 0; b < 16; ++b) {
      if (a == b) continue;
      EXPECT_LE(MostTripsInStep(a, b, kBlocks, kTiles), kTiles / 16)
          << "block " << b << " reads block " << a << "'s tiles in step";
    }
  }
}

}  // namespace
}  // namespace dissect
