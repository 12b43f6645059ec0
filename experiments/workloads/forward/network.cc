// dissect.network.v1 parsing (see network.h, configs/networks/README.md).
#include "experiments/workloads/forward/network.h"

#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "experiments/workloads/forward/networks_embedded.h"
#include "nlohmann/json.hpp"
#include "probes/cuda_status.h"

namespace dissect::forward {
namespace {

using Json = nlohmann::json;

constexpr char kFormat[] = "dissect.network.v1";
// Sizes above this are typos, not layers.
constexpr int kMaxDim = 1 << 16;

absl::Status Error(absl::string_view origin, absl::string_view where, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(origin, ": ", where, ": ", what));
}

absl::Status GetInt(const Json& j, const char* key, bool required, int min,
                    absl::string_view origin, const std::string& where, int& out) {
  const auto it = j.find(key);
  if (it == j.end()) {
    return required ? Error(origin, where, absl::StrCat("no \"", key, "\"")) : absl::OkStatus();
  }
  if (!it->is_number_integer() || it->get<int64_t>() < min || it->get<int64_t>() > kMaxDim) {
    return Error(origin, where,
                 absl::StrCat("\"", key, "\" must be an integer in ", min, "..", kMaxDim));
  }
  out = it->get<int>();
  return absl::OkStatus();
}

absl::StatusOr<LayerOp> ParseOp(const Json& j, absl::string_view origin, const std::string& where) {
  static const std::map<std::string, LayerOp> kOps = {
      {"conv", LayerOp::kConv},       {"bn", LayerOp::kBatchNorm}, {"relu", LayerOp::kRelu},
      {"maxpool", LayerOp::kMaxPool}, {"add", LayerOp::kAdd},      {"avgpool", LayerOp::kAvgPool},
      {"concat", LayerOp::kConcat},   {"fc", LayerOp::kFc},        {"softmax", LayerOp::kSoftmax}};
  const auto it = j.find("op");
  if (it == j.end() || !it->is_string() || kOps.count(it->get<std::string>()) == 0) {
    return Error(origin, where,
                 "\"op\" must be one of conv, bn, relu, maxpool, add, avgpool, concat, fc, "
                 "softmax");
  }
  return kOps.at(it->get<std::string>());
}

// The keys each op may have besides name and op.
const std::set<std::string>& AllowedKeys(LayerOp op) {
  static const std::set<std::string> kWindowed = {"input", "k", "r", "s", "stride", "pad"};
  static const std::set<std::string> kPool = {"input", "r", "s", "stride", "pad"};
  static const std::set<std::string> kAvgPoolKeys = {"input", "r", "s", "stride", "pad", "global"};
  static const std::set<std::string> kFcKeys = {"input", "k"};
  static const std::set<std::string> kUnary = {"input"};
  static const std::set<std::string> kTwoInputs = {"inputs"};
  switch (op) {
    case LayerOp::kConv:
      return kWindowed;
    case LayerOp::kMaxPool:
      return kPool;
    case LayerOp::kAvgPool:
      return kAvgPoolKeys;
    case LayerOp::kFc:
      return kFcKeys;
    case LayerOp::kAdd:
    case LayerOp::kConcat:
      return kTwoInputs;
    default:
      return kUnary;
  }
}

// Resolves a layer reference ("input" or an earlier layer's name).
absl::StatusOr<int> Resolve(const Json& ref, const std::map<std::string, int>& index,
                            absl::string_view origin, const std::string& where) {
  if (!ref.is_string()) return Error(origin, where, "an input must be a layer name");
  const std::string name = ref.get<std::string>();
  if (name == "input") return kNetworkInput;
  const auto it = index.find(name);
  if (it == index.end()) {
    return Error(origin, where, absl::StrCat("input \"", name, "\" is no earlier layer"));
  }
  return it->second;
}

// The window's output extent, or 0 when the window does not fit.
int WindowOut(int in, int window, int stride, int pad) {
  const int span = in + 2 * pad - window;
  return span < 0 ? 0 : span / stride + 1;
}

// The layer's inputs: "inputs" (two layer names) of add and concat, else
// "input" (a layer name), else the layer before it.
absl::Status ParseInputs(const Json& j, int position, const std::map<std::string, int>& index,
                         absl::string_view origin, const std::string& where, LayerSpec& layer) {
  const int previous = position == 0 ? kNetworkInput : position - 1;
  if (layer.op == LayerOp::kAdd || layer.op == LayerOp::kConcat) {
    const auto inputs = j.find("inputs");
    if (inputs == j.end() || !inputs->is_array() || inputs->size() != 2) {
      return Error(origin, where,
                   absl::StrCat(LayerOpName(layer.op), " needs \"inputs\": two layer names"));
    }
    for (const Json& ref : *inputs) {
      absl::StatusOr<int> input = Resolve(ref, index, origin, where);
      if (!input.ok()) return input.status();
      layer.inputs.push_back(*input);
    }
  } else if (const auto input = j.find("input"); input != j.end()) {
    absl::StatusOr<int> resolved = Resolve(*input, index, origin, where);
    if (!resolved.ok()) return resolved.status();
    layer.inputs.push_back(*resolved);
  } else {
    layer.inputs.push_back(previous);
  }
  return absl::OkStatus();
}

// The window of a conv or pool layer (r, s, stride, pad; a global avgpool
// spans its input) and the output extent it gives.
absl::Status ParseWindow(const Json& j, absl::string_view origin, const std::string& where,
                         LayerSpec& layer) {
  bool global = false;
  if (const auto it = j.find("global"); it != j.end()) {
    if (!it->is_boolean()) return Error(origin, where, "\"global\" must be true or false");
    global = it->get<bool>();
    if (global &&
        (j.contains("r") || j.contains("s") || j.contains("stride") || j.contains("pad"))) {
      return Error(origin, where, "a global avgpool takes no r, s, stride or pad");
    }
  }
  if (global) {
    layer.r = layer.in.h;
    layer.s = layer.in.w;
    layer.out.h = 1;
    layer.out.w = 1;
  } else if (layer.op == LayerOp::kConv || layer.op == LayerOp::kMaxPool ||
             layer.op == LayerOp::kAvgPool) {
    if (layer.op == LayerOp::kConv) {
      DISSECT_RETURN_IF_ERROR(GetInt(j, "k", true, 1, origin, where, layer.k));
    }
    DISSECT_RETURN_IF_ERROR(GetInt(j, "r", true, 1, origin, where, layer.r));
    DISSECT_RETURN_IF_ERROR(GetInt(j, "s", true, 1, origin, where, layer.s));
    DISSECT_RETURN_IF_ERROR(GetInt(j, "stride", false, 1, origin, where, layer.stride));
    DISSECT_RETURN_IF_ERROR(GetInt(j, "pad", false, 0, origin, where, layer.pad));
    layer.out.h = WindowOut(layer.in.h, layer.r, layer.stride, layer.pad);
    layer.out.w = WindowOut(layer.in.w, layer.s, layer.stride, layer.pad);
    if (layer.op == LayerOp::kConv) layer.out.c = layer.k;
    if (layer.out.h < 1 || layer.out.w < 1) {
      return Error(origin, where,
                   absl::StrCat("a ", layer.r, "x", layer.s, " window does not fit its ",
                                layer.in.h, "x", layer.in.w, " input"));
    }
  }
  return absl::OkStatus();
}

absl::Status ParseLayer(const Json& j, int position, const NetworkSpec& net,
                        const std::map<std::string, int>& index, absl::string_view origin,
                        LayerSpec& layer) {
  std::string where = absl::StrCat("layer ", position);
  if (!j.is_object()) return Error(origin, where, "must be an object");
  const auto name = j.find("name");
  if (name == j.end() || !name->is_string() || name->get<std::string>().empty() ||
      name->get<std::string>() == "input") {
    return Error(origin, where, "\"name\" must be a non-empty string other than \"input\"");
  }
  layer.name = name->get<std::string>();
  where = absl::StrCat("layer ", position, " (", layer.name, ")");
  if (index.count(layer.name) != 0) return Error(origin, where, "duplicate name");
  DISSECT_ASSIGN_OR_RETURN(layer.op, ParseOp(j, origin, where));
  for (const auto& [key, value] : j.items()) {
    if (key != "name" && key != "op" && AllowedKeys(layer.op).count(key) == 0) {
      return Error(origin, where,
                   absl::StrCat("unknown key \"", key, "\" for op ", LayerOpName(layer.op)));
    }
  }
  DISSECT_RETURN_IF_ERROR(ParseInputs(j, position, index, origin, where, layer));
  auto shape_of = [&](int i) { return i == kNetworkInput ? net.input : net.layers[i].out; };
  layer.in = shape_of(layer.inputs[0]);
  layer.out = layer.in;
  if (layer.op == LayerOp::kAdd && shape_of(layer.inputs[1]) != layer.in) {
    const Shape a = layer.in;
    const Shape b = shape_of(layer.inputs[1]);
    return Error(origin, where,
                 absl::StrCat("add of unequal shapes ", a.c, "x", a.h, "x", a.w, " and ", b.c, "x",
                              b.h, "x", b.w));
  }
  if (layer.op == LayerOp::kConcat) {
    const Shape b = shape_of(layer.inputs[1]);
    if (b.h != layer.in.h || b.w != layer.in.w) {
      return Error(origin, where,
                   absl::StrCat("concat of unequal sizes ", layer.in.h, "x", layer.in.w, " and ",
                                b.h, "x", b.w));
    }
    layer.out.c = layer.in.c + b.c;
  }
  if (layer.op == LayerOp::kFc) {
    DISSECT_RETURN_IF_ERROR(GetInt(j, "k", true, 1, origin, where, layer.k));
    layer.out = {layer.k, 1, 1};
  }
  return ParseWindow(j, origin, where, layer);
}

}  // namespace

