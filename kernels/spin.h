// Host interface of the spin kernel (kernels/spin.cu): a kernel of known,
// chosen duration, for checking timing methods against each other.
#ifndef DISSECT_KERNELS_SPIN_H_
#define DISSECT_KERNELS_SPIN_H_

#include <cuda_runtime_api.h>

#include <cstdint>

namespace dissect {

// Launches `blocks` blocks of 32 threads; each thread spins reading
// %globaltimer until `duration_ns` have passed since it started, then writes
// the number of timer reads it made to spins[block * 32 + thread] (so that
// `spins` must hold 32 * blocks values). The kernel lasts about
// `duration_ns` plus the launch and scheduling overhead (the blocks run
// concurrently when blocks <= the SM count).
cudaError_t LaunchSpin(uint64_t duration_ns, int blocks, uint64_t* spins,
                       cudaStream_t stream);

// Threads per block used by LaunchSpin.
inline constexpr int kSpinThreads = 32;

}  // namespace dissect

#endif  // DISSECT_KERNELS_SPIN_H_
