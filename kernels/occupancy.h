// How many blocks of a kernel fill every SM of the current device at once
// (full-occupancy grids of the bandwidth, ReLU and tensor probes).
#ifndef DISSECT_KERNELS_OCCUPANCY_H_
#define DISSECT_KERNELS_OCCUPANCY_H_

#include <cuda_runtime_api.h>

namespace dissect {

// SM count × resident blocks per SM of `kernel` at `threads` per block (at
// least one per SM).
cudaError_t ResidentBlocksOnDevice(const void* kernel, int threads, int* blocks);

}  // namespace dissect

#endif  // DISSECT_KERNELS_OCCUPANCY_H_
