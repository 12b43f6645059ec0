// A network as a layer graph (format dissect.network.v1,
// configs/networks/README.md): its feature extractor ("layers": conv, bn,
// relu, maxpool, avgpool, add, concat) and optionally its classifier
// ("classifier": fc, relu, avgpool, softmax, ...), each layer with the shape it
// takes and the shape it makes. Pure host code: no CUDA.
#ifndef DISSECT_EXPERIMENTS_WORKLOADS_FORWARD_NETWORK_H_
#define DISSECT_EXPERIMENTS_WORKLOADS_FORWARD_NETWORK_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace dissect::forward {

enum class LayerOp {
  kConv,
  kBatchNorm,
  kRelu,
  kMaxPool,
  kAdd,
  kAvgPool,  // average over the window, padding counted (cuDNN's INCLUDE_PADDING)
  kConcat,   // channel concatenation of two inputs of equal h and w
  kFc,       // fully connected: flattens c*h*w, k outputs, no bias
  kSoftmax,  // softmax over the channels of each pixel
};

// "conv", "bn", "relu", "maxpool", "add", "avgpool", "concat", "fc",
// "softmax".
const char* LayerOpName(LayerOp op);

// The shape of one image's tensor (NCHW without the batch).
struct Shape {
  int c = 0;
  int h = 0;
  int w = 0;
  bool operator==(const Shape& o) const { return c == o.c && h == o.h && w == o.w; }
  bool operator!=(const Shape& o) const { return !(*this == o); }
};

// A batch tensor's NCHW dimensions (a device tensor's in forward_pass.h).
struct TensorDims {
  int n = 0;
  int c = 0;
  int h = 0;
  int w = 0;
  size_t elements() const { return static_cast<size_t>(n) * c * h * w; }
};

// The network input's index in LayerSpec::inputs.
inline constexpr int kNetworkInput = -1;

struct LayerSpec {
  std::string name;
  LayerOp op = LayerOp::kRelu;
  // Indices of earlier layers whose outputs this layer reads, or
  // kNetworkInput: one input, except add (two, of equal shape) and concat
  // (two, of equal h and w).
  std::vector<int> inputs;
  // conv: k output channels, an r x s window (no bias: BN follows);
  // conv, maxpool and avgpool: stride and zero padding (max-pool padding is
  // ignored in the max, as cuDNN's CUDNN_POOLING_MAX; average-pool padding
  // counts as zeros); fc: k output features (output k x 1 x 1).
  int k = 0;
  int r = 0;
  int s = 0;
  int stride = 1;
  int pad = 0;
  Shape in;   // the (first) input's shape
  Shape out;  // the output's shape
};

struct NetworkSpec {
  std::string name;
  Shape input;
  std::vector<LayerSpec> layers;
};

// Which part of a document to keep: the feature extractor ("layers") only,
// or it followed by the "classifier" layers. Both parts are always checked.
enum class NetworkPart { kFeatures, kFull };

// Parses a dissect.network.v1 document; errors start with `origin` (a file
// name) and name the layer.
absl::StatusOr<NetworkSpec> ParseNetwork(std::string_view json, std::string_view origin,
                                         NetworkPart part = NetworkPart::kFeatures);

// Reads and parses a file; a missing or corrupt file is an error naming it.
absl::StatusOr<NetworkSpec> LoadNetworkFile(const std::string& path,
                                            NetworkPart part = NetworkPart::kFeatures);

// The networks compiled into the binary (configs/networks/*.json), all of
// which BuiltinNetwork knows: "vgg16", "resnet50", "densenet121", "alexnet".
std::vector<std::string> AllBuiltinNetworkNames();
// The first two, "vgg16", "resnet50": the networks built in first, whose
// list the activation-sparsity experiment offers as its network axis (kept so
// that its default sweep does not grow).
std::vector<std::string> BuiltinNetworkNames();
absl::StatusOr<NetworkSpec> BuiltinNetwork(std::string_view name,
                                           NetworkPart part = NetworkPart::kFeatures);

// The compulsory work of layer `i` for a batch, float32: bytes = every input
// read once + the output written once + the weights (conv, fc) or the
// per-channel parameters (bn: mean, variance, scale, shift) read once;
// flops = 2 per multiply-add (conv, fc), 2 per element (bn: one fused
// multiply-add), 1 per element (relu, add), 1 per window element (pooling),
// 0 for concat (a copy), 3 per element for softmax (exp, sum, divide; the
// max is not counted).
struct LayerCost {
  double bytes = 0;
  double flops = 0;
};
LayerCost ComputeLayerCost(const NetworkSpec& net, int i, int batch);

// How many layers of `op` the network has.
int CountLayers(const NetworkSpec& net, LayerOp op);

// Which activation buffer holds each layer's output: a layer takes a free
// buffer (never one an input or any other live output holds), and a buffer is
// free again after the last layer that reads it (at once if none does).
struct BufferPlan {
  std::vector<int> buffer;  // per layer
  int count = 0;            // buffers needed
};
BufferPlan PlanBuffers(const NetworkSpec& net);

// Elements of one image's output of layer `i` (c*h*w).
inline size_t ShapeElements(const Shape& s) { return static_cast<size_t>(s.c) * s.h * s.w; }

}  // namespace dissect::forward

#endif  // DISSECT_EXPERIMENTS_WORKLOADS_FORWARD_NETWORK_H_