const char* LayerOpName(LayerOp op) {
  switch (op) {
    case LayerOp::kConv:
      return "conv";
    case LayerOp::kBatchNorm:
      return "bn";
    case LayerOp::kRelu:
      return "relu";
    case LayerOp::kMaxPool:
      return "maxpool";
    case LayerOp::kAdd:
      return "add";
    case LayerOp::kAvgPool:
      return "avgpool";
    case LayerOp::kConcat:
      return "concat";
    case LayerOp::kFc:
      return "fc";
    case LayerOp::kSoftmax:
      return "softmax";
  }
  return "?";
}

absl::StatusOr<NetworkSpec> ParseNetwork(std::string_view json, std::string_view origin_view,
                                         NetworkPart part) {
  const absl::string_view origin(origin_view.data(), origin_view.size());
  Json doc;
  try {
    doc = Json::parse(json);
  } catch (const Json::parse_error& e) {
    return absl::InvalidArgumentError(absl::StrCat(origin, ": not valid JSON: ", e.what()));
  }
  if (!doc.is_object()) return Error(origin, "top level", "must be an object");
  const auto format = doc.find("format");
  if (format == doc.end() || *format != kFormat) {
    return Error(origin, "top level", absl::StrCat("\"format\" must be \"", kFormat, "\""));
  }
  NetworkSpec net;
  const auto name = doc.find("name");
  if (name == doc.end() || !name->is_string() || name->get<std::string>().empty()) {
    return Error(origin, "top level", "\"name\" must be a non-empty string");
  }
  net.name = name->get<std::string>();
  const auto input = doc.find("input");
  if (input == doc.end() || !input->is_object()) {
    return Error(origin, "top level", "\"input\" must be an object {c, h, w}");
  }
  DISSECT_RETURN_IF_ERROR(GetInt(*input, "c", true, 1, origin, "input", net.input.c));
  DISSECT_RETURN_IF_ERROR(GetInt(*input, "h", true, 1, origin, "input", net.input.h));
  DISSECT_RETURN_IF_ERROR(GetInt(*input, "w", true, 1, origin, "input", net.input.w));
  const auto layers = doc.find("layers");
  if (layers == doc.end() || !layers->is_array() || layers->empty()) {
    return Error(origin, "top level", "\"layers\" must be a non-empty array");
  }
  const auto classifier = doc.find("classifier");
  if (classifier != doc.end() && (!classifier->is_array() || classifier->empty())) {
    return Error(origin, "top level", "\"classifier\" must be a non-empty array");
  }
  std::vector<const Json*> all;
  for (const Json& j : *layers) all.push_back(&j);
  const size_t feature_count = all.size();
  if (classifier != doc.end()) {
    for (const Json& j : *classifier) all.push_back(&j);
  }
  std::map<std::string, int> index;
  for (size_t i = 0; i < all.size(); ++i) {
    LayerSpec layer;
    DISSECT_RETURN_IF_ERROR(ParseLayer(*all[i], static_cast<int>(i), net, index, origin, layer));
    index[layer.name] = static_cast<int>(i);
    net.layers.push_back(std::move(layer));
  }
  if (part == NetworkPart::kFeatures) net.layers.resize(feature_count);
  return net;
}

