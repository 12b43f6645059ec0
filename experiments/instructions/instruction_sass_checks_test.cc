// The SASS checks of instruction_sass_checks.h on the FFMA latency kernel as
// built and on three copies broken by hand (testdata/ffma_latency_chains.sass):
// a step that reads an operand instead of the previous result, a folded
// chain (15 steps where 16 are timed) and a MOV inside the chain. Each
// break must fail the check, and the kernel as built must pass it, so the
// check is neither vacuous nor blind. The listing is of a build with 16
// steps a trip, which the checks are given; the kernel now runs
// kInstructionUnroll a trip, and that listing fails a check for it.
#include "experiments/instructions/instruction_sass_checks.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kernels/instruction_ops.h"
#include "probes/sass_test_util.h"

namespace dissect {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// Steps per trip of the timed loops in testdata/ffma_latency_chains.sass.
constexpr int kFixtureStepsPerTrip = 16;

// The functions of testdata/`file`.
std::vector<SassFunction> Fixture(const std::string& file = "ffma_latency_chains.sass") {
  return SavedSassFunctions("experiments/instructions/testdata/" + file);
}

std::string Problems(const std::string& functor) {
  const std::vector<SassFunction> fs = Fixture();
  absl::StatusOr<const SassFunction*> f = FindSassFunction(fs, {"INS_" + functor + "EEEv"});
  EXPECT_TRUE(f.ok()) << f.status();
  if (!f.ok()) return "no function";
  return absl::StrJoin(
      LatencyKernelProblems(**f, ParseSassStep("FFMA"), true, kFixtureStepsPerTrip), "\n");
}

TEST(InstructionSassChecksTest, ParsesSequencesAndAlternatives) {
  const SassStep step = ParseSassStep("FMUL.RZ + MUFU.SIN");
  ASSERT_EQ(step.size(), 2u);
  EXPECT_THAT(step[0], ElementsAre("FMUL.RZ"));
  EXPECT_THAT(step[1], ElementsAre("MUFU.SIN"));
  EXPECT_THAT(StepOps(step), ElementsAre("FMUL", "MUFU"));
  EXPECT_THAT(ParseSassStep("HFMA2 | HFMA2.MMA"), ElementsAre(ElementsAre("HFMA2", "HFMA2.MMA")));
}

TEST(InstructionSassChecksTest, PassesTheKernelAsBuilt) { EXPECT_EQ(Problems("6FfmaOp"), ""); }

TEST(InstructionSassChecksTest, FailsOnAStepThatReadsAConstant) {
  EXPECT_THAT(Problems("14FfmaOpConstant"),
              HasSubstr("FFMA R11, R0, UR11, R0 reads 0 values computed in the loop"));
}

TEST(InstructionSassChecksTest, FailsOnAFoldedChain) {
  EXPECT_THAT(Problems("12FfmaOpFolded"),
              HasSubstr("the loop holds 15 step instructions, want 16 (1 x 16 x 1)"));
}

TEST(InstructionSassChecksTest, FailsOnAnotherInstructionInTheChain) {
  EXPECT_THAT(Problems("11FfmaOpMoved"), HasSubstr("reads /*0440*/ MOV R13, R11, which is not a "
                                                   "step of the chain"));
}

TEST(InstructionSassChecksTest, CountsStepsAloneWithoutAValueChain) {
  // The broken chains pass where only the count matters (barriers); the
  // folded one still fails.
  const std::vector<SassFunction> fs = Fixture();
  for (const char* functor : {"6FfmaOp", "14FfmaOpConstant", "11FfmaOpMoved"}) {
    absl::StatusOr<const SassFunction*> f = FindSassFunction(fs, {"INS_" + std::string(functor)});
    ASSERT_TRUE(f.ok()) << f.status();
    EXPECT_THAT(LatencyKernelProblems(**f, ParseSassStep("FFMA"), false, kFixtureStepsPerTrip),
                IsEmpty())
        << functor;
  }
  absl::StatusOr<const SassFunction*> folded = FindSassFunction(fs, {"INS_12FfmaOpFolded"});
  ASSERT_TRUE(folded.ok()) << folded.status();
  EXPECT_THAT(absl::StrJoin(LatencyKernelProblems(**folded, ParseSassStep("FFMA"), false,
                                                  kFixtureStepsPerTrip),
                            "\n"),
              HasSubstr("the loop holds 15 step instructions, want 16"));
}

// testdata/clock_latency_loops.sass: the clock op's loops of 16 reads (S2UR
// or CS2R.32, no value passing between them: the count alone is checked),
// and a copy with one read lost.
std::string ClockProblems(const std::string& functor) {
  const std::vector<SassFunction> fs = Fixture("clock_latency_loops.sass");
  absl::StatusOr<const SassFunction*> f = FindSassFunction(fs, {"INS_" + functor + "EEEv"});
  EXPECT_TRUE(f.ok()) << f.status();
  if (!f.ok()) return "no function";
  return absl::StrJoin(
      LatencyKernelProblems(**f, ParseSassStep("CS2R.32 | S2UR"), false, kFixtureStepsPerTrip),
      "\n");
}

TEST(InstructionSassChecksTest, CountsEveryClockRead) {
  EXPECT_EQ(ClockProblems("7ClockOp"), "");
  EXPECT_THAT(ClockProblems("11ClockOpLost"),
              HasSubstr("the loop holds 15 step instructions, want 16 (1 x 16 x 1)"));
  // Either form alone is not every read: half the reads are each.
  const std::vector<SassFunction> fs = Fixture("clock_latency_loops.sass");
  absl::StatusOr<const SassFunction*> f = FindSassFunction(fs, {"INS_7ClockOpEEEv"});
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_THAT(absl::StrJoin(LatencyKernelProblems(**f, ParseSassStep("CS2R.32"), false,
                                                  kFixtureStepsPerTrip),
                            "\n"),
              HasSubstr("the loop holds 8 step instructions, want 16"));
}

TEST(InstructionSassChecksTest, FailsOnFewerStepsATripThanTheKernelRuns) {
  // The 16-step loops whose per-trip cost the H100's latency slope carried
  // (FFMA 4.69 cycles) are not the kernel's loops of kInstructionUnroll.
  static_assert(kInstructionUnroll != kFixtureStepsPerTrip, "the fixture would pass");
  const std::vector<SassFunction> fs = Fixture();
  absl::StatusOr<const SassFunction*> f = FindSassFunction(fs, {"INS_6FfmaOpEEEv"});
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_THAT(absl::StrJoin(LatencyKernelProblems(**f, ParseSassStep("FFMA")), "\n"),
              HasSubstr(absl::StrCat("the loop holds 16 step instructions, want ",
                                     kInstructionUnroll)));
}

TEST(InstructionSassChecksTest, FailsOnTheWrongChainCount) {
  const std::vector<SassFunction> fs = Fixture();
  absl::StatusOr<const SassFunction*> f = FindSassFunction(fs, {"INS_6FfmaOpEEEv"});
  ASSERT_TRUE(f.ok()) << f.status();
  const std::vector<SassLoop> loops = InnermostTimedLoopsWith(**f, {"FFMA"});
  ASSERT_EQ(loops.size(), 2u);
  EXPECT_THAT(ChainLoopProblems(**f, loops[0], ParseSassStep("FFMA"), 1, 16), IsEmpty());
  // 16 FFMA as 2 chains of 8: one chain of 16 is not that.
  EXPECT_THAT(absl::StrJoin(ChainLoopProblems(**f, loops[0], ParseSassStep("FFMA"), 2, 8), "\n"),
              HasSubstr("has 16 instructions, want 8"));
  // The same loop is not a loop of 8 FFMA + FADD steps: each FFMA follows
  // an FFMA where the step puts an FADD.
  EXPECT_THAT(
      absl::StrJoin(ChainLoopProblems(**f, loops[0], ParseSassStep("FFMA + FADD"), 1, 8), "\n"),
      HasSubstr("out of the step's order"));
}

}  // namespace
}  // namespace dissect
