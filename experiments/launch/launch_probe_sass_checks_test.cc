// The launch probe's SASS checks on the sm_90a code ptxas emitted
// (testdata/launch_probe_sm90a.sass) and on copies with two instructions
// swapped by hand: the start stamp's timer read moved after its store, the
// handshake's stamped timer read moved above the poll loop or into it.
// Each edit must fail its check and the listing as emitted must pass, so
// the checks are neither vacuous nor blind.
#include "experiments/launch/launch_probe_sass_checks.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "probes/sass_inspect.h"
#include "probes/sass_test_util.h"

namespace dissect {
namespace {

// The function of testdata/launch_probe_sm90a.sass whose name holds
// `fragment`.
SassFunction Fixture(const std::string& fragment) {
  const std::vector<SassFunction> fs =
      SavedSassFunctions("experiments/launch/testdata/launch_probe_sm90a.sass");
  const absl::StatusOr<const SassFunction*> f = FindSassFunction(fs, {fragment});
  EXPECT_TRUE(f.ok()) << f.status();
  return f.ok() ? **f : SassFunction{};
}

// `f` with the instructions at addresses `a` and `b` swapped (each keeps
// its place's address, so branch targets still name the same places).
SassFunction Swapped(SassFunction f, int64_t a, int64_t b) {
  SassInstruction* first = nullptr;
  for (SassInstruction& in : f.code) {
    if (in.address != a && in.address != b) continue;
    if (first == nullptr) {
      first = &in;
      continue;
    }
    std::swap(*first, in);
    std::swap(first->address, in.address);
    return f;
  }
  ADD_FAILURE() << "no instructions at both 0x" << std::hex << a << " and 0x" << b;
  return f;
}

constexpr char kStamp[] = "16StartStampKernel";
constexpr char kHandshake[] = "20ClockHandshakeKernel";

TEST(LaunchProbeSassChecksTest, AcceptsTheCodeAsEmitted) {
  const SassFunction stamp = Fixture(kStamp);
  const SassFunction handshake = Fixture(kHandshake);
  ASSERT_FALSE(stamp.code.empty());
  ASSERT_FALSE(handshake.code.empty());
  EXPECT_EQ(absl::StrJoin(StartStampProblems(stamp), "\n"), "");
  EXPECT_EQ(absl::StrJoin(ClockHandshakeProblems(handshake), "\n"), "");
}

// CS2R R4, SR_GLOBALTIMERLO (0x10) and STG.E.64 [R2.64], R4 (0x70) swapped:
// the store comes first and stores a register nothing wrote yet.
TEST(LaunchProbeSassChecksTest, ReportsAStampReadAfterTheStore) {
  const std::string problems =
      absl::StrJoin(StartStampProblems(Swapped(Fixture(kStamp), 0x10, 0x70)), "\n");
  EXPECT_NE(problems.find("/*0010*/ STG.E.64 desc[UR4][R2.64], R4 precedes the timer read"),
            std::string::npos)
      << problems;
  EXPECT_NE(problems.find("does not store a %globaltimer read"), std::string::npos) << problems;
}

// A thread-index read (S2R, 0x20) moved before the timer read (0x10).
TEST(LaunchProbeSassChecksTest, ReportsWorkBeforeTheStamp) {
  const std::string problems =
      absl::StrJoin(StartStampProblems(Swapped(Fixture(kStamp), 0x10, 0x20)), "\n");
  EXPECT_NE(problems.find("/*0010*/ S2R R0, SR_TID.X precedes the timer read"), std::string::npos)
      << problems;
}

// The stamped read CS2R R6 (0x380, after the poll loop 0x2f0..0x350) swapped
// with the IADD3.X at 0x2e0, just above the loop's head.
TEST(LaunchProbeSassChecksTest, ReportsAHandshakeReadAboveThePollLoop) {
  const std::string problems =
      absl::StrJoin(ClockHandshakeProblems(Swapped(Fixture(kHandshake), 0x380, 0x2e0)), "\n");
  EXPECT_NE(problems.find("the stamped timer read /*02e0*/ CS2R R6, SR_GLOBALTIMERLO is not "
                          "after the poll loop's exit"),
            std::string::npos)
      << problems;
}

// The stamped read swapped with the ISETP at 0x310, inside the poll loop.
TEST(LaunchProbeSassChecksTest, ReportsAHandshakeReadInsideThePollLoop) {
  const std::string problems =
      absl::StrJoin(ClockHandshakeProblems(Swapped(Fixture(kHandshake), 0x380, 0x310)), "\n");
  EXPECT_NE(problems.find("/*0310*/ CS2R R6, SR_GLOBALTIMERLO is not after the poll loop's exit"),
            std::string::npos)
      << problems;
}

// The reply's store (0x410) swapped with the fence (0x3d0).
TEST(LaunchProbeSassChecksTest, ReportsAReplyBeforeTheFence) {
  const std::string problems =
      absl::StrJoin(ClockHandshakeProblems(Swapped(Fixture(kHandshake), 0x410, 0x3d0)), "\n");
  EXPECT_NE(problems.find("no MEMBAR.SYS between the stamp's store"), std::string::npos)
      << problems;
}

}  // namespace
}  // namespace dissect