absl::StatusOr<NetworkSpec> LoadNetworkFile(const std::string& path, NetworkPart part) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot read the network file"));
  std::stringstream text;
  text << in.rdbuf();
  return ParseNetwork(text.str(), path, part);
}

std::vector<std::string> AllBuiltinNetworkNames() {
  return {"vgg16", "resnet50", "densenet121", "alexnet"};
}

std::vector<std::string> BuiltinNetworkNames() { return {"vgg16", "resnet50"}; }

absl::StatusOr<NetworkSpec> BuiltinNetwork(std::string_view name_view, NetworkPart part) {
  const absl::string_view name(name_view.data(), name_view.size());
  if (name == "vgg16") {
    return ParseNetwork(kEmbeddedVgg16Json, "configs/networks/vgg16.json", part);
  }
  if (name == "resnet50") {
    return ParseNetwork(kEmbeddedResnet50Json, "configs/networks/resnet50.json", part);
  }
  if (name == "densenet121") {
    return ParseNetwork(kEmbeddedDensenet121Json, "configs/networks/densenet121.json", part);
  }
  if (name == "alexnet") {
    return ParseNetwork(kEmbeddedAlexnetJson, "configs/networks/alexnet.json", part);
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown network \"", name,
                   "\" (built in: ", absl::StrJoin(AllBuiltinNetworkNames(), ", "), ")"));
}

