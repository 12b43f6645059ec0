// Reader of mt4g's JSON summary and its mapping to a hierarchy_summary
// result file.

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "analysis/importers/import.h"
#include "analysis/importers/import_internal.h"
#include "analysis/results/results.h"
#include "nlohmann/json.hpp"

namespace dissect::analysis {
namespace {

using Json = nlohmann::ordered_json;
using import_internal::FileError;
using import_internal::Int;
using import_internal::Join;
using import_internal::kMt4g;
using import_internal::LineError;
using import_internal::OutFile;
using import_internal::OutRow;
using import_internal::Render;
using import_internal::Sv;

constexpr double kGibPerGb = 1.073741824;  // GiB/s -> GB/s

std::optional<double> JsonNumber(const Json& object, absl::string_view key) {
  if (!object.is_object()) return std::nullopt;
  const auto it = object.find(std::string(key));
  if (it == object.end() || !it->is_number()) return std::nullopt;
  const double value = it->get<double>();
  if (!std::isfinite(value)) return std::nullopt;
  return value;
}

const Json* JsonChild(const Json& object, absl::string_view key) {
  if (!object.is_object()) return nullptr;
  const auto it = object.find(std::string(key));
  if (it == object.end() || !it->is_object()) return nullptr;
  return &*it;
}

std::string JsonString(const Json& object, absl::string_view key) {
  if (!object.is_object()) return "";
  const auto it = object.find(std::string(key));
  if (it == object.end() || !it->is_string()) return "";
  return it->get<std::string>();
}

// The value of `object.<key>.<member>` after checking `object.<key>.unit`
// against `units` (the first is the canonical one; each has its factor).
absl::StatusOr<std::optional<double>> UnitValue(
    const Json& object, absl::string_view key, absl::string_view member,
    const std::vector<std::pair<std::string, double>>& units, absl::string_view where,
    absl::string_view path) {
  const Json* child = JsonChild(object, key);
  if (child == nullptr) return std::optional<double>();
  std::optional<double> value = JsonNumber(*child, member);
  if (!value.has_value()) return std::optional<double>();
  const std::string unit = JsonString(*child, "unit");
  for (const auto& [name, factor] : units) {
    if (unit == name) return std::optional<double>(*value * factor);
  }
  return FileError(path, absl::StrCat(where, ".", key, ".unit is '", unit, "', expected '",
                                      units.front().first, "'"));
}

void NoteMethod(const Json& object, Mt4gLevel* level) {
  if (!object.is_object()) return;
  const std::string method = JsonString(object, "method");
  if (!method.empty() &&
      std::find(level->methods.begin(), level->methods.end(), method) == level->methods.end()) {
    level->methods.push_back(method);
  }
  const auto randomized = object.find("randomized");
  if (randomized != object.end() && randomized->is_boolean()) {
    const bool value = randomized->get<bool>();
    if (std::find(level->randomized.begin(), level->randomized.end(), value) ==
        level->randomized.end()) {
      level->randomized.push_back(value);
    }
  }
}

absl::StatusOr<Mt4gLevel> ParseMt4gLevel(const Json& json, std::string level_name,
                                         absl::string_view where, absl::string_view path) {
  Mt4gLevel level;
  level.level = std::move(level_name);
  const std::vector<std::pair<std::string, double>> cycles = {{"cycles", 1}};
  const std::vector<std::pair<std::string, double>> bytes = {{"bytes", 1}};
  const std::vector<std::pair<std::string, double>> bandwidth = {{"GiB/s", kGibPerGb}, {"GB/s", 1}};
  struct Member {
    const char* key;
    const char* member;
    const std::vector<std::pair<std::string, double>>* units;
    const char* counter;
  };
  const Member members[] = {
      {"latency", "mean", &cycles, "latency_cycles"},
      {"latency", "p50", &cycles, "latency_cycles.p50"},
      {"latency", "p95", &cycles, "latency_cycles.p95"},
      {"latency", "stdev", &cycles, "latency_cycles.stdev"},
      {"latency", "measurements", &cycles, "latency_measurements"},
      {"size", "size", &bytes, "capacity_bytes"},
      {"size", "value", &bytes, "capacity_bytes"},
      {"lineSize", "size", &bytes, "line_bytes"},
      {"fetchGranularity", "size", &bytes, "fetch_granularity_bytes"},
      {"missPenalty", "value", &cycles, "miss_penalty_cycles"},
      {"segmentSize", "size", &bytes, "segment_bytes"},
      {"readBandwidth", "value", &bandwidth, "read_bandwidth_gbps"},
      {"writeBandwidth", "value", &bandwidth, "write_bandwidth_gbps"},
  };
  for (const Member& m : members) {
    absl::StatusOr<std::optional<double>> value =
        UnitValue(json, m.key, m.member, *m.units, where, path);
    if (!value.ok()) return value.status();
    if (value->has_value()) level.values[m.counter] = **value;
  }
  if (const Json* size = JsonChild(json, "size"); size != nullptr) {
    if (std::optional<double> confidence = JsonNumber(*size, "confidence")) {
      level.values["capacity_confidence"] = *confidence;
    }
  }
  if (std::optional<double> amount = JsonNumber(json, "amountPerMultiprocessor")) {
    level.values["amount_per_sm"] = *amount;
  }
  for (const char* key : {"latency", "size", "lineSize", "fetchGranularity", "segmentSize"}) {
    if (const Json* child = JsonChild(json, key)) NoteMethod(*child, &level);
  }
  return level;
}

// 12020 -> "12.2" (CUDA's 1000 * major + 10 * minor).
std::string CudaVersion(double version) {
  const int64_t v = std::llround(version);
  return absl::StrCat(v / 1000, ".", (v % 1000) / 10);
}

// Line of byte offset `byte` in `text` (1-based).
int LineOfByte(absl::string_view text, size_t byte) {
  byte = std::min(byte, text.size());
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + byte, '\n'));
}

