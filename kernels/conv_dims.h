// The shape of one NCHW convolution launch, shared by the kernels that
// convolve (kernels/layers, kernels/fusion, kernels/two_stage_conv): x is
// N x C x H x W, the weights K x C x R x S, the output N x K x P x Q with
// P = OutH(), Q = OutW() (zero padding `pad` on every side). Other layer
// kernels read only some of the fields (kernels/layers/layers.h says which).
#ifndef DISSECT_KERNELS_CONV_DIMS_H_
#define DISSECT_KERNELS_CONV_DIMS_H_

#include <cuda_runtime_api.h>

namespace dissect {

struct ConvDims {
  int n = 1, c = 1, h = 1, w = 1;
  int k = 1, r = 1, s = 1;
  int stride = 1, pad = 0;

  __host__ __device__ int OutH() const { return (h + 2 * pad - r) / stride + 1; }
  __host__ __device__ int OutW() const { return (w + 2 * pad - s) / stride + 1; }
};

}  // namespace dissect

#endif  // DISSECT_KERNELS_CONV_DIMS_H_
