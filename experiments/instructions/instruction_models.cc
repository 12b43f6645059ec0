// See instruction_models.h.
#include "experiments/instructions/instruction_models.h"

#include <array>
#include <cmath>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "experiments/framework/experiment.h"
#include "experiments/half_float.h"

namespace dissect {
namespace {

uint32_t FloatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

float BitsFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

unsigned long long DoubleBits(double d) {
  unsigned long long u;
  std::memcpy(&u, &d, sizeof u);
  return u;
}

double BitsDouble(unsigned long long u) {
  double d;
  std::memcpy(&d, &u, sizeof d);
  return d;
}

// fma.rn.f16 on one half: the product of two fp16 values and its sum with a
// third are exact in double for the operands used here (a near 1, b = 0),
// so the only rounding is DoubleToHalf's.
uint16_t HalfFma(uint16_t x, uint16_t a, uint16_t b) {
  return DoubleToHalf(HalfToDouble(x) * HalfToDouble(a) + HalfToDouble(b));
}

uint32_t Hfma2(uint32_t x, uint32_t a, uint32_t b) {
  const uint16_t lo = HalfFma(x & 0xffff, a & 0xffff, b & 0xffff);
  const uint16_t hi = HalfFma(x >> 16, a >> 16, b >> 16);
  return (uint32_t{hi} << 16) | lo;
}

uint32_t Popcount(uint32_t x) {
  uint32_t n = 0;
  for (; x != 0; x &= x - 1) ++n;
  return n;
}

// bfind.shiftamt.u32: 31 - (position of the highest set bit), 0xffffffff
// for 0.
uint32_t ShiftAmount(uint32_t x) {
  if (x == 0) return 0xffffffffu;
  uint32_t n = 0;
  while ((x & 0x80000000u) == 0) {
    x <<= 1;
    ++n;
  }
  return n;
}

uint32_t RotateLeft(uint32_t x, uint32_t s) {
  s %= 32;
  return s == 0 ? x : (x << s) | (x >> (32 - s));
}

// cvt.rni.s32.f32: to nearest, ties to even; out of range saturates; NaN
// gives 0.
uint32_t FloatToInt(float f) {
  if (std::isnan(f)) return 0;
  const double r = std::nearbyint(static_cast<double>(f));
  if (r >= 2147483647.0) return 0x7fffffffu;
  if (r <= -2147483648.0) return 0x80000000u;
  return static_cast<uint32_t>(static_cast<int32_t>(r));
}

// cvt.rn.bf16.f32 then cvt.f32.bf16: the upper half, rounded to nearest
// even; NaN stays NaN.
uint32_t Bf16RoundTrip(uint32_t u) {
  if (std::isnan(BitsFloat(u))) return (u | 0x00400000u) & 0xffff0000u;
  return ((u + 0x7fffu + ((u >> 16) & 1)) >> 16) << 16;
}

// The exact function of an approximate (MUFU) op, rounded to f32.
uint32_t Approximate(InstructionOp op, uint32_t x) {
  const double v = BitsFloat(x);
  switch (op) {
    case InstructionOp::kMufuRcp:
      return FloatBits(static_cast<float>(-1.0 / std::fabs(v)));
    case InstructionOp::kMufuRsqrt:
      return FloatBits(static_cast<float>(1.0 / std::sqrt(v)));
    case InstructionOp::kMufuSin:
      return FloatBits(static_cast<float>(std::sin(v)));
    case InstructionOp::kMufuEx2:
      return FloatBits(static_cast<float>(std::exp2(-v)));
    case InstructionOp::kMufuLg2:
      return FloatBits(static_cast<float>(std::log2(std::fabs(v))));
    default:
      return x;
  }
}

uint32_t Step32(InstructionOp op, uint32_t x, uint32_t a, uint32_t b) {
  switch (op) {
    case InstructionOp::kFfma:
      return FloatBits(std::fmaf(BitsFloat(x), BitsFloat(a), BitsFloat(b)));
    case InstructionOp::kFadd:
      return FloatBits(BitsFloat(x) + BitsFloat(a));
    case InstructionOp::kFmul:
      return FloatBits(BitsFloat(x) * BitsFloat(a));
    case InstructionOp::kHfma2:
      return Hfma2(x, a, b);
    case InstructionOp::kImad:
      return x * a + b;
    case InstructionOp::kIadd3:
      return x + a + x;
    case InstructionOp::kLop3:
      return x ^ a ^ b;
    case InstructionOp::kShf:
      return RotateLeft(x, a);
    case InstructionOp::kPopc:
      return Popcount(x);
    case InstructionOp::kClz:
      return ShiftAmount(x);
    case InstructionOp::kMufuRcp:
    case InstructionOp::kMufuRsqrt:
    case InstructionOp::kMufuSin:
    case InstructionOp::kMufuEx2:
    case InstructionOp::kMufuLg2:
      return Approximate(op, x);
    case InstructionOp::kF2i:
      return FloatToInt(BitsFloat(x));
    case InstructionOp::kI2f:
      return FloatBits(static_cast<float>(static_cast<int32_t>(x)));
    case InstructionOp::kF2fF16:
      return FloatBits(static_cast<float>(HalfToDouble(DoubleToHalf(BitsFloat(x)))));
    case InstructionOp::kF2fBf16:
      return Bf16RoundTrip(x);
    case InstructionOp::kBarSync:
    case InstructionOp::kBarrierCluster:
    case InstructionOp::kVoteAll:  // a warp-level op: WarpStep
    case InstructionOp::kClock:    // not modelled: ModelChain
      return x;
    case InstructionOp::kDfma:
      break;
  }
  return x;
}

using Warp = std::array<uint32_t, 32>;

// One step of a warp-level op on all 32 lanes (full mask; shfl.up clamps at
// lane 0, down and bfly at lane 31, as their c operands say).
Warp WarpStep(InstructionOp op, const Warp& x, uint32_t a, uint32_t b) {
  Warp out = x;
  uint32_t ballot = 0;
  uint32_t sum = 0;
  bool none_is_a = true;
  for (int l = 0; l < 32; ++l) {
    ballot |= (x[l] != 0 ? 1u : 0u) << l;
    sum += x[l];
    none_is_a = none_is_a && x[l] != a;
  }
  for (int l = 0; l < 32; ++l) {
    const int up = l - static_cast<int>(a);
    const int down = l + static_cast<int>(a);
    switch (op) {
      case InstructionOp::kShflIdx:
        out[l] = x[x[l] & 31];
        break;
      case InstructionOp::kShflUp:
        out[l] = up >= 0 ? x[up] : x[l];
        break;
      case InstructionOp::kShflDown:
        out[l] = down <= 31 ? x[down] : x[l];
        break;
      case InstructionOp::kShflBfly:
        out[l] = x[(l ^ a) & 31];
        break;
      case InstructionOp::kVoteBallot:
        out[l] = ballot;
        break;
      case InstructionOp::kVoteAll:
        out[l] = none_is_a ? a : b;
        break;
      case InstructionOp::kMatchAny:
        out[l] = 0;
        for (int k = 0; k < 32; ++k) out[l] |= (x[k] == x[l] ? 1u : 0u) << k;
        break;
      case InstructionOp::kReduxAdd:
        out[l] = sum;
        break;
      default:
        break;
    }
  }
  return out;
}

const std::vector<InstructionOpInfo>* BuildOps() {
  const unsigned long long one_f32 = FloatBits(1.0f);
  const unsigned long long near_one_f32 = FloatBits(1.0001f);
  const unsigned long long hundredth_f32 = FloatBits(0.01f);
  // fp16 pairs: 1.0 and 1.5; 1 + 2^-10 in both halves (every step grows x
  // by at least one unit in the last place, so the value counts the steps
  // until it overflows after about 11,000 steps).
  const unsigned long long halves_seed = 0x3e003c00;
  const unsigned long long halves_near_one = 0x3c013c01;
  return new std::vector<InstructionOpInfo>{
      {"ffma", InstructionOp::kFfma, "FFMA", {one_f32, near_one_f32, hundredth_f32}},
      {"fadd", InstructionOp::kFadd, "FADD", {one_f32, hundredth_f32, 0}},
      {"fmul", InstructionOp::kFmul, "FMUL", {one_f32, near_one_f32, 0}},
      {"hfma2", InstructionOp::kHfma2, "HFMA2 | HFMA2.MMA", {halves_seed, halves_near_one, 0}},
      {"dfma",
       InstructionOp::kDfma,
       "DFMA",
       {DoubleBits(1.0), DoubleBits(1.0001), DoubleBits(0.01)}},
      {"imad", InstructionOp::kImad, "IMAD", {12345, 0x9e3779b9, 7}},
      {"iadd3", InstructionOp::kIadd3, "IADD3", {1, 3, 5}},
      {"lop3", InstructionOp::kLop3, "LOP3.LUT", {0x12345678, 0x0f0f0f0f, 0x00ff00ff}},
      {"shf", InstructionOp::kShf, "SHF.L.W.U32.HI", {0x80000001, 3, 0}},
      {"popc", InstructionOp::kPopc, "POPC", {0xffffffff, 0, 0}},
      {"clz", InstructionOp::kClz, "FLO.U32.SH", {0x00010000, 0, 0}},
      // -1/3 and -3 in turn (MUFU.RCP's error of up to about an ulp a step
      // may add up over thousands of steps: 1e-2); to 1; towards 0 (slowly,
      // and MUFU.SIN's absolute error adds up step by step); to 0.64;
      // chaotic.
      {"mufu_rcp", InstructionOp::kMufuRcp, "MUFU.RCP", {FloatBits(3.0f), 0, 0}, 1e-2},
      {"mufu_rsqrt", InstructionOp::kMufuRsqrt, "MUFU.RSQ", {FloatBits(2.0f), 0, 0}, 1e-3},
      {"mufu_sin", InstructionOp::kMufuSin, "FMUL.RZ + MUFU.SIN", {one_f32, 0, 0}, 0.1},
      {"mufu_ex2", InstructionOp::kMufuEx2, "MUFU.EX2", {one_f32, 0, 0}, 1e-3},
      {"mufu_lg2", InstructionOp::kMufuLg2, "MUFU.LG2", {FloatBits(5.0f), 0, 0}, kFiniteOnly},
      {"f2i", InstructionOp::kF2i, "F2I.NTZ", {FloatBits(1e9f), 0, 0}},
      {"i2f", InstructionOp::kI2f, "I2F | I2FP.F32.S32", {3, 0, 0}},
      {"f2f_f16",
       InstructionOp::kF2fF16,
       "F2FP.PACK_AB | F2FP.F16.F32.PACK_AB + HADD2.F32",
       {FloatBits(1.1f), 0, 0},
       0,
       "ptxas converts two chains' values with one F2FP.PACK_AB (an f16 pair), so more than one "
       "chain per thread would not time one conversion per result"},
      {"f2f_bf16",
       InstructionOp::kF2fBf16,
       "F2F.BF16.F32 + IMAD.U32 | SHF.L.U32",
       {FloatBits(1.1f), 0, 0}},
      // Lane l starts at seed + l: shfl.idx from lane (7 + l) & 31, a
      // rotation by 7 lanes per step; up and down by one lane; bfly swaps
      // lanes 5 apart.
      {"shfl_idx", InstructionOp::kShflIdx, "SHFL.IDX", {0x12345607, 0, 0}},
      {"shfl_up", InstructionOp::kShflUp, "SHFL.UP", {0x12345600, 1, 0}},
      {"shfl_down", InstructionOp::kShflDown, "SHFL.DOWN", {0x12345600, 1, 0}},
      {"shfl_bfly", InstructionOp::kShflBfly, "SHFL.BFLY", {0x12345600, 5, 0}},
      {"vote_ballot", InstructionOp::kVoteBallot, "ISETP.NE.U32.AND + VOTE.ANY", {0, 0, 0}},
      // Lane 5 starts at a, so the first vote fails (every lane takes b);
      // then all votes alternate: no lane is a (a), every lane is a (b).
      {"vote_all",
       InstructionOp::kVoteAll,
       "ISETP.NE.U32.AND + VOTE.ALL + SEL",
       {0x12345600, 0x12345605, 7}},
      {"match_any", InstructionOp::kMatchAny, "MATCH.ANY", {0x12345600, 0, 0}},
      {"redux_add", InstructionOp::kReduxAdd, "REDUX.SUM + MOV | IMAD.U32", {1, 0, 0}},
      // From x = 1 and a word of 0, x runs through the Fibonacci numbers.
      {"atom_shared_add", InstructionOp::kAtomSharedAdd, "ATOMS.ADD", {1, 0, 0}},
      {"atom_global_add", InstructionOp::kAtomGlobalAdd, "ATOMG.E.ADD.STRONG.GPU", {1, 0, 0}},
      // From x = 1, a = 5: x is 0, 0, 5, 5, ... (the word takes a once x
      // has read its 0).
      {"atom_shared_cas", InstructionOp::kAtomSharedCas, "ATOMS.CAS", {1, 5, 0}},
      {"atom_global_cas", InstructionOp::kAtomGlobalCas, "ATOMG.E.CAS.STRONG.GPU", {1, 5, 0}},
      {"bar_sync",
       InstructionOp::kBarSync,
       "BAR.SYNC.DEFER_BLOCKING",
       {7, 0, 0},
       0,
       nullptr,
       false,
       "a barrier has no per-lane result; its cost is instruction_latency's bar_sync row"},
      // Arrive (relaxed) and wait (acquire: the L1 invalidation) on a
      // cluster of 2 blocks of a warp.
      {"barrier_cluster",
       InstructionOp::kBarrierCluster,
       "UCGABAR_ARV + UCGABAR_WAIT + CCTL.IVALL",
       {7, 0, 0},
       0,
       nullptr,
       false,
       "a barrier has no per-lane result; its cost is instruction_latency's barrier_cluster row",
       90,
       "barrier.cluster (thread-block clusters)"},
      // A read takes no operand: the steps are reads with no dependence
      // between them, each XORed into the oldest of kClockAccumulators
      // accumulators. ptxas reads the clock into a uniform register (S2UR;
      // CS2UR.32 on sm_120) for half the steps and a vector one (CS2R.32)
      // for the others, and folds two reads with one LOP3.LUT.
      {"clock",
       InstructionOp::kClock,
       "CS2R.32 | S2UR | CS2UR.32",
       {0x2468ace0, 0, 0},
       0,
       nullptr,
       false,
       nullptr,
       0,
       nullptr,
       "clock: each step is one %clock read (CS2R.32, S2UR or CS2UR.32 of SR_CLOCKLO) that "
       "depends on no step before it, folded by one LOP3.LUT per two reads into 8 accumulators: "
       "latency_cycles is the interval between back-to-back reads (what one read adds to the "
       "next one's value, the folds' issue slots included), not an operand-to-result latency; "
       "results_per_clock_per_sm counts reads",
       true},
  };
}

}  // namespace

const std::vector<InstructionOpInfo>& InstructionOps() {
  static const std::vector<InstructionOpInfo>* ops = BuildOps();
  return *ops;
}

std::vector<std::string> InstructionOpNames() {
  std::vector<std::string> names;
  for (const InstructionOpInfo& info : InstructionOps()) names.emplace_back(info.name);
  return names;
}

absl::StatusOr<InstructionOpInfo> FindInstructionOp(absl::string_view name) {
  for (const InstructionOpInfo& info : InstructionOps()) {
    if (name == info.name) return info;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown op '", name, "' (ops: ", absl::StrJoin(InstructionOpNames(), ", "), ")"));
}

std::string SassSequenceNote(const InstructionOpInfo& info) {
  return absl::StrCat("sass_sequence: ", info.sass_sequence);
}

unsigned long long ModelStep(InstructionOp op, unsigned long long x, unsigned long long a,
                             unsigned long long b) {
  if (op == InstructionOp::kDfma) {
    return DoubleBits(std::fma(BitsDouble(x), BitsDouble(a), BitsDouble(b)));
  }
  return Step32(op, static_cast<uint32_t>(x), static_cast<uint32_t>(a), static_cast<uint32_t>(b));
}

namespace {

// Whether `op`'s chain value is an f32.
bool ResultIsF32(InstructionOp op) {
  switch (op) {
    case InstructionOp::kFfma:
    case InstructionOp::kFadd:
    case InstructionOp::kFmul:
    case InstructionOp::kMufuRcp:
    case InstructionOp::kMufuRsqrt:
    case InstructionOp::kMufuSin:
    case InstructionOp::kMufuEx2:
    case InstructionOp::kMufuLg2:
    case InstructionOp::kI2f:
    case InstructionOp::kF2fF16:
    case InstructionOp::kF2fBf16:
      return true;
    default:
      return false;
  }
}

bool IsHalfNan(uint16_t h) { return (h & 0x7c00) == 0x7c00 && (h & 0x3ff) != 0; }

// Equal bits, or NaN on both sides (per fp16 half for hfma2, as f32 for the
// other float ops): NaN payloads are not modelled.
bool SameValue(InstructionOp op, unsigned long long device, unsigned long long model) {
  if (device == model) return true;
  if (op == InstructionOp::kHfma2) {
    for (const int shift : {0, 16}) {
      const auto d = static_cast<uint16_t>(device >> shift);
      const auto m = static_cast<uint16_t>(model >> shift);
      if (d != m && !(IsHalfNan(d) && IsHalfNan(m))) return false;
    }
    return true;
  }
  if (op == InstructionOp::kDfma) {
    return std::isnan(BitsDouble(device)) && std::isnan(BitsDouble(model));
  }
  return ResultIsF32(op) && std::isnan(BitsFloat(static_cast<uint32_t>(device))) &&
         std::isnan(BitsFloat(static_cast<uint32_t>(model)));
}

}  // namespace

bool IsWarpOp(InstructionOp op) {
  switch (op) {
    case InstructionOp::kVoteAll:
    case InstructionOp::kShflIdx:
    case InstructionOp::kShflUp:
    case InstructionOp::kShflDown:
    case InstructionOp::kShflBfly:
    case InstructionOp::kVoteBallot:
    case InstructionOp::kMatchAny:
    case InstructionOp::kReduxAdd:
      return true;
    default:
      return false;
  }
}

unsigned long long ModelChain(InstructionOp op, const InstructionOperands& operands,
                              unsigned long long start, uint64_t steps, int lane,
                              uint64_t lane_stride) {
  if (IsWarpOp(op)) {
    Warp x;
    for (int i = 0; i < 32; ++i) {
      x[i] = static_cast<uint32_t>(start + (static_cast<int64_t>(i) - lane) *
                                               static_cast<int64_t>(lane_stride));
    }
    for (uint64_t s = 0; s < steps; ++s) x = WarpStep(op, x, static_cast<uint32_t>(operands.a),
                                                        static_cast<uint32_t>(operands.b));
    return x[lane];
  }
  if (IsAtomicOp(op)) {
    // The word starts at 0. add: x = the word, the word += x. cas: x = the
    // word, the word = a where it equaled x.
    const bool cas = op == InstructionOp::kAtomSharedCas || op == InstructionOp::kAtomGlobalCas;
    uint32_t x = static_cast<uint32_t>(start);
    uint32_t word = 0;
    for (uint64_t i = 0; i < steps; ++i) {
      const uint32_t old = word;
      if (!cas) word += x;
      if (cas && word == x) word = static_cast<uint32_t>(operands.a);
      x = old;
    }
    return x;
  }
  if (op == InstructionOp::kClock) {
    // ClockFold(start) as a value, every read having given 0.
    uint32_t fold = 0;
    for (int i = 0; i < kClockAccumulators; ++i) fold ^= static_cast<uint32_t>(start) + i;
    return fold;
  }
  unsigned long long x = op == InstructionOp::kDfma ? start : static_cast<uint32_t>(start);
  for (uint64_t i = 0; i < steps; ++i) x = ModelStep(op, x, operands.a, operands.b);
  return x;
}

bool IsAtomicOp(InstructionOp op) {
  return op == InstructionOp::kAtomSharedAdd || op == InstructionOp::kAtomGlobalAdd ||
         op == InstructionOp::kAtomSharedCas || op == InstructionOp::kAtomGlobalCas;
}

InstructionOperands SharedWordOperands(const InstructionOperands& operands) {
  InstructionOperands shared = operands;
  shared.seed = 0;
  shared.a = 0;
  return shared;
}

absl::Status CheckAgainstModel(const InstructionOpInfo& info, const InstructionOperands& operands,
                               unsigned long long start, uint64_t steps,
                               unsigned long long device, absl::string_view what, int lane,
                               uint64_t lane_stride) {
  return CheckModelValue(info, ModelChain(info.op, operands, start, steps, lane, lane_stride),
                         steps, device, what);
}

absl::Status CheckModelValue(const InstructionOpInfo& info, unsigned long long want,
                             uint64_t steps, unsigned long long device, absl::string_view what) {
  if (info.unpredictable) {
    if (device != want) return absl::OkStatus();
    return absl::InternalError(absl::StrCat(what, " ended its chain of ", steps, " steps at 0x",
                                            absl::Hex(device),
                                            ", the value it has if every step is lost"));
  }
  if (SameValue(info.op, device, want)) return absl::OkStatus();
  if (info.tolerance != 0) {
    const double got = BitsFloat(static_cast<uint32_t>(device));
    const double model = BitsFloat(static_cast<uint32_t>(want));
    if (info.tolerance == kFiniteOnly) {
      if (std::isfinite(got)) return absl::OkStatus();
      return absl::InternalError(
          absl::StrCat(what, " ended its chain of ", steps, " steps at ", got, ", not finite"));
    }
    if (std::fabs(got - model) <= info.tolerance * std::fabs(model)) return absl::OkStatus();
    return absl::InternalError(absl::StrCat(what, " ended its chain of ", steps, " steps at ", got,
                                            ", the CPU model at ", model, " (relative tolerance ",
                                            info.tolerance, ")"));
  }
  return absl::InternalError(absl::StrCat(what, " ended its chain of ", steps, " steps at 0x",
                                          absl::Hex(device), ", the CPU model at 0x",
                                          absl::Hex(want)));
}

absl::Status CheckSegmentsGrow(const ChaseTiming& timing, absl::string_view what) {
  if (timing.cycles[0] > 0 && timing.cycles[1] > timing.cycles[0]) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(what, "'s segments took ", timing.cycles[0], " and ",
                                          timing.cycles[1],
                                          " cycles: the second, twice as long, must take more"));
}

std::vector<std::string> ContentionNames() { return {"none", "warp", "all"}; }

AxisSpec InstructionOpAxis() {
  return StringAxis("op", InstructionOpNames(), {},
                    "the instruction (ffma, dfma, ...); the row's sass_sequence note says "
                    "what one step is in SASS");
}

AxisSpec ContentionAxis() {
  return StringAxis("contention", ContentionNames(), {"none"},
                    "atomics only: none (own address per lane), warp (one per warp), all "
                    "(one for the grid)");
}

absl::Status LatencyContentionMeasured(absl::string_view contention) {
  if (contention != "all") return absl::OkStatus();
  return Skipped(
      "contention=all is measured by instruction_throughput: the latency chain runs on one warp");
}

Contention ParseContention(absl::string_view contention) {
  return contention == "warp"  ? Contention::kWarp
         : contention == "all" ? Contention::kAll
                               : Contention::kNone;
}

absl::Status ValidateContention(absl::string_view op, absl::string_view contention) {
  if (contention == "none") return absl::OkStatus();
  const absl::StatusOr<InstructionOpInfo> info = FindInstructionOp(op);
  if (info.ok() && IsAtomicOp(info->op)) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("contention=", contention, " applies to atom_* ops only, not op=", op));
}

}  // namespace dissect
