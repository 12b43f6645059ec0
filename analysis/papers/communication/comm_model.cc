#include "analysis/papers/communication/comm_model.h"

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "analysis/papers/communication/networks_embedded.h"
#include "nlohmann/json.hpp"

namespace dissect::analysis::papers::communication {

double ModelledStepComputeMs(double forward_ms) {
  return forward_ms * (1.0 + kBackwardOverForward);
}

double RingAllReduceBytesPerWorker(double gradient_bytes, int workers) {
  if (workers <= 1) return 0;
  return 2.0 * (workers - 1) / workers * gradient_bytes;
}

double LineRateGBps(double gbit_per_s) { return gbit_per_s / 8.0; }

double TransferMs(double bytes, double gb_per_s) {
  if (!(gb_per_s > 0)) return NAN;
  return bytes / (gb_per_s * 1e9) * 1e3;
}

double CommunicationSharePercent(double compute_ms, double comm_ms) {
  const double step = compute_ms + comm_ms;
  return step > 0 ? 100.0 * comm_ms / step : NAN;
}

double UpgradeSpeedup(double compute_ms, double slow_comm_ms, double fast_comm_ms) {
  const double fast = compute_ms + fast_comm_ms;
  return fast > 0 ? (compute_ms + slow_comm_ms) / fast : NAN;
}

namespace {

struct Shape {
  int64_t c = 0, h = 0, w = 0;
};

// A layer's integer key; `fallback` when absent (-1: required).
int64_t IntKey(const nlohmann::json& layer, const char* key, int64_t fallback) {
  const auto it = layer.find(key);
  if (it == layer.end()) return fallback;
  return it->is_number_integer() ? it->get<int64_t>() : -1;
}

// Walks the layers in order, keeping each one's output shape, and adds up
// the trainable parameters.
class ParameterCounter {
 public:
  ParameterCounter(std::string_view origin, Shape input) : origin_(std::string(origin)) {
    shapes_[previous_] = input;
  }

  absl::Status Add(const nlohmann::json& layer) {
    if (!layer.is_object() || !layer.contains("name") || !layer["name"].is_string() ||
        !layer.contains("op") || !layer["op"].is_string()) {
      return Bad("a layer needs a string name and op");
    }
    const std::string name = layer["name"].get<std::string>();
    const std::string op = layer["op"].get<std::string>();
    std::vector<Shape> in;
    if (const auto inputs = layer.find("inputs"); inputs != layer.end()) {
      if (!inputs->is_array()) return Bad(name + ": inputs must be a list");
      for (const nlohmann::json& ref : *inputs) {
        if (!ref.is_string() || !shapes_.count(ref.get<std::string>())) {
          return Bad(name + ": an input is no earlier layer");
        }
        in.push_back(shapes_.at(ref.get<std::string>()));
      }
    } else {
      const std::string ref = layer.contains("input") && layer["input"].is_string()
                                  ? layer["input"].get<std::string>()
                                  : previous_;
      if (!shapes_.count(ref)) return Bad(name + ": its input is no earlier layer");
      in.push_back(shapes_.at(ref));
    }
    if (in.empty()) return Bad(name + ": no input");
    absl::StatusOr<Shape> out = Output(layer, op, in);
    if (!out.ok()) return Bad(absl::StrCat(name, ": ", out.status().message()));
    shapes_[name] = *out;
    previous_ = name;
    return absl::OkStatus();
  }

  int64_t parameters() const { return parameters_; }

 private:
  absl::Status Bad(const std::string& what) const {
    return absl::InvalidArgumentError(absl::StrCat(origin_, ": ", what));
  }

