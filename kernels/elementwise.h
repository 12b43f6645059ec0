// Host interface of the elementwise kernels (kernels/elementwise.cu).
#ifndef DISSECT_KERNELS_ELEMENTWISE_H_
#define DISSECT_KERNELS_ELEMENTWISE_H_

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace dissect {

// Threads per block used by LaunchRelu.
inline constexpr int kReluThreads = 256;

// out[i] = max(in[i], 0) for i < n, with `blocks` blocks (from
// ReluGridBlocks). Where `in` and `out` are both 16-byte aligned (cudaMalloc
// memory is), the body moves 16 bytes per load and store (float4), each
// thread issuing 4 loads before their stores, and the n % 4 tail is done
// element by element; otherwise the same loop runs on single floats. Does
// nothing but the launch (no queries): it is what relu_bandwidth times.
// cudaErrorInvalidValue for blocks < 1 or a null pointer (n > 0).
cudaError_t LaunchRelu(const float* in, float* out, size_t n, int blocks, cudaStream_t stream);

// The grid LaunchRelu should use for n floats: enough blocks to fill every
// SM of the current device, fewer when n has fewer tiles (4 float4 per
// thread) than that. Call it once, outside the timed launches.
cudaError_t ReluGridBlocks(size_t n, int* blocks);

// Fills p[0..n) with values uniform in [lo, hi) from a counter-based hash of
// (seed, i): reproducible and independent of the launch shape.
cudaError_t LaunchFillUniform(float* p, size_t n, uint64_t seed, float lo, float hi,
                              cudaStream_t stream);

// The value LaunchFillUniform writes at index i (for host-side checks).
float FillUniformValue(uint64_t seed, size_t i, float lo, float hi);

}  // namespace dissect

#endif  // DISSECT_KERNELS_ELEMENTWISE_H_
