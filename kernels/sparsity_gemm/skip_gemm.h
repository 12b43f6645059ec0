// Zero-skipping float32 GEMM Y = W · X for activation-sparsity experiments
// (experiments/sparsity/speed), from one templated source in two modes:
//   kWarp: each warp loads a 32-long K segment of each of its 16 columns of
//          X (one value per lane), votes (__ballot_sync) on "nonzero" and
//          branches around that column's 32 multiply-adds when no lane
//          holds a nonzero; when all 16 columns vote zero it also skips
//          loading W's segment.
//   kTile: a first pass (LaunchTileBitmap) marks each 16 × 16 (K × N) tile
//          of X that holds a nonzero; the GEMM reads one byte per tile and
//          branches around the tile's 16 × 16 multiply-adds when it is 0.
// Layout in kernels/sparsity_gemm/skip_gemm_layout.h. Every output is
// fmaf(W[m,k], X[k,n], acc) over k ascending from acc = 0 (__fmaf_rn), the
// skipped products included as if computed: with finite values a skipped
// x = 0 leaves acc unchanged, so the result equals a sequential CPU fmaf
// loop bit for bit in both modes.
#ifndef DISSECT_KERNELS_SPARSITY_GEMM_SKIP_GEMM_H_
#define DISSECT_KERNELS_SPARSITY_GEMM_SKIP_GEMM_H_

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/sparsity_gemm/skip_gemm_layout.h"

namespace dissect::sparsity_gemm {

enum class SkipMode { kWarp, kTile };

struct SkipGemmArgs {
  const float* w = nullptr;        // M × K, column-major
  const float* x = nullptr;        // K × N, column-major
  float* y = nullptr;              // M × N, column-major
  uint8_t* tile_bitmap = nullptr;  // kTile: TileBitmapSize(k, n) bytes
  int m = 0, n = 0, k = 0;
};

// Writes the tile bitmap of X (args.x, k, n) into args.tile_bitmap.
cudaError_t LaunchTileBitmap(const SkipGemmArgs& args, cudaStream_t stream);

// kWarp: the GEMM. kTile: the tile bitmap pass, then the GEMM (both
// belong to one product's cost).
cudaError_t LaunchSkipGemm(SkipMode mode, const SkipGemmArgs& args, cudaStream_t stream);

}  // namespace dissect::sparsity_gemm

#endif  // DISSECT_KERNELS_SPARSITY_GEMM_SKIP_GEMM_H_
