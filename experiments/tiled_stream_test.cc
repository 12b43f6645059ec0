// The tile arithmetic of kernels/tiled_stream.cuh on the host: over every
// block and thread of a grid, ForEachTile visits each element of [0, n)
// exactly once, for any n (multiples of the tile, one off, smaller than one
// tile, zero) and any grid, with all fetches of a tile before its uses.
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

}  // namespace
}  // namespace dissect
