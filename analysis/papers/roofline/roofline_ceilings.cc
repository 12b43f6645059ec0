// The measured roofs that the roofline generators share
// (roofline_internal.h): the DRAM read bandwidth of memory_bandwidth and the
// best cuBLASLt TFLOP/s of a dtype; the result files the generators read and
// the cache param they both take.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "analysis/format/format.h"
#include "analysis/papers/paper_figure.h"
#include "analysis/papers/roofline/roofline_internal.h"
#include "analysis/results/results.h"

namespace dissect::analysis::papers::roofline_internal {

LlmResultFiles LlmFilesOf(const std::vector<ResultFile>& results) {
  return {FilesOf(results, "memory_bandwidth"), FilesOf(results, "cublaslt_gemm"),
          FilesOf(results, "attention")};
}

std::vector<std::string> LlmResultFiles::Paths() const {
  std::vector<std::string> paths;
  for (const auto* list : {&bandwidth, &gemm, &attention}) {
    for (const std::string& path : InputPaths(*list)) paths.push_back(path);
  }
  return paths;
}

std::string PointName(const ResultFile& file, const Row& row) {
  std::string name = file.experiment;
  for (const auto& [axis, value] : row.axes) absl::StrAppend(&name, "/", axis, ":", value);
  return name;
}

std::optional<double> ContextNumber(const ResultFile& file, std::string_view key) {
  const std::string text = file.ContextOr(key, "");
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || !std::isfinite(v)) return std::nullopt;
  return v;
}

absl::StatusOr<Ceiling> MemoryCeiling(const std::vector<const ResultFile*>& files,
                                      double min_footprint_bytes, const std::string& generator) {
  if (files.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat(generator,
                     ": no memory_bandwidth results: the memory ceiling (DRAM read bandwidth) "
                     "cannot be measured"));
  }
  double widest = 0;
  for (const ResultFile* f : files) {
    for (const Row& row : f->rows) {
      const std::optional<double> width = AxisNumber(row, "width_bits");
      if (!row.error && row.Axis("op") == std::optional<std::string>("read") && width) {
        widest = std::max(widest, std::min(*width, 128.0));
      }
    }
  }
  // (footprint, bytes in flight) -> values and the first row's name.
  std::map<std::pair<double, double>, std::pair<std::vector<double>, std::string>> groups;
  for (const ResultFile* f : files) {
    for (const Row& row : f->rows) {
      const std::optional<double> gbps = row.Counter("bandwidth_gbps");
      const std::optional<double> footprint = AxisNumber(row, "footprint_bytes");
      if (row.error || !gbps || !(*gbps > 0) || !footprint || *footprint < min_footprint_bytes ||
          row.Axis("op") != std::optional<std::string>("read") ||
          AxisNumber(row, "width_bits") != std::optional<double>(widest)) {
        continue;
      }
      auto& group =
          groups[{*footprint, AxisNumber(row, "bytes_in_flight_per_thread").value_or(-1)}];
      group.first.push_back(*gbps);
      if (group.second.empty()) group.second = PointName(*f, row);
    }
  }
  if (groups.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat(generator, ": no measured memory_bandwidth read rows at footprints >= ",
                     FormatBytes(min_footprint_bytes),
                     ": the memory ceiling (DRAM read bandwidth) cannot be measured"));
  }
  Ceiling c{"DRAM read bandwidth", 0, "GB/s", true, "", kEmptyCell};
  for (const auto& [key, group] : groups) {
    const double median = Median(group.first);
    if (median > c.value) {
      c.value = median;
      c.source = absl::StrCat(group.second, " (median of ", group.first.size(), " row(s))");
    }
  }
  if (const std::optional<double> peak = ContextNumber(*files.front(), "device_dram_peak_gbps")) {
    c.datasheet = absl::StrCat(FormatNumber(*peak),
                               " GB/s computed (2 × memory clock × bus width, device attributes)");
  }
  return c;
}

absl::StatusOr<std::string> CacheParam(const CatalogEntry& entry, const char* key,
                                       const std::string& fallback) {
  absl::StatusOr<std::string> cache = StringParam(entry, key, fallback);
  if (cache.ok() && *cache != "hot" && *cache != "cold") {
    return BadParam(entry, key, "\"hot\" or \"cold\"");
  }
  return cache;
}

std::optional<Ceiling> BestGemm(const std::vector<const ResultFile*>& files,
                                const std::string& dtype, const std::string& name) {
  std::optional<Ceiling> best;
  for (const ResultFile* f : files) {
    for (const Row& row : f->rows) {
      const std::optional<double> tflops = row.Counter("tflops");
      if (row.error || !tflops || !(*tflops > 0) ||
          row.Axis("dtype") != std::optional<std::string>(dtype)) {
        continue;
      }
      if (!best || *tflops > best->value) {
        best = Ceiling{name, *tflops, "TFLOP/s", true, PointName(*f, row), kEmptyCell};
      }
    }
  }
  return best;
}

}  // namespace dissect::analysis::papers::roofline_internal
