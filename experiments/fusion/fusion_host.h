// Host side of the layer_fusion experiment (no CUDA calls): the patterns and
// modes, the layer shapes of the `layer` axis, the bytes each form must move
// through DRAM, and the CPU reference the device outputs are checked against.
#ifndef DISSECT_EXPERIMENTS_FUSION_FUSION_HOST_H_
#define DISSECT_EXPERIMENTS_FUSION_FUSION_HOST_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "kernels/fusion/fusion.h"

namespace dissect::fusion {

// conv_relu: conv then ReLU (Dong & Kaeli 2018). bn_relu: BN then ReLU on the
// layer's input tensor. bn_relu_conv: BN+ReLU then the conv that reads it
// (DenseNet's BN-ReLU-Conv order; Jung et al. 2019).
enum class Pattern { kConvRelu, kBnRelu, kBnReluConv };
// fused: one kernel. unfused: conv_relu = conv, ReLU; bn_relu = BN, ReLU;
// bn_relu_conv = BN+ReLU (one kernel), conv.
enum class Mode { kFused, kUnfused };

std::vector<std::string> PatternNames();
std::vector<std::string> ModeNames();
absl::StatusOr<Pattern> ParsePattern(absl::string_view name);
absl::StatusOr<Mode> ParseMode(absl::string_view name);

struct FusionLayer {
  std::string name;  // an axis value, e.g. "vgg16.conv3_1"
  ConvDims dims;     // n = 1; the experiment sets the batch
};

// DenseNet-121 shapes (Huang et al., "Densely Connected Convolutional
// Networks", CVPR 2017, Table 1: growth rate 32, 1x1 bottlenecks of 4 x 32 =
// 128 channels, 3x3 convs to 32, transition 1x1 halving the channels).
const std::vector<FusionLayer>& DenseNetLayers();

// The conv layers of configs/layers/cnn_layers.json (file order), then the
// DenseNet-121 ones; an error if the embedded layer file is broken.
absl::StatusOr<std::vector<FusionLayer>> FusionLayers();
// Their names; one placeholder, "invalid-config", if the file is broken.
std::vector<std::string> FusionLayerNames();
absl::StatusOr<FusionLayer> FindFusionLayer(absl::string_view name);

// The tensors of one point, in elements: the pattern's input, its output,
// the intermediate the unfused form writes and reads again, and the
// parameters (weights; BN's scale and shift).
struct TensorSizes {
  size_t input = 0, output = 0, intermediate = 0, weights = 0, channel_params = 0;
};
TensorSizes SizesOf(Pattern pattern, const ConvDims& d);

// Bytes that must cross DRAM at least once for `mode`: input, parameters and
// output once each, plus for unfused the intermediate written and read back.
double CompulsoryBytes(Pattern pattern, Mode mode, const ConvDims& d);

// Every distinct byte the unfused form touches: input, parameters,
// intermediate and output, once each. The fused form touches less; both rows
// of a point carry this one figure so that their framing agrees (the 2 x L2
// rule it is held to: experiments/framework/l2_residency.h).
double WorkingSetBytes(Pattern pattern, const ConvDims& d);

// Inputs reproducible from `seed` (kernels/elementwise.h's
// FillUniformValue): x in [-1, 1), weights in [-a, a) with a =
// 1/sqrt(C*R*S), BN scale in [0.5, 1.5) and shift in [-0.5, 0.5).
struct HostInputs {
  std::vector<float> x, weights, scale, shift;
};
HostInputs MakeInputs(Pattern pattern, const ConvDims& d, uint64_t seed);

// Output element `i` of the pattern as the device computes it (the same
// fmaf operations in the same order).
float ReferenceAt(Pattern pattern, const HostInputs& in, const ConvDims& d, size_t i);

// Output indices to check against the CPU: all when their cost fits
// `work_budget` multiply-adds, else an evenly spaced sample that holds the
// first and last output of every image. Sorted, unique.
std::vector<size_t> SampleOutputs(Pattern pattern, const ConvDims& d, double work_budget);

// Checks `y` against ReferenceAt at SampleOutputs (equal as floats: ±0
// alike); the error names the first wrong element.
absl::Status CheckAgainstReference(Pattern pattern, const HostInputs& in, const ConvDims& d,
                                   const std::vector<float>& y, double work_budget);

}  // namespace dissect::fusion

#endif  // DISSECT_EXPERIMENTS_FUSION_FUSION_HOST_H_