// The device facts of mt4g's `general`, `compute`, `memory` and `meta`
// objects, into `facts`.
absl::Status ReadMt4gFacts(const Json& doc, const Json& general, const Json& compute,
                           const Json& memory, absl::string_view path,
                           std::map<std::string, std::string>& facts) {
  if (std::string name = JsonString(general, "name"); !name.empty()) facts["device_name"] = name;
  if (const Json* cc = JsonChild(general, "computeCapability")) {
    const std::optional<double> major = JsonNumber(*cc, "major");
    const std::optional<double> minor = JsonNumber(*cc, "minor");
    if (major.has_value() && minor.has_value()) {
      facts["device_compute_capability"] = absl::StrCat(Int(*major), ".", Int(*minor));
    }
  }
  if (std::optional<double> sms = JsonNumber(compute, "multiProcessorCount")) {
    facts["device_sm_count"] = Int(*sms);
  }
  {
    absl::StatusOr<std::optional<double>> khz =
        UnitValue(general, "clockRate", "value", {{"kHz", 1}, {"MHz", 1000}}, "general", path);
    if (!khz.ok()) return khz.status();
    if (khz->has_value()) facts["device_sm_clock_max_khz"] = Int(**khz);
  }
  const Json* l2 = JsonChild(memory, "l2");
  const Json* main = JsonChild(memory, "main");
  if (l2 != nullptr) {
    absl::StatusOr<std::optional<double>> size =
        UnitValue(*l2, "size", "value", {{"bytes", 1}}, "memory.l2", path);
    if (!size.ok()) return size.status();
    if (!size->has_value()) {
      size = UnitValue(*l2, "size", "size", {{"bytes", 1}}, "memory.l2", path);
      if (!size.ok()) return size.status();
    }
    if (size->has_value()) facts["device_l2_bytes"] = Int(**size);
  }
  if (main != nullptr) {
    absl::StatusOr<std::optional<double>> clock = UnitValue(
        *main, "memoryClockRate", "value", {{"kHz", 1}, {"MHz", 1000}}, "memory.main", path);
    if (!clock.ok()) return clock.status();
    absl::StatusOr<std::optional<double>> width =
        UnitValue(*main, "memoryBusWidth", "value", {{"bit", 1}}, "memory.main", path);
    if (!width.ok()) return width.status();
    if (clock->has_value()) facts["device_memory_clock_khz"] = Int(**clock);
    if (width->has_value()) facts["device_memory_bus_width_bits"] = Int(**width);
    if (clock->has_value() && width->has_value()) {
      facts["device_dram_peak_gbps"] =
          absl::StrFormat("%.1f", 2 * **clock * 1e3 * **width / 8 / 1e9);
    }
  }
  if (const Json* meta = JsonChild(doc, "meta")) {
    if (std::optional<double> driver = JsonNumber(*meta, "driver")) {
      facts["driver_version"] = CudaVersion(*driver);
    }
    if (std::optional<double> runtime = JsonNumber(*meta, "runtime")) {
      facts["runtime_version"] = CudaVersion(*runtime);
    }
    if (std::string timestamp = JsonString(*meta, "timestamp"); !timestamp.empty()) {
      facts["source_date"] = timestamp;
    }
  }
  return absl::OkStatus();
}

