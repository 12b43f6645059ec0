// 2:4 sparse and dense tensor-core GEMM probe; see sp_gemm.h.
#include "kernels/sparsity_24/sp_gemm.h"

namespace dissect {
namespace {

__device__ __forceinline__ void MmaDense(float (&d)[4], uint32_t a0, uint32_t a1, uint32_t a2,
                                         uint32_t a3, uint32_t b0, uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"
      " {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

__device__ __forceinline__ void MmaSparse(float (&d)[4], const uint4& a, const uint4& b,
                                          uint32_t meta) {
  asm volatile(
      "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32"
      " {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9, %10, %11}, {%0, %1, %2, %3}, %12, 0x0;"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a.x), "r"(a.y), "r"(a.z), "r"(a.w), "r"(b.x), "r"(b.y), "r"(b.z), "r"(b.w), "r"(meta));
}

// Every operand of a trip is loaded into registers of its own before the
// trip's first mma, so that a trip waits for one memory round trip in both
// kernels. minBlocksPerMultiprocessor = 1 is what keeps it so: without it
// ptxas holds the kernels to 48 registers and then, for the sparse one
// (sm_80 to sm_100a; the dense one too on sm_100a), loads a B fragment into
// the register the first HMMA.SP has just read, after that HMMA.SP, so the
// trip's last HMMA.SP waits for a second round trip. With it: 52-64
// registers, still 8 or more blocks an SM, more than the default shapes'
// grids place there. The SASS test
// (experiments/sparsity/structured/sp_gemm_sass_test.cc) checks the order.
template <bool kSparse>
__global__ void __launch_bounds__(kSp24Warps * 32, 1)
    Sp24GemmKernel(const uint32_t* __restrict__ a, const uint32_t* __restrict__ metadata,
                   const uint32_t* __restrict__ b, float* __restrict__ c, int col_tiles,
                   int k_steps) {
  const int lane = threadIdx.x % 32;
  const int row_tile = blockIdx.x * kSp24Warps + threadIdx.x / 32;
  const int col_tile0 = blockIdx.y * kSp24ColTilesPerWarp;
  constexpr int kAWords = kSparse ? kSp24SparseAWords : kSp24DenseAWords;
  const uint4* a_lane = reinterpret_cast<const uint4*>(
      a + (static_cast<size_t>(row_tile) * k_steps * 32 + lane) * kAWords);
  const uint32_t* meta_lane =
      kSparse ? metadata + static_cast<size_t>(row_tile) * k_steps * 32 + lane : nullptr;
  const uint4* b_lane[kSp24ColTilesPerWarp];
#pragma unroll
  for (int j = 0; j < kSp24ColTilesPerWarp; ++j) {
    b_lane[j] = reinterpret_cast<const uint4*>(
        b + (static_cast<size_t>(col_tile0 + j) * k_steps * 32 + lane) * kSp24BWords);
  }
  float acc[kSp24ColTilesPerWarp][4] = {};
  // One trip per k step of 32; no unrolling, so that one trip's body holds
  // exactly kSp24DenseMmaPerTrip or kSp24SparseMmaPerTrip tensor
  // instructions (checked by the SASS test).
#pragma unroll 1
  for (int ks = 0; ks < k_steps; ++ks) {
    uint4 bf[kSp24ColTilesPerWarp];
#pragma unroll
    for (int j = 0; j < kSp24ColTilesPerWarp; ++j) bf[j] = b_lane[j][ks * 32];
    if constexpr (kSparse) {
      const uint4 af = a_lane[ks * 32];
      const uint32_t meta = meta_lane[ks * 32];
#pragma unroll
      for (int j = 0; j < kSp24ColTilesPerWarp; ++j) MmaSparse(acc[j], af, bf[j], meta);
    } else {
      const uint4 lo = a_lane[ks * 64];
      const uint4 hi = a_lane[ks * 64 + 1];
#pragma unroll
      for (int j = 0; j < kSp24ColTilesPerWarp; ++j) {
        MmaDense(acc[j], lo.x, lo.y, lo.z, lo.w, bf[j].x, bf[j].y);
        MmaDense(acc[j], hi.x, hi.y, hi.z, hi.w, bf[j].z, bf[j].w);
      }
    }
  }
  // Accumulator layout of m16n8: c0, c1 at (g, 2t), (g, 2t + 1); c2, c3 at
  // row g + 8.
  const int g = lane / 4, t = lane % 4;
  const size_t ldc = static_cast<size_t>(col_tiles) * 8;
  const size_t row = static_cast<size_t>(row_tile) * 16 + g;
#pragma unroll
  for (int j = 0; j < kSp24ColTilesPerWarp; ++j) {
    const size_t col = static_cast<size_t>(col_tile0 + j) * 8 + 2 * t;
    *reinterpret_cast<float2*>(c + row * ldc + col) = make_float2(acc[j][0], acc[j][1]);
    *reinterpret_cast<float2*>(c + (row + 8) * ldc + col) = make_float2(acc[j][2], acc[j][3]);
  }
}

}  // namespace

cudaError_t LaunchSp24Gemm(const Sp24GemmArgs& args, cudaStream_t stream) {
  if (args.row_tiles < kSp24Warps || args.row_tiles % kSp24Warps != 0 ||
      args.col_tiles < kSp24ColTilesPerWarp || args.col_tiles % kSp24ColTilesPerWarp != 0 ||
      args.k_steps < 1 || args.a == nullptr || args.b == nullptr || args.c == nullptr ||
      (args.sparse && args.metadata == nullptr)) {
    return cudaErrorInvalidValue;
  }
  const dim3 grid(args.row_tiles / kSp24Warps, args.col_tiles / kSp24ColTilesPerWarp);
  if (args.sparse) {
    Sp24GemmKernel<true><<<grid, kSp24Warps * 32, 0, stream>>>(
        args.a, args.metadata, args.b, args.c, args.col_tiles, args.k_steps);
  } else {
    Sp24GemmKernel<false><<<grid, kSp24Warps * 32, 0, stream>>>(
        args.a, args.metadata, args.b, args.c, args.col_tiles, args.k_steps);
  }
  return cudaGetLastError();
}

}  // namespace dissect
