// Change-point detection (see changepoint.h).

#include "analysis/sections/changepoint.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace dissect::analysis {
namespace {

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  if (n == 0) return 0;
  return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

// A run of kept points, as positions [begin, end) in the kept list.
struct Segment {
  size_t begin = 0;
  size_t end = 0;
};

absl::Status Validate(const std::vector<CurvePoint>& points,
                      const ChangepointOptions& options) {
  if (!(options.min_relative_step > 0) ||
      !std::isfinite(options.min_relative_step)) {
    return absl::InvalidArgumentError(
        absl::StrCat("min_relative_step must be positive (got ",
                     options.min_relative_step, ")"));
  }
  if (options.min_plateau_points < 1) {
    return absl::InvalidArgumentError("min_plateau_points must be at least 1");
  }
  if (points.empty()) return absl::InvalidArgumentError("curve has no points");
  for (size_t i = 0; i < points.size(); ++i) {
    const CurvePoint& p = points[i];
    if (!std::isfinite(p.x) || !std::isfinite(p.y) || p.y <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("point ", i, " (x ", p.x, ", y ", p.y,
                       ") needs finite x and finite y > 0"));
    }
    if (i > 0 && !(p.x > points[i - 1].x)) {
      return absl::InvalidArgumentError(
          absl::StrCat("x must be strictly ascending: point ", i, " has x ",
                       p.x, " after ", points[i - 1].x));
    }
  }
  return absl::OkStatus();
}

// Interior single-point spikes (see changepoint.h, rule 1).
std::vector<bool> FindOutliers(const std::vector<double>& z, double t) {
  std::vector<bool> outlier(z.size(), false);
  for (size_t i = 1; i + 1 < z.size(); ++i) {
    if (outlier[i - 1]) continue;
    const double up_from_left = z[i] - z[i - 1];
    const double up_from_right = z[i] - z[i + 1];
    if (std::fabs(z[i - 1] - z[i + 1]) < t && std::fabs(up_from_left) > t &&
        std::fabs(up_from_right) > t &&
        (up_from_left > 0) == (up_from_right > 0)) {
      outlier[i] = true;
    }
  }
  return outlier;
}

// Optimal partitioning of `z` (rule 2).
std::vector<Segment> Partition(const std::vector<double>& z, double t) {
  const size_t m = z.size();
  // Noise: from the neighbour differences smaller than a step (the others
  // are steps, and on a short curve with several steps they can be most).
  std::vector<double> diffs;
  for (size_t j = 0; j + 1 < m; ++j) {
    const double d = std::fabs(z[j + 1] - z[j]);
    if (d < t) diffs.push_back(d);
  }
  const double sigma =
      diffs.empty() ? 0 : 1.4826 * Median(diffs) / std::sqrt(2.0);
  const double penalty =
      std::max(t * t / 2, 2 * sigma * sigma * std::log(static_cast<double>(m)));

  std::vector<double> s1(m + 1, 0), s2(m + 1, 0);
  for (size_t j = 0; j < m; ++j) {
    s1[j + 1] = s1[j] + z[j];
    s2[j + 1] = s2[j] + z[j] * z[j];
  }
  auto cost = [&](size_t begin, size_t end) {
    const double sum = s1[end] - s1[begin];
    const double len = static_cast<double>(end - begin);
    return std::max(0.0, (s2[end] - s2[begin]) - sum * sum / len);
  };
  std::vector<double> best(m + 1, std::numeric_limits<double>::infinity());
  std::vector<size_t> from(m + 1, 0);
  best[0] = 0;
  for (size_t end = 1; end <= m; ++end) {
    for (size_t begin = 0; begin < end; ++begin) {
      const double total = best[begin] + cost(begin, end) + penalty;
      if (total < best[end]) {
        best[end] = total;
        from[end] = begin;
      }
    }
  }
  std::vector<Segment> segments;
  for (size_t end = m; end > 0; end = from[end]) {
    segments.push_back({from[end], end});
  }
  std::reverse(segments.begin(), segments.end());
  return segments;
}

double MedianOf(const std::vector<double>& z, size_t begin, size_t end) {
  return Median(std::vector<double>(z.begin() + begin, z.begin() + end));
}

// Merges neighbouring segments (rule 3).
void MergeClose(const std::vector<double>& z, double t,
                std::vector<Segment>& segments) {
  while (segments.size() > 1) {
    size_t best = segments.size();
    double best_diff = 0;
    for (size_t k = 0; k + 1 < segments.size(); ++k) {
      const Segment& a = segments[k];
      const Segment& b = segments[k + 1];
      const double diff =
          std::fabs(MedianOf(z, a.begin, a.end) - MedianOf(z, b.begin, b.end));
      if (diff >= t) continue;
      const double merged = MedianOf(z, a.begin, b.end);
      bool flat = true;
      for (size_t j = a.begin; j < b.end; ++j) {
        if (std::fabs(z[j] - merged) >= t) flat = false;
      }
      if (!flat) continue;
      if (best == segments.size() || diff < best_diff) {
        best = k;
        best_diff = diff;
      }
    }
    if (best == segments.size()) return;
    segments[best].end = segments[best + 1].end;
    segments.erase(segments.begin() + static_cast<long>(best) + 1);
  }
}