  // The output shape; counts the layer's parameters on the way.
  absl::StatusOr<Shape> Output(const nlohmann::json& layer, const std::string& op,
                               const std::vector<Shape>& in) {
    Shape out = in[0];
    if (op == "conv" || op == "maxpool" || (op == "avgpool" && !layer.value("global", false))) {
      const int64_t r = IntKey(layer, "r", -1), s = IntKey(layer, "s", -1);
      const int64_t stride = IntKey(layer, "stride", 1), pad = IntKey(layer, "pad", 0);
      if (r < 1 || s < 1 || stride < 1 || pad < 0) {
        return absl::InvalidArgumentError("needs integer r, s >= 1 (stride >= 1, pad >= 0)");
      }
      out.h = (in[0].h + 2 * pad - r) / stride + 1;
      out.w = (in[0].w + 2 * pad - s) / stride + 1;
      if (op == "conv") {
        const int64_t k = IntKey(layer, "k", -1);
        if (k < 1) return absl::InvalidArgumentError("a conv needs an integer k >= 1");
        parameters_ += k * in[0].c * r * s;
        out.c = k;
      }
    } else if (op == "avgpool") {
      out.h = out.w = 1;
    } else if (op == "fc") {
      const int64_t k = IntKey(layer, "k", -1);
      if (k < 1) return absl::InvalidArgumentError("an fc needs an integer k >= 1");
      parameters_ += k * in[0].c * in[0].h * in[0].w;
      out = {k, 1, 1};
    } else if (op == "bn") {
      parameters_ += 2 * in[0].c;
    } else if (op == "concat") {
      if (in.size() != 2) return absl::InvalidArgumentError("a concat needs two inputs");
      out.c = in[0].c + in[1].c;
    } else if (op != "relu" && op != "add" && op != "softmax") {
      return absl::InvalidArgumentError(absl::StrCat("unknown op \"", op, "\""));
    }
    return out;
  }

  std::string origin_;
  std::map<std::string, Shape> shapes_;
  std::string previous_ = "input";  // the network input, until the first layer
  int64_t parameters_ = 0;
};

}  // namespace

absl::StatusOr<int64_t> TrainableParameters(std::string_view network_json,
                                            std::string_view origin) {
  const nlohmann::json doc =
      nlohmann::json::parse(network_json.begin(), network_json.end(), nullptr, false);
  const auto bad = [&](const std::string& what) {
    return absl::InvalidArgumentError(absl::StrCat(std::string(origin), ": ", what));
  };
  if (doc.is_discarded() || !doc.is_object()) return bad("not a JSON object");
  const auto input = doc.find("input");
  if (input == doc.end() || !input->is_object())
    return bad("\"input\" must be an object {c, h, w}");
  const Shape in{IntKey(*input, "c", -1), IntKey(*input, "h", -1), IntKey(*input, "w", -1)};
  if (in.c < 1 || in.h < 1 || in.w < 1) return bad("\"input\" needs integers c, h, w >= 1");
  ParameterCounter counter(origin, in);
  for (const char* part : {"layers", "classifier"}) {
    const auto layers = doc.find(part);
    if (layers == doc.end()) continue;
    if (!layers->is_array()) return bad(absl::StrCat("\"", part, "\" must be a list"));
    for (const nlohmann::json& layer : *layers) {
      if (absl::Status s = counter.Add(layer); !s.ok()) return s;
    }
  }
  return counter.parameters();
}

absl::StatusOr<int64_t> BuiltinNetworkParameters(std::string_view name) {
  static const auto* files = new std::map<std::string, const char*, std::less<>>{
      {"alexnet", kEmbeddedAlexnetJson},
      {"densenet121", kEmbeddedDensenet121Json},
      {"resnet50", kEmbeddedResnet50Json},
      {"vgg16", kEmbeddedVgg16Json},
  };
  const auto it = files->find(name);
  if (it == files->end()) {
    return absl::NotFoundError(
        absl::StrCat("no configs/networks/", std::string(name), ".json to count parameters of"));
  }
  return TrainableParameters(it->second,
                             absl::StrCat("configs/networks/", std::string(name), ".json"));
}

}  // namespace dissect::analysis::papers::communication
