// How each layer kernel runs a layer of the config: the launch shape, the
// tensors it reads and writes, and the resizing behind the
// `working_set_bytes` axis.
#ifndef DISSECT_EXPERIMENTS_WORKLOADS_LAYERS_WORKLOAD_H_
#define DISSECT_EXPERIMENTS_WORKLOADS_LAYERS_WORKLOAD_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "experiments/workloads/layers/layer_config.h"
#include "kernels/layers/layers.h"

namespace dissect::l1_bypass {

// "stream", "gather", "stencil", "conv", "maxpool", "gemv", "softmax".
const char* KernelName(layers::LayerKernel kernel);
absl::StatusOr<layers::LayerKernel> ParseKernel(absl::string_view name);
std::vector<std::string> KernelNames();

// Why `kernel` has nothing to do on `layer`, or "" when it applies:
//   stream, gather, softmax: every layer;  stencil: conv and pool layers;
//   conv: conv layers;  maxpool: pool layers;  gemv: fc layers.
std::string NotApplicable(layers::LayerKernel kernel, const LayerShape& layer);

// One launch: its shape and the element counts of its tensors.
struct Workload {
  layers::LayerKernel kernel = layers::LayerKernel::kStream;
  layers::LayerDims dims;
  size_t x_elements = 0;       // input (the working set)
  size_t weight_elements = 0;  // stream: 2C; conv: KCRS; gemv: KC; else 0
  size_t index_elements = 0;   // gather: one per input element
  size_t y_elements = 0;       // output
  // Images in the batch (the layer's n): the output is image-major, one
  // equal block of y_elements / images per image.
  int images = 1;

  // Bytes of the input tensor: what `working_set_bytes` asks for.
  int64_t InputBytes() const { return static_cast<int64_t>(x_elements * sizeof(float)); }
  // Bytes of the output tensor: what the launch writes.
  int64_t OutputBytes() const { return static_cast<int64_t>(y_elements * sizeof(float)); }
  // Every tensor read once plus the output written once: the least traffic
  // the kernel can cause (bandwidth_gbps divides this by the time); also the
  // device memory its tensors take.
  int64_t BytesMoved() const {
    return static_cast<int64_t>((x_elements + weight_elements + y_elements) * sizeof(float) +
                                index_elements * sizeof(int32_t));
  }
  // Multiply-adds (or comparisons) behind one output element, for sizing the
  // host check.
  double WorkPerOutput() const;
};

// The layer as `kernel` runs it (NotApplicable must be ""), at the layer's
// batch n (the experiment's `batch` axis sets it). The input is the
// layer's input tensor N x C x H x W, except for softmax on a fc layer,
// which normalizes the layer's N x K outputs (the classifier's softmax).
// Softmax on conv and pool layers normalizes each H x W plane (a spatial
// softmax). With working_set_bytes > 0 the layer is resized so that the
// input has about that many bytes: conv and pool layers get a square
// H = W (at least the window, so the layer stays valid); fc layers get
// C inputs (softmax: K outputs), and gemv keeps the weight matrix at the
// layer's K x C elements by lowering K (at least 1). InputBytes() says what
// it came to.
Workload MakeWorkload(layers::LayerKernel kernel, const LayerShape& layer,
                      int64_t working_set_bytes);

}  // namespace dissect::l1_bypass

#endif  // DISSECT_EXPERIMENTS_WORKLOADS_LAYERS_WORKLOAD_H_
