// Memory-hierarchy inference (see memory_hierarchy.h and the rules in
// analysis/README.md).

#include "analysis/sections/memory_hierarchy.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <tuple>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "analysis/format/format.h"
#include "analysis/sections/hierarchy_builder.h"
#include "analysis/sections/latency_levels.h"
#include "analysis/sections/provenance.h"
#include "analysis/sections/tlb.h"

namespace dissect::analysis {
namespace hierarchy_internal {

std::optional<double> ParseNumber(const std::string& text) {
  double value = 0;
  if (!absl::SimpleAtod(text, &value) || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

// A counter that is finite and > 0.
std::optional<double> Positive(const Row& row, std::string_view counter) {
  const std::optional<double> value = row.Counter(counter);
  if (!value || !std::isfinite(*value) || *value <= 0) return std::nullopt;
  return value;
}

Builder::Builder(const std::vector<const ResultFile*>& files, const ChangepointOptions& options)
    : files_(files), options_(options) {
  const ResultFile& first = *files.front();
  out_.source = first.ContextOr("source", "dissect");
  out_.device_name = first.ContextOr("device_name", "unknown device");
  out_.compute_capability = first.ContextOr("device_compute_capability", "?");
  out_.sm_count = first.ContextOr("device_sm_count", "?");
  for (const ResultFile* f : files) {
    if (!device_l2_bytes_) {
      device_l2_bytes_ = ParseNumber(f->ContextOr("device_l2_bytes", ""));
      if (device_l2_bytes_) l2_origin_ = DeviceFactOrigin(*f, "device_l2_bytes");
    }
    if (!dram_peak_gbps_) {
      dram_peak_gbps_ = ParseNumber(f->ContextOr("device_dram_peak_gbps", ""));
      if (dram_peak_gbps_) dram_peak_origin_ = DeviceFactOrigin(*f, "device_dram_peak_gbps");
    }
    if (!sm_count_) sm_count_ = ParseNumber(f->ContextOr("device_sm_count", ""));
  }
  for (const char* level : {"shared", "L1", "L2", "DRAM", "tex", "ldg", "const"}) {
    HierarchyRow row;
    row.level = level;
    out_.rows.push_back(row);
  }
}

absl::StatusOr<DeviceHierarchy> Builder::Build() {
  std::vector<const ResultFile*> latency_files;
  for (const ResultFile* f : files_) {
    if (f->experiment == kMemoryLatency || f->experiment == kSharedLatency) {
      latency_files.push_back(f);
    }
  }
  curves_ = BuildLatencyCurves(latency_files);
  if (absl::Status s = Latencies(); !s.ok()) return s;
  PageLocalDram();
  Trace();
  Bandwidth();
  SharedBandwidth();
  Tlb();
  Summary();
  for (const ResultFile* f : files_) out_.files.push_back(f->path);
  return std::move(out_);
}

HierarchyRow& Builder::RowOf(std::string_view level) {
  for (HierarchyRow& row : out_.rows) {
    if (row.level == level) return row;
  }
  return out_.rows.front();  // not reached: every level is created above
}

HierarchyRow& Builder::InsertRowAfter(std::string_view after, const std::string& level) {
  for (HierarchyRow& row : out_.rows) {
    if (row.level == level) return row;
  }
  auto it = std::find_if(out_.rows.begin(), out_.rows.end(),
                         [&](const HierarchyRow& r) { return r.level == after; });
  HierarchyRow row;
  row.level = level;
  return *out_.rows.insert(it == out_.rows.end() ? it : it + 1, std::move(row));
}

std::string Builder::MethodFor(std::string_view experiment) const {
  for (const ResultFile* f : files_) {
    if (f->experiment != experiment || f->ContextOr("source", "").empty()) continue;
    for (const Row& row : f->rows) {
      if (const std::string method = LabelMethod(row); !method.empty()) return method;
    }
    return f->ContextOr("source_method", "");
  }
  if (experiment == kMemoryLatency || experiment == kSharedLatency) {
    return "in-kernel %clock64, dependent pointer chase by one thread, slope of two timed "
           "segments";
  }
  if (experiment == kMemoryBandwidth) {
    return "CUDA events around tiled streaming reads, footprint split between the SMs, best "
           "over bytes in flight";
  }
  if (experiment == kLatencyTrace) {
    return "per-access %clock64 latencies of a pointer chase, clustered into levels";
  }
  if (experiment == kSharedBandwidth) {
    return "in-kernel %clock64 around ld.volatile.shared streams on every SM";
  }
  return "";
}

std::string Builder::ProgramFor(std::string_view experiment) const {
  for (const ResultFile* f : files_) {
    if (f->experiment == experiment) return MeasuringProgram(*f);
  }
  return absl::StrCat("dissect ", std::string(experiment));
}

std::string Builder::SourceMethod(std::string_view experiment) const {
  for (const ResultFile* f : files_) {
    if (f->experiment == experiment) {
      if (std::string method = f->ContextOr("source_method", ""); !method.empty()) {
        return method;
      }
    }
  }
  return "";
}

bool Builder::Close(double a, double b) const {
  return std::fabs(std::log(a) - std::log(b)) < std::log1p(options_.min_relative_step);
}

std::vector<const Row*> Builder::RowsOf(std::string_view experiment) const {
  std::vector<const Row*> rows;
  for (const ResultFile* f : files_) {
    if (f->experiment != experiment) continue;
    for (const Row& row : f->rows) {
      if (!row.error) rows.push_back(&row);
    }
  }
  return rows;
}

bool Builder::AxisIsOrAbsent(const Row& row, std::string_view axis, std::string_view value) {
  const std::optional<std::string> v = row.Axis(axis);
  return !v || *v == value;
}

void Builder::Basis(const std::string& what, const std::string& source, const std::string& detail,
                    const std::string& conclusion) {
  std::string line = absl::StrCat(what, ": ", source, ": ", detail);
  if (!conclusion.empty()) absl::StrAppend(&line, "; ", conclusion);
  out_.basis.push_back(line);
}

}  // namespace hierarchy_internal

namespace {

using hierarchy_internal::Builder;
using hierarchy_internal::kHierarchySummary;
using hierarchy_internal::kLatencyTrace;
using hierarchy_internal::kMemoryBandwidth;
using hierarchy_internal::kMemoryLatency;
using hierarchy_internal::kSharedBandwidth;
using hierarchy_internal::kSharedLatency;

// Files of one device and one source share a table.
std::string DeviceKey(const ResultFile& file) {
  return absl::StrCat(
      file.ContextOr("device_name", ""), "\n", file.ContextOr("device_compute_capability", ""),
      "\n", file.ContextOr("device_sm_count", ""), "\n", file.ContextOr("source", "dissect"));
}
}  // namespace

const HierarchyRow* DeviceHierarchy::Find(std::string_view level) const {
  for (const HierarchyRow& row : rows) {
    if (row.level == level) return &row;
  }
  return nullptr;
}

bool IsMemoryExperiment(std::string_view experiment) {
  return experiment == kMemoryLatency || experiment == kLatencyTrace ||
         experiment == kMemoryBandwidth || experiment == kSharedBandwidth ||
         experiment == kHierarchySummary;
}

absl::StatusOr<std::vector<DeviceHierarchy>> InferMemoryHierarchies(
    const std::vector<ResultFile>& files, const ChangepointOptions& options) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<const ResultFile*>> by_device;
  std::map<std::string, bool> has_memory;
  for (const ResultFile& file : files) {
    const bool memory = IsMemoryExperiment(file.experiment);
    if (!memory && file.experiment != kSharedLatency) continue;
    const std::string key = DeviceKey(file);
    auto& group = by_device[key];
    if (group.empty()) order.push_back(key);
    group.push_back(&file);
    has_memory[key] = has_memory[key] || memory;
  }
  std::vector<DeviceHierarchy> tables;
  for (const std::string& key : order) {
    if (!has_memory[key]) continue;
    absl::StatusOr<DeviceHierarchy> table = Builder(by_device[key], options).Build();
    if (!table.ok()) return table.status();
    tables.push_back(*std::move(table));
  }
  return tables;
}

}  // namespace dissect::analysis
