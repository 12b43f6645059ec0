// dissect.network.v1 parsing (see network.h, configs/networks/README.md).
#include "experiments/forward/network.h"

#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "experiments/forward/networks_embedded.h"
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
  static const std::map<std::string, LayerOp> kOps = {{"conv", LayerOp::kConv},
                                                      {"bn", LayerOp::kBatchNorm},
                                                      {"relu", LayerOp::kRelu},
                                                      {"maxpool", LayerOp::kMaxPool},
                                                      {"add", LayerOp::kAdd}};
  const auto it = j.find("op");
  if (it == j.end() || !it->is_string() || kOps.count(it->get<std::string>()) == 0) {
    return Error(origin, where, "\"op\" must be one of conv, bn, relu, maxpool, add");
  }
  return kOps.at(it->get<std::string>());
}

// The keys each op may have besides name and op.
const std::set<std::string>& AllowedKeys(LayerOp op) {
  static const std::set<std::string> kWindowed = {"input", "k", "r", "s", "stride", "pad"};
  static const std::set<std::string> kPool = {"input", "r", "s", "stride", "pad"};
  static const std::set<std::string> kUnary = {"input"};
  static const std::set<std::string> kAddKeys = {"inputs"};
  switch (op) {
    case LayerOp::kConv:
      return kWindowed;
    case LayerOp::kMaxPool:
      return kPool;
    case LayerOp::kAdd:
      return kAddKeys;
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
  const int previous = position == 0 ? kNetworkInput : position - 1;
  if (layer.op == LayerOp::kAdd) {
    const auto inputs = j.find("inputs");
    if (inputs == j.end() || !inputs->is_array() || inputs->size() != 2) {
      return Error(origin, where, "add needs \"inputs\": two layer names");
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
  if (layer.op == LayerOp::kConv || layer.op == LayerOp::kMaxPool) {
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
  }
  return "?";
}

absl::StatusOr<NetworkSpec> ParseNetwork(std::string_view json, std::string_view origin_view) {
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
  std::map<std::string, int> index;
  for (size_t i = 0; i < layers->size(); ++i) {
    LayerSpec layer;
    DISSECT_RETURN_IF_ERROR(
        ParseLayer((*layers)[i], static_cast<int>(i), net, index, origin, layer));
    index[layer.name] = static_cast<int>(i);
    net.layers.push_back(std::move(layer));
  }
  return net;
}

absl::StatusOr<NetworkSpec> LoadNetworkFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot read the network file"));
  std::stringstream text;
  text << in.rdbuf();
  return ParseNetwork(text.str(), path);
}

std::vector<std::string> BuiltinNetworkNames() { return {"vgg16", "resnet50"}; }

absl::StatusOr<NetworkSpec> BuiltinNetwork(std::string_view name_view) {
  const absl::string_view name(name_view.data(), name_view.size());
  if (name == "vgg16") return ParseNetwork(kEmbeddedVgg16Json, "configs/networks/vgg16.json");
  if (name == "resnet50") {
    return ParseNetwork(kEmbeddedResnet50Json, "configs/networks/resnet50.json");
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown network \"", name, "\" (built in: ",
                                                 absl::StrJoin(BuiltinNetworkNames(), ", "), ")"));
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

int CountLayers(const NetworkSpec& net, LayerOp op) {
  int count = 0;
  for (const LayerSpec& layer : net.layers) count += layer.op == op ? 1 : 0;
  return count;
}

}  // namespace dissect::forward
