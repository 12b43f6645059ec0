// The read pass of the cold-cache flush; see flush.h.
#include "kernels/flush.h"

namespace dissect {
namespace {

constexpr int kThreads = 256;
constexpr int kBlocks = 4096;  // enough warps in flight to keep DRAM busy
constexpr int kUnroll = 4;     // independent 16-byte loads in flight per thread

__device__ __forceinline__ uint32_t Fold(const uint4& v) { return v.x | v.y | v.z | v.w; }

__global__ void L2ReadFlushKernel(const uint4* __restrict__ data, size_t words, uint32_t* sink) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  uint32_t fold = 0;
  for (; i + (kUnroll - 1) * stride < words; i += kUnroll * stride) {
    uint4 v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) v[u] = data[i + u * stride];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) fold |= Fold(v[u]);
  }
  for (; i < words; i += stride) fold |= Fold(data[i]);
  if (fold != 0) *sink = fold;
}

}  // namespace

cudaError_t LaunchL2ReadFlush(const void* data, size_t bytes, uint32_t* sink, cudaStream_t stream) {
  if (data == nullptr || sink == nullptr || bytes % sizeof(uint4) != 0 ||
      reinterpret_cast<uintptr_t>(data) % sizeof(uint4) != 0) {
    return cudaErrorInvalidValue;
  }
  L2ReadFlushKernel<<<kBlocks, kThreads, 0, stream>>>(static_cast<const uint4*>(data),
                                                      bytes / sizeof(uint4), sink);
  return cudaGetLastError();
}

}  // namespace dissect
