// The levels of a latency curve (see latency_levels.h).

#include "analysis/sections/latency_levels.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "analysis/format/format.h"

namespace dissect::analysis {

bool IsLevel(const Plateau& p, const std::vector<CurvePoint>& points, const Segmentation& seg,
             const ChangepointOptions& options) {
  if (p.x_last >= p.x_first * kMinLevelWidth) return true;
  if (p.points < kMinLevelPoints) return false;
  double lo = HUGE_VAL, hi = 0;
  for (size_t i = p.first; i <= p.last; ++i) {
    if (std::binary_search(seg.outliers.begin(), seg.outliers.end(), i)) continue;
    lo = std::min(lo, points[i].y);
    hi = std::max(hi, points[i].y);
  }
  return hi <= lo * (1 + options.min_relative_step / 2);
}

std::string BytesRange(double first, double last) {
  return first == last ? FormatBytes(first)
                       : absl::StrCat(FormatBytes(first), " – ", FormatBytes(last));
}

Segmented::Stats Segmented::Over(size_t first, size_t last, double lo, double hi) const {
  std::vector<double> cycles, ns;
  Stats out;
  for (size_t i = first; i <= last; ++i) {
    const CurvePoint& pt = curve->points[i];
    if (IsOutlier(i) || pt.x < lo || pt.x > hi) continue;
    if (out.points == 0) out.x_first = pt.x;
    out.x_last = pt.x;
    ++out.points;
    cycles.push_back(pt.y);
    if (curve->ns[i]) ns.push_back(*curve->ns[i]);
  }
  if (!cycles.empty()) out.cycles = Median(cycles);
  if (!ns.empty()) out.ns = Median(ns);
  return out;
}

std::optional<double> Segmented::Ns(const Plateau& p) const {
  return Over(p.first, p.last, -HUGE_VAL, HUGE_VAL).ns;
}

double Segmented::LevelEnd(size_t k, const ChangepointOptions& options) const {
  const Plateau& p = level(k);
  const double tolerance = 1 + options.min_relative_step / 2;
  for (size_t i = p.last + 1; i-- > p.first;) {
    const double y = curve->points[i].y;
    if (!IsOutlier(i) && y <= p.level * tolerance && y >= p.level / tolerance) {
      return curve->points[i].x;
    }
  }
  return p.x_last;
}

std::string Segmented::LevelText(size_t k) const {
  const Plateau& p = level(k);
  return absl::StrCat("level ", k + 1, " of ", levels.size(), " (", BytesRange(p.x_first, p.x_last),
                      ", ", p.points, " points, ", FormatNumber(p.level), " cycles)");
}

std::string Segmented::TransitionText(size_t k) const {
  std::vector<size_t> points;
  for (size_t i = level(k).last + 1; i < level(k + 1).first; ++i) {
    if (!IsOutlier(i)) points.push_back(i);
  }
  if (points.empty()) return "";
  const CurvePoint& a = curve->points[points.front()];
  const CurvePoint& b = curve->points[points.back()];
  return absl::StrCat(points.size(), " point(s) between the levels, ", BytesRange(a.x, b.x), " (",
                      FormatNumber(a.y),
                      a.y == b.y ? std::string() : absl::StrCat(" – ", FormatNumber(b.y)),
                      " cycles): a transition, not a level");
}

absl::StatusOr<Segmented> SegmentLatency(const LatencyCurve* curve,
                                         const ChangepointOptions& options) {
  Segmented s;
  s.curve = curve;
  if (curve == nullptr) return s;
  absl::StatusOr<Segmentation> seg = SegmentCurve(curve->points, options);
  if (!seg.ok()) {
    return absl::InternalError(absl::StrCat(curve->Describe(), ": ", seg.status().message()));
  }
  s.seg = *std::move(seg);
  for (size_t k = 0; k < s.seg.plateaus.size(); ++k) {
    if (IsLevel(s.seg.plateaus[k], curve->points, s.seg, options)) s.levels.push_back(k);
  }
  return s;
}

}  // namespace dissect::analysis
