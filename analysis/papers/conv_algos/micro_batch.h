// µ-cuDNN's micro-batch optimisation (Oyama et al., CLUSTER 2018) as a pure
// function: split a mini-batch into micro-batches whose sizes were measured,
// each run with its own fastest algorithm, minimising the summed time.
#ifndef DISSECT_ANALYSIS_PAPERS_CONV_ALGOS_MICRO_BATCH_H_
#define DISSECT_ANALYSIS_PAPERS_CONV_ALGOS_MICRO_BATCH_H_

#include <map>
#include <optional>
#include <vector>

namespace dissect::analysis::papers {

struct MicroBatchSplit {
  double time = 0;         // the sum of the micro-batches' times
  std::vector<int> sizes;  // micro-batch sizes, largest first
};

// The dynamic programme over splits: best(0) = 0, best(b) = min over
// measured sizes m <= b of best(b - m) + time_at_batch[m]. `time_at_batch`
// maps a measured batch size (>= 1) to the fastest time at that size (any
// unit; entries <= 0 or not finite are ignored). Assumes back-to-back
// micro-batches cost the sum of their separate times. nullopt when no sum
// of measured sizes equals `batch` (or batch < 1). Ties keep the split with
// fewer micro-batches, then the one with larger micro-batches first.
std::optional<MicroBatchSplit> BestMicroBatchSplit(const std::map<int, double>& time_at_batch,
                                                   int batch);

}  // namespace dissect::analysis::papers

#endif  // DISSECT_ANALYSIS_PAPERS_CONV_ALGOS_MICRO_BATCH_H_
