// Order statistics over repeated samples of one measurement point.
#ifndef DISSECT_PROBES_STATS_H_
#define DISSECT_PROBES_STATS_H_

#include <cstddef>
#include <vector>

#include "absl/status/statusor.h"

namespace dissect {

struct Summary {
  double min = 0;
  double median = 0;
  double max = 0;
  // (max - min) / median; 0 when the median is 0.
  double spread = 0;
  size_t count = 0;
};

// Fails on an empty sample set or on a NaN/infinite sample. The median of an
// even count is the mean of the two middle values.
absl::StatusOr<Summary> Summarize(std::vector<double> samples);

}  // namespace dissect

#endif  // DISSECT_PROBES_STATS_H_
