// What every tensor-core probe kernel reports per warp (mma.sync) or per
// warpgroup (wgmma): the %clock64 span of its timed loop, the SM it ran on,
// and whether the running GPU had code for the instruction in this binary.
#ifndef DISSECT_KERNELS_TENSOR_TENSOR_TIMING_H_
#define DISSECT_KERNELS_TENSOR_TENSOR_TIMING_H_

#include <cstdint>

namespace dissect {

struct TensorTiming {
  unsigned long long start;  // %clock64 before the timed loop
  unsigned long long stop;   // %clock64 after it
  uint32_t smid;             // %smid
  // 1 when the kernel body was compiled for the running architecture (e.g.
  // fp8 mma needs sm_89+, wgmma sm_90a); 0 when the binary has no such code
  // and the kernel returned without timing anything.
  uint32_t built;
};

// Every probe kernel runs this many untimed steps per chain (the same
// instruction, accumulating from zero) before its first clock read, so that
// the operand loads have completed and the accumulators hold values before
// the clock starts: ptxas otherwise moves the fragment loads and the
// accumulator zeroing after the first clock read, into the timed region
// (issue 11). The output of a launch with `iterations` timed steps per chain
// holds iterations + kUntimedSteps products per chain. The first timed step
// may still wait for the untimed one to retire: at most one instruction
// latency in the span, under 0.1 % of the shortest timed loop.
inline constexpr int kUntimedSteps = 1;

// How a probe launch is shaped.
enum class TensorMode {
  kLatency,     // one warp (warpgroup), one dependent accumulator chain
  kThroughput,  // every SM full of warps, independent accumulators each
};

}  // namespace dissect

#endif  // DISSECT_KERNELS_TENSOR_TENSOR_TIMING_H_
