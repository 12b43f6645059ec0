// L2 partition inference from an SM-to-line latency matrix; see
// l2_partitions.h for the method.
#include "experiments/sharing/l2_map/l2_partitions.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace dissect {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr int kMaxIterations = 200;

using Vec = std::vector<double>;

double SquaredDistance(const Vec& a, const Vec& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += (a[i] - b[i]) * (a[i] - b[i]);
  return s;
}

// Distance in cycles RMS per SM (per vector component).
double RmsDistance(const Vec& a, const Vec& b) {
  return a.empty() ? 0 : std::sqrt(SquaredDistance(a, b) / a.size());
}

double Median(Vec v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

struct Clustering {
  std::vector<Vec> centres;
  std::vector<int> label;  // per point
  std::vector<int> sizes;
  double noise = 0;       // pooled within-cluster RMS per component
  double separation = 0;  // smallest centre distance, RMS per component
  bool valid = false;
};

int Nearest(const std::vector<Vec>& centres, const Vec& x) {
  int best = 0;
  double best_d = std::numeric_limits<double>::infinity();
  for (size_t c = 0; c < centres.size(); ++c) {
    const double d = SquaredDistance(centres[c], x);
    if (d < best_d) {
      best_d = d;
      best = static_cast<int>(c);
    }
  }
  return best;
}

// Farthest-point initialisation and Lloyd iterations; see the header.
Clustering KMeans(const std::vector<Vec>& points, int k) {
  const size_t dims = points[0].size();
  Clustering out;
  Vec mean(dims, 0.0);
  for (const Vec& p : points) {
    for (size_t d = 0; d < dims; ++d) mean[d] += p[d] / points.size();
  }
  std::vector<double> nearest_d(points.size(), std::numeric_limits<double>::infinity());
  Vec reference = mean;
  for (int c = 0; c < k; ++c) {
    int pick = -1;
    double pick_d = -1;
    for (size_t i = 0; i < points.size(); ++i) {
      const double d = c == 0 ? SquaredDistance(points[i], reference) : nearest_d[i];
      if (d > pick_d) {
        pick_d = d;
        pick = static_cast<int>(i);
      }
    }
    // Fewer distinct points than k: this k cannot be formed.
    if (c > 0 && pick_d <= 0) return out;
    out.centres.push_back(points[pick]);
    for (size_t i = 0; i < points.size(); ++i) {
      nearest_d[i] = std::min(nearest_d[i], SquaredDistance(points[i], points[pick]));
    }
  }
  out.label.assign(points.size(), -1);
  for (int it = 0; it < kMaxIterations; ++it) {
    bool changed = false;
    for (size_t i = 0; i < points.size(); ++i) {
      const int n = Nearest(out.centres, points[i]);
      changed |= n != out.label[i];
      out.label[i] = n;
    }
    if (!changed) break;
    std::vector<Vec> sums(k, Vec(dims, 0.0));
    std::vector<int> counts(k, 0);
    for (size_t i = 0; i < points.size(); ++i) {
      ++counts[out.label[i]];
      for (size_t d = 0; d < dims; ++d) sums[out.label[i]][d] += points[i][d];
    }
    for (int c = 0; c < k; ++c) {
      if (counts[c] == 0) continue;  // an empty cluster keeps its centre (and fails the size rule)
      for (size_t d = 0; d < dims; ++d) out.centres[c][d] = sums[c][d] / counts[c];
    }
  }
  out.sizes.assign(k, 0);
  double within = 0;
  for (size_t i = 0; i < points.size(); ++i) {
    ++out.sizes[out.label[i]];
    within += SquaredDistance(points[i], out.centres[out.label[i]]);
  }
  out.noise = std::sqrt(within / (points.size() * dims));
  out.separation = k > 1 ? std::numeric_limits<double>::infinity() : 0;
  for (int a = 0; a < k; ++a) {
    for (int b = a + 1; b < k; ++b) {
      out.separation = std::min(out.separation, RmsDistance(out.centres[a], out.centres[b]));
    }
  }
  out.valid = true;
  return out;
}

bool Separated(const Clustering& c, int min_size, const L2PartitionOptions& options) {
  if (!c.valid) return false;
  if (c.centres.size() == 1) return true;
  for (int s : c.sizes) {
    if (s < min_size) return false;
  }
  return c.separation > std::max(options.separation_factor * c.noise, options.min_gap_cycles);
}

// Indices of outlier points (ascending); see the header.
std::vector<int> FindOutliers(const std::vector<Vec>& points, int min_size,
                              const L2PartitionOptions& options) {
  const int m = min_size - 1;
  if (m < 1 || static_cast<int>(points.size()) <= m) return {};
  Vec kth(points.size());
  for (size_t i = 0; i < points.size(); ++i) {
    Vec d;
    for (size_t j = 0; j < points.size(); ++j) {
      if (j != i) d.push_back(RmsDistance(points[i], points[j]));
    }
    std::nth_element(d.begin(), d.begin() + (m - 1), d.end());
    kth[i] = d[m - 1];
  }
  const double threshold = std::max(options.outlier_factor * Median(kth), options.min_gap_cycles);
  std::vector<int> outliers;
  for (size_t i = 0; i < points.size(); ++i) {
    if (kth[i] > threshold) outliers.push_back(static_cast<int>(i));
  }
  return outliers;
}

// The SM rows without a NaN, after checking the matrix and options.
absl::StatusOr<std::vector<int>> MeasuredSms(const std::vector<std::vector<double>>& cycles,
                                             const L2PartitionOptions& options) {
  if (cycles.empty() || cycles[0].empty()) {
    return absl::InvalidArgumentError("InferL2Partitions: empty latency matrix");
  }
  if (options.max_partitions < 1) {
    return absl::InvalidArgumentError("InferL2Partitions: max_partitions must be at least 1");
  }
  const size_t lines = cycles[0].size();
  std::vector<int> measured;
  for (size_t s = 0; s < cycles.size(); ++s) {
    if (cycles[s].size() != lines) {
      return absl::InvalidArgumentError(absl::StrCat(
          "InferL2Partitions: SM row ", s, " has ", cycles[s].size(), " lines, row 0 has ", lines));
    }
    if (std::none_of(cycles[s].begin(), cycles[s].end(), [](double v) { return std::isnan(v); })) {
      measured.push_back(static_cast<int>(s));
    }
  }
  if (measured.empty()) {
    return absl::InvalidArgumentError("InferL2Partitions: no SM row without NaN");
  }
  return measured;
}

// The partition number of each of `best`'s clusters: partitions numbered
// by their lowest line index.
std::vector<int> NumberByFirstPoint(const Clustering& best, size_t points) {
  const int k = static_cast<int>(best.centres.size());
  std::vector<int> first_point(k, std::numeric_limits<int>::max());
  for (size_t i = 0; i < points; ++i) {
    first_point[best.label[i]] = std::min(first_point[best.label[i]], static_cast<int>(i));
  }
  std::vector<int> order(k);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](int a, int b) { return first_point[a] < first_point[b]; });
  std::vector<int> renumber(k);
  for (int p = 0; p < k; ++p) renumber[order[p]] = p;
  return renumber;
}

