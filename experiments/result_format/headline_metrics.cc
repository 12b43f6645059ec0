// Headline metrics of older files (see headline_metrics.h).

#include "experiments/result_format/headline_metrics.h"

#include <algorithm>
#include <string>

namespace dissect::result_format {

std::string_view HeadlineBeforeDeclared(std::string_view experiment) {
  for (const OlderHeadline& older : kHeadlinesBeforeDeclared) {
    if (older.experiment == experiment) return older.metric;
  }
  return "";
}

void AddHeadlineOfOlderFile(ResultFile& file) {
  const std::string key(kHeadlineMetricKey);
  if (file.context.count(key) > 0) return;
  const std::string_view headline = HeadlineBeforeDeclared(file.experiment);
  if (headline.empty() ||
      std::find(file.metric_names.begin(), file.metric_names.end(), headline) ==
          file.metric_names.end()) {
    return;
  }
  file.context[key] = std::string(headline);
}

}  // namespace dissect::result_format
