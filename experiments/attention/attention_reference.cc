#include "experiments/attention/attention_reference.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"

namespace dissect::attention {

absl::StatusOr<std::vector<double>> ReferenceRow(absl::Span<const float> q,
                                                 absl::Span<const float> k,
                                                 absl::Span<const float> v, int64_t keys_seen) {
  const size_t d = q.size();
  if (d == 0 || keys_seen <= 0 || k.size() < keys_seen * d || v.size() < keys_seen * d) {
    return absl::InvalidArgumentError(absl::StrCat("reference row: d ", d, ", keys_seen ",
                                                   keys_seen, ", K ", k.size(), ", V ", v.size()));
  }
  const double scale = 1.0 / std::sqrt(static_cast<double>(d));
  std::vector<double> scores(keys_seen);
  double max_score = -std::numeric_limits<double>::infinity();
  for (int64_t j = 0; j < keys_seen; ++j) {
    double s = 0;
    for (size_t c = 0; c < d; ++c) s += static_cast<double>(q[c]) * k[j * d + c];
    scores[j] = s * scale;
    max_score = std::max(max_score, scores[j]);
  }
  double sum = 0;
  std::vector<double> out(d, 0.0);
  for (int64_t j = 0; j < keys_seen; ++j) {
    const double p = std::exp(scores[j] - max_score);
    sum += p;
    for (size_t c = 0; c < d; ++c) out[c] += p * v[j * d + c];
  }
  for (double& o : out) o /= sum;
  return out;
}

absl::StatusOr<double> MaxRelativeError(absl::Span<const float> got,
                                        absl::Span<const double> want) {
  if (got.size() != want.size() || want.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("compare: ", got.size(), " values against ", want.size()));
  }
  double err = 0, scale = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    err = std::max(err, std::abs(static_cast<double>(got[i]) - want[i]));
    scale = std::max(scale, std::abs(want[i]));
  }
  if (scale == 0) return absl::InvalidArgumentError("compare: the reference is all zeros");
  return err / scale;
}

}  // namespace dissect::attention
