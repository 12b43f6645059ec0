// The SASS checks of tensor_sass_checks.h on the machine code the probes
// had before their fixes (testdata/*_before_fix.sass) and on loops with
// constant operands (testdata/constant_operands.sass): each defect must
// fail its check, and the parts that were right must pass, so the checks are
// neither vacuous nor blind.
#include "experiments/tensor/tensor_sass_checks.h"

#include <cstdlib>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "probes/ptx_test_util.h"

namespace dissect {
namespace {

using ::testing::HasSubstr;

std::vector<SassFunction> Fixture(const std::string& name) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  EXPECT_NE(srcdir, nullptr) << "run under bazel test";
  if (srcdir == nullptr) return {};
  absl::StatusOr<std::vector<SassFunction>> fs = ParseCuobjdumpSass(
      ReadTextFile(std::string(srcdir) + "/dissect/experiments/tensor/testdata/" + name));
  EXPECT_TRUE(fs.ok()) << fs.status();
  return fs.ok() ? *fs : std::vector<SassFunction>{};
}

const SassFunction* Named(const std::vector<SassFunction>& fs, const std::string& fragment) {
  absl::StatusOr<const SassFunction*> f = FindSassFunction(fs, {fragment});
  EXPECT_TRUE(f.ok()) << f.status();
  return f.ok() ? *f : nullptr;
}

// Item 12: the emulated fp8 8-chain loop computes its product once per trip.
TEST(TensorSassChecksTest, CountFailsOnTheFoldedFp8Loop) {
  const auto fs = Fixture("mma_sync_before_fix.sass");
  const SassFunction* f = Named(fs, "MmaSyncKernelINS0_7E4m3F32ELi8EE");
  ASSERT_NE(f, nullptr);
  const absl::Status s = CheckTimedTensorCount(*f, 8 * 4);
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("holds 2 tensor instructions, want 32"));
  EXPECT_EQ(CountOp(*f, "QMMA"), 0) << "emulated: no native fp8 instruction";
}

// Item 16: the fragment loads and the accumulator zeroing of the mma.sync
// latency kernel followed the first clock read; its loop itself was right.
TEST(TensorSassChecksTest, RegionStartFailsOnLoadsAndZeroingAfterTheClock) {
  const auto fs = Fixture("mma_sync_before_fix.sass");
  const SassFunction* f = Named(fs, "MmaSyncKernelINS0_6F16F32ELi1EE");
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(CheckTimedTensorCount(*f, 4).ok());
  const absl::Status s = CheckTimedRegionStart(*f, 4);
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("load: LDG.E.CONSTANT"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("accumulator write: CS2R"));
}

// Item 16: the wgmma accumulators were zeroed after the first clock read.
TEST(TensorSassChecksTest, RegionStartFailsOnWgmmaZeroingAfterTheClock) {
  const auto fs = Fixture("wgmma_before_fix.sass");
  const SassFunction* f = Named(fs, "WgmmaKernelINS0_8WgF16F32ELi64ELb1ELi1ELb1EE");
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(CheckTimedTensorCount(*f, 4).ok());
  const absl::Status s = CheckTimedRegionStart(*f, 32);
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("accumulator write: CS2R R24, SRZ"));
  // R54 (CS2R writes R54 and R55) is the last of the 32 accumulators R24 … R55.
  EXPECT_THAT(std::string(s.message()), HasSubstr("accumulator write: CS2R R54, SRZ"));
  // The A fragments were loaded before the clock, but the first wgmma to
  // wait for them was a timed one.
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("no tensor instruction consumes the loads before the clock starts; the "
                        "last load: LDG.E.CONSTANT R59"));
}

