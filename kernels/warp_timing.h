// What a probe kernel's warp (or warpgroup) reports about its timed loop: the
// %clock64 span, the SM it ran on, and whether the running GPU had code for
// the kernel body. Throughput probes fill every SM with such warps, and the
// per-SM spans of their records give the SM's rate
// (experiments/tensor/probe_timing.h, CyclesPerInstruction).
#ifndef DISSECT_KERNELS_WARP_TIMING_H_
#define DISSECT_KERNELS_WARP_TIMING_H_

#include <cstdint>

namespace dissect {

struct WarpTiming {
  unsigned long long start;  // %clock64 before the timed loop
  unsigned long long stop;   // %clock64 after it
  uint32_t smid;             // %smid
  // 1 when the kernel body was compiled for the running architecture (e.g.
  // fp8 mma needs sm_89+, wgmma sm_90a); 0 when the binary has no such code
  // and the kernel returned without timing anything.
  uint32_t built;
};

}  // namespace dissect

#endif  // DISSECT_KERNELS_WARP_TIMING_H_
