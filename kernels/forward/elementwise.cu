// FATReLU, the residual add and BN calibration's channel statistics of the
// forward pass; see elementwise.h.
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

// One block per channel: each thread sums its share of the channel's
// n * hw values, then the block reduces in shared memory.
__global__ void __launch_bounds__(kThreads)
    ChannelMeanVarKernel(const float* x, int n, int channels, size_t hw, float* mean, float* var) {
  __shared__ double sums[kThreads];
  __shared__ double squares[kThreads];
  const int c = blockIdx.x;
  const size_t count = static_cast<size_t>(n) * hw;
  double sum = 0;
  double square = 0;
  for (size_t e = threadIdx.x; e < count; e += kThreads) {
    const size_t image = e / hw;
    const double v = x[(image * channels + c) * hw + e % hw];
    sum += v;
    square += v * v;
  }
  sums[threadIdx.x] = sum;
  squares[threadIdx.x] = square;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) {
      sums[threadIdx.x] += sums[threadIdx.x + half];
      squares[threadIdx.x] += squares[threadIdx.x + half];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    const double m = sums[0] / count;
    mean[c] = static_cast<float>(m);
    var[c] = static_cast<float>(fmax(squares[0] / count - m * m, 0.0));
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

cudaError_t LaunchChannelMeanVar(const float* x, int n, int channels, size_t hw, float* mean,
                                 float* var, cudaStream_t stream) {
  if (n <= 0 || channels <= 0 || hw == 0) return cudaErrorInvalidValue;
  ChannelMeanVarKernel<<<channels, kThreads, 0, stream>>>(x, n, channels, hw, mean, var);
  return cudaGetLastError();
}

}  // namespace dissect::forward
