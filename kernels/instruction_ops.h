// Host interface of the instruction latency and throughput kernels
// (kernels/instruction_ops.cu): one op functor per instruction
// (kernels/instruction_ops.cuh) applied in a dependent chain, one thread
// timing the chain's latency, or `chains` independent chains per thread on
// full SMs for its throughput.
#ifndef DISSECT_KERNELS_INSTRUCTION_OPS_H_
#define DISSECT_KERNELS_INSTRUCTION_OPS_H_

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/pointer_chase.h"
#include "kernels/warp_timing.h"

namespace dissect {

// The instructions the kernels time, one op functor each. Every value is
// carried as its bit pattern (32 bits; 64 for kDfma).
enum class InstructionOp : int {
  kFfma,   // fma.rn.f32       x = x * a + b
  kFadd,   // add.rn.f32       x = x + a
  kFmul,   // mul.rn.f32       x = x * a
  kHfma2,  // fma.rn.f16x2     x = x * a + b, both halves
  kDfma,   // fma.rn.f64       x = x * a + b
  kImad,   // mad.lo.u32       x = x * a + b
  kIadd3,  // add.u32 twice    x = x + a + x, one three-input add
  kLop3,   // lop3.b32 0x96    x = x ^ a ^ b
  kShf,    // shf.l.wrap.b32   x = x rotated left by a
  kPopc,   // popc.b32         x = number of set bits of x
  kClz,    // bfind.shiftamt   x = leading zeros of x (0xffffffff for 0)
  // The special-function unit, approximate forms (one MUFU each, .ftz).
  kMufuRcp,    // rcp.approx       x = -1 / |x|
  kMufuRsqrt,  // rsqrt.approx     x = 1 / sqrt(x)
  kMufuSin,    // sin.approx       x = sin(x)
  kMufuEx2,    // ex2.approx       x = 2^-x
  kMufuLg2,    // lg2.approx       x = log2(|x|)
  // Conversions; the f16 and bf16 ones round-trip back to f32.
  kF2i,      // cvt.rni.s32.f32  x = the nearest integer to the float x
  kI2f,      // cvt.rn.f32.s32   x = the float nearest the integer x
  kF2fF16,   // cvt.rn.f16.f32, cvt.f32.f16
  kF2fBf16,  // cvt.rn.bf16.f32, cvt.f32.bf16
  // Warp-level: one warp runs the latency chain.
  kShflIdx,     // shfl.sync.idx    x = x of lane x & 31
  kShflUp,      // shfl.sync.up     x = x of lane - a (own below a)
  kShflDown,    // shfl.sync.down   x = x of lane + a (own from 32 - a)
  kShflBfly,    // shfl.sync.bfly   x = x of lane ^ a
  kVoteBallot,  // vote.sync.ballot x = mask of lanes with x != 0
  kVoteAll,     // vote.sync.all    x = a if every lane's x != a, else b
  kMatchAny,    // match.any.sync   x = mask of lanes with an equal x
  kReduxAdd,    // redux.sync.add   x = sum of the warp's x
  // Atomics on the chain's own word w (0 at first): x = w, w += x.
  kAtomSharedAdd,  // atom.shared.add.u32
  kAtomGlobalAdd,  // atom.global.add.u32
  // x = w, and w = a where w equaled x.
  kAtomSharedCas,   // atom.shared.cas.b32
  kAtomGlobalCas,   // atom.global.cas.b32
  kBarSync,         // bar.sync 0 on a block of 8 warps; x unchanged
  kBarrierCluster,  // barrier.cluster arrive + wait, 2 blocks of a warp; x unchanged
  // mov.u32 %clock, one read a step XORed into the oldest of
  // kClockAccumulators accumulators (ClockFold): no read depends on another.
  kClock,
};

// Accumulators the clock op's reads are folded into, in turn: each folding
// LOP3 waits for the one kClockAccumulators reads before it, not for the
// previous read's, so the fold does not bound the reads' interval.
inline constexpr int kClockAccumulators = 8;

// What a chain starts from and reads besides itself, as bit patterns (the
// low 32 bits for 32-bit ops): kernel arguments, so that ptxas cannot fold
// the chain into constants.
struct InstructionOperands {
  unsigned long long seed = 0;  // the chain's first value
  unsigned long long a = 0;
  unsigned long long b = 0;
};

// Ops per trip of the timed loops (their unroll factor; per chain in the
// throughput loop). Each trip also runs the loop's counter, compare and
// branch, whose cost (and the branch's refetch) lands between the trip's
// last op and the next trip's first in a dependent chain and grows with
// chain_length, so the latency slope carries it once per trip: on an H100,
// 16 ops a trip gave FFMA 4.69 cycles, ~11 cycles a trip above a 4-cycle
// op. At 128 ops a trip that cost adds at most ~11 / 128 = 0.09 cycles per
// op. The latency kernel runs the chase's timed core
// (kernels/timed_chase.cuh) with this unroll.
inline constexpr int kInstructionUnroll = 128;

// Untimed ops before the first latency segment: they leave the clock reads'
// and the loop's instructions issued and the seed loaded.
inline constexpr uint64_t kInstructionWarmupOps = 64;

// Which lanes share an atomic's word: none (a word per chain), the warp's
// lanes (a word per warp and chain; the latency kernel then runs a warp),
// or all (throughput only: one word, the grid's for global atomics, the
// block's for shared ones). Where
// lanes share a word, the host starts every chain at 0 with a = 0, so that
// each lane's values do not depend on the order the hardware serves them.
enum class Contention : int { kNone = 0, kWarp = 1, kAll = 2 };

// How the latency kernel's threads start: lane l at seed + l x seed_stride,
// and which of them share an atomic's word.
struct LatencySetup {
  uint64_t seed_stride = 1;
  Contention contention = Contention::kNone;
};

struct InstructionLatencyArgs {
  InstructionOp op = InstructionOp::kFfma;
  InstructionOperands operands;
  LatencySetup setup;
  // Ops of segment 0 (segment 1 has twice as many): a positive multiple of
  // kInstructionUnroll.
  uint64_t chain_length = 0;
  // Device pointer: cycles per segment, the clock span, and as `sink` the
  // chain's last value (after kInstructionWarmupOps + 3 x chain_length ops).
  ChaseTiming* out = nullptr;
  // Device, kMaxLatencyThreads words: an atomic chain's global word is
  // words[thread].
  uint32_t* words = nullptr;
};

// The most threads a latency block has (bar_sync's 8 warps).
inline constexpr int kMaxLatencyThreads = 256;

// One block of one thread (a warp for the warp-level ops, whose lanes start
// at seed + lane and whose lane 0 stores the sink; 8 warps for bar_sync; a
// cluster of 2 one-warp blocks for barrier_cluster).
cudaError_t LaunchInstructionLatency(const InstructionLatencyArgs& args, cudaStream_t stream);

// Independent chains per thread the throughput kernel is built for.
inline constexpr int kThroughputChains[] = {1, 2, 4, 8};

// Threads of a throughput block (4 warps: one per SM sub-partition).
inline constexpr int kThroughputBlockThreads = 128;

// The word chain `chain` of `thread` (of `chains` a thread) owns at
// contention none, among the warps' words (shared: threadIdx.x of the
// block's; global: the thread's index in the grid): chain-major within each
// warp, ((thread / 32) x chains + chain) x 32 + lane. One instruction steps
// one chain of all 32 lanes, and they touch 32 consecutive words: 32
// different shared-memory banks (32 banks of 4 bytes) and, in global memory
// (cudaMalloc aligns to 256 bytes), one 128-byte line of 4 32-byte sectors,
// as at 1 chain. A thread-major layout (thread x chains + chain) would put
// lanes l and l + 32 / chains in one bank (a chains-way bank conflict) and
// spread each instruction over chains x 4 sectors, slowing the atomics as
// chains grow.
inline constexpr uint64_t OwnAtomicWord(uint64_t thread, int chain, int chains) {
  return (thread / 32 * chains + chain) * 32 + thread % 32;
}

struct InstructionThroughputArgs {
  InstructionOp op = InstructionOp::kFfma;
  // Chain c of thread t starts at seed + (t * chains + c) x seed_stride.
  InstructionOperands operands;
  uint64_t seed_stride = 1;
  Contention contention = Contention::kNone;
  int chains = 1;  // one of kThroughputChains
  // Ops per chain in the timed loop: a positive multiple of
  // kInstructionUnroll. One untimed op per chain precedes it.
  uint64_t iterations = 0;
  int blocks = 0;  // of kThroughputBlockThreads threads
  // Device pointers: one record per warp (clock span and SM), and every
  // chain's last value, thread-major (t * chains + c).
  WarpTiming* timing = nullptr;
  unsigned long long* sink = nullptr;
  // Device: the global words of atomic chains, one per chain
  // (OwnAtomicWord at contention none; at warp, one per warp and chain).
  uint32_t* words = nullptr;
};

cudaError_t LaunchInstructionThroughput(const InstructionThroughputArgs& args, cudaStream_t stream);

// Blocks of the throughput kernel of (op, chains) one SM holds at once.
cudaError_t ThroughputBlocksPerSm(InstructionOp op, int chains, int* blocks);

}  // namespace dissect

#endif  // DISSECT_KERNELS_INSTRUCTION_OPS_H_
