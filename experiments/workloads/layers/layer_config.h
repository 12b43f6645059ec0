// Layer shapes from configs/layers/*.json (format dissect.layers.v1, see
// configs/README.md): what the l1_bypass experiment's `layer` axis selects.
#ifndef DISSECT_EXPERIMENTS_WORKLOADS_LAYERS_LAYER_CONFIG_H_
#define DISSECT_EXPERIMENTS_WORKLOADS_LAYERS_LAYER_CONFIG_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace dissect::l1_bypass {

enum class LayerType { kConv, kPool, kFc };

// One layer of a network, batch n, float32 NCHW. Fully connected layers have
// c inputs and k outputs (h = w = r = s = 1). Pooling layers have no k.
struct LayerShape {
  std::string name;     // "vgg16.conv3_1": an axis value
  std::string network;  // a key of the file's "networks"
  LayerType type = LayerType::kConv;
  int n = 1, c = 1, h = 1, w = 1;
  int k = 1, r = 1, s = 1;
  int stride = 1, pad = 0;
  std::string note;

  int OutH() const { return (h + 2 * pad - r) / stride + 1; }
  int OutW() const { return (w + 2 * pad - s) / stride + 1; }
};

// Parses and checks a layer file: known format, every network cited, unique
// names usable as axis values, positive sizes, windows that fit. Errors are
// one line starting with `origin: `.
absl::StatusOr<std::vector<LayerShape>> ParseLayerConfig(absl::string_view json,
                                                         absl::string_view origin);

// configs/layers/cnn_layers.json as built into the binary.
extern const char kEmbeddedLayersJson[];
inline constexpr char kEmbeddedLayersOrigin[] = "configs/layers/cnn_layers.json";

// The built-in layers, parsed once.
const absl::StatusOr<std::vector<LayerShape>>& EmbeddedLayers();

// The names of the built-in layers, in file order (a `layer` axis); one
// placeholder, "invalid-config", if the file is broken (an experiment's
// Validate then reports why).
std::vector<std::string> EmbeddedLayerNames();

// The built-in layer called `name`; InvalidArgument for an unknown name, or
// the config's own error.
absl::StatusOr<const LayerShape*> FindEmbeddedLayer(absl::string_view name);

}  // namespace dissect::l1_bypass

#endif  // DISSECT_EXPERIMENTS_WORKLOADS_LAYERS_LAYER_CONFIG_H_
