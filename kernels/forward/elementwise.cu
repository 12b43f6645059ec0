// FATReLU and the residual add of the forward pass; see elementwise.h.
#include <algorithm>

#include "kernels/forward/elementwise.h"

namespace dissect::forward {
namespace {

constexpr int kThreads = 256;
// Grid-stride loops over at most this many blocks (enough to fill any GPU).
constexpr size_t kMaxBlocks = 8192;

__global__ void __launch_bounds__(kThreads)
    FatReluKernel(const float* in, float* out, size_t n, float threshold) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const float x = in[i];
    out[i] = x > threshold ? x : 0.0f;
  }
}

__global__ void __launch_bounds__(kThreads)
    AddKernel(const float* a, const float* b, float* out, size_t n) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    out[i] = a[i] + b[i];
  }
}

unsigned Blocks(size_t n) {
  return static_cast<unsigned>(
      std::max<size_t>(1, std::min(kMaxBlocks, (n + kThreads - 1) / kThreads)));
}

}  // namespace

cudaError_t LaunchFatRelu(const float* in, float* out, size_t n, float threshold,
                          cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  FatReluKernel<<<Blocks(n), kThreads, 0, stream>>>(in, out, n, threshold);
  return cudaGetLastError();
}

cudaError_t LaunchAdd(const float* a, const float* b, float* out, size_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  AddKernel<<<Blocks(n), kThreads, 0, stream>>>(a, b, out, n);
  return cudaGetLastError();
}

}  // namespace dissect::forward
