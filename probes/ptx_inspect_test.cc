// Tests for the PTX reader on hand-written PTX fragments.
#include "probes/ptx_inspect.h"

#include "gtest/gtest.h"

namespace dissect {
namespace {

constexpr char kPtx[] = R"(
.visible .entry _ZN7dissect12_GLOBAL__N_19ChaseKernelEPKj(
	.param .u64 p0
)
{
	.reg .b32 	%r<9>;
	mov.u64 %rd1, %clock64;
$L__BB0_1:
	add.s32 	%r2, %r1, %r9;   // address from the loop-carried value
	ld.shared.u32 	%r3, [%r2];
	add.s32 	%r4, %r1, %r3;
	ld.shared.u32 	%r5, [%r4];
	ld.shared.u32 	%r6, [%r1+8];
	@%p1 bra 	$L__BB0_1;
	mov.u64 %rd2, %clock64;
	st.global.u32 	[%rd3], %r6;
	ret;
}
.visible .entry _Z5OtherPf(
	.param .u64 p0
)
{
	ld.global.nc.v4.f32 	{%f1, %f2, %f3, %f4}, [%rd1];
	st.global.v4.f32 	[%rd2], {%f1, %f2, %f3, %f4};
}
)";

TEST(PtxInspectTest, ExtractsTheNamedEntryOnly) {
  auto body = ExtractEntry(kPtx, "ChaseKernel");
  ASSERT_TRUE(body.ok());
  EXPECT_NE(body->find("ld.shared"), std::string::npos);
  EXPECT_EQ(body->find("ld.global"), std::string::npos);
  EXPECT_EQ(ExtractEntry(kPtx, "Missing").status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(ExtractEntry(kPtx, "_Z").status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(PtxInspectTest, ParsesPredicatesLabelsAndOperands) {
  auto code = ParseInstructions(*ExtractEntry(kPtx, "ChaseKernel"));
  ASSERT_GE(code.size(), 9u);
  EXPECT_EQ(code[0].opcode, "mov.u64");
  EXPECT_TRUE(code[1].is_label());
  EXPECT_EQ(code[1].label, "$L__BB0_1");
  EXPECT_EQ(code[3].opcode, "ld.shared.u32");
  ASSERT_EQ(code[3].operands.size(), 2u);
  EXPECT_EQ(code[3].operands[1], "[%r2]");
  EXPECT_EQ(code[7].predicate, "@%p1");
  EXPECT_EQ(code[7].opcode, "bra");
}

TEST(PtxInspectTest, VectorOperandsStayWhole) {
  auto code = ParseInstructions(*ExtractEntry(kPtx, "Other"));
  ASSERT_EQ(code.size(), 2u);
  EXPECT_EQ(code[0].operands[0], "{%f1, %f2, %f3, %f4}");
  EXPECT_EQ(OperandRegisters(code[0].operands[0]).size(), 4u);
  EXPECT_EQ(CountOpcodePrefix(code, "ld.global.nc.v4"), 1);
}

TEST(PtxInspectTest, FindsDependentRunAndBreaksOnIndependentLoad) {
  auto code = ParseInstructions(*ExtractEntry(kPtx, "ChaseKernel"));
  auto report = AnalyzeDependentLoads(code, "%clock64", "ld.shared");
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->loads, 3);
  // %r5 depends on %r3 via %r4; %r6 is addressed by %r1, not by %r5.
  EXPECT_EQ(report->longest_dependent_run, 2);
}

TEST(PtxInspectTest, NeedsTwoMarkers) {
  auto code = ParseInstructions(*ExtractEntry(kPtx, "Other"));
  EXPECT_FALSE(AnalyzeDependentLoads(code, "%clock64", "ld.shared").ok());
}

}  // namespace
}  // namespace dissect
