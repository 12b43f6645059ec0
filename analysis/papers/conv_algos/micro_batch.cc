// µ-cuDNN's micro-batch split; see micro_batch.h.
#include "analysis/papers/conv_algos/micro_batch.h"

#include <algorithm>
#include <cmath>

namespace dissect::analysis::papers {

std::optional<MicroBatchSplit> BestMicroBatchSplit(const std::map<int, double>& time_at_batch,
                                                   int batch) {
  if (batch < 1) return std::nullopt;
  // best[b]: the fastest split of b images; from[b]: its last micro-batch.
  std::vector<std::optional<MicroBatchSplit>> best(batch + 1);
  best[0] = MicroBatchSplit{};
  for (int b = 1; b <= batch; ++b) {
    // Largest sizes first, so that a tie keeps the larger micro-batches.
    for (auto it = time_at_batch.rbegin(); it != time_at_batch.rend(); ++it) {
      const auto [size, time] = *it;
      if (size < 1 || size > b || !best[b - size] || !(time > 0) || !std::isfinite(time)) continue;
      const double total = best[b - size]->time + time;
      const size_t count = best[b - size]->sizes.size() + 1;
      if (best[b] && !(total < best[b]->time) &&
          !(total == best[b]->time && count < best[b]->sizes.size())) {
        continue;
      }
      MicroBatchSplit split = *best[b - size];
      split.time = total;
      split.sizes.push_back(size);
      best[b] = std::move(split);
    }
  }
  if (best[batch]) std::sort(best[batch]->sizes.rbegin(), best[batch]->sizes.rend());
  return best[batch];
}

}  // namespace dissect::analysis::papers
