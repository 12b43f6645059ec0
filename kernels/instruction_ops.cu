// The instruction kernels: InstructionLatencyKernel<Op> times one dependent
// chain of Op (kernels/instruction_ops.cuh) in the chase's timed core;
// InstructionThroughputKernel<Op, kChains> runs kChains independent chains
// per thread on full SMs. See instruction_ops.h.
#include <type_traits>

#include "kernels/device_clock.cuh"
#include "kernels/instruction_ops.cuh"
#include "kernels/timed_chase.cuh"

namespace dissect {
namespace {

// One thread (one warp for a warp-level op, lane l starting at seed + l, its
// lanes converged: they read the same clocks and write the same timing; 8
// warps for bar_sync, each of which times the same barriers and writes its
// timing, one of them last):
// kInstructionWarmupOps untimed steps, then RunTimedChase's two
// segments of chain_length and 2 x chain_length steps, kInstructionUnroll
// steps a loop trip (the loop's per-trip cost, which the slope carries,
// spread over that many steps). Its clock reads
// wait for the chain (WaitFor): the first for the warm-up's last result,
// so the seed and operands are in registers before the clock starts; the
// second of each segment for the segment's last result, so each segment
// holds its ops' full latency. The chain's last value is stored (sink),
// which keeps it live and lets the host check it against its own model.
template <class Op>
__device__ __forceinline__ void TimeLatency(const InstructionOperands& operands,
                                            const LatencySetup& setup, uint64_t chain_length,
                                            ChaseTiming* out, uint32_t* words) {
  using Bits = typename Op::Bits;
  // An atomic's word: its thread's own, or word 0 for the warp's lanes
  // (contention warp). Chosen at run time: with a word ptxas can prove
  // uniform it turns an atomic into a warp-aggregated one (VOTE, SHFL scan,
  // one atomic for the warp).
  static_assert(LatencyThreads<Op>::value <= kMaxLatencyThreads, "the host's words per launch");
  __shared__ uint32_t shared_words[LatencyThreads<Op>::value < 32 ? 32 : LatencyThreads<Op>::value];
  const uint32_t word = setup.contention == Contention::kNone ? threadIdx.x : 0;
  Op op;
  BindWords(op, &shared_words[word], &words[word]);
  const Bits a = static_cast<Bits>(operands.a);
  const Bits b = static_cast<Bits>(operands.b);
  const auto step = [&](Bits x) { return op(x, a, b); };
  const Bits start = static_cast<Bits>(operands.seed + threadIdx.x * setup.seed_stride);
  const Bits last =
      RunTimedChase<kInstructionUnroll>(step, start, kInstructionWarmupOps, chain_length, out);
  if (threadIdx.x == 0 && blockIdx.x == 0) out->sink = static_cast<unsigned long long>(last);
}

template <class Op>
__global__ void InstructionLatencyKernel(InstructionOperands operands, LatencySetup setup,
                                         uint64_t chain_length, ChaseTiming* out, uint32_t* words) {
  TimeLatency<Op>(operands, setup, chain_length, out, words);
}

// The same for barrier_cluster, whose blocks are a cluster of 2 at compile
// time (with a cluster size known only at launch, ptxas wraps every barrier
// in branches and adds a BAR.SYNC); a stub below sm_90, whose device pass
// does not accept the attribute.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#define DISSECT_CLUSTER_OF_2
#else
#define DISSECT_CLUSTER_OF_2 __cluster_dims__(2, 1, 1)
#endif
template <class Op>
__global__ void DISSECT_CLUSTER_OF_2 InstructionClusterLatencyKernel(InstructionOperands operands,
                                                                     LatencySetup setup,
                                                                     uint64_t chain_length,
                                                                     ChaseTiming* out,
                                                                     uint32_t* words) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  TimeLatency<Op>(operands, setup, chain_length, out, words);
#endif
}

// Every thread runs kChains independent chains (chain c of thread t starts
// at seed + (t * kChains + c) x seed_stride: with a stride, distinct values,
// so ptxas cannot merge chains; the stride is a kernel argument), one untimed step each, then
// `iterations` timed steps each, interleaved so that consecutive instructions are independent,
// kInstructionUnroll x kChains a loop trip (the loop's few instructions take few issue slots). Lane
// 0 of each warp reads %clock64 around the timed loop: the start after the last chain's untimed
// step has returned (WaitFor; the earlier chains' steps issued before it), the stop after its last
// timed step has returned (the other chains' last steps issued before it, in order). The per-SM
// span of the warps' records over their ops is the SM's rate.
template <class Op, int kChains>
__global__ void __launch_bounds__(kThroughputBlockThreads)
    InstructionThroughputKernel(InstructionOperands operands, uint64_t seed_stride,
                                Contention contention, uint64_t iterations, WarpTiming* timing,
                                unsigned long long* sink, uint32_t* words) {
  using Bits = typename Op::Bits;
  __shared__ uint32_t shared_words[kThroughputBlockThreads * kChains];
  const Bits a = static_cast<Bits>(operands.a);
  const Bits b = static_cast<Bits>(operands.b);
  const uint64_t thread = blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x;
  Op op[kChains];
  Bits x[kChains];
#pragma unroll
  for (int c = 0; c < kChains; ++c) {
    // Contention none: the chain's own word (OwnAtomicWord: one instruction's lanes on 32 banks,
    // one global line); warp: the warp's word for this chain; all: one word.
    const auto own_word = [&](uint64_t t) { return OwnAtomicWord(t, c, kChains); };
    const uint32_t shared_index = contention == Contention::kNone   ? own_word(threadIdx.x)
                                  : contention == Contention::kWarp ? threadIdx.x / 32 * kChains + c
                                                                    : 0;
    const uint64_t global_index = contention == Contention::kNone   ? own_word(thread)
                                  : contention == Contention::kWarp ? thread / 32 * kChains + c
                                                                    : 0;
    BindWords(op[c], &shared_words[shared_index], &words[global_index]);
    x[c] = op[c](static_cast<Bits>(operands.seed + (thread * kChains + c) * seed_stride), a, b);
  }
  WaitFor(static_cast<uint32_t>(x[kChains - 1]));
  const uint64_t start = ReadClock64();
#pragma unroll 1
  for (uint64_t k = 0; k < iterations / kInstructionUnroll; ++k) {
#pragma unroll
    for (int u = 0; u < kInstructionUnroll; ++u) {
#pragma unroll
      for (int c = 0; c < kChains; ++c) x[c] = op[c](x[c], a, b);
    }
  }
  WaitFor(static_cast<uint32_t>(x[kChains - 1]));
  const uint64_t stop = ReadClock64();
  if (threadIdx.x % 32 == 0) {
    timing[thread / 32] = WarpTiming{start, stop, ReadSmId(), 1};
  }
#pragma unroll
  for (int c = 0; c < kChains; ++c) {
    sink[thread * kChains + c] = static_cast<unsigned long long>(x[c]);
  }
}

// Calls f(std::integral_constant<int, N>{}) for chains == N of
// kThroughputChains; cudaErrorInvalidValue otherwise.
template <class F>
cudaError_t WithChains(int chains, F&& f) {
  switch (chains) {
    case 1:
      return f(std::integral_constant<int, 1>{});
    case 2:
      return f(std::integral_constant<int, 2>{});
    case 4:
      return f(std::integral_constant<int, 4>{});
    case 8:
      return f(std::integral_constant<int, 8>{});
  }
  return cudaErrorInvalidValue;
}

}  // namespace

