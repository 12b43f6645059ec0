// The CPU models of the instruction chains against values worked out by
// hand, so that the experiments' device-vs-model check compares with the
// right thing.
#include "experiments/instructions/instruction_models.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "experiments/framework/experiment.h"
#include "experiments/half_float.h"
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

float BitsFloatForTest(unsigned long long u) {
  const auto bits = static_cast<uint32_t>(u);
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
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
  EXPECT_EQ(DoubleToHalf(65520.0), 0x7c00);  // rounds up to infinity
  EXPECT_EQ(DoubleToHalf(std::nan("")), 0x7e00);
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

TEST(InstructionModelsTest, ApproximateAndConversionSteps) {
  EXPECT_EQ(ModelStep(InstructionOp::kMufuRcp, F32(4.0f), 0, 0), F32(-0.25f));  // -1/|x|
  EXPECT_EQ(ModelStep(InstructionOp::kMufuRcp, F32(-4.0f), 0, 0), F32(-0.25f));
  EXPECT_EQ(ModelStep(InstructionOp::kMufuRsqrt, F32(4.0f), 0, 0), F32(0.5f));
  EXPECT_EQ(ModelStep(InstructionOp::kMufuSin, F32(0.0f), 0, 0), F32(0.0f));
  EXPECT_EQ(ModelStep(InstructionOp::kMufuEx2, F32(1.0f), 0, 0), F32(0.5f));   // 2^-1
  EXPECT_EQ(ModelStep(InstructionOp::kMufuLg2, F32(-8.0f), 0, 0), F32(3.0f));  // log2|-8|
  EXPECT_EQ(ModelStep(InstructionOp::kF2i, F32(2.5f), 0, 0), 2u);              // ties to even
  EXPECT_EQ(ModelStep(InstructionOp::kF2i, F32(-3.5f), 0, 0), static_cast<uint32_t>(-4));
  EXPECT_EQ(ModelStep(InstructionOp::kF2i, F32(3e9f), 0, 0), 0x7fffffffu);  // saturates
  EXPECT_EQ(ModelStep(InstructionOp::kI2f, 3, 0, 0), F32(3.0f));
  EXPECT_EQ(ModelStep(InstructionOp::kI2f, static_cast<uint32_t>(-2), 0, 0), F32(-2.0f));
  // 2^24 + 1 is not a float: to nearest even, 2^24.
  EXPECT_EQ(ModelStep(InstructionOp::kI2f, (1u << 24) + 1, 0, 0), F32(16777216.0f));
  // 1.1 is 0x3f8ccccd; the nearest fp16 is 0x3c66 (1.099609375), the
  // nearest bf16 0x3f8d (1.1015625).
  EXPECT_EQ(ModelStep(InstructionOp::kF2fF16, F32(1.1f), 0, 0), F32(1.099609375f));
  EXPECT_EQ(ModelStep(InstructionOp::kF2fBf16, F32(1.1f), 0, 0), 0x3f8d0000u);
  // Ties to even: 0x3f808000 lies halfway between bf16 0x3f80 and 0x3f81.
  EXPECT_EQ(ModelStep(InstructionOp::kF2fBf16, 0x3f808000u, 0, 0), 0x3f800000u);
  EXPECT_EQ(ModelStep(InstructionOp::kF2fBf16, 0x3f818000u, 0, 0), 0x3f820000u);
}

TEST(InstructionModelsTest, WarpSteps) {
  // Lanes start at 0x100 + l (lane_stride 1); lane 3's value after one step.
  const InstructionOperands one{0, 1, 0};
  const InstructionOperands five{0, 5, 0};
  // idx: lane 3 reads lane (0x103 & 31) = 3: itself; from 0x107 + l, lane
  // 3 reads lane 10, which holds 0x107 + 10.
  EXPECT_EQ(ModelChain(InstructionOp::kShflIdx, one, 0x103, 1, 3), 0x103u);
  EXPECT_EQ(ModelChain(InstructionOp::kShflIdx, one, 0x10a, 1, 3), 0x111u);
  EXPECT_EQ(ModelChain(InstructionOp::kShflUp, one, 0x103, 1, 3), 0x102u);
  EXPECT_EQ(ModelChain(InstructionOp::kShflUp, one, 0x100, 1, 0), 0x100u);  // lane 0 keeps
  EXPECT_EQ(ModelChain(InstructionOp::kShflUp, one, 0x103, 3, 3), 0x100u);
  EXPECT_EQ(ModelChain(InstructionOp::kShflDown, one, 0x103, 1, 3), 0x104u);
  EXPECT_EQ(ModelChain(InstructionOp::kShflDown, one, 0x11f, 1, 31), 0x11fu);  // lane 31 keeps
  EXPECT_EQ(ModelChain(InstructionOp::kShflBfly, five, 0x103, 1, 3), 0x106u);  // lane 3 ^ 5
  EXPECT_EQ(ModelChain(InstructionOp::kShflBfly, five, 0x103, 2, 3), 0x103u);
  // Lanes 0..31 hold 0..31: every lane but 0 votes.
  EXPECT_EQ(ModelChain(InstructionOp::kVoteBallot, one, 0, 1, 0), 0xfffffffeu);
  EXPECT_EQ(ModelChain(InstructionOp::kVoteBallot, one, 0, 2, 0), 0xffffffffu);
  // Distinct values: each lane matches itself only; then lane l holds 1 << l.
  EXPECT_EQ(ModelChain(InstructionOp::kMatchAny, one, 0x105, 1, 5), 0x20u);
  // Equal values (stride 0): every lane matches all.
  EXPECT_EQ(ModelChain(InstructionOp::kMatchAny, one, 7, 1, 5, 0), 0xffffffffu);
  // 0 + 1 + ... + 31 = 496, then 32 x 496.
  EXPECT_EQ(ModelChain(InstructionOp::kReduxAdd, one, 0, 1, 0), 496u);
  EXPECT_EQ(ModelChain(InstructionOp::kReduxAdd, one, 9, 2, 9), 32u * 496u);
  // Throughput lanes: thread 37 (lane 5) of 4 chains, chain 2, starts at
  // seed + 37 * 4 + 2; its warp's lane i at seed + (32 + i) * 4 + 2.
  EXPECT_EQ(ModelChain(InstructionOp::kShflDown, one, 1000 + 37 * 4 + 2, 1, 5, 4),
            1000u + 38 * 4 + 2);
  EXPECT_TRUE(IsWarpOp(InstructionOp::kReduxAdd));
  EXPECT_FALSE(IsWarpOp(InstructionOp::kFfma));
}

TEST(InstructionModelsTest, VoteAllTakesAOnlyWhereNoLaneIsA) {
  // x = a if no lane's x is a, else b. From 0x100 + l with a = 0x105, lane
  // 5 is a: every lane takes b = 7; then no lane is a (a), then every lane
  // is a (b), in turn.
  const InstructionOperands ops{0, 0x105, 7};
  EXPECT_TRUE(IsWarpOp(InstructionOp::kVoteAll));
  EXPECT_EQ(ModelChain(InstructionOp::kVoteAll, ops, 0x100, 1, 0), 7u);
  EXPECT_EQ(ModelChain(InstructionOp::kVoteAll, ops, 0x11f, 2, 31), 0x105u);
  EXPECT_EQ(ModelChain(InstructionOp::kVoteAll, ops, 0x109, 3, 9), 7u);
  // From 0x110 + l no lane is a: a at once.
  EXPECT_EQ(ModelChain(InstructionOp::kVoteAll, ops, 0x110, 1, 0), 0x105u);
  // The experiment's operands: lane 5 starts at a, and a latency launch
  // (an even number of steps) ends at a, one step more at b.
  const InstructionOpInfo info = *FindInstructionOp("vote_all");
  const uint64_t steps = 64 + 3 * 256;
  EXPECT_EQ(ModelChain(info.op, info.operands, info.operands.seed, steps), info.operands.a);
  EXPECT_EQ(ModelChain(info.op, info.operands, info.operands.seed, steps + 1), info.operands.b);
}

TEST(InstructionModelsTest, ClockIsCheckedOnlyAgainstEveryReadLost) {
  // Its value is the XOR of clock reads: not modelled. The check refuses
  // only the seed's fold (every read 0) and says so.
  const InstructionOpInfo clock = *FindInstructionOp("clock");
  EXPECT_TRUE(clock.unpredictable);
  ASSERT_NE(clock.quantity, nullptr);
  EXPECT_THAT(std::string(clock.quantity), HasSubstr("not an operand-to-result latency"));
  uint32_t lost = 0;
  for (int i = 0; i < kClockAccumulators; ++i) lost ^= 0x2468ace0u + i;
  EXPECT_EQ(ModelChain(clock.op, clock.operands, 0x2468ace0, 4096), lost);
  EXPECT_TRUE(CheckAgainstModel(clock, clock.operands, 0x2468ace0, 4096, 0x1234, "x").ok());
  const absl::Status s =
      CheckAgainstModel(clock, clock.operands, 0x2468ace0, 4096, lost, "launch 1");
  EXPECT_THAT(std::string(s.message()),
              HasSubstr(absl::StrCat("launch 1 ended its chain of 4096 steps at 0x",
                                     absl::Hex(lost), ", the value it has if every step is lost")));
  // The segments: the second (twice the reads) must take longer.
  ChaseTiming t{};
  t.cycles[0] = 300;
  t.cycles[1] = 560;
  EXPECT_TRUE(CheckSegmentsGrow(t, "launch 0").ok());
  t.cycles[1] = 300;
  EXPECT_THAT(std::string(CheckSegmentsGrow(t, "launch 2").message()),
              HasSubstr("launch 2's segments took 300 and 300 cycles"));
  t.cycles[0] = 0;
  t.cycles[1] = 5;
  EXPECT_FALSE(CheckSegmentsGrow(t, "launch 3").ok());
}

TEST(InstructionModelsTest, AtomicChainsRunOnTheirWord) {
  // x = word, word += x from x = 1, word = 0: x is 0, 1, 1, 2, 3, 5, 8.
  const InstructionOperands none{};
  EXPECT_EQ(ModelChain(InstructionOp::kAtomSharedAdd, none, 1, 1), 0u);
  EXPECT_EQ(ModelChain(InstructionOp::kAtomSharedAdd, none, 1, 2), 1u);
  EXPECT_EQ(ModelChain(InstructionOp::kAtomGlobalAdd, none, 1, 6), 5u);
  EXPECT_EQ(ModelChain(InstructionOp::kAtomGlobalAdd, none, 1, 7), 8u);
  // cas: x = the word; the word = a (5) where it equaled x: from x = 1 the
  // word is 0 (x = 0), then 0 equals x (the word = 5, x = 0), then x = 5.
  const InstructionOperands five{0, 5, 0};
  EXPECT_EQ(ModelChain(InstructionOp::kAtomSharedCas, five, 1, 1), 0u);
  EXPECT_EQ(ModelChain(InstructionOp::kAtomSharedCas, five, 1, 2), 0u);
  EXPECT_EQ(ModelChain(InstructionOp::kAtomGlobalCas, five, 1, 3), 5u);
  EXPECT_EQ(ModelChain(InstructionOp::kAtomGlobalCas, five, 1, 50), 5u);
  EXPECT_TRUE(IsAtomicOp(InstructionOp::kAtomSharedAdd));
  EXPECT_TRUE(IsAtomicOp(InstructionOp::kAtomGlobalCas));
  EXPECT_FALSE(IsAtomicOp(InstructionOp::kFfma));
  EXPECT_TRUE(LatencyContentionMeasured("none").ok());
  EXPECT_TRUE(LatencyContentionMeasured("warp").ok());
  const absl::Status all = LatencyContentionMeasured("all");
  EXPECT_TRUE(dissect::IsSkipped(all));
  EXPECT_THAT(std::string(all.message()),
              HasSubstr("contention=all is measured by instruction_throughput"));
  EXPECT_EQ(ParseContention("none"), Contention::kNone);
  EXPECT_EQ(ParseContention("warp"), Contention::kWarp);
  EXPECT_EQ(ParseContention("all"), Contention::kAll);
  // Chains that share a word carry 0 (seed and a): their values are 0 in any
  // order.
  const InstructionOperands zero{};
  EXPECT_EQ(ModelChain(InstructionOp::kAtomGlobalAdd, zero, 0, 100), 0u);
  EXPECT_EQ(ModelChain(InstructionOp::kAtomSharedCas, zero, 0, 100), 0u);
}

// A host emulation of `lanes` chains on one shared word: at every step the
// lanes' atomics are served one after another in an order drawn from
// `rng` (the hardware's order is not known), each reading the word the
// previous one left. Returns lane 0's last value.
uint32_t EmulateSharedWord(InstructionOp op, const InstructionOperands& operands, int lanes,
                           uint64_t steps, std::mt19937& rng) {
  const bool cas = op == InstructionOp::kAtomSharedCas || op == InstructionOp::kAtomGlobalCas;
  std::vector<uint32_t> x(lanes, static_cast<uint32_t>(operands.seed));
  std::vector<int> order(lanes);
  std::iota(order.begin(), order.end(), 0);
  uint32_t word = 0;
  for (uint64_t s = 0; s < steps; ++s) {
    std::shuffle(order.begin(), order.end(), rng);
    for (const int l : order) {
      const uint32_t old = word;
      if (!cas) word += x[l];
      if (cas && old == x[l]) word = static_cast<uint32_t>(operands.a);
      x[l] = old;
    }
  }
  return x[0];
}

TEST(InstructionModelsTest, SharedWordChainsMatchTheModelInAnyOrder) {
  // The H100's contention=warp latency launch (chain_length 1024: 64 + 3 x
  // 1024 steps) and contention=warp/all throughput launch (4097 steps)
  // ended the CAS chains at 0: every CAS compares the word (0) with x (0)
  // and swaps in a (0). The check must use the operands the kernel ran
  // with; with the op's own a (5) the model ends at 5, the failure the GPU
  // run showed.
  std::mt19937 rng(7);
  for (const char* name :
       {"atom_shared_add", "atom_global_add", "atom_shared_cas", "atom_global_cas"}) {
    const InstructionOpInfo info = *FindInstructionOp(name);
    const InstructionOperands shared = SharedWordOperands(info.operands);
    EXPECT_EQ(shared.seed, 0u) << name;
    EXPECT_EQ(shared.a, 0u) << name;
    for (const uint64_t steps : {uint64_t{64 + 3 * 1024}, uint64_t{4097}}) {
      EXPECT_EQ(ModelChain(info.op, shared, 0, steps), 0u) << name;
      for (int trial = 0; trial < 3; ++trial) {
        EXPECT_EQ(EmulateSharedWord(info.op, shared, 32, steps, rng), 0u) << name;
      }
      EXPECT_TRUE(CheckAgainstModel(info, shared, 0, steps, 0, "launch 0").ok()) << name;
    }
  }
  const InstructionOpInfo cas = *FindInstructionOp("atom_shared_cas");
  EXPECT_THAT(std::string(CheckAgainstModel(cas, cas.operands, 0, 3136, 0, "launch 0").message()),
              HasSubstr("launch 0 ended its chain of 3136 steps at 0x0, the CPU model at 0x5"));
  // The emulation of one lane alone on its word is the model's chain (cas
  // from x = 1 with a = 5 ends at 5; add from x = 1 runs the Fibonacci
  // numbers).
  EXPECT_EQ(EmulateSharedWord(cas.op, cas.operands, 1, 50, rng),
            ModelChain(cas.op, cas.operands, cas.operands.seed, 50));
  EXPECT_EQ(EmulateSharedWord(InstructionOp::kAtomSharedAdd, {1, 0, 0}, 1, 7, rng), 8u);
}

TEST(InstructionModelsTest, ExactChainsDependOnTheirLength) {
  // A chain one step short must not end where the full one does, for the
  // ops whose value counts the steps (bfly and vote_all by its parity). The others settle
  // (popc, clz, iadd3:
  // x = 2x + a mod 2^32 at -a after 32 steps, the conversions, rsqrt, ex2),
  // alternate (rcp) or wander (sin, lg2): for them only the SASS test
  // guards against a folded chain.
  const uint64_t steps = 64 + 3 * 1024;
  for (const char* name : {"ffma", "fadd", "fmul", "hfma2", "dfma", "imad", "lop3", "shf",
                           "shfl_bfly", "vote_all", "atom_shared_add", "atom_global_add"}) {
    const InstructionOpInfo info = *FindInstructionOp(name);
    EXPECT_NE(ModelChain(info.op, info.operands, info.operands.seed, steps),
              ModelChain(info.op, info.operands, info.operands.seed, steps - 1))
        << name;
  }
  // The warp ops settle too: shfl_idx's source offset (2 x offset + 7, mod
  // 32) at 25 lanes, up and down once lane 0's or 31's value has filled the
  // warp, ballot, match and redux within a few steps.
  for (const char* name : {"popc", "clz", "iadd3", "f2i", "f2f_f16", "f2f_bf16", "shfl_idx",
                           "shfl_up", "shfl_down", "vote_ballot", "match_any", "redux_add"}) {
    const InstructionOpInfo info = *FindInstructionOp(name);
    EXPECT_EQ(ModelChain(info.op, info.operands, info.operands.seed, 64),
              ModelChain(info.op, info.operands, info.operands.seed, 63))
        << name << " settles";
  }
}

TEST(InstructionModelsTest, CheckNamesBothValues) {
  const InstructionOpInfo iadd3 = *FindInstructionOp("iadd3");
  EXPECT_TRUE(CheckAgainstModel(iadd3, iadd3.operands, 1, 10, 4093, "launch 0").ok());
  const absl::Status s = CheckAgainstModel(iadd3, iadd3.operands, 1, 10, 73, "launch 2");
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("launch 2 ended its chain of 10 steps at 0x49, the CPU model at 0xffd"));
}

