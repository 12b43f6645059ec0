// Metric names that changed between schema versions, and the renaming that
// lets every analysis see the current names only (analysis/SCHEMA.md,
// "Version 2").

#ifndef DISSECT_EXPERIMENTS_RESULT_FORMAT_RENAMED_METRICS_H_
#define DISSECT_EXPERIMENTS_RESULT_FORMAT_RENAMED_METRICS_H_

#include <string_view>

#include "experiments/result_format/reader.h"

namespace dissect::result_format {

// One metric that an experiment wrote under another name in version 1.
struct RenamedMetric {
  std::string_view experiment;
  std::string_view old_name;  // in version-1 files
  std::string_view new_name;  // from version 2 on
};

// Version 2 gives one quantity one name. Bytes moved per second, in 1e9 B/s,
// was bandwidth_gbps in most experiments but gbps, achieved_gbps or
// aggregate_gbps in these four, so thresholds, verdict ranges and tables had
// to know each spelling. Each experiment's metric description still says
// which bytes it counts. Files already written keep their old names on disk:
// the reader renames them when it reads a version-1 file.
inline constexpr RenamedMetric kRenamedInVersion2[] = {
    {"attention", "gbps", "bandwidth_gbps"},
    {"cublaslt_gemm", "gbps", "bandwidth_gbps"},
    {"layer_fusion", "achieved_gbps", "bandwidth_gbps"},
    {"shared_bandwidth", "aggregate_gbps", "bandwidth_gbps"},
};

// The version-2 name of `experiment`'s metric `name` (`name` itself when
// version 2 did not rename it).
std::string_view Version2MetricName(std::string_view experiment, std::string_view name);

// When `file` is a version-1 file, gives its experiment's renamed metrics
// their version-2 names: in dissect_metrics and metric_names, in the row
// counters (the metric and its statistics, `gbps` and `gbps.max` alike) and
// in the context keys `metric.<name>.*`. Any other file is left as it is.
void RenameVersion1Metrics(ResultFile& file);

}  // namespace dissect::result_format

#endif  // DISSECT_EXPERIMENTS_RESULT_FORMAT_RENAMED_METRICS_H_
