// The axes of conv_algorithms as host code: every conv layer of the built-in
// networks (experiments/workloads/forward/network.h) named "<network>.<layer>", which
// of them are the first of their shape in their network, and the legacy
// cuDNN forward algorithms by name. No CUDA, no cuDNN library.
#ifndef DISSECT_EXPERIMENTS_CONV_ALGOS_CONV_LAYERS_H_
#define DISSECT_EXPERIMENTS_CONV_ALGOS_CONV_LAYERS_H_

#include <cudnn.h>

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "experiments/workloads/forward/network.h"

namespace dissect::conv_algos {

// One conv layer of a built-in network.
struct ConvLayer {
  std::string name;     // "<network>.<layer>", e.g. "vgg16.conv1_1"
  std::string network;  // "vgg16"
  forward::LayerSpec spec;
  // Conv layers of the network with this layer's shape (input c x h x w,
  // k, r x s, stride, pad) when this is the first of them, 0 for a repeat:
  // summing time x shape_count over a network's layers counts each conv once.
  int shape_count = 0;
  int network_conv_layers = 0;  // conv layers of the network
};

// Every conv layer of every built-in network (AllBuiltinNetworkNames order),
// in network order.
absl::StatusOr<std::vector<ConvLayer>> AllConvLayers();

// The names of `layers` of `networks` whose shape_count is > 0 (the first of
// each shape in its network).
std::vector<std::string> DistinctShapeNames(const std::vector<ConvLayer>& layers,
                                            const std::vector<std::string>& networks);

// Floating-point operations of one forward convolution of `batch` images:
// 2 N K C R S P Q.
double ConvFlops(const forward::LayerSpec& layer, int batch);

// The (input, weight) pairs whose products sum to output (n, k, p, q) of
// conv layer `l` (no bias) on periodic tensors: input element i (NCHW) is
// x[i % x.size()], weight element i (KCRS) is w[i % w.size()]. In c, r, s
// order, padding left out. Tests sum them in other orders and precisions.
struct ConvTerm {
  float x = 0;
  float w = 0;
};
std::vector<ConvTerm> ConvTermsAt(const forward::LayerSpec& l, const std::vector<float>& x,
                                  const std::vector<float>& w, int n, int k, int p, int q);

// One output value (ConvTermsAt's products summed in double, exact per
// product). `magnitude` is sum |x w| over the products, the bound of the
// rounding error of any algorithm; `norm` is sqrt(sum (x w)^2), the scale
// of errors of random sign (TF32's input rounding, transforms).
struct ReferenceValue {
  double value = 0;
  double magnitude = 0;
  double norm = 0;
};
ReferenceValue ConvOutputAt(const forward::LayerSpec& l, const std::vector<float>& x,
                            const std::vector<float>& w, int n, int k, int p, int q);

// cuDNN's legacy forward algorithms as axis values.
struct ConvAlgo {
  const char* name;  // "implicit_gemm", ...
  cudnnConvolutionFwdAlgo_t algo;
};
const std::vector<ConvAlgo>& ConvAlgos();
std::vector<std::string> ConvAlgoNames();
// The algorithm called `name`; InvalidArgument listing the names if none.
absl::StatusOr<cudnnConvolutionFwdAlgo_t> ConvAlgoNamed(absl::string_view name);

// The algorithm axis's value for our own two-stage convolution
// (kernels/two_stage_conv), not one of cuDNN's.
inline constexpr char kTwoStageAlgo[] = "two_stage";
// The algorithm axis: ConvAlgoNames(), then kTwoStageAlgo.
std::vector<std::string> AlgoAxisNames();

}  // namespace dissect::conv_algos

#endif  // DISSECT_EXPERIMENTS_CONV_ALGOS_CONV_LAYERS_H_
