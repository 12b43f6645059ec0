// Grid-stride loop bounds: a kernel's threads visit i = FirstThread(),
// FirstThread() + GridThreads(), ... over a 1-D grid of 1-D blocks.
#ifndef DISSECT_KERNELS_GRID_STRIDE_CUH_
#define DISSECT_KERNELS_GRID_STRIDE_CUH_

#include <cstddef>

namespace dissect {

// This thread's index in the grid (the first element it visits).
__device__ __forceinline__ size_t FirstThread() {
  return static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}

// The number of threads in the grid (the stride between its elements).
__device__ __forceinline__ size_t GridThreads() {
  return static_cast<size_t>(gridDim.x) * blockDim.x;
}

}  // namespace dissect

#endif  // DISSECT_KERNELS_GRID_STRIDE_CUH_
