#include "probes/sass_inspect.h"

#include <cstdlib>
#include <string>

#include "gtest/gtest-spi.h"
#include "gtest/gtest.h"
#include "probes/ptx_test_util.h"
#include "probes/sass_test_util.h"

namespace dissect {
namespace {

// A hand-written excerpt in cuobjdump's layout: a clock read, a loop of two
// dependent global loads, a clock read, the trailing self-branch.
constexpr char kExcerpt[] = R"(
Fatbin elf code:
================
arch = sm_90a
code version = [1,8]

	code for sm_90a
		Function : _Z5chasePKm
	.headerflags	@"EF_CUDA_SM90"
        /*0000*/                   LDC R1, c[0x0][0x28] ;                  /* 0x00000a00ff017b82 */
                                                                           /* 0x000fe20000000800 */
        /*0010*/                   CS2R R6, SR_CLOCKLO ;                   /* 0x0000000000067805 */
        /*0020*/                   LDG.E.64.STRONG.GPU R4, desc[UR4][R2.64] ;   /* 0x0 */
        /*0030*/                   LDG.E.64.STRONG.GPU R2, desc[UR4][R4.64+0x8] ; /* 0x0 */
        /*0040*/                   VIADD R0, R0, 0xffffffff ;              /* 0x0 */
        /*0050*/                   ISETP.NE.AND P0, PT, R0, RZ, PT ;       /* 0x0 */
        /*0060*/               @P0 BRA 0x20 ;                              /* 0x0 */
        /*0070*/                   CS2R R8, SR_CLOCKLO ;                   /* 0x0 */
        /*0080*/                   LDC R9, c[0x3][R2] ;                    /* 0x0 */
        /*0090*/                   EXIT ;                                  /* 0x0 */
        /*00a0*/                   BRA 0xa0;                               /* 0x0 */
		Function : _Z5otherv
        /*0000*/                   EXIT ;                                  /* 0x0 */
)";

TEST(SassInspectTest, ParsesFunctionsInstructionsAndOperands) {
  absl::StatusOr<std::vector<SassFunction>> fs = ParseCuobjdumpSass(kExcerpt);
  ASSERT_TRUE(fs.ok()) << fs.status();
  ASSERT_EQ(fs->size(), 2u);
  const SassFunction& f = (*fs)[0];
  EXPECT_EQ(f.name, "_Z5chasePKm");
  EXPECT_EQ(f.arch, "sm_90a");
  ASSERT_EQ(f.code.size(), 11u);
  const SassInstruction& ldg = f.code[2];
  EXPECT_EQ(ldg.address, 0x20);
  EXPECT_EQ(ldg.op, "LDG");
  EXPECT_EQ(ldg.opcode, "LDG.E.64.STRONG.GPU");
  EXPECT_TRUE(ldg.HasModifier("STRONG"));
  EXPECT_FALSE(ldg.HasModifier("LDG"));
  ASSERT_EQ(ldg.operands.size(), 2u);
  EXPECT_EQ(DestinationRegister(ldg), "R4");
  EXPECT_EQ(AddressRegisters(ldg), std::vector<std::string>{"R2"});
  EXPECT_EQ(AddressRegisters(f.code[3]), std::vector<std::string>{"R4"});
  EXPECT_EQ(AddressRegisters(f.code[8]), std::vector<std::string>{"R2"});  // LDC c[0x3][R2]
  EXPECT_TRUE(AddressRegisters(f.code[0]).empty());                        // c[0x0][0x28]
  EXPECT_EQ(f.code[6].predicate, "@P0");
  EXPECT_EQ(f.code[6].BranchTarget(), 0x20);
  EXPECT_TRUE(f.code[1].ReadsClock());
  EXPECT_FALSE(f.code[2].ReadsClock());
}

TEST(SassInspectTest, FindsTheTimedLoopAndCountsItsLoads) {
  absl::StatusOr<std::vector<SassFunction>> fs = ParseCuobjdumpSass(kExcerpt);
  ASSERT_TRUE(fs.ok());
  const SassFunction& f = (*fs)[0];
  const std::vector<SassLoop> loops = FindLoops(f);
  ASSERT_EQ(loops.size(), 1u) << "the self-branch after EXIT is not a loop";
  EXPECT_EQ(loops[0].head, 2u);
  EXPECT_EQ(loops[0].branch, 6u);
  EXPECT_EQ(TimedLoops(f).size(), 1u);
  EXPECT_EQ(CountOps(f, loops[0], {"LDG"}), 2);
  EXPECT_EQ(CountOps(f, 0, f.code.size(), {"LDG", "LDC"}), 4);
  EXPECT_EQ(ClockReads(f), (std::vector<size_t>{1, 7}));
}

TEST(SassInspectTest, RegisterAndLoopHelpersOfTheChecks) {
  absl::StatusOr<std::vector<SassFunction>> fs = ParseCuobjdumpSass(kExcerpt);
  ASSERT_TRUE(fs.ok());
  const SassFunction& f = (*fs)[0];
  EXPECT_EQ(OneRegister("R2.64"), 2);
  EXPECT_EQ(OneRegister("RZ"), -1);
  EXPECT_EQ(OneAddressRegister(f.code[3]), 4);
  EXPECT_EQ(OneAddressRegister(f.code[0]), -1);  // c[0x0][0x28]
  EXPECT_TRUE(WritesRegister(f.code[2], 5));     // a 64-bit load writes R4 and R5
  EXPECT_FALSE(WritesRegister(f.code[2], 2));
  EXPECT_TRUE(IsMemoryLoad(f.code[2]));
  EXPECT_FALSE(IsMemoryLoad(f.code[4]));
  EXPECT_FALSE(IsMemoryLoad(f.code[2], {"ULDC"}));
  const std::vector<SassLoop> timed = InnermostTimedLoopsWith(f, {"LDG"});
  ASSERT_EQ(timed.size(), 1u);
  EXPECT_TRUE(InnermostTimedLoopsWith(f, {"LDS"}).empty());
  EXPECT_EQ(WrapAround(timed[0], 3, 2), (std::vector<size_t>{4, 5, 6}));
  EXPECT_EQ(SassLine(f, 2), "/*0020*/ " + f.code[2].text);
  std::vector<std::string> problems;
  // Nothing reads R2 between its load (0x30) and the clock read at 0x70.
  EXPECT_TRUE(CheckWaitsBefore(f, 7, 2, "end", problems));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("end: the clock read /*0070*/"), std::string::npos) << problems[0];
  // ISETP reads R0 after VIADD writes it; nothing before 0x10 touches R2.
  EXPECT_TRUE(CheckWaitsBefore(f, 7, 0, "counter", problems));
  EXPECT_FALSE(CheckWaitsBefore(f, 1, 2, "start", problems));
  EXPECT_EQ(problems.size(), 1u);
}