// Each measured SM's mean latency to each partition (over the lines that
// are no outliers, `point_line`), its near and far partitions, and their
// summary over the SMs.
void SummarizeSms(const std::vector<std::vector<double>>& cycles,
                  const std::vector<int>& measured, const std::vector<int>& point_line,
                  L2PartitionMap& map) {
  const int k = map.partitions;
  const size_t sms = cycles.size();
  map.sm_partition_cycles.assign(sms, Vec(k, kNaN));
  map.near_partition_of_sm.assign(sms, -1);
  map.near_cycles_of_sm.assign(sms, kNaN);
  map.far_cycles_of_sm.assign(sms, kNaN);
  Vec near_values;
  double far_sum = 0;
  for (int s : measured) {
    Vec sum(k, 0.0);
    for (int line : point_line) sum[map.partition_of_line[line]] += cycles[s][line];
    int near = 0;
    int far = 0;
    for (int p = 0; p < k; ++p) {
      map.sm_partition_cycles[s][p] = sum[p] / map.partition_sizes[p];
      if (map.sm_partition_cycles[s][p] < map.sm_partition_cycles[s][near]) near = p;
      if (map.sm_partition_cycles[s][p] > map.sm_partition_cycles[s][far]) far = p;
    }
    map.near_partition_of_sm[s] = near;
    map.near_cycles_of_sm[s] = map.sm_partition_cycles[s][near];
    map.far_cycles_of_sm[s] = map.sm_partition_cycles[s][far];
    near_values.push_back(map.near_cycles_of_sm[s]);
    far_sum += map.far_cycles_of_sm[s];
  }
  const double n = static_cast<double>(near_values.size());
  map.near_cycles = std::accumulate(near_values.begin(), near_values.end(), 0.0) / n;
  map.far_cycles = far_sum / n;
  map.far_minus_near_cycles = map.far_cycles - map.near_cycles;
  map.near_min_cycles = *std::min_element(near_values.begin(), near_values.end());
  map.near_max_cycles = *std::max_element(near_values.begin(), near_values.end());
  double var = 0;
  for (double v : near_values) var += (v - map.near_cycles) * (v - map.near_cycles);
  map.near_stdev_cycles = std::sqrt(var / n);
}

}  // namespace

