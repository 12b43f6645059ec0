// Zero-skipping GEMM kernels; see skip_gemm.h.
#include "kernels/sparsity_gemm/skip_gemm.h"

namespace dissect::sparsity_gemm {
namespace {

constexpr unsigned kFullMask = 0xffffffffu;

// Loads W[m, k0 .. k0 + kSeg - 1] (zero outside the matrix): one coalesced
// row of 32 lanes per k.
template <int kSeg>
__device__ __forceinline__ void LoadW(const SkipGemmArgs& a, int m, int k0, float (&w)[kSeg]) {
#pragma unroll
  for (int j = 0; j < kSeg; ++j) {
    const int k = k0 + j;
    w[j] = (m < a.m && k < a.k) ? __ldg(a.w + static_cast<size_t>(k) * a.m + m) : 0.f;
  }
}

// One warp: rows m0 .. m0 + 31 (one per lane) × columns n0 .. n0 + 15.
template <SkipMode kMode>
__device__ __forceinline__ void SkipGemmBody(const SkipGemmArgs& a) {
  constexpr int kSeg = kMode == SkipMode::kWarp ? kWarpSegment : kTileK;
  const int lane = threadIdx.x % 32;
  const int m = (blockIdx.x * kWarpsPerBlock + threadIdx.x / 32) * kRowsPerWarp + lane;
  const int n0 = blockIdx.y * kColsPerWarp;
  float acc[kColsPerWarp];
#pragma unroll
  for (int c = 0; c < kColsPerWarp; ++c) acc[c] = 0.f;

  for (int k0 = 0; k0 < a.k; k0 += kSeg) {
    float w[kSeg];
    if constexpr (kMode == SkipMode::kWarp) {
      float x[kColsPerWarp];
      unsigned nonzero[kColsPerWarp];
      unsigned any = 0;
#pragma unroll
      for (int c = 0; c < kColsPerWarp; ++c) {
        const int n = n0 + c;
        const int k = k0 + lane;
        x[c] = (n < a.n && k < a.k) ? __ldg(a.x + static_cast<size_t>(n) * a.k + k) : 0.f;
        nonzero[c] = __ballot_sync(kFullMask, x[c] != 0.f);
        any |= nonzero[c];
      }
      if (any == 0) continue;
      LoadW(a, m, k0, w);
#pragma unroll
      for (int c = 0; c < kColsPerWarp; ++c) {
        if (nonzero[c] == 0) continue;
#pragma unroll
        for (int j = 0; j < kSeg; ++j) {
          acc[c] = __fmaf_rn(w[j], __shfl_sync(kFullMask, x[c], j), acc[c]);
        }
      }
    } else {
      if (a.tile_bitmap[TileIndex(k0 / kTileK, blockIdx.y, a.n)] == 0) continue;
      LoadW(a, m, k0, w);
#pragma unroll
      for (int c = 0; c < kColsPerWarp; ++c) {
        const int n = n0 + c;
        if (n >= a.n) break;
        const float* xc = a.x + static_cast<size_t>(n) * a.k + k0;
#pragma unroll
        for (int j = 0; j < kSeg; ++j) {
          const float xv = k0 + j < a.k ? __ldg(xc + j) : 0.f;
          acc[c] = __fmaf_rn(w[j], xv, acc[c]);
        }
      }
    }
  }
  if (m >= a.m) return;
#pragma unroll
  for (int c = 0; c < kColsPerWarp; ++c) {
    const int n = n0 + c;
    if (n < a.n) a.y[static_cast<size_t>(n) * a.m + m] = acc[c];
  }
}

__global__ void __launch_bounds__(kWarpsPerBlock * 32) SkipWarpGemmKernel(SkipGemmArgs a) {
  SkipGemmBody<SkipMode::kWarp>(a);
}

__global__ void __launch_bounds__(kWarpsPerBlock * 32) SkipTileGemmKernel(SkipGemmArgs a) {
  SkipGemmBody<SkipMode::kTile>(a);
}

// One warp per tile: lane l reads 8 values of the tile's column l / 2.
__global__ void __launch_bounds__(kWarpsPerBlock * 32) TileBitmapKernel(SkipGemmArgs a) {
  const int64_t tiles_n = CeilDiv(a.n, kTileN);
  const int64_t tile = static_cast<int64_t>(blockIdx.x) * kWarpsPerBlock + threadIdx.x / 32;
  if (tile >= CeilDiv(a.k, kTileK) * tiles_n) return;  // whole warps leave together
  const int lane = threadIdx.x % 32;
  const int n = static_cast<int>(tile % tiles_n) * kTileN + lane / 2;
  const int k_begin = static_cast<int>(tile / tiles_n) * kTileK + (lane % 2) * (kTileK / 2);
  bool nonzero = false;
  if (n < a.n) {
    for (int k = k_begin; k < k_begin + kTileK / 2 && k < a.k; ++k) {
      nonzero |= __ldg(a.x + static_cast<size_t>(n) * a.k + k) != 0.f;
    }
  }
  const unsigned vote = __ballot_sync(kFullMask, nonzero);
  if (lane == 0) a.tile_bitmap[tile] = vote != 0 ? 1 : 0;
}

dim3 GemmGrid(const SkipGemmArgs& a) {
  return dim3(static_cast<unsigned>(CeilDiv(a.m, kRowsPerWarp * kWarpsPerBlock)),
              static_cast<unsigned>(CeilDiv(a.n, kColsPerWarp)));
}

}  // namespace

cudaError_t LaunchTileBitmap(const SkipGemmArgs& args, cudaStream_t stream) {
  const int64_t tiles = TileBitmapSize(args.k, args.n);
  TileBitmapKernel<<<static_cast<unsigned>(CeilDiv(tiles, kWarpsPerBlock)), kWarpsPerBlock * 32, 0,
                     stream>>>(args);
  return cudaGetLastError();
}

cudaError_t LaunchSkipGemm(SkipMode mode, const SkipGemmArgs& args, cudaStream_t stream) {
  if (mode == SkipMode::kWarp) {
    SkipWarpGemmKernel<<<GemmGrid(args), kWarpsPerBlock * 32, 0, stream>>>(args);
    return cudaGetLastError();
  }
  if (cudaError_t e = LaunchTileBitmap(args, stream); e != cudaSuccess) return e;
  SkipTileGemmKernel<<<GemmGrid(args), kWarpsPerBlock * 32, 0, stream>>>(args);
  return cudaGetLastError();
}

}  // namespace dissect::sparsity_gemm
