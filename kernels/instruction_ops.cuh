// The op functors of the instruction kernels (kernels/instruction_ops.cu):
// one chain step each, x = op(x, a, b), on bit patterns. Each is one inline
// PTX instruction whose result is the next step's input, so steps cannot
// overlap (latency) and ptxas, which sees neither the operands' values
// (kernel arguments) nor a way to combine two steps, emits one machine
// instruction per step; the SASS tests (experiments/instructions/sass_test)
// check that it did.
#ifndef DISSECT_KERNELS_INSTRUCTION_OPS_CUH_
#define DISSECT_KERNELS_INSTRUCTION_OPS_CUH_

#include <cstdint>

#include "kernels/instruction_ops.h"

namespace dissect {

// Threads that run one op's latency chain: 1, or a warp for the warp-level
// ops (their functors say kThreads = 32).
template <class Op, class = void>
struct LatencyThreads {
  static constexpr int value = 1;
};
template <class Op>
struct LatencyThreads<Op, decltype(void(Op::kThreads))> {
  static constexpr int value = Op::kThreads;
};

// Blocks per cluster of an op that needs a cluster launch (its functor says
// kClusterBlocks), else 0.
template <class Op, class = void>
struct ClusterBlocks {
  static constexpr int value = 0;
};
template <class Op>
struct ClusterBlocks<Op, decltype(void(Op::kClusterBlocks))> {
  static constexpr int value = Op::kClusterBlocks;
};

struct FfmaOp {
  using Bits = uint32_t;
  __device__ __forceinline__ Bits operator()(Bits x, Bits a, Bits b) const {
    float v = __uint_as_float(x);
    asm volatile("fma.rn.f32 %0, %0, %1, %2;"
                 : "+f"(v)
                 : "f"(__uint_as_float(a)), "f"(__uint_as_float(b)));
    return __float_as_uint(v);
  }
};

struct FaddOp {
  using Bits = uint32_t;
  __device__ __forceinline__ Bits operator()(Bits x, Bits a, Bits) const {
    float v = __uint_as_float(x);
    asm volatile("add.rn.f32 %0, %0, %1;" : "+f"(v) : "f"(__uint_as_float(a)));
    return __float_as_uint(v);
  }
};

struct FmulOp {
  using Bits = uint32_t;
  __device__ __forceinline__ Bits operator()(Bits x, Bits a, Bits) const {
    float v = __uint_as_float(x);
    asm volatile("mul.rn.f32 %0, %0, %1;" : "+f"(v) : "f"(__uint_as_float(a)));
    return __float_as_uint(v);
  }
};

// Two halves per register: one HFMA2 does two fp16 FMAs.
struct Hfma2Op {
  using Bits = uint32_t;
  __device__ __forceinline__ Bits operator()(Bits x, Bits a, Bits b) const {
    asm volatile("fma.rn.f16x2 %0, %0, %1, %2;" : "+r"(x) : "r"(a), "r"(b));
    return x;
  }
};

struct DfmaOp {
  using Bits = unsigned long long;
  __device__ __forceinline__ Bits operator()(Bits x, Bits a, Bits b) const {
    double v = __longlong_as_double(static_cast<long long>(x));
    asm volatile("fma.rn.f64 %0, %0, %1, %2;"
                 : "+d"(v)
                 : "d"(__longlong_as_double(static_cast<long long>(a))),
                   "d"(__longlong_as_double(static_cast<long long>(b))));
    return static_cast<Bits>(__double_as_longlong(v));
  }
};

struct ImadOp {
  using Bits = uint32_t;
  __device__ __forceinline__ Bits operator()(Bits x, Bits a, Bits b) const {
    asm volatile("mad.lo.u32 %0, %0, %1, %2;" : "+r"(x) : "r"(a), "r"(b));
    return x;
  }
};

// PTX has no three-input add: ptxas merges the two adds into one IADD3
// (x + a + x). With two operands (x + a + b) it does not on sm_80 to sm_89,
// where both come from the constant bank and one IADD3 reads one of them.
struct Iadd3Op {
  using Bits = uint32_t;
  __device__ __forceinline__ Bits operator()(Bits x, Bits a, Bits b) const {
    asm volatile("{\n\t.reg .u32 t;\n\tadd.u32 t, %0, %1;\n\tadd.u32 %0, t, %0;\n\t}"
                 : "+r"(x)
                 : "r"(a));
    return x;
  }
};

// 0x96: a ^ b ^ c.
struct Lop3Op {
  using Bits = uint32_t;
  __device__ __forceinline__ Bits operator()(Bits x, Bits a, Bits b) const {
    asm volatile("lop3.b32 %0, %0, %1, %2, 0x96;" : "+r"(x) : "r"(a), "r"(b));
    return x;
  }
};

// A funnel shift of x with itself: a rotation by a (mod 32).
struct ShfOp {
  using Bits = uint32_t;
  __device__ __forceinline__ Bits operator()(Bits x, Bits a, Bits) const {
    asm volatile("shf.l.wrap.b32 %0, %0, %0, %1;" : "+r"(x) : "r"(a));
    return x;
  }
};

struct PopcOp {
  using Bits = uint32_t;
  __device__ __forceinline__ Bits operator()(Bits x, Bits, Bits) const {
    asm volatile("popc.b32 %0, %0;" : "+r"(x));
    return x;
  }
};

// bfind.shiftamt: the shift that brings the highest set bit to bit 31,
// which is the count of leading zeros for x != 0 (0xffffffff for 0). One
// FLO.U32.SH; clz.b32 compiles to FLO.U32 and an IADD3 (31 - position).
struct ClzOp {
  using Bits = uint32_t;
  __device__ __forceinline__ Bits operator()(Bits x, Bits, Bits) const {
    asm volatile("bfind.shiftamt.u32 %0, %0;" : "+r"(x));
    return x;
  }
};

// The special-function (MUFU) ops: the .approx.ftz forms, which are one
// MUFU each (without .ftz, ptxas adds the handling of denormal inputs);
// sin.approx is an FMUL.RZ by 1/(2 pi) and a MUFU.SIN on every target.
// -1/|x|: ptxas folds rcp(rcp(x)) into x, approximate or not, and drops a
// chain of plain reciprocals; the negated absolute value is MUFU.RCP's
// operand modifier. From 3 the chain runs -1/3, -3, -1/3, ...
struct MufuRcpOp {
  using Bits = uint32_t;
  __device__ __forceinline__ Bits operator()(Bits x, Bits, Bits) const {
    asm volatile(
        "{\n\t.reg .f32 t;\n\tmov.b32 t, %0;\n\tabs.f32 t, t;\n\tneg.f32 t, t;\n\t"
        "rcp.approx.ftz.f32 t, t;\n\tmov.b32 %0, t;\n\t}"
        : "+r"(x));
    return x;
  }
};

struct MufuRsqrtOp {
  using Bits = uint32_t;
  __device__ __forceinline__ Bits operator()(Bits x, Bits, Bits) const {
    asm volatile(
        "{\n\t.reg .f32 t;\n\tmov.b32 t, %0;\n\trsqrt.approx.ftz.f32 t, t;\n\tmov.b32 %0, t;\n\t}"
        : "+r"(x));
    return x;
  }
};

// The value stays in one b32 register around the sin (and around the other
// MUFU ops): with an f32 operand ptxas rotated the registers of the second
// timed loop so that a MOV closed the loop, inside the chain (mufu_sin at
// 16 steps a trip; rcp, rsqrt, ex2 and lg2 at 128).
struct MufuSinOp {
  using Bits = uint32_t;
  __device__ __forceinline__ Bits operator()(Bits x, Bits, Bits) const {
    asm volatile(
        "{\n\t.reg .f32 t;\n\tmov.b32 t, %0;\n\tsin.approx.ftz.f32 t, t;\n\tmov.b32 %0, t;\n\t}"
        : "+r"(x));
    return x;
  }
};

// 2^-x: the chain settles near 0.64 instead of overflowing. The negation is
// MUFU.EX2's operand modifier, not an instruction.
struct MufuEx2Op {
  using Bits = uint32_t;
  __device__ __forceinline__ Bits operator()(Bits x, Bits, Bits) const {
    asm volatile(
        "{\n\t.reg .f32 t;\n\tmov.b32 t, %0;\n\tneg.f32 t, t;\n\tex2.approx.ftz.f32 t, t;\n\t"
        "mov.b32 %0, t;\n\t}"
        : "+r"(x));
    return x;
  }
};

// log2(|x|): the absolute value is MUFU.LG2's operand modifier, so that
// negative values do not end the chain in NaN.
struct MufuLg2Op {
  using Bits = uint32_t;
  __device__ __forceinline__ Bits operator()(Bits x, Bits, Bits) const {
    asm volatile(
        "{\n\t.reg .f32 t;\n\tmov.b32 t, %0;\n\tabs.f32 t, t;\n\tlg2.approx.ftz.f32 t, t;\n\t"
        "mov.b32 %0, t;\n\t}"
        : "+r"(x));
    return x;
  }
};

// The conversions read the previous result's bits as their source type.
struct F2iOp {
  using Bits = uint32_t;
  __device__ __forceinline__ Bits operator()(Bits x, Bits, Bits) const {
    asm volatile("cvt.rni.s32.f32 %0, %1;" : "=r"(x) : "f"(__uint_as_float(x)));
    return x;
  }
};

struct I2fOp {
  using Bits = uint32_t;
  __device__ __forceinline__ Bits operator()(Bits x, Bits, Bits) const {
    float v;
    asm volatile("cvt.rn.f32.s32 %0, %1;" : "=f"(v) : "r"(x));
    return __float_as_uint(v);
  }
};

struct F2fF16Op {
  using Bits = uint32_t;
  __device__ __forceinline__ Bits operator()(Bits x, Bits, Bits) const {
    float v = __uint_as_float(x);
    asm volatile("{\n\t.reg .b16 h;\n\tcvt.rn.f16.f32 h, %0;\n\tcvt.f32.f16 %0, h;\n\t}" : "+f"(v));
    return __float_as_uint(v);
  }
};

struct F2fBf16Op {
  using Bits = uint32_t;
  __device__ __forceinline__ Bits operator()(Bits x, Bits, Bits) const {
    float v = __uint_as_float(x);
    asm volatile("{\n\t.reg .b16 h;\n\tcvt.rn.bf16.f32 h, %0;\n\tcvt.f32.bf16 %0, h;\n\t}"
                 : "+f"(v));
    return __float_as_uint(v);
  }
};

// Warp-level ops: all 32 lanes run the chain together (full mask).
// shfl.idx reads lane x & 31 (the source lane is the value's low bits, so
// the step depends on the previous result twice); up, down and bfly move by
// a lanes.
struct ShflIdxOp {
  static constexpr int kThreads = 32;
  using Bits = uint32_t;
  __device__ __forceinline__ Bits operator()(Bits x, Bits, Bits) const {
    asm volatile("shfl.sync.idx.b32 %0, %0, %0, 0x1f, 0xffffffff;" : "+r"(x));
    return x;
  }
};

struct ShflUpOp {
  static constexpr int kThreads = 32;
  using Bits = uint32_t;
  __device__ __forceinline__ Bits operator()(Bits x, Bits a, Bits) const {
    asm volatile("shfl.sync.up.b32 %0, %0, %1, 0x0, 0xffffffff;" : "+r"(x) : "r"(a));
    return x;
  }
};

struct ShflDownOp {
  static constexpr int kThreads = 32;
  using Bits = uint32_t;
  __device__ __forceinline__ Bits operator()(Bits x, Bits a, Bits) const {
    asm volatile("shfl.sync.down.b32 %0, %0, %1, 0x1f, 0xffffffff;" : "+r"(x) : "r"(a));
    return x;
  }
};

struct ShflBflyOp {
  static constexpr int kThreads = 32;
  using Bits = uint32_t;
  __device__ __forceinline__ Bits operator()(Bits x, Bits a, Bits) const {
    asm volatile("shfl.sync.bfly.b32 %0, %0, %1, 0x1f, 0xffffffff;" : "+r"(x) : "r"(a));
    return x;
  }
};

// x = the mask of lanes whose x is not 0: an ISETP makes the predicate.
struct VoteBallotOp {
  static constexpr int kThreads = 32;
  using Bits = uint32_t;
  __device__ __forceinline__ Bits operator()(Bits x, Bits, Bits) const {
    asm volatile(
        "{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %0, 0;\n\tvote.sync.ballot.b32 %0, p, "
        "0xffffffff;\n\t}"
        : "+r"(x));
    return x;
  }
};

// x = a if no lane's x equals a (vote.all of x != a), else b: ISETP, VOTE.ALL
// and a SEL of the two operands, one dependent chain. (Selecting 1 or 0, or
// x itself, let ptxas see through the chain: it kept the vote's predicate
// across steps, or the SEL read x besides the vote.)
struct VoteAllOp {
  static constexpr int kThreads = 32;
  using Bits = uint32_t;
  __device__ __forceinline__ Bits operator()(Bits x, Bits a, Bits b) const {
    asm volatile(
        "{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %0, %1;\n\tvote.sync.all.pred p, p, "
        "0xffffffff;\n\tselp.u32 %0, %1, %2, p;\n\t}"
        : "+r"(x)
        : "r"(a), "r"(b));
    return x;
  }
};

// x = the mask of lanes whose x equals this lane's.
struct MatchAnyOp {
  static constexpr int kThreads = 32;
  using Bits = uint32_t;
  __device__ __forceinline__ Bits operator()(Bits x, Bits, Bits) const {
    asm volatile("match.any.sync.b32 %0, %0, 0xffffffff;" : "+r"(x));
    return x;
  }
};

// x = the sum of the warp's x (sm_80+): REDUX.SUM writes a uniform register,
// which a MOV (or IMAD.U32) brings back to the lanes.
struct ReduxAddOp {
  static constexpr int kThreads = 32;
  using Bits = uint32_t;
  __device__ __forceinline__ Bits operator()(Bits x, Bits, Bits) const {
    asm volatile("redux.sync.add.u32 %0, %0, 0xffffffff;" : "+r"(x));
    return x;
  }
};

// Atomics on a word of their own chain's (contention none): x = the word's
// old value, and the word grows by x, so each atomic's operand is the
// previous one's result. Bind gives the functor its word (one in shared
// memory, one in global memory; each op uses one) and sets it to 0, before
// the chain, by the thread that then runs the chain on it.
struct SharedWordBinding {
  uint32_t address = 0;  // in the shared window
  __device__ __forceinline__ void Bind(uint32_t* shared_word, uint32_t*) {
    *shared_word = 0;
    address = static_cast<uint32_t>(__cvta_generic_to_shared(shared_word));
  }
};

struct GlobalWordBinding {
  uint32_t* word = nullptr;
  __device__ __forceinline__ void Bind(uint32_t*, uint32_t* global_word) {
    *global_word = 0;
    word = global_word;
  }
};

struct AtomSharedAddOp : SharedWordBinding {
  using Bits = uint32_t;
  __device__ __forceinline__ Bits operator()(Bits x, Bits, Bits) const {
    asm volatile("atom.shared.add.u32 %0, [%1], %0;" : "+r"(x) : "r"(address) : "memory");
    return x;
  }
};

struct AtomGlobalAddOp : GlobalWordBinding {
  using Bits = uint32_t;
  __device__ __forceinline__ Bits operator()(Bits x, Bits, Bits) const {
    asm volatile("atom.global.add.u32 %0, [%1], %0;" : "+r"(x) : "l"(word) : "memory");
    return x;
  }
};

// A block-wide barrier (8 warps): no value passes from one step to the next,
// the barrier itself orders them (no warp leaves a barrier before every
// warp has reached it), so a chain of them takes their latency each.
struct BarSyncOp {
  static constexpr int kThreads = kMaxLatencyThreads;
  using Bits = uint32_t;
  __device__ __forceinline__ Bits operator()(Bits x, Bits, Bits) const {
    asm volatile("bar.sync 0;" ::: "memory");
    return x;
  }
};

// A cluster-wide barrier across a cluster of 2 blocks of one warp (sm_90+):
// arrive (relaxed: no memory fence before it) and wait, which acquires and
// so invalidates L1 (CCTL.IVALL). As with bar_sync, no value passes between
// steps. Below sm_90 the kernels that use it are stubs.
struct BarrierClusterOp {
  static constexpr int kThreads = 32;
  static constexpr int kClusterBlocks = 2;
  using Bits = uint32_t;
  __device__ __forceinline__ Bits operator()(Bits x, Bits, Bits) const {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("barrier.cluster.arrive.relaxed.aligned;\n\tbarrier.cluster.wait.aligned;" ::
                     : "memory");
#endif
    return x;
  }
};

// The clock op's value: kClockAccumulators accumulators, the oldest first.
// A clock read takes no input, so no read can wait for the one before it;
// each read is XORed into the oldest accumulator (ptxas drops a read whose
// value nobody uses), which then becomes the newest. The value a chain ends
// at (the XOR of the accumulators) depends on the clock and is not
// predictable; it differs from the seed's fold unless every read is lost.
struct ClockFold {
  uint32_t acc[kClockAccumulators];
  ClockFold() = default;
  __host__ __device__ explicit ClockFold(unsigned long long seed) {
#pragma unroll
    for (int i = 0; i < kClockAccumulators; ++i) acc[i] = static_cast<uint32_t>(seed) + i;
  }
  __host__ __device__ explicit operator uint32_t() const {
    uint32_t all = 0;
#pragma unroll
    for (int i = 0; i < kClockAccumulators; ++i) all ^= acc[i];
    return all;
  }
  __host__ __device__ explicit operator unsigned long long() const {
    return static_cast<uint32_t>(*this);
  }
};

// One %clock read: ptxas emits CS2R.32 R, SR_CLOCKLO for half the steps and
// a read into a uniform register for the others (S2UR; CS2UR.32 on sm_120),
// grouped ahead of the vector ones, and one LOP3.LUT folds a read of each
// kind into an accumulator. (%clock64 is a 64-bit CS2R, the form the timed
// core's own reads take, and its folds 64-bit adds.)
struct ClockOp {
  using Bits = ClockFold;
  __device__ __forceinline__ Bits operator()(const Bits& x, const Bits&, const Bits&) const {
    Bits next;
#pragma unroll
    for (int i = 0; i + 1 < kClockAccumulators; ++i) next.acc[i] = x.acc[i + 1];
    uint32_t oldest = x.acc[0];
    asm volatile("{\n\t.reg .u32 t;\n\tmov.u32 t, %%clock;\n\txor.b32 %0, %0, t;\n\t}"
                 : "+r"(oldest));
    next.acc[kClockAccumulators - 1] = oldest;
    return next;
  }
};

// Compare-and-swap on the chain's word: compares with x, swaps in a;
// x = the word's old value. ptxas reloads a into the register pair the CAS
// takes at every step (an LDC or MOV that reads no value of the chain).
struct AtomSharedCasOp : SharedWordBinding {
  using Bits = uint32_t;
  __device__ __forceinline__ Bits operator()(Bits x, Bits a, Bits) const {
    asm volatile("atom.shared.cas.b32 %0, [%1], %0, %2;"
                 : "+r"(x)
                 : "r"(address), "r"(a)
                 : "memory");
    return x;
  }
};

struct AtomGlobalCasOp : GlobalWordBinding {
  using Bits = uint32_t;
  __device__ __forceinline__ Bits operator()(Bits x, Bits a, Bits) const {
    asm volatile("atom.global.cas.b32 %0, [%1], %0, %2;" : "+r"(x) : "l"(word), "r"(a) : "memory");
    return x;
  }
};

// Binds an atomic functor to its words (Op::Bind); the other ops have none.
template <class Op>
__device__ __forceinline__ auto BindWords(Op& op, uint32_t* shared_word, uint32_t* global_word)
    -> decltype(op.Bind(shared_word, global_word)) {
  op.Bind(shared_word, global_word);
}
__device__ __forceinline__ void BindWords(...) {}

// Calls f(Op{}) with the functor of `op`; cudaErrorInvalidValue for an op
// without one.
template <class F>
__host__ cudaError_t WithInstructionOp(InstructionOp op, F&& f) {
  switch (op) {
    case InstructionOp::kFfma:
      return f(FfmaOp{});
    case InstructionOp::kFadd:
      return f(FaddOp{});
    case InstructionOp::kFmul:
      return f(FmulOp{});
    case InstructionOp::kHfma2:
      return f(Hfma2Op{});
    case InstructionOp::kDfma:
      return f(DfmaOp{});
    case InstructionOp::kImad:
      return f(ImadOp{});
    case InstructionOp::kIadd3:
      return f(Iadd3Op{});
    case InstructionOp::kLop3:
      return f(Lop3Op{});
    case InstructionOp::kShf:
      return f(ShfOp{});
    case InstructionOp::kPopc:
      return f(PopcOp{});
    case InstructionOp::kClz:
      return f(ClzOp{});
    case InstructionOp::kMufuRcp:
      return f(MufuRcpOp{});
    case InstructionOp::kMufuRsqrt:
      return f(MufuRsqrtOp{});
    case InstructionOp::kMufuSin:
      return f(MufuSinOp{});
    case InstructionOp::kMufuEx2:
      return f(MufuEx2Op{});
    case InstructionOp::kMufuLg2:
      return f(MufuLg2Op{});
    case InstructionOp::kF2i:
      return f(F2iOp{});
    case InstructionOp::kI2f:
      return f(I2fOp{});
    case InstructionOp::kF2fF16:
      return f(F2fF16Op{});
    case InstructionOp::kF2fBf16:
      return f(F2fBf16Op{});
    case InstructionOp::kShflIdx:
      return f(ShflIdxOp{});
    case InstructionOp::kShflUp:
      return f(ShflUpOp{});
    case InstructionOp::kShflDown:
      return f(ShflDownOp{});
    case InstructionOp::kShflBfly:
      return f(ShflBflyOp{});
    case InstructionOp::kVoteBallot:
      return f(VoteBallotOp{});
    case InstructionOp::kVoteAll:
      return f(VoteAllOp{});
    case InstructionOp::kMatchAny:
      return f(MatchAnyOp{});
    case InstructionOp::kReduxAdd:
      return f(ReduxAddOp{});
    case InstructionOp::kAtomSharedAdd:
      return f(AtomSharedAddOp{});
    case InstructionOp::kAtomGlobalAdd:
      return f(AtomGlobalAddOp{});
    case InstructionOp::kAtomSharedCas:
      return f(AtomSharedCasOp{});
    case InstructionOp::kAtomGlobalCas:
      return f(AtomGlobalCasOp{});
    case InstructionOp::kBarSync:
      return f(BarSyncOp{});
    case InstructionOp::kBarrierCluster:
      return f(BarrierClusterOp{});
    case InstructionOp::kClock:
      return f(ClockOp{});
  }
  return cudaErrorInvalidValue;
}

}  // namespace dissect

#endif  // DISSECT_KERNELS_INSTRUCTION_OPS_CUH_
