// Device-side timers for in-kernel timing, and the SM a %clock64 value was
// read on (each SM has its own counter).
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

// The SM this thread runs on (PTX %smid).
__device__ __forceinline__ uint32_t ReadSmId() {
  uint32_t id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

}  // namespace dissect

#endif  // DISSECT_KERNELS_DEVICE_CLOCK_CUH_
