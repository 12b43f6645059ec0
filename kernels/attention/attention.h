// A simple tiled attention kernel of ours (FlashAttention-style): fp16 Q, K,
// V and O, fp32 scores, softmax and accumulation, head dimension 128. Each
// block holds 16 query rows of one (batch, head) (4 warps × 4 rows) and
// walks the keys in tiles of 64 staged in shared memory, with the online
// softmax (running max and sum, the output rescaled when the max grows).
// QK^T and PV are FP32 FFMAs on the CUDA cores from shared memory: no
// tensor cores, so its compute ceiling is the FP32 FMA pipe, not the tensor
// pipe. Layout: [batch][head][row][128], row-major, contiguous.
#ifndef DISSECT_KERNELS_ATTENTION_ATTENTION_H_
#define DISSECT_KERNELS_ATTENTION_ATTENTION_H_

#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "kernels/attention/attention_shape.h"

namespace dissect::attention {

inline constexpr int kHeadDim = 128;
inline constexpr int kKeyTile = 64;
inline constexpr int kWarps = 4;
inline constexpr int kRowsPerWarp = 4;
inline constexpr int kRowsPerBlock = kWarps * kRowsPerWarp;

struct AttentionArgs {
  const __half* q = nullptr;  // batch × heads × queries × 128
  const __half* k = nullptr;  // batch × heads × keys × 128
  const __half* v = nullptr;  // batch × heads × keys × 128
  __half* o = nullptr;        // batch × heads × queries × 128
  AttentionShape shape;       // head_dim must be 128
};

// cudaErrorInvalidValue for a head_dim other than 128, non-positive sizes
// or a grid too large.
cudaError_t LaunchAttention(const AttentionArgs& args, cudaStream_t stream);

// Element i of `dst` (n elements) becomes a function of (seed, i) only:
// uniform in [-amplitude, amplitude), rounded to fp16. Signed values, so that
// a tile left out or a wrong softmax weight moves the output visibly.
cudaError_t LaunchFillSigned(__half* dst, size_t n, float amplitude, uint64_t seed,
                             cudaStream_t stream);

}  // namespace dissect::attention

#endif  // DISSECT_KERNELS_ATTENTION_ATTENTION_H_
