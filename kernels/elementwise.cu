// Elementwise deep-learning layer kernels (ReLU) and a random fill.
#include <algorithm>
#include <cstdint>

#include "kernels/elementwise.h"
#include "kernels/occupancy.h"
#include "kernels/tiled_stream.cuh"

namespace dissect {
namespace {

__host__ __device__ __forceinline__ uint64_t SplitMix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

__host__ __device__ __forceinline__ float UniformAt(uint64_t seed, size_t i, float lo, float hi) {
  // 24 random bits → [0, 1) exactly representable in float.
  const float u = static_cast<float>(SplitMix64(seed ^ (i * 0xd1b54a32d192ed03ull)) >> 40) *
                  (1.0f / 16777216.0f);
  return lo + (hi - lo) * u;
}

// float4 loads each thread has in flight per tile (64 bytes): enough for
// full-occupancy grids to cover DRAM latency at full bandwidth.
constexpr int kReluBatch = 4;

__device__ __forceinline__ float Relu(float x) { return fmaxf(x, 0.0f); }
__device__ __forceinline__ float4 Relu(float4 v) {
  return make_float4(Relu(v.x), Relu(v.y), Relu(v.z), Relu(v.w));
}

// out = ReLU(in) over n floats, V (float4, or float where the pointers are
// not 16-byte aligned) at a time, in tiles of kReluBatch loads per thread
// issued before their stores (kernels/tiled_stream.cuh); block 0 then does
// the n % 4 floats past the last float4 one by one.
template <typename V>
__global__ void __launch_bounds__(kReluThreads)
    ReluKernel(const float* __restrict__ in, float* __restrict__ out, size_t n) {
  constexpr size_t kLanes = sizeof(V) / sizeof(float);
  const V* __restrict__ in_v = reinterpret_cast<const V*>(in);
  V* __restrict__ out_v = reinterpret_cast<V*>(out);
  const size_t vectors = n / kLanes;
  ForEachTileOfBlock<V, kReluBatch, kReluThreads>(
      vectors, [&](size_t i) { return in_v[i]; },
      [&](size_t i, const V& v) { out_v[i] = Relu(v); });
  if constexpr (kLanes > 1) {
    const size_t t = vectors * kLanes + threadIdx.x;
    if (blockIdx.x == 0 && t < n) out[t] = Relu(in[t]);
  }
}

__global__ void FillUniformKernel(float* __restrict__ p, size_t n, uint64_t seed, float lo,
                                  float hi) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    p[i] = UniformAt(seed, i, lo, hi);
  }
}

}  // namespace

cudaError_t ReluGridBlocks(size_t n, int* blocks) {
  int full = 0;
  const cudaError_t e = ResidentBlocksOnDevice(reinterpret_cast<const void*>(ReluKernel<float4>),
                                               kReluThreads, &full);
  if (e != cudaSuccess) return e;
  const size_t tiles = TileCount<kReluBatch, kReluThreads>(n / 4);
  *blocks = static_cast<int>(std::max<size_t>(1, std::min<size_t>(full, tiles)));
  return cudaSuccess;
}

cudaError_t LaunchRelu(const float* in, float* out, size_t n, int blocks, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  if (blocks < 1 || in == nullptr || out == nullptr) return cudaErrorInvalidValue;
  const bool aligned =
      (reinterpret_cast<uintptr_t>(in) | reinterpret_cast<uintptr_t>(out)) % 16 == 0;
  if (aligned) {
    ReluKernel<float4><<<blocks, kReluThreads, 0, stream>>>(in, out, n);
  } else {
    ReluKernel<float><<<blocks, kReluThreads, 0, stream>>>(in, out, n);
  }
  return cudaGetLastError();
}

cudaError_t LaunchFillUniform(float* p, size_t n, uint64_t seed, float lo, float hi,
                              cudaStream_t stream) {
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
