// Shared-memory limits of real devices as CUDA reports them (cudaDeviceProp
// sharedMemPerMultiprocessor, sharedMemPerBlockOptin,
// reservedSharedMemPerBlock), for tests of the one-block-per-SM arithmetic
// (cluster_support.h) without a GPU. kernel_static is 0: a test sets its
// kernel's own.
#ifndef DISSECT_EXPERIMENTS_SHARING_SHARED_MEMORY_LIMITS_H_
#define DISSECT_EXPERIMENTS_SHARING_SHARED_MEMORY_LIMITS_H_

#include "experiments/sharing/cluster_support.h"

namespace dissect {

// H100 SXM: 228 KiB an SM, 227 KiB a block, 1 KiB reserved for each block.
inline SmSharedMemory H100SharedMemory() { return {233472, 232448, 1024, 0}; }
// A100: 164 and 163 KiB, 1 KiB reserved for each block.
inline SmSharedMemory A100SharedMemory() { return {167936, 166912, 1024, 0}; }

}  // namespace dissect

#endif  // DISSECT_EXPERIMENTS_SHARING_SHARED_MEMORY_LIMITS_H_