absl::StatusOr<L2PartitionMap> InferL2Partitions(const std::vector<std::vector<double>>& cycles,
                                                 const L2PartitionOptions& options) {
  absl::StatusOr<std::vector<int>> measured_or = MeasuredSms(cycles, options);
  if (!measured_or.ok()) return measured_or.status();
  const std::vector<int>& measured = *measured_or;
  const size_t lines = cycles[0].size();

  // points[line][j]: latency of the line from measured SM j.
  std::vector<Vec> all(lines, Vec(measured.size()));
  for (size_t l = 0; l < lines; ++l) {
    for (size_t j = 0; j < measured.size(); ++j) all[l][j] = cycles[measured[j]][l];
  }
  const int min_size = std::max(
      options.min_cluster_lines,
      static_cast<int>(std::ceil(options.min_cluster_fraction * static_cast<double>(lines))));

  L2PartitionMap map;
  map.sms_measured = static_cast<int>(measured.size());
  map.outlier_lines = FindOutliers(all, min_size, options);
  std::vector<bool> is_outlier(lines, false);
  for (int l : map.outlier_lines) is_outlier[l] = true;
  std::vector<Vec> points;
  std::vector<int> point_line;
  for (size_t l = 0; l < lines; ++l) {
    if (is_outlier[l]) continue;
    points.push_back(all[l]);
    point_line.push_back(static_cast<int>(l));
  }

  Clustering best = KMeans(points, 1);
  for (int k = 2; k <= std::min<int>(options.max_partitions, points.size()); ++k) {
    Clustering c = KMeans(points, k);
    if (Separated(c, min_size, options)) best = std::move(c);
  }
  const int k = static_cast<int>(best.centres.size());
  const std::vector<int> renumber = NumberByFirstPoint(best, points.size());
  std::vector<Vec> centres(k);
  for (int c = 0; c < k; ++c) centres[renumber[c]] = best.centres[c];

  map.partitions = k;
  map.noise_cycles = best.noise;
  map.separation_cycles = best.separation;
  map.partition_of_line.assign(lines, -1);
  map.partition_sizes.assign(k, 0);
  for (size_t i = 0; i < points.size(); ++i) {
    const int p = renumber[best.label[i]];
    map.partition_of_line[point_line[i]] = p;
    ++map.partition_sizes[p];
  }
  for (int l : map.outlier_lines) map.partition_of_line[l] = Nearest(centres, all[l]);
  SummarizeSms(cycles, measured, point_line, map);
  return map;
}

std::vector<uint64_t> L2MapLineOffsets(int lines, uint64_t page_bytes) {
  constexpr uint64_t kLineBytes = 128;
  const uint64_t slots = std::max<uint64_t>(page_bytes / kLineBytes, 1);
  std::vector<uint64_t> offsets;
  offsets.reserve(std::max(lines, 0));
  for (int i = 0; i < lines; ++i) {
    const uint64_t line = static_cast<uint64_t>(i);
    offsets.push_back(line * page_bytes + (line * 7 % slots) * kLineBytes);
  }
  return offsets;
}

}  // namespace dissect
