// The layout shared by the zero-skipping GEMM kernels (skip_gemm.cu) and
// their host code (no CUDA): Y[M×N] = W[M×K] · X[K×N], float32, all three
// column-major (W: ld M, X: ld K, so one column of X, the activations of
// one output position, is contiguous; Y: ld M), and the tile bitmap that
// skip_tile reads.
#ifndef DISSECT_KERNELS_SPARSITY_GEMM_SKIP_GEMM_LAYOUT_H_
#define DISSECT_KERNELS_SPARSITY_GEMM_SKIP_GEMM_LAYOUT_H_

#include <cstdint>

namespace dissect::sparsity_gemm {

// skip_warp: a warp skips a 32-long K segment of one column of X when all
// 32 values are zero. skip_tile: a warp skips a 16 × 16 (K × N) tile of X
// when the tile bitmap says it is all zero.
inline constexpr int kWarpSegment = 32;
inline constexpr int kTileK = 16;
inline constexpr int kTileN = 16;
// Columns of X (and Y) one warp computes: one tile column.
inline constexpr int kColsPerWarp = kTileN;
// Rows of Y per warp (one per lane) and warps per block.
inline constexpr int kRowsPerWarp = 32;
inline constexpr int kWarpsPerBlock = 4;

constexpr int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The tile bitmap: one byte per 16 × 16 tile of X, 1 if any of its values
// is nonzero, at TileIndex(kt, nt, n) (K-tile major); edge tiles cover what
// lies inside the matrix.
constexpr int64_t TileBitmapSize(int64_t k, int64_t n) {
  return CeilDiv(k, kTileK) * CeilDiv(n, kTileN);
}
constexpr int64_t TileIndex(int64_t kt, int64_t nt, int64_t n) {
  return kt * CeilDiv(n, kTileN) + nt;
}

}  // namespace dissect::sparsity_gemm

#endif  // DISSECT_KERNELS_SPARSITY_GEMM_SKIP_GEMM_LAYOUT_H_