// Constant operands: every tensor instruction of each timed loop reads
// one A/B fragment, so the multipliers' inputs never change.
TEST(TensorSassChecksTest, FragmentsCheckFailsOnConstantOperands) {
  const auto fs = Fixture("constant_operands.sass");
  struct Case {
    const char* kernel;
    const char* fragment;  // the one fragment its loop reads
  };
  for (const Case& c : {Case{"MmaSyncKernelINS0_6F16F32ELi8EE", "R4 R2"},
                        Case{"MmaSyncKernelINS0_6F16F32ELi1EE", "R8 R12"},
                        Case{"WgmmaKernelINS0_8WgF16F32ELi8ELb0ELi4ELb0EE", "gdesc[UR8]"},
                        Case{"WgmmaKernelINS0_8WgF16F32ELi8ELb1ELi4ELb0EE", "R40 gdesc[UR8]"}}) {
    SCOPED_TRACE(c.kernel);
    const SassFunction* f = Named(fs, c.kernel);
    ASSERT_NE(f, nullptr);
    const absl::StatusOr<std::vector<std::string>> fragments = TimedFragments(*f);
    ASSERT_TRUE(fragments.ok()) << fragments.status();
    EXPECT_THAT(*fragments, ::testing::ElementsAre(c.fragment));
    const absl::Status s = CheckTimedFragments(*f, 4);
    EXPECT_FALSE(s.ok());
    EXPECT_THAT(std::string(s.message()), HasSubstr("reads 1 distinct A/B fragment(s)"));
    EXPECT_TRUE(CheckTimedFragments(*f, 1).ok());
  }
}

// Four fragments read in turn pass, whether they differ in A, in B or in
// the descriptor; `.reuse` does not make a register another fragment.
TEST(TensorSassChecksTest, FragmentsCheckCountsDistinctSources) {
  const auto fs = Fixture("constant_operands.sass");
  const SassFunction* f = Named(fs, "MmaSyncKernelINS0_6F16F32ELi8EE");
  ASSERT_NE(f, nullptr);
  const absl::StatusOr<SassLoop> loop = TimedTensorLoop(*f);
  ASSERT_TRUE(loop.ok());
  SassFunction cycling = *f;
  int step = 0;
  for (size_t i : IndicesOfOps(cycling, *loop, TensorOps())) {
    std::vector<std::string>& operands = cycling.code[i].operands;
    switch (step++ % 4) {
      case 1:
        operands[1] = "R44.reuse";  // another A
        break;
      case 2:
        operands[2] = "R46";  // another B
        break;
      case 3:
        operands[1] = "R48";
        operands[2] = "R50";
        break;
    }
  }
  EXPECT_TRUE(CheckTimedFragments(cycling, 4).ok());
  EXPECT_FALSE(CheckTimedFragments(cycling, 5).ok());
}

// Cycling must not buy its fragments with work in the loop: one added
// address computation fails.
TEST(TensorSassChecksTest, AddedLoopWorkFails) {
  const auto fs = Fixture("constant_operands.sass");
  const SassFunction* f = Named(fs, "WgmmaKernelINS0_8WgF16F32ELi8ELb0ELi4ELb0EE");
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(CheckNoAddedLoopWork(*f, *f).ok());
  const absl::StatusOr<SassLoop> loop = TimedTensorLoop(*f);
  ASSERT_TRUE(loop.ok());
  SassFunction with_work = *f;
  SassInstruction& in = with_work.code[IndicesOfOps(with_work, *loop, TensorOps()).back()];
  in.opcode = in.op = "UIADD3";
  in.operands = {"UR8", "UR8", "0x100", "URZ"};
  in.text = "UIADD3 UR8, UR8, 0x100, URZ ;";
  const absl::Status s = CheckNoAddedLoopWork(*f, with_work);
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("UIADD3 UR8, UR8, 0x100, URZ"));
}

TEST(TensorSassChecksTest, NoTimedLoopIsAnError) {
  const auto fs = Fixture("mma_sync_before_fix.sass");
  ASSERT_FALSE(fs.empty());
  SassFunction no_clock = fs[0];
  no_clock.code.clear();
  EXPECT_FALSE(CheckTimedTensorCount(no_clock, 4).ok());
  EXPECT_FALSE(CheckTimedRegionStart(no_clock, 4).ok());
  EXPECT_FALSE(CheckTimedFragments(no_clock, 1).ok());
  EXPECT_FALSE(CheckNoAddedLoopWork(fs[0], no_clock).ok());
}

}  // namespace
}  // namespace dissect
