// CPU reference of one output row of attention (kernels/attention), in
// double, for the experiment's check before timing.
#ifndef DISSECT_EXPERIMENTS_ATTENTION_ATTENTION_REFERENCE_H_
#define DISSECT_EXPERIMENTS_ATTENTION_ATTENTION_REFERENCE_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace dissect::attention {

// softmax(q · K[0..keys_seen)^T / sqrt(d)) · V[0..keys_seen): q has d
// values, k and v hold rows of d values (at least keys_seen of them).
absl::StatusOr<std::vector<double>> ReferenceRow(absl::Span<const float> q,
                                                 absl::Span<const float> k,
                                                 absl::Span<const float> v, int64_t keys_seen);

// max |got - want| / max |want| (error if the sizes differ or want is all
// zeros).
absl::StatusOr<double> MaxRelativeError(absl::Span<const float> got, absl::Span<const double> want);

}  // namespace dissect::attention

#endif  // DISSECT_EXPERIMENTS_ATTENTION_ATTENTION_REFERENCE_H_
