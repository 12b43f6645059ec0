// Host interface of the 2:4 sparse GEMM probe (sp_gemm.cu): C[N×M] =
// A[N×K] · B[K×M] in fp16 with fp32 accumulation, A (the activations X^T)
// either dense through mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 or
// 2:4 sparse along K through
// mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32.
// Both use the same tiling: a block of kSp24Warps warps covers 16 ×
// kSp24Warps rows of C and kSp24ColTilesPerWarp × 8 columns; each warp owns
// 16 rows × 32 columns and walks K in steps of 32. Per step the dense warp
// issues 8 mma.sync (2 k16 halves × 4 column tiles), the sparse warp 4
// mma.sp (4 column tiles, k32 each): the same 16 × 32 × 32 multiply-adds.
// Operands come pre-packed by the host in per-lane fragment order (see
// experiments/sparsity/structured/sparse24.h) and are read straight from
// global memory (no shared-memory staging), every operand of a trip before
// its first mma: both kernels are bound by their loads, not by the tensor
// pipe (sparse24_gemm.cc has the arithmetic).
#ifndef DISSECT_KERNELS_SPARSITY_24_SP_GEMM_H_
#define DISSECT_KERNELS_SPARSITY_24_SP_GEMM_H_

#include <cuda_runtime_api.h>

#include <cstdint>

namespace dissect {

inline constexpr int kSp24Warps = 4;
inline constexpr int kSp24ColTilesPerWarp = 4;
// K per loop trip.
inline constexpr int kSp24KStep = 32;
// 32-bit words per lane and (16-row tile, k step) of packed A: dense
// (two m16n8k16 fragments), sparse (one m16n8k32 compressed fragment).
inline constexpr int kSp24DenseAWords = 8;
inline constexpr int kSp24SparseAWords = 4;
// Words per lane and (8-column tile, k step) of packed B (four registers:
// the k32 fragment, which is also two k16 fragments back to back).
inline constexpr int kSp24BWords = 4;
// mma instructions per warp and loop trip.
inline constexpr int kSp24DenseMmaPerTrip = 2 * kSp24ColTilesPerWarp;
inline constexpr int kSp24SparseMmaPerTrip = kSp24ColTilesPerWarp;

struct Sp24GemmArgs {
  bool sparse = false;
  // Packed A: row_tiles × k_steps × 32 lanes × (kSp24DenseAWords or
  // kSp24SparseAWords) words.
  const uint32_t* a = nullptr;
  // Sparse only: row_tiles × k_steps × 32 lanes × 1 metadata word.
  const uint32_t* metadata = nullptr;
  // Packed B: col_tiles × k_steps × 32 lanes × kSp24BWords words.
  const uint32_t* b = nullptr;
  float* c = nullptr;  // row-major, (16 row_tiles) × (8 col_tiles)
  int row_tiles = 0;   // a multiple of kSp24Warps
  int col_tiles = 0;   // a multiple of kSp24ColTilesPerWarp
  int k_steps = 0;     // K / kSp24KStep
};

// Returns cudaErrorInvalidValue for tile counts that are not multiples of
// the block's, k_steps < 1, or a needed pointer left null. Does nothing but
// the launch.
cudaError_t LaunchSp24Gemm(const Sp24GemmArgs& args, cudaStream_t stream);

}  // namespace dissect

#endif  // DISSECT_KERNELS_SPARSITY_24_SP_GEMM_H_
