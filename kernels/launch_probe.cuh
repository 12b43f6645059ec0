// Device code of the launch-overhead probe (host interface:
// kernels/launch_probe.h): an empty kernel, a start stamp, and the clock
// handshake kernel.
#ifndef DISSECT_KERNELS_LAUNCH_PROBE_CUH_
#define DISSECT_KERNELS_LAUNCH_PROBE_CUH_

#include <cstdint>

#include "kernels/device_clock.cuh"
#include "kernels/launch_probe.h"

namespace dissect {

__global__ void EmptyKernel() {}

// The %globaltimer read comes before anything else the kernel does, so the
// stamp is the kernel's start as near as a kernel can see it.
__global__ void StartStampKernel(uint64_t* start_ns) {
  const uint64_t now = ReadGlobalTimerNs();
  if (threadIdx.x == 0) *start_ns = now;
}

// The smallest step between differing %globaltimer reads over `changes`
// changes, or ~0 if the timer did not change within 2^24 reads.
__device__ __forceinline__ uint64_t GlobalTimerStepNs(int changes) {
  uint64_t previous = ReadGlobalTimerNs();
  uint64_t step = ~uint64_t{0};
  for (int seen = 0, reads = 0; seen < changes && reads < (1 << 24); ++reads) {
    const uint64_t now = ReadGlobalTimerNs();
    if (now != previous) {
      step = now - previous < step ? now - previous : step;
      previous = now;
      ++seen;
    }
  }
  return step;
}

// One thread. The timer read that answers a round follows the loop whose
// exit depends on the loaded request, so it cannot be issued before the
// request arrived; the reply is written after a system fence, so the host
// sees device_ns[r - 1] before it sees reply == r.
__global__ void ClockHandshakeKernel(ClockHandshakeSlots* slots, int rounds,
                                     uint64_t timeout_ns) {
  volatile ClockHandshakeSlots* shared = slots;
  shared->timer_step_ns = GlobalTimerStepNs(16);
  __threadfence_system();
  for (uint32_t round = 1; round <= static_cast<uint32_t>(rounds); ++round) {
    const uint64_t deadline = ReadGlobalTimerNs() + timeout_ns;
    uint32_t request = shared->request;
    while (request != round && request != kHandshakeAbort && ReadGlobalTimerNs() < deadline) {
      request = shared->request;
    }
    if (request != round) return;
    shared->device_ns[round - 1] = ReadGlobalTimerNs();
    __threadfence_system();
    shared->reply = round;
  }
}

}  // namespace dissect

#endif  // DISSECT_KERNELS_LAUNCH_PROBE_CUH_
