// Activation sparsity counts on the GPU: the integer counts of
// probes/sparsity/stats.h (whose comment defines them), from an NCHW float32
// tensor in device memory, so that they equal the CPU reference exactly.
#ifndef DISSECT_KERNELS_SPARSITY_STATS_H_
#define DISSECT_KERNELS_SPARSITY_STATS_H_

#include <cuda_runtime_api.h>

#include <cstdint>

namespace dissect::sparsity {

// Positions in SparsityCountArgs::totals.
enum SparsityTotal : int {
  kTotalZeros = 0,
  kTotalZeroWarpVectors = 1,
  kTotalZeroTiles = 2,
  kTotalTwoFourGroups = 3,
  kSparsityTotals = 4,
};

struct SparsityCountArgs {
  const float* x = nullptr;
  int64_t n = 0, c = 0, h = 0, w = 0;
  // kSparsityTotals counters and c per-channel zero counters, device memory.
  unsigned long long* totals = nullptr;
  unsigned long long* channel_zeros = nullptr;
};

// Zeroes the counters (cudaMemsetAsync) and enqueues the count kernels on
// `stream`; the counts are ready when the stream reaches them.
// cudaErrorInvalidValue for a null pointer or a dimension below 1.
cudaError_t LaunchSparsityCounts(const SparsityCountArgs& args, cudaStream_t stream);

}  // namespace dissect::sparsity

#endif  // DISSECT_KERNELS_SPARSITY_STATS_H_
