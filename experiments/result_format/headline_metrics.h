// The headline metric of files written before experiments declared theirs
// (analysis/SCHEMA.md, dissect_headline_metric).

#ifndef DISSECT_EXPERIMENTS_RESULT_FORMAT_HEADLINE_METRICS_H_
#define DISSECT_EXPERIMENTS_RESULT_FORMAT_HEADLINE_METRICS_H_

#include <string_view>

#include "experiments/result_format/reader.h"

namespace dissect::result_format {

// An experiment's headline metric before the experiment wrote it itself.
struct OlderHeadline {
  std::string_view experiment;
  std::string_view metric;
};

// Compatibility for files written before experiments declared their
// headline (Experiment::Headline): the dashboard's own list of that time,
// kept here so that analysis reads the headline from every file and knows
// no experiment by name. The experiments named here declare the same
// headline now, and //analysis:import writes it for hierarchy_summary;
// `relu`, which no experiment of this tree is called, is the experiment of
// the analysis fixtures (analysis/testdata/synthetic_relu*.json), kept as
// the list had it. Do not add to it: a new experiment declares its headline.
inline constexpr OlderHeadline kHeadlinesBeforeDeclared[] = {
    {"memory_latency", "cycles_per_load"},
    {"shared_latency", "cycles_per_load"},
    {"latency_trace", "level1_cycles"},
    {"memory_bandwidth", "bandwidth_gbps"},
    {"relu", "bandwidth_gbps"},
    {"relu_bandwidth", "bandwidth_gbps"},
    {"shared_bandwidth", "bytes_per_clk_per_sm"},
    {"l1_bypass", "kernel_us"},
    {"mma_sync", "cycles_per_mma"},
    {"wgmma", "cycles_per_wgmma"},
    {"cublaslt_gemm", "tflops"},
    {"hierarchy_summary", "latency_cycles"},
};

// The headline that files of `experiment` written before the key existed
// stand for; "" when it had none. For values kept without their file (a
// history database's runs stored before it kept result files).
std::string_view HeadlineBeforeDeclared(std::string_view experiment);

// When `file`'s context has no dissect_headline_metric, adds its
// experiment's HeadlineBeforeDeclared if that is one of the file's metrics;
// any other file is left as it is.
void AddHeadlineOfOlderFile(ResultFile& file);

}  // namespace dissect::result_format

#endif  // DISSECT_EXPERIMENTS_RESULT_FORMAT_HEADLINE_METRICS_H_
