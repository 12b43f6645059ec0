// conv_algorithms results as conv_algos' generators read them; see
// conv_data.h.
#include "analysis/papers/conv_algos/conv_data.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "analysis/format/format.h"
#include "analysis/papers/paper_figure.h"
#include "analysis/sections/section_util.h"

namespace dissect::analysis::papers::conv_algos {
namespace {

constexpr char kExperiment[] = "conv_algorithms";

std::string NetworkOf(const std::string& layer) { return layer.substr(0, layer.find('.')); }

absl::StatusOr<ConvData> ReadConvData(const std::vector<ResultFile>& results,
                                      const std::string& math,
                                      const std::vector<std::string>& networks) {
  const std::vector<const ResultFile*> files = FilesOf(results, kExperiment);
  if (files.empty()) {
    return absl::NotFoundError(
        "no conv_algorithms results: run the experiment conv_algorithms "
        "(experiments/conv_algos) first");
  }
  ConvData data;
  data.inputs = InputPaths(files);
  std::map<std::string, size_t> layer_index;
  for (const ResultFile* file : files) {
    for (const Row& row : file->rows) {
      const std::optional<std::string> layer = row.Axis("layer");
      const std::optional<std::string> algo = row.Axis("algo");
      const std::optional<double> batch = AxisNumber(row, "batch");
      if (!layer || !algo || !batch || row.Axis("math").value_or("") != math) continue;
      if (!networks.empty() &&
          std::find(networks.begin(), networks.end(), NetworkOf(*layer)) == networks.end()) {
        continue;
      }
      if (std::find(data.algos.begin(), data.algos.end(), *algo) == data.algos.end()) {
        data.algos.push_back(*algo);
      }
      auto [it, inserted] = layer_index.emplace(*layer, data.layers.size());
      if (inserted) data.layers.push_back({*layer, NetworkOf(*layer)});
      LayerData& l = data.layers[it->second];
      const std::optional<double> time = RowRealTimeUs(row);
      if (row.error || !time) {
        data.not_measured.push_back({*layer, *algo, static_cast<int>(*batch), RowNotes(row)});
        continue;
      }
      if (const auto count = FiniteCounter(row, "shape_count")) {
        l.shape_count = static_cast<int>(*count);
      }
      if (const auto count = FiniteCounter(row, "network_conv_layers")) {
        l.network_conv_layers = static_cast<int>(*count);
      }
      l.measured[*algo][static_cast<int>(*batch)] = {
          *time, FiniteCounter(row, "workspace_bytes").value_or(0)};
    }
  }
  return data;
}

// The networks of `data`, in the order of `wanted` (or first seen).
std::vector<std::string> NetworksOf(const ConvData& data, const std::vector<std::string>& wanted) {
  std::vector<std::string> seen;
  for (const LayerData& l : data.layers) {
    if (std::find(seen.begin(), seen.end(), l.network) == seen.end()) seen.push_back(l.network);
  }
  if (wanted.empty()) return seen;
  std::vector<std::string> ordered;
  for (const std::string& n : wanted) {
    if (std::find(seen.begin(), seen.end(), n) != seen.end()) ordered.push_back(n);
  }
  return ordered;
}

}  // namespace

std::string ShortName(const std::string& layer) {
  const size_t dot = layer.find('.');
  return dot == std::string::npos ? layer : layer.substr(dot + 1);
}

Coverage CoverageOf(const ConvData& data, const std::string& network) {
  Coverage coverage;
  int counted = 0;
  for (const LayerData& l : data.layers) {
    if (l.network != network) continue;
    if (l.network_conv_layers) coverage.expected = *l.network_conv_layers;
    counted += std::max(0, l.shape_count.value_or(0));
  }
  if (coverage.expected == 0 || counted != coverage.expected) {
    coverage.incomplete =
        absl::StrCat("measured layers cover ", counted, " of ",
                     coverage.expected > 0 ? absl::StrCat(coverage.expected) : "?", " conv layers");
  }
  return coverage;
}

std::string TimeCell(double us) { return absl::StrCat(FormatNumber(us), " µs"); }

std::string NotMeasuredSection(const ConvData& data) {
  if (data.not_measured.empty()) return "";
  std::string out = "### Not measured\n\n";
  for (const NotMeasured& n : data.not_measured) {
    absl::StrAppend(&out, "- `", n.layer, "` ", n.algo, " at batch ", n.batch, ": ",
                    n.notes.empty() ? "no time" : n.notes, "\n");
  }
  return out + "\n";
}

// The fastest algorithm of `layer` at `batch` whose workspace is at most
// `limit` (nullopt: no limit): its name and measurement, or nullptr.
const Measured* Fastest(const LayerData& layer, int batch, std::optional<double> limit,
                        std::string* algo) {
  const Measured* best = nullptr;
  for (const auto& [name, by_batch] : layer.measured) {
    const auto it = by_batch.find(batch);
    if (it == by_batch.end() || (limit && it->second.workspace_bytes > *limit)) continue;
    if (best == nullptr || it->second.time_us < best->time_us) {
      best = &it->second;
      *algo = name;
    }
  }
  return best;
}

std::string MathNote(const std::string& math) {
  return math == "fma" ? "float32 without tensor cores (CUDNN_FMA_MATH)"
                       : absl::StrCat("math ", math);
}

absl::StatusOr<Inputs> ReadInputs(const CatalogEntry& entry, const std::vector<ResultFile>& results,
                                  int default_batch) {
  Inputs in;
  const absl::StatusOr<int64_t> batch = IntParam(entry, "batch", default_batch);
  if (!batch.ok()) return batch.status();
  in.batch = static_cast<int>(*batch);
  absl::StatusOr<std::string> math = StringParam(entry, "math", "fma");
  if (!math.ok()) return math.status();
  in.math = *std::move(math);
  const absl::StatusOr<std::vector<std::string>> wanted = StringListParam(entry, "networks", {});
  if (!wanted.ok()) return wanted.status();
  absl::StatusOr<ConvData> data = ReadConvData(results, in.math, *wanted);
  if (!data.ok()) return data.status();
  in.data = *std::move(data);
  in.networks = NetworksOf(in.data, *wanted);
  if (in.networks.empty()) {
    return absl::NotFoundError(absl::StrCat("conv_algorithms results hold no layer of ",
                                            absl::StrJoin(*wanted, ", "), " at math ", in.math));
  }
  return in;
}

// The measurement of algorithm `algo` at `batch` for layer `l`; nullptr if none.
const Measured* MeasuredAt(const LayerData& l, const std::string& algo, int batch) {
  const auto by_batch = l.measured.find(algo);
  if (by_batch == l.measured.end()) return nullptr;
  const auto it = by_batch->second.find(batch);
  return it == by_batch->second.end() ? nullptr : &it->second;
}

}  // namespace dissect::analysis::papers::conv_algos
