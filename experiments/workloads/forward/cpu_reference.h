// CPU references of the forward pass (forward_pass.h): the deterministic
// weights and input both sides use, each layer op on NCHW float32 tensors
// (sums in double) and a whole network. Pure host code, for tests.
#ifndef DISSECT_EXPERIMENTS_WORKLOADS_FORWARD_CPU_REFERENCE_H_
#define DISSECT_EXPERIMENTS_WORKLOADS_FORWARD_CPU_REFERENCE_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "experiments/workloads/forward/network.h"

namespace dissect::forward {

// BN's epsilon (cuDNN's CUDNN_BN_MIN_EPSILON is 1e-5).
inline constexpr double kBatchNormEpsilon = 1e-5;

// A standard normal number, a pure function of (seed, stream, index):
// splitmix64 of the three, then Box-Muller. The same on every machine.
float NormalAt(uint64_t seed, uint64_t stream, uint64_t index);

// He-initialised weights of conv layer `layer` (its index in the network):
// k*c*r*s values in KCRS order, NormalAt(seed, layer, i) * sqrt(2 / (c*r*s)).
std::vector<float> HeWeights(uint64_t seed, int layer, int k, int c, int r, int s);

// The image-like input, NCHW. For image n, channel c, pixel (y, x) with
// u = x / max(w-1, 1), v = y / max(h-1, 1) and per-(n, c) constants from the
// seed (a in [0, 1), integer frequencies fx, fy in 1..3, phase p in
// [0, 2 pi)):
//   pixel = clamp(0.25 + 0.5 (a u + (1-a) v) + 0.15 sin(2 pi (fx u + fy v) + p)
//                 + 0.05 z, 0, 1),   z = a standard normal number per pixel,
//   value = (pixel - 0.5) / 0.25
// (smooth gradients and waves plus noise, normalized roughly to zero mean and
// unit spread as an image pipeline would).
std::vector<float> SyntheticImage(uint64_t seed, const TensorDims& dims);

// Convolution, no bias: `weights` KCRS, k = out.c. Returns the output
// (dims in `out`).
std::vector<float> ConvCpu(const std::vector<float>& in, const TensorDims& dims,
                           const std::vector<float>& weights, int k, int r, int s, int stride,
                           int pad, TensorDims* out);

// Each channel's mean and (biased) variance over n, h, w.
void ChannelMeanVarCpu(const std::vector<float>& in, const TensorDims& dims,
                       std::vector<float>* mean, std::vector<float>* var);

// BN inference with gamma 1, beta 0: (x - mean[c]) / sqrt(var[c] + eps).
std::vector<float> BatchNormCpu(const std::vector<float>& in, const TensorDims& dims,
                                const std::vector<float>& mean, const std::vector<float>& var,
                                double eps = kBatchNormEpsilon);

// FATReLU: x > threshold ? x : 0. Threshold 0 is ReLU.
std::vector<float> FatReluCpu(const std::vector<float>& in, float threshold);

// Max over an r x s window; padded positions are not candidates.
std::vector<float> MaxPoolCpu(const std::vector<float>& in, const TensorDims& dims, int r, int s,
                              int stride, int pad, TensorDims* out);

// Elementwise a + b.
std::vector<float> AddCpu(const std::vector<float>& a, const std::vector<float>& b);

// Mean over an r x s window, padded positions counted as zeros (cuDNN's
// CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING).
std::vector<float> AvgPoolCpu(const std::vector<float>& in, const TensorDims& dims, int r, int s,
                              int stride, int pad, TensorDims* out);

// Channel concatenation: per image, a's channels then b's (equal n, h, w).
std::vector<float> ConcatCpu(const std::vector<float>& a, const TensorDims& a_dims,
                             const std::vector<float>& b, const TensorDims& b_dims,
                             TensorDims* out);

// Fully connected, no bias: y[n][o] = sum_f x[n][f] weights[o][f] over the
// f = c*h*w features of each image; output n x k x 1 x 1.
std::vector<float> FcCpu(const std::vector<float>& in, const TensorDims& dims,
                         const std::vector<float>& weights, int k, TensorDims* out);

// Softmax over the channels of each (n, y, x): exp(x - max) / sum.
std::vector<float> SoftmaxCpu(const std::vector<float>& in, const TensorDims& dims);

// Called after every layer of RunNetworkCpu's measured pass.
using CpuLayerObserver =
    std::function<void(const LayerSpec& layer, const std::vector<float>& out, TensorDims dims)>;

// The whole network on the CPU as ForwardPass computes it: a calibration
// pass with ReLU sets each BN's mean and variance from its input, then the
// measured pass with `fatrelu_threshold`. Slow: for small shapes.
absl::Status RunNetworkCpu(const NetworkSpec& net, int batch, uint64_t seed,
                           float fatrelu_threshold, const CpuLayerObserver& observer);

}  // namespace dissect::forward

#endif  // DISSECT_EXPERIMENTS_WORKLOADS_FORWARD_CPU_REFERENCE_H_
