// The forward pass's own elementwise layers (experiments/workloads/forward): FATReLU,
// the residual add and BN calibration's channel statistics. cuDNN does the
// rest.
#ifndef DISSECT_KERNELS_FORWARD_ELEMENTWISE_H_
#define DISSECT_KERNELS_FORWARD_ELEMENTWISE_H_

#include <cuda_runtime_api.h>

#include <cstddef>

namespace dissect::forward {

// out[i] = in[i] > threshold ? in[i] : 0 over n floats (FATReLU; threshold 0
// is ReLU). `out` may be `in`. Launch only: no queries, no synchronization.
cudaError_t LaunchFatRelu(const float* in, float* out, size_t n, float threshold,
                          cudaStream_t stream);

// out[i] = a[i] + b[i] over n floats. `out` may be `a` or `b`.
cudaError_t LaunchAdd(const float* a, const float* b, float* out, size_t n, cudaStream_t stream);

// Each channel's mean and (biased) variance of an NCHW tensor over n, h and
// w, summed in double: mean[c], var[c] for c < channels. BN calibration,
// once per pass; not a timed kernel.
cudaError_t LaunchChannelMeanVar(const float* x, int n, int channels, size_t hw, float* mean,
                                 float* var, cudaStream_t stream);

}  // namespace dissect::forward

#endif  // DISSECT_KERNELS_FORWARD_ELEMENTWISE_H_
