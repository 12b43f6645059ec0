// Host-side parts of layer_breakdown's rows: the `ops=` note naming each op
// and its type, and the per-op median, min and max over samples. No CUDA.
#ifndef DISSECT_EXPERIMENTS_LAYER_BREAKDOWN_OP_ROWS_H_
#define DISSECT_EXPERIMENTS_LAYER_BREAKDOWN_OP_ROWS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "experiments/workloads/forward/network.h"

namespace dissect::layer_breakdown {

// "ops=<name>:<type>,<name>:<type>,..." in layer order, <type> the
// LayerOpName ("conv", "bn", "relu", "maxpool", "avgpool", "add", "concat",
// "fc", "softmax"). A name holding ',', ':', ';' or whitespace is an error
// (it would split the note).
absl::StatusOr<std::string> OpsNote(const forward::NetworkSpec& net);

// Per op: the median, min and max over samples. samples[s][i] is op i's time
// in sample s; every sample must have the same number of ops (else an
// error). The median of an even count is the mean of the middle two.
struct OpTimes {
  std::vector<double> median;
  std::vector<double> min;
  std::vector<double> max;
};
absl::StatusOr<OpTimes> SummarizeOpTimes(const std::vector<std::vector<double>>& samples);

}  // namespace dissect::layer_breakdown

#endif  // DISSECT_EXPERIMENTS_LAYER_BREAKDOWN_OP_ROWS_H_
