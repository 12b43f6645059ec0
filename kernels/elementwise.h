// Host interface of the elementwise kernels (kernels/elementwise.cu).
#ifndef DISSECT_KERNELS_ELEMENTWISE_H_
#define DISSECT_KERNELS_ELEMENTWISE_H_

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace dissect {

// out[i] = max(in[i], 0) for i < n. The body moves 16 bytes per load and
// store (float4); the n % 4 tail is handled element by element. `in` and
// `out` must be 16-byte aligned (cudaMalloc memory is). `blocks` = 0 picks
// enough blocks to fill every SM.
cudaError_t LaunchRelu(const float* in, float* out, size_t n, int blocks,
                       cudaStream_t stream);

// Threads per block used by LaunchRelu.
inline constexpr int kReluThreads = 256;

// Fills p[0..n) with values uniform in [lo, hi) from a counter-based hash of
// (seed, i): reproducible and independent of the launch shape.
cudaError_t LaunchFillUniform(float* p, size_t n, uint64_t seed, float lo,
                              float hi, cudaStream_t stream);

// The value LaunchFillUniform writes at index i (for host-side checks).
float FillUniformValue(uint64_t seed, size_t i, float lo, float hi);

}  // namespace dissect

#endif  // DISSECT_KERNELS_ELEMENTWISE_H_
