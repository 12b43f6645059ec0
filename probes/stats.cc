// Summary statistics (min, median, max, relative spread).
#include "probes/stats.h"

#include <algorithm>
#include <cmath>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace dissect {

absl::StatusOr<Summary> Summarize(std::vector<double> samples) {
  if (samples.empty()) {
    return absl::InvalidArgumentError("no samples to summarize");
  }
  for (size_t i = 0; i < samples.size(); ++i) {
    if (!std::isfinite(samples[i])) {
      return absl::InvalidArgumentError(
          absl::StrCat("sample ", i, " is not finite (", samples[i], ")"));
    }
  }
  std::sort(samples.begin(), samples.end());
  const size_t n = samples.size();
  Summary s;
  s.count = n;
  s.min = samples.front();
  s.max = samples.back();
  s.median = (n % 2 == 1) ? samples[n / 2]
                          : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
  s.spread = s.median != 0 ? (s.max - s.min) / std::fabs(s.median) : 0.0;
  return s;
}

}  // namespace dissect
