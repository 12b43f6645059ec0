// Elementwise deep-learning layer kernels (ReLU) and a random fill.
#include "kernels/elementwise.h"
#include "kernels/occupancy.h"

namespace dissect {
namespace {

__host__ __device__ __forceinline__ uint64_t SplitMix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

__host__ __device__ __forceinline__ float UniformAt(uint64_t seed, size_t i,
                                                    float lo, float hi) {
  // 24 random bits → [0, 1) exactly representable in float.
  const float u = static_cast<float>(SplitMix64(seed ^ (i * 0xd1b54a32d192ed03ull)) >> 40) *
                  (1.0f / 16777216.0f);
  return lo + (hi - lo) * u;
}

__device__ __forceinline__ float Relu(float x) { return fmaxf(x, 0.0f); }

__global__ void ReluKernel(const float* __restrict__ in, float* __restrict__ out,
                           size_t n) {
  const size_t n4 = n / 4;
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  const size_t first = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const float4* in4 = reinterpret_cast<const float4*>(in);
  float4* out4 = reinterpret_cast<float4*>(out);
  for (size_t i = first; i < n4; i += stride) {
    const float4 v = __ldg(in4 + i);
    out4[i] = make_float4(Relu(v.x), Relu(v.y), Relu(v.z), Relu(v.w));
  }
  const size_t t = 4 * n4 + first;
  if (t < n) out[t] = Relu(in[t]);
}

__global__ void FillUniformKernel(float* __restrict__ p, size_t n, uint64_t seed,
                                  float lo, float hi) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < n; i += stride) {
    p[i] = UniformAt(seed, i, lo, hi);
  }
}

}  // namespace

cudaError_t LaunchRelu(const float* in, float* out, size_t n, int blocks,
                       cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  if (blocks <= 0) {
    const cudaError_t e =
        ResidentBlocksOnDevice(reinterpret_cast<const void*>(ReluKernel), kReluThreads, &blocks);
    if (e != cudaSuccess) return e;
  }
  ReluKernel<<<blocks, kReluThreads, 0, stream>>>(in, out, n);
  return cudaGetLastError();
}

cudaError_t LaunchFillUniform(float* p, size_t n, uint64_t seed, float lo,
                              float hi, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  int blocks = 0;
  const cudaError_t e =
      ResidentBlocksOnDevice(reinterpret_cast<const void*>(FillUniformKernel), 256, &blocks);
  if (e != cudaSuccess) return e;
  FillUniformKernel<<<blocks, 256, 0, stream>>>(p, n, seed, lo, hi);
  return cudaGetLastError();
}

float FillUniformValue(uint64_t seed, size_t i, float lo, float hi) {
  return UniformAt(seed, i, lo, hi);
}

}  // namespace dissect
