// Machine-code test of the forward pass's elementwise kernels
// (kernels/forward/elementwise.cu): each grid-stride loop body loads,
// compares or adds, and stores every element (ptxas may unroll, so counts are
// compared per loop, not fixed).
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "probes/sass_inspect.h"
#include "probes/sass_test_util.h"

namespace dissect {
namespace {

class ForwardElementwiseSassTest : public SassTest {};

// The loop with the most loads of `kernel`, its listing in `listing`.
int BusiestLoop(const SassFunction& f, SassLoop* busiest, std::string* listing) {
  int best = 0;
  for (const SassLoop& loop : InnermostLoops(f)) {
    const int loads = CountOps(f, loop, {"LDG"});
    if (loads > best) {
      best = loads;
      *busiest = loop;
      *listing = LoopListing(f, loop);
    }
  }
  return best;
}

TEST_F(ForwardElementwiseSassTest, FatReluLoopLoadsSelectsStores) {
  const SassFunction* f = SassFunctionNamed({"FatReluKernel"});
  ASSERT_NE(f, nullptr);
  SassLoop loop{};
  std::string listing;
  const int loads = BusiestLoop(*f, &loop, &listing);
  ASSERT_GE(loads, 1) << "no loop loads: FATReLU's grid-stride loop is missing";
  EXPECT_EQ(CountOps(*f, loop, {"STG"}), loads) << listing;
  // x > T ? x : 0: a float compare (FSETP) and a select (FSEL), or a select
  // on the compare, per element.
  EXPECT_GE(CountOps(*f, loop, {"FSEL", "FSETP", "SEL"}), loads) << listing;
}

TEST_F(ForwardElementwiseSassTest, AddLoopLoadsTwiceAddsStores) {
  const SassFunction* f = SassFunctionNamed({"AddKernel"});
  ASSERT_NE(f, nullptr);
  SassLoop loop{};
  std::string listing;
  const int loads = BusiestLoop(*f, &loop, &listing);
  ASSERT_GE(loads, 2) << "no loop loads both operands";
  EXPECT_EQ(CountOps(*f, loop, {"STG"}) * 2, loads) << listing;
  EXPECT_EQ(CountOps(*f, loop, {"FADD"}) * 2, loads) << listing;
}

}  // namespace
}  // namespace dissect