// A plateau while being built: its kept positions (not necessarily
// contiguous once plateaus around transitions merge).
struct Group {
  std::vector<size_t> kept;  // positions in the kept list
};

double GroupMedian(const std::vector<double>& z, const Group& g) {
  std::vector<double> values;
  for (size_t j : g.kept) values.push_back(z[j]);
  return Median(values);
}

// Rule 4: the segments long enough to be plateaus (all of them when there
// is only one).
std::vector<Group> PlateauGroups(const std::vector<Segment>& segments,
                                 size_t min_plateau_points) {
  std::vector<Group> plateaus;
  for (const Segment& s : segments) {
    if (s.end - s.begin < min_plateau_points && segments.size() > 1) {
      continue;
    }
    Group g;
    for (size_t j = s.begin; j < s.end; ++j) g.kept.push_back(j);
    plateaus.push_back(std::move(g));
  }
  return plateaus;
}

// Merges neighbouring plateaus whose levels differ by less than `t`, closest
// first; the kept points between them go to `outliers` (input indices).
void MergeNearPlateaus(const std::vector<double>& z, double t, const std::vector<size_t>& kept,
                       std::vector<Group>& plateaus, std::vector<size_t>& outliers) {
  while (plateaus.size() > 1) {
    size_t best = plateaus.size();
    double best_diff = 0;
    for (size_t k = 0; k + 1 < plateaus.size(); ++k) {
      const double diff = std::fabs(GroupMedian(z, plateaus[k]) -
                                    GroupMedian(z, plateaus[k + 1]));
      if (diff < t && (best == plateaus.size() || diff < best_diff)) {
        best = k;
        best_diff = diff;
      }
    }
    if (best == plateaus.size()) break;
    // Points between the two (transitions) become outliers of the merged
    // plateau: they lie inside its x range but do not set its level.
    const size_t gap_begin = plateaus[best].kept.back() + 1;
    const size_t gap_end = plateaus[best + 1].kept.front();
    for (size_t j = gap_begin; j < gap_end; ++j) {
      outliers.push_back(kept[j]);
    }
    for (size_t j : plateaus[best + 1].kept) plateaus[best].kept.push_back(j);
    plateaus.erase(plateaus.begin() + static_cast<long>(best) + 1);
  }
}

}  // namespace

absl::StatusOr<Segmentation> SegmentCurve(const std::vector<CurvePoint>& points,
                                          const ChangepointOptions& options) {
  if (absl::Status s = Validate(points, options); !s.ok()) return s;
  const double t = std::log1p(options.min_relative_step);
  std::vector<double> all_z;
  for (const CurvePoint& p : points) all_z.push_back(std::log(p.y));

  Segmentation result;
  const std::vector<bool> outlier = FindOutliers(all_z, t);
  std::vector<size_t> kept;  // kept position -> input index
  std::vector<double> z;
  for (size_t i = 0; i < points.size(); ++i) {
    if (outlier[i]) {
      result.outliers.push_back(i);
    } else {
      kept.push_back(i);
      z.push_back(all_z[i]);
    }
  }

  std::vector<Segment> segments = Partition(z, t);
  MergeClose(z, t, segments);

  // Rule 4: plateaus and transitions.
  std::vector<Group> plateaus = PlateauGroups(segments, options.min_plateau_points);
  std::vector<bool> in_plateau(z.size(), false);
  MergeNearPlateaus(z, t, kept, plateaus, result.outliers);
  std::sort(result.outliers.begin(), result.outliers.end());

  for (const Group& g : plateaus) {
    Plateau p;
    p.first = kept[g.kept.front()];
    p.last = kept[g.kept.back()];
    p.x_first = points[p.first].x;
    p.x_last = points[p.last].x;
    std::vector<double> ys;
    for (size_t j : g.kept) {
      ys.push_back(points[kept[j]].y);
      in_plateau[j] = true;
    }
    p.level = Median(ys);
    p.points = ys.size();
    result.plateaus.push_back(p);
  }
  for (size_t j = 0; j < z.size(); ++j) {
    const bool absorbed = std::binary_search(result.outliers.begin(),
                                             result.outliers.end(), kept[j]);
    if (!in_plateau[j] && !absorbed) result.transitions.push_back(kept[j]);
  }
  for (size_t k = 0; k + 1 < result.plateaus.size(); ++k) {
    const Plateau& before = result.plateaus[k];
    const Plateau& after = result.plateaus[k + 1];
    result.steps.push_back(
        {before.x_last, after.x_first, after.level / before.level - 1});
  }
  return result;
}

}  // namespace dissect::analysis
