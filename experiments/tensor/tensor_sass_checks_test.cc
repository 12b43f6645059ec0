// The SASS checks of tensor_sass_checks.h on the machine code that issue 11
// found (testdata/*_before_fix.sass): each defect must fail its check, and
// the parts that were right must pass, so the checks are neither vacuous
// nor blind.
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

TEST(TensorSassChecksTest, NoTimedLoopIsAnError) {
  const auto fs = Fixture("mma_sync_before_fix.sass");
  ASSERT_FALSE(fs.empty());
  SassFunction no_clock = fs[0];
  no_clock.code.clear();
  EXPECT_FALSE(CheckTimedTensorCount(no_clock, 4).ok());
  EXPECT_FALSE(CheckTimedRegionStart(no_clock, 4).ok());
}

}  // namespace
}  // namespace dissect
