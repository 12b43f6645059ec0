// Layer shapes from a JSON file (see layer_config.h).
#include "experiments/workloads/layers/layer_config.h"

#include <set>
#include <string>
#include <tuple>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

namespace dissect::l1_bypass {
namespace {

using Json = nlohmann::json;

constexpr char kFormat[] = "dissect.layers.v1";
// Sizes above this are typos, not layers.
constexpr int kMaxDim = 1 << 20;

absl::Status Error(absl::string_view origin, absl::string_view where, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(origin, ": ", where, ": ", what));
}

bool IsAxisToken(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') {
      return false;
    }
  }
  return true;
}

// Reads integer member `key` into `out`; missing keeps `out` unless required.
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

absl::StatusOr<LayerShape> ParseLayer(const Json& j, const std::set<std::string>& networks,
                                      absl::string_view origin, const std::string& where) {
  if (!j.is_object()) return Error(origin, where, "is not an object");
  for (const auto& [key, value] : j.items()) {
    static const std::set<std::string> kKeys = {
        "name", "network", "type", "n", "c", "h", "w", "k", "r", "s", "stride", "pad", "note"};
    if (kKeys.count(key) == 0)
      return Error(origin, where, absl::StrCat("unknown key \"", key, "\""));
  }
  LayerShape l;
  for (const char* key : {"name", "network", "type"}) {
    const auto it = j.find(key);
    if (it == j.end() || !it->is_string()) {
      return Error(origin, where, absl::StrCat("\"", key, "\" must be a string"));
    }
  }
  l.name = j["name"].get<std::string>();
  const std::string at = absl::StrCat(where, " (", l.name, ")");
  if (!IsAxisToken(l.name)) {
    return Error(origin, at, "\"name\" may hold only letters, digits, '_', '-' and '.'");
  }
  l.network = j["network"].get<std::string>();
  if (networks.count(l.network) == 0) {
    return Error(origin, at, absl::StrCat("network \"", l.network, "\" is not in \"networks\""));
  }
  const std::string type = j["type"].get<std::string>();
  if (type == "conv") {
    l.type = LayerType::kConv;
  } else if (type == "pool") {
    l.type = LayerType::kPool;
  } else if (type == "fc") {
    l.type = LayerType::kFc;
  } else {
    return Error(origin, at, absl::StrCat("\"type\" must be conv, pool or fc, not \"", type, "\""));
  }
  if (j.contains("note")) {
    if (!j["note"].is_string()) return Error(origin, at, "\"note\" is not a string");
    l.note = j["note"].get<std::string>();
  }
  const bool spatial = l.type != LayerType::kFc;
  const bool has_k = l.type != LayerType::kPool;
  for (auto [key, field, required, min] :
       {std::tuple<const char*, int*, bool, int>{"n", &l.n, true, 1},
        {"c", &l.c, true, 1},
        {"h", &l.h, spatial, 1},
        {"w", &l.w, spatial, 1},
        {"k", &l.k, has_k, 1},
        {"r", &l.r, spatial, 1},
        {"s", &l.s, spatial, 1},
        {"stride", &l.stride, spatial, 1},
        {"pad", &l.pad, spatial, 0}}) {
    if (absl::Status st = GetInt(j, key, required, min, origin, at, *field); !st.ok()) {
      return st;
    }
  }
  if (!spatial && (l.h != 1 || l.w != 1 || l.r != 1 || l.s != 1 || l.pad != 0 || l.stride != 1)) {
    return Error(origin, at, "a fc layer has only n, c and k");
  }
  if (!has_k && j.contains("k")) return Error(origin, at, "a pool layer has no \"k\"");
  if (spatial && (l.OutH() < 1 || l.OutW() < 1 || l.r > l.h + 2 * l.pad || l.s > l.w + 2 * l.pad)) {
    return Error(origin, at, "the window does not fit the padded input");
  }
  return l;
}

}  // namespace

absl::StatusOr<std::vector<LayerShape>> ParseLayerConfig(absl::string_view text,
                                                         absl::string_view origin) {
  const Json doc = Json::parse(text.begin(), text.end(), nullptr, false);
  if (doc.is_discarded()) return Error(origin, "file", "is not valid JSON");
  if (!doc.is_object() || !doc.contains("format") || doc["format"] != kFormat) {
    return Error(origin, "file", absl::StrCat("\"format\" must be \"", kFormat, "\""));
  }
  if (!doc.contains("networks") || !doc["networks"].is_object()) {
    return Error(origin, "file", "\"networks\" must be an object");
  }
  std::set<std::string> networks;
  for (const auto& [key, value] : doc["networks"].items()) {
    for (const char* field : {"authors", "title", "venue", "where"}) {
      if (!value.contains(field) || !value[field].is_string() ||
          value[field].get<std::string>().empty()) {
        return Error(origin, absl::StrCat("network ", key),
                     absl::StrCat("\"", field, "\" must be a non-empty string"));
      }
    }
    networks.insert(key);
  }
  if (!doc.contains("layers") || !doc["layers"].is_array() || doc["layers"].empty()) {
    return Error(origin, "file", "\"layers\" must be a non-empty array");
  }
  std::vector<LayerShape> layers;
  std::set<std::string> names;
  for (size_t i = 0; i < doc["layers"].size(); ++i) {
    absl::StatusOr<LayerShape> l =
        ParseLayer(doc["layers"][i], networks, origin, absl::StrCat("layer ", i));
    if (!l.ok()) return l.status();
    if (!names.insert(l->name).second) {
      return Error(origin, absl::StrCat("layer ", i),
                   absl::StrCat("duplicate name \"", l->name, "\""));
    }
    layers.push_back(*std::move(l));
  }
  return layers;
}

const absl::StatusOr<std::vector<LayerShape>>& EmbeddedLayers() {
  static const auto* layers = new absl::StatusOr<std::vector<LayerShape>>(
      ParseLayerConfig(kEmbeddedLayersJson, kEmbeddedLayersOrigin));
  return *layers;
}

std::vector<std::string> EmbeddedLayerNames() {
  const auto& layers = EmbeddedLayers();
  if (!layers.ok()) return {"invalid-config"};
  std::vector<std::string> names;
  for (const LayerShape& l : *layers) names.push_back(l.name);
  return names;
}

absl::StatusOr<const LayerShape*> FindEmbeddedLayer(absl::string_view name) {
  const auto& layers = EmbeddedLayers();
  if (!layers.ok()) return layers.status();
  for (const LayerShape& l : *layers) {
    if (l.name == name) return &l;
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown layer '", name, "'"));
}

}  // namespace dissect::l1_bypass
