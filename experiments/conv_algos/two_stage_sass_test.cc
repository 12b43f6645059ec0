// Machine-code test of our two-stage convolution (kernels/two_stage_conv):
// stage 1's inner loop over the channels, unrolled 4 times
// (two_stage_conv_math.h), holds 4 FFMA and their 8 global loads (one input
// and one weight value each) per trip, from global memory (no shared
// memory, no tensor cores); stage 2's inner loop over the filter rows adds
// one loaded partial per FADD; nothing spills. The checker's own test shows
// it rejects wrong counts.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "probes/sass_inspect.h"
#include "probes/sass_test_util.h"

namespace dissect {
namespace {

class TwoStageSassTest : public SassTest {};

// Stage 1: the `#pragma unroll 4` of RowPartial's channel loop.
constexpr int kFfmaPerTrip = 4;
constexpr int kLoadsPerTrip = 2 * kFfmaPerTrip;

const std::vector<std::string>& GlobalLoads() {
  static const auto* const ops = new std::vector<std::string>{"LDG"};
  return *ops;
}

// The innermost loop of `f` with the most `ops`; nullopt if none has any.
std::optional<SassLoop> LoopWithMost(const SassFunction& f, const std::vector<std::string>& ops) {
  std::optional<SassLoop> best;
  int best_count = 0;
  for (const SassLoop& loop : InnermostLoops(f)) {
    const int n = CountOps(f, loop, ops);
    if (n > best_count) {
      best = loop;
      best_count = n;
    }
  }
  return best;
}

// What is wrong with stage 1's inner loop in `f` against `ffma` FFMA and
// `loads` global loads per trip (empty: nothing).
std::vector<std::string> InnerLoopProblems(const SassFunction& f, int ffma, int loads) {
  const std::optional<SassLoop> loop = LoopWithMost(f, {"FFMA"});
  if (!loop.has_value()) return {"no loop with an FFMA"};
  std::vector<std::string> problems;
  const std::string body = LoopListing(f, *loop);
  if (const int n = CountOps(f, *loop, {"FFMA"}); n != ffma) {
    problems.push_back(absl::StrCat(n, " FFMA per trip, want ", ffma, ":\n", body));
  }
  if (const int n = CountOps(f, *loop, GlobalLoads()); n != loads) {
    problems.push_back(absl::StrCat(n, " global loads per trip, want ", loads, ":\n", body));
  }
  if (CountOps(f, *loop, {"LDS", "LDL", "HMMA", "FMUL", "FADD"}) != 0) {
    problems.push_back(absl::StrCat("shared or local loads, MMA or unfused math:\n", body));
  }
  return problems;
}

TEST_F(TwoStageSassTest, StageOneInnerLoopIsFourFfmaOnEightGlobalLoads) {
  const SassFunction* f = SassFunctionNamed({"RowPartialsKernel"});
  ASSERT_NE(f, nullptr);
  for (const std::string& problem : InnerLoopProblems(*f, kFfmaPerTrip, kLoadsPerTrip)) {
    ADD_FAILURE() << problem;
  }
  EXPECT_EQ(CountOps(*f, 0, f->code.size(), {"LDL", "STL"}), 0) << "register spill";
}

// The checker fails on counts other than the kernel's: one FFMA more or
// less, a missing or an extra load.
TEST_F(TwoStageSassTest, CheckerRejectsWrongCounts) {
  const SassFunction* f = SassFunctionNamed({"RowPartialsKernel"});
  ASSERT_NE(f, nullptr);
  EXPECT_FALSE(InnerLoopProblems(*f, kFfmaPerTrip + 1, kLoadsPerTrip).empty());
  EXPECT_FALSE(InnerLoopProblems(*f, kFfmaPerTrip - 1, kLoadsPerTrip).empty());
  EXPECT_FALSE(InnerLoopProblems(*f, kFfmaPerTrip, kLoadsPerTrip - 1).empty());
  EXPECT_FALSE(InnerLoopProblems(*f, kFfmaPerTrip, kLoadsPerTrip + 2).empty());
}

// Stage 2 sums loaded partials: as many FADD as global loads in its inner
// loop (however far ptxas unrolled it), no FFMA.
TEST_F(TwoStageSassTest, StageTwoAddsOneLoadedPartialPerFadd) {
  const SassFunction* f = SassFunctionNamed({"SumRowsKernel"});
  ASSERT_NE(f, nullptr);
  const std::optional<SassLoop> loop = LoopWithMost(*f, {"FADD"});
  ASSERT_TRUE(loop.has_value()) << "no loop with an FADD";
  const int fadd = CountOps(*f, *loop, {"FADD"});
  EXPECT_EQ(CountOps(*f, *loop, GlobalLoads()), fadd) << LoopListing(*f, *loop);
  EXPECT_EQ(CountOps(*f, *loop, {"FFMA"}), 0) << LoopListing(*f, *loop);
  EXPECT_EQ(CountOps(*f, 0, f->code.size(), {"LDL", "STL"}), 0) << "register spill";
}

}  // namespace
}  // namespace dissect
