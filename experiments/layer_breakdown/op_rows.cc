// layer_breakdown's row helpers; see op_rows.h.
#include "experiments/layer_breakdown/op_rows.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace dissect::layer_breakdown {

absl::StatusOr<std::string> OpsNote(const forward::NetworkSpec& net) {
  std::string note = "ops=";
  for (size_t i = 0; i < net.layers.size(); ++i) {
    const std::string& name = net.layers[i].name;
    if (name.find_first_of(",:; \t\n") != std::string::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("layer name \"", name, "\" cannot go into the ops= note"));
    }
    absl::StrAppend(&note, i == 0 ? "" : ",", name, ":", forward::LayerOpName(net.layers[i].op));
  }
  return note;
}

absl::StatusOr<OpTimes> SummarizeOpTimes(const std::vector<std::vector<double>>& samples) {
  if (samples.empty()) return absl::InvalidArgumentError("no samples");
  const size_t ops = samples.front().size();
  OpTimes times;
  for (size_t i = 0; i < ops; ++i) {
    std::vector<double> values;
    for (const std::vector<double>& sample : samples) {
      if (sample.size() != ops) {
        return absl::InvalidArgumentError(
            absl::StrCat("a sample has ", sample.size(), " op times, not ", ops));
      }
      values.push_back(sample[i]);
    }
    std::sort(values.begin(), values.end());
    const size_t n = values.size();
    times.median.push_back(n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2);
    times.min.push_back(values.front());
    times.max.push_back(values.back());
  }
  return times;
}

}  // namespace dissect::layer_breakdown
