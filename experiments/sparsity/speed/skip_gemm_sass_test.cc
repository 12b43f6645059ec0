// Machine code of the zero-skipping GEMM (kernels/sparsity_gemm/skip_gemm.cu)
// through `cuobjdump -sass` of libskip_gemm.a (a sass_test: without
// cuobjdump every test reports SKIPPED, and fails under CI=true). PTX is not
// enough: ptxas may predicate a short branch or move work across it. In the
// K loop (the loop with the most FFMA) of
//   skip_warp: the 16 column ballots (VOTE.ANY) come before any FFMA, and
//     at least 16 conditional forward branches each jump over exactly one
//     column's 32 FFMA; every FFMA of the loop lies behind one of them;
//   skip_tile: the bitmap byte (LDG.U8) is loaded before any FFMA and a
//     conditional forward branch after it jumps over every FFMA of the loop.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/sparsity_gemm/skip_gemm_layout.h"
#include "probes/sass_inspect.h"
#include "probes/sass_test_util.h"

namespace dissect {
namespace {

using sparsity_gemm::kColsPerWarp;
using sparsity_gemm::kWarpSegment;

struct Skip {
  size_t branch = 0;  // the BRA
  size_t target = 0;  // the index it jumps to
};

// Conditional forward branches of `loop` that land inside it.
std::vector<Skip> ForwardSkips(const SassFunction& f, const SassLoop& loop) {
  std::vector<Skip> skips;
  for (size_t i = loop.head; i < loop.branch; ++i) {
    const SassInstruction& in = f.code[i];
    const std::optional<int64_t> target = in.BranchTarget();
    if (in.op != "BRA" || in.predicate.empty() || !target || *target <= in.address) continue;
    for (size_t j = i + 1; j <= loop.branch; ++j) {
      if (f.code[j].address == *target) skips.push_back({i, j});
    }
  }
  return skips;
}

std::optional<SassLoop> KLoop(const SassFunction& f) {
  std::optional<SassLoop> best;
  int most = 0;
  for (const SassLoop& loop : FindLoops(f)) {
    const int n = CountOps(f, loop, {"FFMA"});
    if (n > most) most = n, best = loop;
  }
  return best;
}

bool Covered(size_t i, const std::vector<Skip>& skips) {
  for (const Skip& s : skips) {
    if (s.branch < i && i < s.target) return true;
  }
  return false;
}

class SkipGemmSassTest : public SassTest {};

TEST_F(SkipGemmSassTest, WarpKernelBranchesAroundEachColumnsFmasAfterItsBallot) {
  const SassFunction* f = SassFunctionNamed({"SkipWarpGemmKernel"});
  ASSERT_NE(f, nullptr);
  const std::optional<SassLoop> loop = KLoop(*f);
  ASSERT_TRUE(loop.has_value()) << "no loop holds an FFMA";
  const std::vector<size_t> ffma = IndicesOfOps(*f, *loop, {"FFMA"});
  const std::vector<size_t> votes = IndicesOfOps(*f, *loop, {"VOTE"});
  ASSERT_GE(votes.size(), static_cast<size_t>(kColsPerWarp)) << LoopListing(*f, *loop);
  EXPECT_LT(votes.back(), ffma.front()) << "a multiply-add before the last ballot";
  std::vector<Skip> column_skips;
  for (const Skip& s : ForwardSkips(*f, *loop)) {
    if (CountOps(*f, s.branch, s.target, {"FFMA"}) == kWarpSegment) column_skips.push_back(s);
  }
  EXPECT_GE(column_skips.size(), static_cast<size_t>(kColsPerWarp)) << LoopListing(*f, *loop);
  for (size_t i : ffma) {
    EXPECT_TRUE(Covered(i, column_skips)) << "not behind a column's zero test: " << SassLine(*f, i);
  }
}

TEST_F(SkipGemmSassTest, TileKernelBranchesAroundTheTilesFmasAfterItsBitmapByte) {
  const SassFunction* f = SassFunctionNamed({"SkipTileGemmKernel"});
  ASSERT_NE(f, nullptr);
  const std::optional<SassLoop> loop = KLoop(*f);
  ASSERT_TRUE(loop.has_value()) << "no loop holds an FFMA";
  const std::vector<size_t> ffma = IndicesOfOps(*f, *loop, {"FFMA"});
  size_t byte_load = 0;
  for (size_t i : IndicesOfOps(*f, *loop, {"LDG"})) {
    if (f->code[i].HasModifier("U8")) {
      byte_load = i;
      break;
    }
  }
  ASSERT_GT(byte_load, 0u) << "no bitmap byte load in the K loop\n" << LoopListing(*f, *loop);
  EXPECT_LT(byte_load, ffma.front());
  std::vector<Skip> tile_skips;
  for (const Skip& s : ForwardSkips(*f, *loop)) {
    if (s.branch > byte_load && s.branch < ffma.front()) tile_skips.push_back(s);
  }
  ASSERT_FALSE(tile_skips.empty()) << LoopListing(*f, *loop);
  for (size_t i : ffma) {
    EXPECT_TRUE(Covered(i, tile_skips)) << "not behind the tile's zero test: " << SassLine(*f, i);
  }
}

}  // namespace
}  // namespace dissect
