// The timed part of a dependent chase, shared by every chase kernel
// (kernels/pointer_chase.cu, kernels/dsm/dsm.cu, kernels/l2_map/l2_map.cu):
// WaitFor, which holds the next instruction until a load has returned, and
// RunTimedChase, the warm-up lap and the kChaseSegments clock-timed segments
// whose slope is the latency per load.
#ifndef DISSECT_KERNELS_TIMED_CHASE_CUH_
#define DISSECT_KERNELS_TIMED_CHASE_CUH_

#include <cstdint>

#include "kernels/device_clock.cuh"
#include "kernels/pointer_chase.h"

namespace dissect {

// Returns once `value` has arrived: a volatile shared-memory store needs its
// operand, so what follows it (a clock read) issues only after the load that
// produced `value` has returned.
__device__ __forceinline__ void WaitFor(uint32_t value) {
  __shared__ uint32_t s_wait;
  asm volatile("st.volatile.shared.u32 [%0], %1;" ::"r"(
                   static_cast<uint32_t>(__cvta_generic_to_shared(&s_wait))),
               "r"(value)
               : "memory");
}

// The same on the whole 64-bit value.
__device__ __forceinline__ void WaitFor(unsigned long long value) {
  __shared__ unsigned long long s_wait;
  asm volatile("st.volatile.shared.u64 [%0], %1;" ::"r"(
                   static_cast<uint32_t>(__cvta_generic_to_shared(&s_wait))),
               "l"(value)
               : "memory");
}

// `warmup_loads` untimed hops from `v`, then kChaseSegments segments of
// timed_loads << s hops (a multiple of kUnroll, the hops per trip of the
// timed loops: kChaseUnroll for the chases), each between two
// %clock64 reads: the previous load has returned (WaitFor) before the clock
// starts, and the segment's last load before it stops. `step(v)` is one
// hop: a load whose address is v and whose result is the next v. Returns
// the last v, which the caller stores (ChaseTiming::sink) so that the chase
// stays live and can be checked.
template <int kUnroll = kChaseUnroll, class Step, class Value>
__device__ __forceinline__ Value RunTimedChase(const Step& step, Value v, uint64_t warmup_loads,
                                               uint64_t timed_loads, ChaseTiming* out) {
#pragma unroll 1
  for (uint64_t k = 0; k < warmup_loads; ++k) v = step(v);
  WaitFor(static_cast<uint32_t>(v));
  const uint64_t ns0 = ReadGlobalTimerNs();
  uint64_t begin = 0;
  uint64_t end = 0;
#pragma unroll
  for (int s = 0; s < kChaseSegments; ++s) {
    const uint64_t c0 = ReadClock64();
#pragma unroll 1
    for (uint64_t k = 0; k < (timed_loads << s) / kUnroll; ++k) {
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) v = step(v);
    }
    WaitFor(static_cast<uint32_t>(v));
    const uint64_t c1 = ReadClock64();
    out->cycles[s] = c1 - c0;
    if (s == 0) begin = c0;
    end = c1;
  }
  const uint64_t ns1 = ReadGlobalTimerNs();
  out->span_cycles = end - begin;
  out->span_ns = ns1 - ns0;
  return v;
}

}  // namespace dissect

#endif  // DISSECT_KERNELS_TIMED_CHASE_CUH_