TEST(SassInspectTest, FindsFunctionsByNameFragments) {
  absl::StatusOr<std::vector<SassFunction>> fs = ParseCuobjdumpSass(kExcerpt);
  ASSERT_TRUE(fs.ok());
  EXPECT_TRUE(FindSassFunction(*fs, {"chase"}).ok());
  EXPECT_EQ(FindSassFunction(*fs, {"chase"}, "sm_80").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(FindSassFunction(*fs, {"_Z5"}).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(SassInspectTest, TextWithoutFunctionsIsAnError) {
  EXPECT_FALSE(
      ParseCuobjdumpSass("cuobjdump info    : File 'x.a' does not contain device code").ok());
}

// sm_120 code reads the clock into a uniform register and branches on a
// uniform predicate.
TEST(SassInspectTest, UniformClockReadAndUniformBranch) {
  constexpr char kUniform[] = R"(arch = sm_120
		Function : f
        /*0000*/                   CS2UR UR14, SR_CLOCKLO ;
        /*0010*/                   LDS R0, [R0+UR8] ;
        /*0020*/                   BRA.U UP0, 0x10 ;
        /*0030*/                   CS2R R4, SR_CLOCKLO ;
)";
  absl::StatusOr<std::vector<SassFunction>> fs = ParseCuobjdumpSass(kUniform);
  ASSERT_TRUE(fs.ok());
  const SassFunction& f = (*fs)[0];
  EXPECT_EQ(f.arch, "sm_120");
  EXPECT_TRUE(f.code[0].ReadsClock());
  EXPECT_EQ(f.code[2].BranchTarget(), 0x10);
  EXPECT_EQ(TimedLoops(f).size(), 1u);
  EXPECT_EQ(ValueWidth(f.code[3]), 2);
}

TEST(SassInspectTest, ThirtyTwoBitClockReadWritesOneRegister) {
  constexpr char kClock32[] = R"(arch = sm_120
		Function : f
        /*0000*/                   CS2R.32 R3, SR_CLOCKLO ;
)";
  absl::StatusOr<std::vector<SassFunction>> fs = ParseCuobjdumpSass(kClock32);
  ASSERT_TRUE(fs.ok());
  const SassInstruction& clock = (*fs)[0].code[0];
  EXPECT_EQ(ValueWidth(clock), 1);
  EXPECT_TRUE(WritesRegister(clock, 3));
  EXPECT_FALSE(WritesRegister(clock, 4));
}

TEST(SassInspectTest, NestedLoopsHaveOneInnermost) {
  constexpr char kNested[] = R"(arch = sm_90a
		Function : f
        /*0000*/                   CS2R R6, SR_CLOCKLO ;
        /*0010*/                   NOP ;
        /*0020*/                   LDS R1, [R2] ;
        /*0030*/               @P0 BRA 0x20 ;
        /*0040*/               @P1 BRA 0x10 ;
        /*0050*/                   CS2R R8, SR_CLOCKLO ;
)";
  absl::StatusOr<std::vector<SassFunction>> fs = ParseCuobjdumpSass(kNested);
  ASSERT_TRUE(fs.ok());
  EXPECT_EQ(FindLoops((*fs)[0]).size(), 2u);
  const std::vector<SassLoop> inner = InnermostLoops((*fs)[0]);
  ASSERT_EQ(inner.size(), 1u);
  EXPECT_EQ(inner[0].head, 2u);
  EXPECT_EQ(inner[0].size(), 2u);
}