BufferPlan PlanBuffers(const NetworkSpec& net) {
  const int count = static_cast<int>(net.layers.size());
  std::vector<int> last_use(count);
  for (int i = 0; i < count; ++i) {
    last_use[i] = i;
    for (int j : net.layers[i].inputs) {
      if (j != kNetworkInput) last_use[j] = i;
    }
  }
  BufferPlan plan;
  plan.buffer.resize(count);
  std::vector<int> free_buffers;
  for (int i = 0; i < count; ++i) {
    if (free_buffers.empty()) free_buffers.push_back(plan.count++);
    plan.buffer[i] = free_buffers.back();
    free_buffers.pop_back();
    for (int j : net.layers[i].inputs) {
      if (j != kNetworkInput && last_use[j] == i) free_buffers.push_back(plan.buffer[j]);
    }
    if (last_use[i] == i) free_buffers.push_back(plan.buffer[i]);
  }
  return plan;
}

LayerCost ComputeLayerCost(const NetworkSpec& net, int i, int batch) {
  const LayerSpec& l = net.layers[i];
  const double n = batch;
  const double in = n * ShapeElements(l.in);
  const double out = n * ShapeElements(l.out);
  LayerCost cost;
  double read = in;
  switch (l.op) {
    case LayerOp::kConv: {
      const double weights = static_cast<double>(l.k) * l.in.c * l.r * l.s;
      read += weights;
      cost.flops = 2.0 * out * l.in.c * l.r * l.s;
      break;
    }
    case LayerOp::kFc: {
      const double weights = static_cast<double>(l.k) * ShapeElements(l.in);
      read += weights;
      cost.flops = 2.0 * n * weights;
      break;
    }
    case LayerOp::kBatchNorm:
      read += 4.0 * l.in.c;
      cost.flops = 2.0 * out;
      break;
    case LayerOp::kRelu:
      cost.flops = out;
      break;
    case LayerOp::kAdd:
      read *= 2;
      cost.flops = out;
      break;
    case LayerOp::kConcat:
      read = out;  // both inputs, all of the output's channels
      break;
    case LayerOp::kMaxPool:
    case LayerOp::kAvgPool:
      cost.flops = out * l.r * l.s;
      break;
    case LayerOp::kSoftmax:
      cost.flops = 3.0 * out;
      break;
  }
  cost.bytes = (read + out) * sizeof(float);
  return cost;
}

int CountLayers(const NetworkSpec& net, LayerOp op) {
  int count = 0;
  for (const LayerSpec& layer : net.layers) count += layer.op == op ? 1 : 0;
  return count;
}

}  // namespace dissect::forward
