// The part of the conv_algorithms page that sets an algorithm of our own
// (the experiment's algo=two_stage, kernels/two_stage_conv: our reading of
// cuConv, 2022) against cuDNN's algorithms per layer, at several batches.
#ifndef DISSECT_ANALYSIS_PAPERS_CONV_ALGOS_OURS_VS_CUDNN_H_
#define DISSECT_ANALYSIS_PAPERS_CONV_ALGOS_OURS_VS_CUDNN_H_

#include <optional>
#include <string>
#include <vector>

#include "analysis/papers/conv_algos/conv_data.h"
#include "analysis/papers/paper_figure.h"

namespace dissect::analysis::papers::conv_algos {

// The section's markdown, its chart and the largest and smallest per-layer
// speedup of `ours` over cuDNN's best (cuDNN's time / ours; > 1: ours is
// faster), with where they were seen; nullopt where no layer has both.
struct OursVersusCudnn {
  std::string markdown;
  BarChart chart;
  std::optional<double> largest_speedup, smallest_speedup;
  std::string largest_where, smallest_where;
};

// Per network of `networks` and batch of `batches`: a table of its layers
// with `ours`' time, cuDNN's fastest algorithm (every algorithm of `data`
// but `ours`) and `ours`' speedup over it and over each cuDNN algorithm;
// how many layers `ours` wins. The chart: `chart_network`'s layers, `ours`
// and cuDNN's best at each batch.
OursVersusCudnn OursVersusCudnnSection(const ConvData& data,
                                       const std::vector<std::string>& networks,
                                       const std::string& ours, const std::vector<int>& batches,
                                       const std::string& chart_network);

}  // namespace dissect::analysis::papers::conv_algos

#endif  // DISSECT_ANALYSIS_PAPERS_CONV_ALGOS_OURS_VS_CUDNN_H_
