// What every tensor-core probe kernel reports per warp (mma.sync) or per
// warpgroup (wgmma), a WarpTiming (kernels/warp_timing.h), and how the
// probes shape their launches.
#ifndef DISSECT_KERNELS_TENSOR_TENSOR_TIMING_H_
#define DISSECT_KERNELS_TENSOR_TENSOR_TIMING_H_

#include <cstdint>

#include "kernels/warp_timing.h"

namespace dissect {

// The %clock64 span of the timed loop, the SM, and whether the running GPU
// had code for the instruction in this binary.
using TensorTiming = WarpTiming;

// Every probe kernel runs this many untimed steps per chain and operand
// fragment (the same instruction, accumulating from zero) before its first
// clock read, so that the operand loads have completed and the accumulators
// hold values before the clock starts: ptxas otherwise moves the fragment
// loads and the accumulator zeroing after the first clock read, into the
// timed region. The output of a launch with `iterations` timed
// steps per chain holds iterations + UntimedSteps(operands) products per
// chain. The first timed step may still wait for the untimed ones to
// retire: at most a few instruction latencies in the span, under 0.1 % of
// the shortest timed loop.
inline constexpr int kUntimedSteps = 1;

// Where a probe's timed loop takes its A and B operands from.
enum class TensorOperands {
  // One fragment (registers, or one shared-memory tile each) for every
  // step: the multipliers see the same inputs at every instruction, which
  // draws less power than a GEMM, whose inputs change every instruction,
  // so a power-capped GPU may hold a higher clock than on a GEMM.
  kConstant,
  // kCyclingFragments fragments of different random data, used in turn:
  // consecutive instructions of a warp read different A and B, as in a
  // GEMM's main loop.
  kCycling,
};

inline constexpr int kCyclingFragments = 4;

constexpr int OperandFragments(TensorOperands operands) {
  return operands == TensorOperands::kCycling ? kCyclingFragments : 1;
}

// Untimed steps per chain: kUntimedSteps per fragment, so that every
// fragment's loads are consumed before the clock starts.
constexpr int UntimedSteps(TensorOperands operands) {
  return kUntimedSteps * OperandFragments(operands);
}

// How a probe launch is shaped.
enum class TensorMode {
  kLatency,     // one warp (warpgroup), one dependent accumulator chain
  kThroughput,  // every SM full of warps, independent accumulators each
};

}  // namespace dissect

#endif  // DISSECT_KERNELS_TENSOR_TENSOR_TIMING_H_
