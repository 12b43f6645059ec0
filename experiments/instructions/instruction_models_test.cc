// The CPU models of the instruction chains against values worked out by
// hand, so that the experiments' device-vs-model check compares with the
// right thing.
#include "experiments/instructions/instruction_models.h"

#include <cmath>
#include <cstring>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dissect {
namespace {

using ::testing::HasSubstr;

unsigned long long F32(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

unsigned long long F64(double d) {
  unsigned long long u;
  std::memcpy(&u, &d, sizeof u);
  return u;
}

TEST(InstructionModelsTest, FloatStepsAreIeeeSingle) {
  // 1.5 * 2 + 0.25 = 3.25; 1.5 + 0.25 = 1.75; 1.5 * 2 = 3.
  EXPECT_EQ(ModelStep(InstructionOp::kFfma, F32(1.5f), F32(2.0f), F32(0.25f)), F32(3.25f));
  EXPECT_EQ(ModelStep(InstructionOp::kFadd, F32(1.5f), F32(0.25f), 0), F32(1.75f));
  EXPECT_EQ(ModelStep(InstructionOp::kFmul, F32(1.5f), F32(2.0f), 0), F32(3.0f));
  // Fused: (1 + 2^-12)^2 - 1 keeps the 2^-24 term that a separate multiply
  // rounds away.
  const float e = std::ldexp(1.0f, -12);
  EXPECT_EQ(ModelStep(InstructionOp::kFfma, F32(1 + e), F32(1 + e), F32(-1.0f)),
            F32(2 * e + e * e));
  EXPECT_EQ(ModelStep(InstructionOp::kDfma, F64(1.5), F64(2.0), F64(0.25)), F64(3.25));
}

TEST(InstructionModelsTest, HalfPairsRoundToNearestEven) {
  EXPECT_EQ(DoubleToHalf(1.0), 0x3c00);
  EXPECT_EQ(DoubleToHalf(1.5), 0x3e00);
  EXPECT_EQ(DoubleToHalf(-2.0), 0xc000);
  EXPECT_EQ(DoubleToHalf(65504.0), 0x7bff);
  EXPECT_EQ(DoubleToHalf(65520.0), 0x7c00);               // rounds up to infinity
  EXPECT_EQ(DoubleToHalf(std::ldexp(1.0, -24)), 0x0001);  // smallest subnormal
  // 1 + 2^-11 lies halfway between 1 and 1 + 2^-10: ties to even, 1.
  EXPECT_EQ(DoubleToHalf(1 + std::ldexp(1.0, -11)), 0x3c00);
  EXPECT_EQ(DoubleToHalf(1 + 3 * std::ldexp(1.0, -11)), 0x3c02);
  EXPECT_EQ(HalfToDouble(0x3c01), 1 + std::ldexp(1.0, -10));
  EXPECT_EQ(HalfToDouble(0x0001), std::ldexp(1.0, -24));
  // Both halves: (1.0, 1.5) * (2.0, 2.0) + (0.5, 0.0) = (2.5, 3.0).
  EXPECT_EQ(ModelStep(InstructionOp::kHfma2, 0x3e003c00, 0x40004000, 0x00003800), 0x42004100u);
}

TEST(InstructionModelsTest, IntegerSteps) {
  EXPECT_EQ(ModelStep(InstructionOp::kImad, 3, 5, 7), 22u);
  EXPECT_EQ(ModelStep(InstructionOp::kImad, 0x80000000u, 2, 1), 1u);  // wraps at 32 bits
  EXPECT_EQ(ModelStep(InstructionOp::kIadd3, 1, 3, 5), 5u);           // 1 + 3 + 1
  EXPECT_EQ(ModelStep(InstructionOp::kLop3, 0xff00ff00u, 0x0f0f0f0fu, 0x000000ffu), 0xf00ff0f0u);
  EXPECT_EQ(ModelStep(InstructionOp::kShf, 0x80000001u, 3, 0), 0x0000000cu);
  EXPECT_EQ(ModelStep(InstructionOp::kShf, 0x12345678u, 32, 0), 0x12345678u);
  EXPECT_EQ(ModelStep(InstructionOp::kPopc, 0xf0f0f0f0u, 0, 0), 16u);
  EXPECT_EQ(ModelStep(InstructionOp::kClz, 0x00010000u, 0, 0), 15u);
  EXPECT_EQ(ModelStep(InstructionOp::kClz, 1, 0, 0), 31u);
  EXPECT_EQ(ModelStep(InstructionOp::kClz, 0, 0, 0), 0xffffffffu);
}

TEST(InstructionModelsTest, ChainsCountTheirSteps) {
  const InstructionOperands add{1, 3, 5};
  // x = 2x + 3 from 1: 5, 13, 29, ..., 2^(n+2) - 3.
  EXPECT_EQ(ModelChain(InstructionOp::kIadd3, add, 1, 10), 4093u);
  // 32-bit ops see the low half of the start.
  EXPECT_EQ(ModelChain(InstructionOp::kIadd3, add, 0x100000001ull, 1), 5u);
  // clz from 0x10000: 15, then 28 (clz 15), then 27 for ever.
  EXPECT_EQ(ModelChain(InstructionOp::kClz, {}, 0x10000, 2), 28u);
  EXPECT_EQ(ModelChain(InstructionOp::kClz, {}, 0x10000, 50), 27u);
  // The ffma chain of the experiments: x = x * 1.0001 + 0.01 from 1.
  const InstructionOperands fma{F32(1.0f), F32(1.0001f), F32(0.01f)};
  float x = 1.0f;
  for (int i = 0; i < 3; ++i) x = std::fmaf(x, 1.0001f, 0.01f);
  EXPECT_EQ(ModelChain(InstructionOp::kFfma, fma, fma.seed, 3), F32(x));
  EXPECT_NE(ModelChain(InstructionOp::kFfma, fma, fma.seed, 3),
            ModelChain(InstructionOp::kFfma, fma, fma.seed, 2));
}

TEST(InstructionModelsTest, EveryOpsChainDependsOnItsLength) {
  // A chain one step short must not end where the full one does, for the
  // ops whose value counts. popc and clz settle within a few steps, and
  // iadd3 (x = 2x + a, mod 2^32) at -a after 32: for them only the SASS test
  // guards against a folded chain.
  for (const InstructionOpInfo& info : InstructionOps()) {
    if (info.op == InstructionOp::kPopc || info.op == InstructionOp::kClz ||
        info.op == InstructionOp::kIadd3) {
      EXPECT_EQ(ModelChain(info.op, info.operands, info.operands.seed, 64),
                ModelChain(info.op, info.operands, info.operands.seed, 63))
          << info.name << " settles";
      continue;
    }
    const uint64_t steps = 64 + 3 * 1024;
    EXPECT_NE(ModelChain(info.op, info.operands, info.operands.seed, steps),
              ModelChain(info.op, info.operands, info.operands.seed, steps - 1))
        << info.name;
  }
}

TEST(InstructionModelsTest, CheckNamesBothValues) {
  const InstructionOperands add{1, 3, 5};
  EXPECT_TRUE(CheckAgainstModel(InstructionOp::kIadd3, add, 1, 10, 4093, "launch 0").ok());
  const absl::Status s = CheckAgainstModel(InstructionOp::kIadd3, add, 1, 10, 73, "launch 2");
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("launch 2 ended its chain of 10 steps at 0x49, the CPU model at 0xffd"));
}

TEST(InstructionModelsTest, OpsAndContention) {
  EXPECT_EQ(InstructionOpNames().front(), "ffma");
  EXPECT_TRUE(FindInstructionOp("dfma").ok());
  EXPECT_THAT(std::string(FindInstructionOp("fma").status().message()),
              HasSubstr("unknown op 'fma' (ops: ffma, fadd"));
  EXPECT_EQ(SassSequenceNote(*FindInstructionOp("hfma2")), "sass_sequence: HFMA2 | HFMA2.MMA");
  EXPECT_TRUE(ValidateContention("ffma", "none").ok());
  EXPECT_TRUE(ValidateContention("atom_shared_add", "warp").ok());
  EXPECT_THAT(std::string(ValidateContention("ffma", "warp").message()),
              HasSubstr("contention=warp applies to atom_* ops only, not op=ffma"));
}

}  // namespace
}  // namespace dissect
