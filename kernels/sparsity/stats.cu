#include <algorithm>

#include "kernels/sparsity/stats.h"

namespace dissect::sparsity {
namespace {

constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = 4096;
constexpr unsigned kFullMask = 0xffffffffu;

__device__ void WarpAdd(unsigned long long* counter, unsigned long long value) {
  for (int offset = 16; offset > 0; offset /= 2)
    value += __shfl_down_sync(kFullMask, value, offset);
  if ((threadIdx.x & 31) == 0 && value != 0) atomicAdd(counter, value);
}

// One block per (n, c) plane at a time: zeros of the plane.
__global__ void PlaneZerosKernel(SparsityCountArgs a) {
  __shared__ unsigned long long block_zeros;
  const int64_t plane = a.h * a.w;
  for (int64_t p = blockIdx.x; p < a.n * a.c; p += gridDim.x) {
    if (threadIdx.x == 0) block_zeros = 0;
    __syncthreads();
    const float* x = a.x + p * plane;
    unsigned long long zeros = 0;
    for (int64_t i = threadIdx.x; i < plane; i += blockDim.x) zeros += x[i] == 0.0f;
    WarpAdd(&block_zeros, zeros);
    __syncthreads();
    if (threadIdx.x == 0 && block_zeros != 0) {
      atomicAdd(&a.channel_zeros[p % a.c], block_zeros);
      atomicAdd(&a.totals[kTotalZeros], block_zeros);
    }
    __syncthreads();
  }
}

// One thread per (32-channel vector g, column j): whether the vector is all
// zero and how many of its 4-groups have at most 2 nonzeros. Threads of a
// warp take adjacent columns (coalesced loads).
__global__ void VectorKernel(SparsityCountArgs a) {
  const int64_t plane = a.h * a.w;
  const int64_t columns = a.n * plane;
  const int64_t vectors = (a.c + 31) / 32;
  const int64_t total = columns * vectors;
  // Rounded up to whole warps, so that every lane reaches WarpAdd.
  const int64_t rounded = (total + 31) / 32 * 32;
  unsigned long long zero_vectors = 0, two_four = 0;
  for (int64_t t = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; t < rounded;
       t += int64_t{gridDim.x} * blockDim.x) {
    if (t >= total) continue;
    const int64_t j = t % columns;
    const int64_t g = t / columns;
    const float* x = a.x + (j / plane) * a.c * plane + j % plane;
    const int64_t end = min(a.c, (g + 1) * 32);
    bool all_zero = true;
    int nonzeros = 0;
    for (int64_t c = g * 32; c < end; ++c) {
      const bool nonzero = !(x[c * plane] == 0.0f);
      all_zero &= !nonzero;
      nonzeros += nonzero;
      if (c % 4 == 3 || c == end - 1) {
        two_four += nonzeros <= 2;
        nonzeros = 0;
      }
    }
    zero_vectors += all_zero;
  }
  WarpAdd(&a.totals[kTotalZeroWarpVectors], zero_vectors);
  WarpAdd(&a.totals[kTotalTwoFourGroups], two_four);
}

// One thread per (16-row tile row r, column j of the columns padded to a
// multiple of 16): whether rows 16r..16r+15 are zero at j (padding columns
// are). The 16 threads of a tile are half a warp: a ballot tells whether the
// tile is all zero.
__global__ void TileKernel(SparsityCountArgs a) {
  const int64_t plane = a.h * a.w;
  const int64_t columns = a.n * plane;
  const int64_t padded = (columns + 15) / 16 * 16;
  const int64_t total = padded * ((a.c + 15) / 16);
  const int64_t rounded = (total + 31) / 32 * 32;
  unsigned long long zero_tiles = 0;
  for (int64_t t = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; t < rounded;
       t += int64_t{gridDim.x} * blockDim.x) {
    bool zero = true;
    if (t < total) {
      const int64_t j = t % padded;
      const int64_t r = t / padded;
      if (j < columns) {
        const float* x = a.x + (j / plane) * a.c * plane + j % plane;
        for (int64_t c = r * 16; c < min(a.c, (r + 1) * 16); ++c) zero &= x[c * plane] == 0.0f;
      }
    }
    const unsigned ballot = __ballot_sync(kFullMask, zero);
    if ((threadIdx.x & 31) == 0) {
      const int64_t base = t;  // lane 0's t: the warp's first
      if (base < total && (ballot & 0xffffu) == 0xffffu) ++zero_tiles;
      if (base + 16 < total && (ballot >> 16) == 0xffffu) ++zero_tiles;
    }
  }
  WarpAdd(&a.totals[kTotalZeroTiles], zero_tiles);
}

int Blocks(int64_t items) {
  return static_cast<int>(
      std::max<int64_t>(1, std::min(kMaxBlocks, (items + kThreads - 1) / kThreads)));
}

}  // namespace

cudaError_t LaunchSparsityCounts(const SparsityCountArgs& a, cudaStream_t stream) {
  if (a.x == nullptr || a.totals == nullptr || a.channel_zeros == nullptr || a.n < 1 || a.c < 1 ||
      a.h < 1 || a.w < 1) {
    return cudaErrorInvalidValue;
  }
  cudaError_t e =
      cudaMemsetAsync(a.totals, 0, kSparsityTotals * sizeof(unsigned long long), stream);
  if (e == cudaSuccess) {
    e = cudaMemsetAsync(a.channel_zeros, 0, a.c * sizeof(unsigned long long), stream);
  }
  if (e != cudaSuccess) return e;
  const int64_t columns = a.n * a.h * a.w;
  PlaneZerosKernel<<<static_cast<int>(std::min(kMaxBlocks, a.n * a.c)), kThreads, 0, stream>>>(a);
  VectorKernel<<<Blocks(columns * ((a.c + 31) / 32)), kThreads, 0, stream>>>(a);
  TileKernel<<<Blocks((columns + 15) / 16 * 16 * ((a.c + 15) / 16)), kThreads, 0, stream>>>(a);
  return cudaGetLastError();
}

}  // namespace dissect::sparsity
