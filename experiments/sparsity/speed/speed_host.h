// Host logic of the sparsity_speed experiment (no CUDA): the GEMM form of a
// layer, its activation matrix X built from a controlled mask, the tile
// bitmap the skip_tile kernel reads, the CPU reference and the error
// measure. Layout: kernels/sparsity_gemm/skip_gemm_layout.h (column-major
// W M×K, X K×N, Y M×N).
#ifndef DISSECT_EXPERIMENTS_SPARSITY_SPEED_SPEED_HOST_H_
#define DISSECT_EXPERIMENTS_SPARSITY_SPEED_SPEED_HOST_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "experiments/workloads/layers/layer_config.h"
#include "probes/sparsity/tensor_dims.h"

namespace dissect::sparsity_speed {

// Y[M×N] = W[M×K] · X[K×N] for one layer at a batch, and the activation
// tensor whose mask makes X sparse.
//   conv (im2col): M = filters, K = R·S·C with k = (r·S + s)·C + c (channel
//     fastest), N = batch·P·Q with column (b·P + p)·Q + q; the mask is
//     applied to the NCHW input {batch, C, H, W} before im2col, so a
//     channel zeroes whole rows of X at batch 1 (its R·S rows) and a run of
//     32 channels zeroes 32 consecutive K entries of one column; padding
//     entries of X are zero whatever the mask.
//   fc: M = outputs, K = C, N = batch; the mask's tensor is {1, C, 1,
//     batch} (offset c·batch + b = X[c, b]), so a channel is a whole row of
//     X (a feature dead for the whole batch) and a run of 32 channels is 32
//     consecutive K entries of one column.
struct GemmForm {
  int64_t m = 0, n = 0, k = 0;
  sparsity::Dims activation;
  bool conv = false;
};

// InvalidArgument for a pooling layer or a batch below 1.
absl::StatusOr<GemmForm> FormOf(const l1_bypass::LayerShape& layer, int batch);

// X (K×N, column-major) from the masked activation tensor (NCHW, of
// form.activation's size); InvalidArgument when the size differs.
absl::StatusOr<std::vector<float>> ActivationMatrix(const l1_bypass::LayerShape& layer,
                                                    const GemmForm& form,
                                                    absl::Span<const float> activations);

// The tile bitmap of X (K×N, column-major): TileBitmapSize(k, n) bytes, 1
// where a 16 × 16 tile holds a nonzero (kernels/sparsity_gemm layout).
std::vector<uint8_t> TileBitmap(absl::Span<const float> x, int64_t k, int64_t n);

// Zero elements / all elements; 0 for an empty span.
double ZeroFraction(absl::Span<const float> values);

// Column `col` of Y = W · X as the kernels compute it: std::fmaf over k
// ascending from 0 (M values).
std::vector<float> ReferenceColumn(absl::Span<const float> w, absl::Span<const float> x, int64_t m,
                                   int64_t k, int64_t col);

// max |got - want| / max |want|: the error relative to the result's scale
// (element-wise ratios blow up where a sum cancels to near zero). 0 when
// both are all zero, infinity when only `want` is; InvalidArgument when
// the sizes differ.
absl::StatusOr<double> MaxRelativeError(absl::Span<const float> got, absl::Span<const float> want);

// Values in (0, 1] (post-ReLU activations, never zero before masking), and
// weights in [-1, 1), reproducible for a seed.
std::vector<float> RandomActivations(int64_t count, uint64_t seed);
std::vector<float> RandomWeights(int64_t count, uint64_t seed);

}  // namespace dissect::sparsity_speed

#endif  // DISSECT_EXPERIMENTS_SPARSITY_SPEED_SPEED_HOST_H_
