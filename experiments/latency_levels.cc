// Latency level clustering; see latency_levels.h.
#include "experiments/latency_levels.h"

#include <algorithm>
#include <map>

namespace dissect {
namespace {

struct Cluster {
  size_t begin;  // indices into the sorted latencies, [begin, end)
  size_t end;
};

}  // namespace

std::vector<LatencyLevel> FindLatencyLevels(const std::vector<uint32_t>& cycles,
                                            const LevelOptions& options) {
  if (cycles.empty()) return {};
  std::vector<uint32_t> sorted = cycles;
  std::sort(sorted.begin(), sorted.end());
  std::vector<Cluster> clusters = {{0, 1}};
  for (size_t i = 1; i < sorted.size(); ++i) {
    const double prev = sorted[i - 1];
    const bool gap = sorted[i] >= prev * options.min_gap_ratio &&
                     sorted[i] - sorted[i - 1] >= options.min_gap_cycles;
    if (gap) {
      clusters.push_back({i, i + 1});
    } else {
      clusters.back().end = i + 1;
    }
  }
  const double n = static_cast<double>(sorted.size());
  std::vector<Cluster> kept;
  for (const Cluster& c : clusters) {
    if ((c.end - c.begin) / n >= options.min_fraction) kept.push_back(c);
  }
  if (kept.empty()) kept.push_back({0, sorted.size()});
  // Merge the pair of neighbours with the smallest latency ratio until few
  // enough remain (merging spans the outliers between them too).
  while (static_cast<int>(kept.size()) > std::max(1, options.max_levels)) {
    size_t best = 0;
    double best_ratio = 0;
    for (size_t k = 0; k + 1 < kept.size(); ++k) {
      const double ratio = static_cast<double>(sorted[kept[k + 1].begin]) /
                           std::max<uint32_t>(1, sorted[kept[k].end - 1]);
      if (k == 0 || ratio < best_ratio) {
        best = k;
        best_ratio = ratio;
      }
    }
    kept[best].end = kept[best + 1].end;
    kept.erase(kept.begin() + best + 1);
  }
  size_t total = 0;
  for (const Cluster& c : kept) total += c.end - c.begin;
  std::vector<LatencyLevel> levels;
  for (const Cluster& c : kept) {
    const size_t count = c.end - c.begin;
    const size_t mid = c.begin + count / 2;
    LatencyLevel level;
    level.cycles = count % 2 == 1 ? sorted[mid] : 0.5 * (sorted[mid - 1] + sorted[mid]);
    level.fraction = static_cast<double>(count) / total;
    level.max_cycles = sorted[c.end - 1];
    levels.push_back(level);
  }
  return levels;
}

uint64_t DominantMissDistance(const std::vector<uint64_t>& addresses,
                              const std::vector<uint32_t>& cycles,
                              uint32_t threshold_cycles) {
  std::map<uint64_t, int> histogram;
  bool have_last = false;
  uint64_t last = 0;
  for (size_t k = 0; k < cycles.size() && k < addresses.size(); ++k) {
    if (cycles[k] <= threshold_cycles) continue;
    if (have_last) {
      const uint64_t d = addresses[k] > last ? addresses[k] - last : last - addresses[k];
      ++histogram[d];
    }
    last = addresses[k];
    have_last = true;
  }
  uint64_t best = 0;
  int best_count = 0;
  for (const auto& [distance, count] : histogram) {
    if (count > best_count) {
      best = distance;
      best_count = count;
    }
  }
  return best;
}

}  // namespace dissect