TEST(InstructionModelsTest, AnyNanMatchesAnyNan) {
  // hfma2 from a NaN low half: the device's NaN bits (0x7fff) need not be
  // the model's (0x7e00); the high half must still match exactly.
  const InstructionOpInfo hfma2 = *FindInstructionOp("hfma2");
  const unsigned long long start = 0x3c007d00;  // (NaN, 1.0)
  const unsigned long long model = ModelChain(hfma2.op, hfma2.operands, start, 1);
  EXPECT_EQ(model & 0xffff, 0x7e00u);
  EXPECT_TRUE(CheckAgainstModel(hfma2, hfma2.operands, start, 1, (model & 0xffff0000) | 0x7fff, "x").ok());
  EXPECT_FALSE(CheckAgainstModel(hfma2, hfma2.operands, start, 1, (model & 0xffff0000) | 0x3c00, "x").ok());
  EXPECT_FALSE(CheckAgainstModel(hfma2, hfma2.operands, start, 1, 0x3c007fff, "x").ok());
  // An integer op's bits are compared as they are.
  const InstructionOpInfo lop3 = *FindInstructionOp("lop3");
  const unsigned long long lop3_end = ModelChain(lop3.op, lop3.operands, 0x7fc00000, 2);
  EXPECT_EQ(lop3_end, 0x7fc00000u);
  EXPECT_FALSE(CheckAgainstModel(lop3, lop3.operands, 0x7fc00000, 2, 0x7fc00001, "x").ok());
}

