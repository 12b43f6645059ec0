// Machine-code test of the L2 flush's read pass (kernels/flush.cu): its main
// loop holds the 4 unrolled 128-bit global loads, inside the loop body (the
// loads are folded into a value that is stored only when non-zero, so ptxas
// must keep them), and the kernel's only store is that conditional one.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "probes/sass_inspect.h"
#include "probes/sass_test_util.h"

namespace dissect {
namespace {

class FlushSassTest : public SassTest {};

TEST_F(FlushSassTest, ReadLoopLoadsEveryWord) {
  const SassFunction* f = SassFunctionNamed({"L2ReadFlushKernel"});
  ASSERT_NE(f, nullptr);
  int best = 0;
  std::string listing;
  for (const SassLoop& loop : InnermostLoops(*f)) {
    const int loads = CountOps(*f, loop, {"LDG"});
    if (loads > best) {
      best = loads;
      listing = LoopListing(*f, loop);
    }
    for (size_t i = loop.head; i <= loop.branch; ++i) {
      const SassInstruction& in = f->code[i];
      if (in.op == "LDG") EXPECT_TRUE(in.HasModifier("128")) << in.text;
    }
  }
  EXPECT_EQ(best, 4) << "the unrolled loop should hold 4 LDG.128:\n" << listing;
  // Stores: one, the conditional write of a non-zero fold, outside loops.
  EXPECT_EQ(CountOps(*f, 0, f->code.size(), {"STG"}), 1);
  for (const SassLoop& loop : FindLoops(*f)) EXPECT_EQ(CountOps(*f, loop, {"STG"}), 0);
}

}  // namespace
}  // namespace dissect
