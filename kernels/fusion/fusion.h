// Host interface of the layer-fusion kernels (kernels/fusion/fusion.cu): a
// direct NCHW float32 convolution whose loaded inputs and stored outputs
// pass through a transform, so that one source gives the plain convolution,
// conv+ReLU fused and BN+ReLU+conv fused; and the per-channel BN (with or
// without ReLU) the unfused forms run as kernels of their own. ReLU alone is
// kernels/elementwise.h's LaunchRelu (fmaxf(x, 0), as here).
#ifndef DISSECT_KERNELS_FUSION_FUSION_H_
#define DISSECT_KERNELS_FUSION_FUSION_H_

#include <cuda_runtime_api.h>

#include <cstddef>

#include "kernels/conv_dims.h"

namespace dissect::fusion {

// Threads per block of every kernel here.
inline constexpr int kFusionThreads = 256;

// What the convolution applies to each loaded input value x of channel c.
enum class InputOp {
  kIdentity,  // x
  kBnRelu,    // max(__fmaf_rn(x, scale[c], shift[c]), 0)
};

// What the convolution applies to each output before its one store.
enum class OutputOp {
  kIdentity,  // acc
  kRelu,      // max(acc, 0)
};

// x is N x C x H x W, weights K x C x R x S, y N x K x P x Q (zero padding).
using ConvDims = ::dissect::ConvDims;

// One output element per thread (grid-stride over `blocks` blocks of
// kFusionThreads): acc = sum over c, r, s (in that order) of
// __fmaf_rn(in_op(x), w, acc), padded taps skipped (the transformed
// tensor's padding is zero too), then y = out_op(acc). `scale` and `shift`
// (C each) are read only for InputOp::kBnRelu. Nothing but the launch;
// cudaErrorInvalidValue for a null pointer it needs, blocks < 1 or no output.
cudaError_t LaunchConv(const float* x, const float* weights, const float* scale, const float* shift,
                       float* y, const ConvDims& d, InputOp in_op, OutputOp out_op, int blocks,
                       cudaStream_t stream);

// y[i] = __fmaf_rn(x[i], scale[c], shift[c]) over an N x C x (hw) tensor,
// then max(., 0) when `relu`: BN (inference form) alone or BN+ReLU fused.
// Grid-stride over `blocks` blocks. `y` may be `x`.
cudaError_t LaunchChannelAffine(const float* x, const float* scale, const float* shift, float* y,
                                int n, int c, size_t hw, bool relu, int blocks,
                                cudaStream_t stream);

}  // namespace dissect::fusion

#endif  // DISSECT_KERNELS_FUSION_FUSION_H_
