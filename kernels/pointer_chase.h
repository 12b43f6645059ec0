// Host interface of the pointer-chase kernels (kernels/pointer_chase.cu).
#ifndef DISSECT_KERNELS_POINTER_CHASE_H_
#define DISSECT_KERNELS_POINTER_CHASE_H_

#include <cuda_runtime_api.h>

#include <cstdint>

namespace dissect {

// What one timed chase measured, written by the kernel's single timing thread.
struct ChaseTiming {
  unsigned long long cycles;       // %clock64 delta over the timed loads
  unsigned long long nanoseconds;  // %globaltimer delta over the same loads
  uint32_t sink;                   // final index: keeps the chase live
  uint32_t pad;
};

struct SharedChaseArgs {
  const uint32_t* chain = nullptr;  // device copy of a chain of word indices
  uint32_t words = 0;               // chain length in 32-bit words
  uint64_t warmup_loads = 0;        // untimed loads before the clock starts
  uint64_t timed_loads = 0;         // loads between the two clock reads
  ChaseTiming* out = nullptr;       // device pointer
};

// One block: all threads copy the chain into dynamic shared memory (as byte
// offsets), then thread 0 chases it: warm-up loads, clock read, timed
// dependent ld.shared loads, clock read. words * 4 bytes of dynamic shared
// memory must fit the device's opt-in limit.
cudaError_t LaunchSharedChase(const SharedChaseArgs& args, cudaStream_t stream);

}  // namespace dissect

#endif  // DISSECT_KERNELS_POINTER_CHASE_H_