TEST(InstructionModelsTest, ApproximateOpsMatchWithinTheirTolerance) {
  const InstructionOpInfo rcp = *FindInstructionOp("mufu_rcp");
  // 2 steps from 3: -3; -1/3 after 1 step.
  EXPECT_TRUE(CheckAgainstModel(rcp, rcp.operands, F32(3.0f), 2, F32(-3.0001f), "launch 0").ok());
  const absl::Status s = CheckAgainstModel(rcp, rcp.operands, F32(3.0f), 2, F32(-1.0f / 3), "launch 1");
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("launch 1 ended its chain of 2 steps at -0.333333, the CPU model at -3 "
                        "(relative tolerance 0.01)"));
  const InstructionOpInfo lg2 = *FindInstructionOp("mufu_lg2");
  EXPECT_TRUE(CheckAgainstModel(lg2, lg2.operands, F32(5.0f), 100, F32(-0.25f), "launch 0").ok());
  EXPECT_THAT(
      std::string(CheckAgainstModel(lg2, lg2.operands, F32(5.0f), 100, F32(-INFINITY), "launch 3").message()),
      HasSubstr("launch 3 ended its chain of 100 steps at -inf, not finite"));
  // The seeds' chains stay finite over a latency launch (rsqrt from 2 to 1,
  // ex2 of -x from 1 to 0.64, sin from 1 towards 0).
  for (const char* name : {"mufu_rcp", "mufu_rsqrt", "mufu_sin", "mufu_ex2"}) {
    const InstructionOpInfo info = *FindInstructionOp(name);
    const float end =
        BitsFloatForTest(ModelChain(info.op, info.operands, info.operands.seed, 64 + 3 * 1024));
    EXPECT_TRUE(std::isfinite(end) && end != 0) << name << " ends at " << end;
  }
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
