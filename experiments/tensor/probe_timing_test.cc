#include "experiments/tensor/probe_timing.h"

#include <vector>

#include "gtest/gtest.h"

namespace dissect {
namespace {

TEST(CyclesPerInstructionTest, OneRecordIsItsOwnLatency) {
  const std::vector<TensorTiming> r = {{1000, 1000 + 4096 * 33, 5, 1}};
  EXPECT_DOUBLE_EQ(*CyclesPerInstruction(r, 4096), 33.0);
}

TEST(CyclesPerInstructionTest, SpansEachSmAndTakesTheMedianOverSms) {
  // SM 0: two warps overlapping over [0, 300): 200 instructions -> 1.5.
  // SM 1: [50, 250) for 100 instructions -> 2. SM 2: [0, 1000) -> 10.
  const std::vector<TensorTiming> r = {
      {0, 200, 0, 1}, {100, 300, 0, 1}, {50, 250, 1, 1}, {0, 1000, 2, 1}};
  EXPECT_DOUBLE_EQ(*CyclesPerInstruction(r, 100), 2.0);
}

TEST(CyclesPerInstructionTest, RejectsAStoppedClockAndEmptyInput) {
  const std::vector<TensorTiming> r = {{10, 10, 0, 1}};
  EXPECT_FALSE(CyclesPerInstruction(r, 1).ok());
  EXPECT_FALSE(CyclesPerInstruction({}, 1).ok());
}

TEST(AllBuiltTest, AnyUnbuiltRecordCounts) {
  std::vector<TensorTiming> r = {{0, 1, 0, 1}, {0, 1, 0, 1}};
  EXPECT_TRUE(AllBuilt(r));
  r[1].built = 0;
  EXPECT_FALSE(AllBuilt(r));
}

}  // namespace
}  // namespace dissect