// Machine code from before the fix (kernels/bandwidth.cu then timed
// `asm volatile("ld.shared...")`, which stops only the front end): ptxas
// hoisted the 16 ld.shared loads of SharedStreamKernel<uint32_t> out of its
// timed loop, which kept only integer adds. The loop-body check that every SASS test
// uses must fail on it, while a PTX test could not see it.
TEST(SassInspectTest, LoopBodyCheckFailsOnHoistedSharedLoads) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  ASSERT_NE(srcdir, nullptr) << "run under bazel test";
  const std::string text =
      ReadTextFile(std::string(srcdir) + "/dissect/probes/testdata/shared_stream_hoisted.sass");
  absl::StatusOr<std::vector<SassFunction>> fs = ParseCuobjdumpSass(text);
  ASSERT_TRUE(fs.ok()) << fs.status();
  ASSERT_EQ(fs->size(), 1u);
  const SassFunction& f = (*fs)[0];
  EXPECT_EQ(CountOps(f, 0, f.code.size(), {"LDS"}), 33) << "the loads are in the kernel";
  EXPECT_NONFATAL_FAILURE(ExpectTimedLoopCount(f, {"LDS"}, 16), "the timed loop holds 0 of {LDS}");
  EXPECT_NONFATAL_FAILURE(ExpectTimedLoopCount(f, {"LDS"}, 16, /*allow_multiple=*/true),
                          "want 16 or a multiple");
}

}  // namespace
}  // namespace dissect
