// Device-side timers for in-kernel timing.
#ifndef DISSECT_KERNELS_DEVICE_CLOCK_CUH_
#define DISSECT_KERNELS_DEVICE_CLOCK_CUH_

#include <cstdint>

namespace dissect {

// SM cycle counter (PTX %clock64). Volatile with a memory clobber, so that
// the compiler keeps memory operations on their side of the read.
__device__ __forceinline__ uint64_t ReadClock64() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t) : : "memory");
  return t;
}

// Global nanosecond timer (PTX %globaltimer).
__device__ __forceinline__ uint64_t ReadGlobalTimerNs() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t) : : "memory");
  return t;
}

}  // namespace dissect

#endif  // DISSECT_KERNELS_DEVICE_CLOCK_CUH_
