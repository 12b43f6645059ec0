// What conv_algos' generators read from conv_algorithms results
// (experiments/conv_algos): per layer, each algorithm's median time and
// workspace at each batch, the rows not measured, and the helpers the pages
// share (the fastest algorithm of a layer, a network's coverage, cells).
#ifndef DISSECT_ANALYSIS_PAPERS_CONV_ALGOS_CONV_DATA_H_
#define DISSECT_ANALYSIS_PAPERS_CONV_ALGOS_CONV_DATA_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "analysis/papers/catalog.h"
#include "analysis/results/results.h"

namespace dissect::analysis::papers::conv_algos {

// One measured (layer, algorithm, batch).
struct Measured {
  double time_us = 0;
  double workspace_bytes = 0;
};

// One layer's measurements.
struct LayerData {
  std::string name;     // "vgg16.conv1_1"
  std::string network;  // "vgg16"
  std::optional<int> shape_count;
  std::optional<int> network_conv_layers;
  // algo -> batch -> measurement
  std::map<std::string, std::map<int, Measured>> measured;
};

// A row without a time (skipped or failed), with its notes.
struct NotMeasured {
  std::string layer, algo;
  int batch = 0;
  std::string notes;
};

// The conv_algorithms rows of one math type.
struct ConvData {
  std::vector<std::string> algos;  // in first-seen order
  std::vector<LayerData> layers;   // in first-seen order
  std::vector<NotMeasured> not_measured;
  std::vector<std::string> inputs;
};

// How far a network's measured layers cover its conv layers: each counted
// layer (shape_count > 0) stands for shape_count of them.
struct Coverage {
  int expected = 0;        // the network's conv layers (0: unknown)
  std::string incomplete;  // "" when the counted layers cover them all, else why not
};

// What every conv_algos generator reads: params "batch" (default `default_batch`),
// "math" and "networks", and the results' rows for them.
struct Inputs {
  int batch = 0;
  std::string math;
  ConvData data;
  std::vector<std::string> networks;  // those with rows, in the params' order
};

// The layer's name without its network: "conv1_1" of "vgg16.conv1_1".
std::string ShortName(const std::string& layer);

// How far `data`'s layers of `network` cover its conv layers.
Coverage CoverageOf(const ConvData& data, const std::string& network);

// "12.5 µs".
std::string TimeCell(double us);

// The page's list of rows without a time, with their notes; "" if none.
std::string NotMeasuredSection(const ConvData& data);

// The fastest algorithm of `layer` at `batch` whose workspace is at most
// `limit` (nullopt: no limit): its name and measurement, or nullptr.
const Measured* Fastest(const LayerData& layer, int batch, std::optional<double> limit,
                        std::string* algo);

// The math axis's value in words, for a page's header.
std::string MathNote(const std::string& math);

// Reads `entry`'s params "batch", "math" and "networks" and the results'
// rows for them; NotFound without conv_algorithms results or without rows of
// those networks.
absl::StatusOr<Inputs> ReadInputs(const CatalogEntry& entry, const std::vector<ResultFile>& results,
                                  int default_batch);

// The measurement of algorithm `algo` at `batch` for layer `l`; nullptr if none.
const Measured* MeasuredAt(const LayerData& l, const std::string& algo, int batch);

}  // namespace dissect::analysis::papers::conv_algos

#endif  // DISSECT_ANALYSIS_PAPERS_CONV_ALGOS_CONV_DATA_H_