// The memory levels of mt4g's `memory` object that have a measured value.
absl::StatusOr<std::vector<Mt4gLevel>> ReadMt4gLevels(const Json& memory, absl::string_view path) {
  std::vector<Mt4gLevel> levels;
  struct LevelSpec {
    const Json* json;
    const char* name;
    const char* where;
  };
  const Json* constant = JsonChild(memory, "constant");
  const LevelSpec specs[] = {
      {JsonChild(memory, "l1"), "L1", "memory.l1"},
      {JsonChild(memory, "l2"), "L2", "memory.l2"},
      {JsonChild(memory, "main"), "DRAM", "memory.main"},
      {JsonChild(memory, "shared"), "shared", "memory.shared"},
      {JsonChild(memory, "readOnly"), "ldg", "memory.readOnly"},
      {JsonChild(memory, "texture"), "tex", "memory.texture"},
      {constant != nullptr ? JsonChild(*constant, "l1") : nullptr, "const", "memory.constant.l1"},
      {constant != nullptr ? JsonChild(*constant, "l1.5") : nullptr, "const_l1.5",
       "memory.constant.l1.5"},
  };
  for (const LevelSpec& spec : specs) {
    if (spec.json == nullptr) continue;
    absl::StatusOr<Mt4gLevel> level = ParseMt4gLevel(*spec.json, spec.name, spec.where, path);
    if (!level.ok()) return level.status();
    if (level->values.empty()) continue;
    levels.push_back(*std::move(level));
  }
  return levels;
}

}  // namespace

absl::StatusOr<Mt4gResult> ParseMt4gJson(std::string_view text_in, std::string_view path_in) {
  const absl::string_view text = Sv(text_in);
  const absl::string_view path = Sv(path_in);

  if (absl::StripAsciiWhitespace(text).empty()) {
    return FileError(path, "empty file (no mt4g result)");
  }
  Json doc;
  try {
    doc = Json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::parse_error& error) {
    return LineError(path, LineOfByte(text, error.byte == 0 ? 0 : error.byte - 1),
                     "not an mt4g result (malformed JSON)");
  }
  const Json* general = JsonChild(doc, "general");
  const Json* memory = JsonChild(doc, "memory");
  const Json* compute = JsonChild(doc, "compute");
  if (general == nullptr || memory == nullptr || compute == nullptr) {
    return FileError(path, "not an mt4g result (no general, compute and memory objects)");
  }
  Mt4gResult result;
  if (absl::Status read = ReadMt4gFacts(doc, *general, *compute, *memory, path, result.facts);
      !read.ok()) {
    return read;
  }
  absl::StatusOr<std::vector<Mt4gLevel>> levels = ReadMt4gLevels(*memory, path);
  if (!levels.ok()) return levels.status();
  result.levels = *std::move(levels);
  if (result.levels.empty()) {
    return FileError(path, "not an mt4g result (no memory level has a measured value)");
  }
  return result;
}

absl::StatusOr<ImportedFile> MapMt4g(const Mt4gResult& result, std::string_view path_in,
                                     const ImportOptions& options) {
  const absl::string_view path = Sv(path_in);

  OutFile file;
  file.format = "mt4g";
  file.experiment = "hierarchy_summary";
  file.source_method =
      "mt4g's summary per memory level: latency_cycles is the mean of mt4g's p-chase latency "
      "samples (its headline figure, mt4g's timing overhead included; .p50, .p95, .stdev and "
      "latency_measurements beside it), capacity_bytes, line_bytes, fetch_granularity_bytes and "
      "segment_bytes from its p-chase detection (capacity_confidence its confidence), "
      "miss_penalty_cycles as mt4g reports it, read/write bandwidths converted from mt4g's GiB/s "
      "to GB/s (x 1.073741824)";
  file.axes = {{"level", "-", "string"}};
  file.metrics = {{"latency_cycles", "cycles"},
                  {"capacity_bytes", "B"},
                  {"line_bytes", "B"},
                  {"read_bandwidth_gbps", "GB/s"},
                  {"write_bandwidth_gbps", "GB/s"}};
  file.headline_metric = "latency_cycles";
  for (const auto& [key, value] : result.facts) {
    if (key == "source_date") {
      file.extra_context.emplace_back(key, value);
    } else {
      file.file_facts[key] = value;
    }
  }
  const std::vector<std::string> order = {
      "latency_cycles",       "latency_cycles.p50",   "latency_cycles.p95",
      "latency_cycles.stdev", "latency_measurements", "capacity_bytes",
      "capacity_confidence",  "line_bytes",           "fetch_granularity_bytes",
      "miss_penalty_cycles",  "segment_bytes",        "read_bandwidth_gbps",
      "write_bandwidth_gbps", "amount_per_sm"};
  for (const Mt4gLevel& level : result.levels) {
    OutRow row;
    row.axes = {{"level", level.level}};
    for (const std::string& counter : order) {
      if (const auto it = level.values.find(counter); it != level.values.end()) {
        row.counters.emplace_back(counter, it->second);
      }
    }
    std::string randomized = "n/a";
    if (level.randomized.size() == 1) randomized = level.randomized[0] ? "true" : "false";
    if (level.randomized.size() > 1) randomized = "mixed";
    row.label = absl::StrCat(level.methods.empty() ? "not stated" : Join(level.methods),
                             ", randomized: ", randomized);
    file.rows.push_back(std::move(row));
  }
  return Render(std::move(file), kMt4g, path, options);
}
}  // namespace dissect::analysis
