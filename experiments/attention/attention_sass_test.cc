// Machine-code test of our attention kernel (kernels/attention/attention.cu):
// its QK^T and PV loops are FP32 FFMA loops on K and V staged in shared
// memory (LDS, no global load inside), 4 rows × 4 multiply-adds per trip
// unrolled 4 times (64 FFMA each), and nothing spills to local memory.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "probes/sass_inspect.h"
#include "probes/sass_test_util.h"

namespace dissect {
namespace {

class AttentionSassTest : public SassTest {};

// kRowsPerWarp (4, attention.h) rows × 4 FFMA per trip (QK: 2 keys × 2
// dims; PV: 4 columns), unrolled 4.
constexpr int kFfmaPerLoop = 4 * 4 * 4;

TEST_F(AttentionSassTest, InnerLoopsAreSharedMemoryFfma) {
  const SassFunction* f = SassFunctionNamed({"AttentionKernel"});
  ASSERT_NE(f, nullptr);
  // The softmax's warp reductions and exp2 make small loops of their own
  // (the divergent-shuffle fallback); the two FMA loops are those with the
  // most FFMA.
  std::vector<std::pair<int, SassLoop>> loops;
  for (const SassLoop& loop : InnermostLoops(*f)) {
    loops.push_back({CountOps(*f, loop, {"FFMA"}), loop});
  }
  std::sort(loops.begin(), loops.end(),
            [](const auto& a, const auto& b) { return a.first > b.first; });
  ASSERT_GE(loops.size(), 2u);
  for (int i = 0; i < 2; ++i) {
    const SassLoop& loop = loops[i].second;
    EXPECT_EQ(loops[i].first, kFfmaPerLoop) << LoopListing(*f, loop);
    EXPECT_GT(CountOps(*f, loop, {"LDS"}), 0) << "K/V must come from shared memory:\n"
                                              << LoopListing(*f, loop);
    EXPECT_EQ(CountOps(*f, loop, {"LDG", "LD"}), 0) << "no global load in the FMA loop:\n"
                                                    << LoopListing(*f, loop);
    EXPECT_EQ(CountOps(*f, loop, {"HMMA"}), 0) << LoopListing(*f, loop);
  }
  // No third loop of that size: the QK^T and PV loops are the only FMA loops.
  if (loops.size() > 2) EXPECT_LT(loops[2].first, kFfmaPerLoop / 2);
  EXPECT_EQ(CountOps(*f, 0, f->code.size(), {"LDL", "STL"}), 0) << "register spill";
}

}  // namespace
}  // namespace dissect
