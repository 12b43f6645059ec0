// Device helpers shared by the tensor-core probe kernels.
#ifndef DISSECT_KERNELS_TENSOR_TENSOR_DEVICE_CUH_
#define DISSECT_KERNELS_TENSOR_TENSOR_DEVICE_CUH_

#include <cuda_fp16.h>

#include <cstdint>

#include "kernels/device_clock.cuh"
#include "kernels/tensor/tensor_timing.h"

namespace dissect {

// Accumulator element `e` of a register file `acc` as a 32-bit word for the
// host: f32 and s32 unchanged, packed f16 pairs widened to f32.
template <typename Acc>
__device__ __forceinline__ float AccumulatorAsFloat(const Acc* acc, int e);

template <>
__device__ __forceinline__ float AccumulatorAsFloat<float>(const float* acc, int e) {
  return acc[e];
}

// Packed f16x2 registers: element e is the low (even e) or high half of
// register e / 2.
template <>
__device__ __forceinline__ float AccumulatorAsFloat<uint32_t>(const uint32_t* acc, int e) {
  const uint32_t word = acc[e / 2];
  const unsigned short half = static_cast<unsigned short>(e % 2 ? word >> 16 : word);
  return __half2float(__ushort_as_half(half));
}

// Whether this compilation pass targets an architecture of at least
// `min_arch` (e.g. 89 for fp8 mma); false in the host pass.
__host__ __device__ constexpr bool ArchAtLeast(int min_arch) {
#if defined(__CUDA_ARCH__)
  return __CUDA_ARCH__ >= min_arch * 10;
#else
  return false;
#endif
}

}  // namespace dissect

#endif  // DISSECT_KERNELS_TENSOR_TENSOR_DEVICE_CUH_