cudaError_t LaunchInstructionLatency(const InstructionLatencyArgs& args, cudaStream_t stream) {
  if (args.chain_length == 0 || args.chain_length % kInstructionUnroll != 0) {
    return cudaErrorInvalidValue;
  }
  return WithInstructionOp(args.op, [&](auto op) {
    using Op = decltype(op);
    if constexpr (ClusterBlocks<Op>::value > 0) {
      static_assert(ClusterBlocks<Op>::value == 2, "the kernel's __cluster_dims__");
      InstructionClusterLatencyKernel<Op><<<2, LatencyThreads<Op>::value, 0, stream>>>(
          args.operands, args.setup, args.chain_length, args.out, args.words);
      return cudaGetLastError();
    } else {
      // A contended atomic's chain runs on a warp (its lanes share the word).
      const int threads =
          args.setup.contention == Contention::kWarp ? 32 : LatencyThreads<Op>::value;
      InstructionLatencyKernel<Op><<<1, threads, 0, stream>>>(
          args.operands, args.setup, args.chain_length, args.out, args.words);
      return cudaGetLastError();
    }
  });
}

cudaError_t LaunchInstructionThroughput(const InstructionThroughputArgs& args,
                                        cudaStream_t stream) {
  if (args.iterations == 0 || args.iterations % kInstructionUnroll != 0 || args.blocks < 1) {
    return cudaErrorInvalidValue;
  }
  return WithInstructionOp(args.op, [&](auto op) {
    // A cluster barrier outside a cluster launch has no partner blocks.
    if (ClusterBlocks<decltype(op)>::value > 0) return cudaErrorInvalidValue;
    return WithChains(args.chains, [&](auto chains) {
      InstructionThroughputKernel<decltype(op), decltype(chains)::value>
          <<<args.blocks, kThroughputBlockThreads, 0, stream>>>(args.operands, args.seed_stride,
                                                                args.contention, args.iterations,
                                                                args.timing, args.sink, args.words);
      return cudaGetLastError();
    });
  });
}

cudaError_t ThroughputBlocksPerSm(InstructionOp op, int chains, int* blocks) {
  return WithInstructionOp(op, [&](auto o) {
    return WithChains(chains, [&](auto c) {
      return cudaOccupancyMaxActiveBlocksPerMultiprocessor(
          blocks, InstructionThroughputKernel<decltype(o), decltype(c)::value>,
          kThroughputBlockThreads, 0);
    });
  });
}

}  // namespace dissect
