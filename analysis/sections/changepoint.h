// Change-point detection on a curve such as latency vs footprint: splits it
// into plateaus (runs of points at one level) separated by steps.

#ifndef DISSECT_ANALYSIS_SECTIONS_CHANGEPOINT_H_
#define DISSECT_ANALYSIS_SECTIONS_CHANGEPOINT_H_

#include <cstddef>
#include <vector>

#include "absl/status/statusor.h"

namespace dissect::analysis {

struct CurvePoint {
  double x = 0;  // e.g. footprint in bytes; strictly ascending along a curve
  double y = 0;  // e.g. cycles per load; > 0
};

// A run of points at one level.
struct Plateau {
  size_t first = 0;  // index of its first point in the input
  size_t last = 0;   // index of its last point (inclusive)
  double x_first = 0;
  double x_last = 0;
  double level = 0;   // median y of its points (outliers excluded)
  size_t points = 0;  // points behind `level`
};

// The change between two consecutive plateaus.
struct Step {
  double x_before = 0;       // last x of the plateau before the step
  double x_after = 0;        // first x of the plateau after it
  double relative_jump = 0;  // level_after / level_before - 1
};

struct Segmentation {
  std::vector<Plateau> plateaus;  // ascending x
  std::vector<Step> steps;        // steps[i] lies between plateaus i and i+1
  // Indices of single-point spikes that were ignored.
  std::vector<size_t> outliers;
  // Indices of points that belong to no plateau (between two plateaus, or
  // a run shorter than min_plateau_points at either end).
  std::vector<size_t> transitions;
};

struct ChangepointOptions {
  // Levels closer than this (relative) are one plateau; a step is at least
  // this large. Also the size of a spike that is ignored as an outlier.
  double min_relative_step = 0.15;
  // Runs with fewer points are transitions, not plateaus. A curve with fewer
  // points than this is one plateau if it is flat.
  size_t min_plateau_points = 2;
};

// Segments `points` (x strictly ascending, y finite and > 0) into plateaus
// of log(y):
//  1. An interior point is an outlier if it differs from both neighbours by
//     more than min_relative_step in the same direction while the
//     neighbours agree with each other within min_relative_step.
//  2. The remaining log(y) are split by optimal partitioning (dynamic
//     programming over least squares plus a penalty per segment: the larger
//     of log(1+min_relative_step)^2 / 2 and 2 sigma^2 ln(n), sigma the
//     noise estimated from the median absolute difference of neighbours
//     that differ by less than min_relative_step).
//  3. Neighbouring segments are merged, closest medians first, while their
//     medians differ by less than min_relative_step and every merged point
//     stays within min_relative_step of the merged median.
//  4. Segments with at least min_plateau_points points are plateaus, the
//     others transitions; plateaus left adjacent with medians closer than
//     min_relative_step are merged.
// Deterministic. Fails on bad input (empty, unsorted x, y <= 0, non-finite).
absl::StatusOr<Segmentation> SegmentCurve(
    const std::vector<CurvePoint>& points,
    const ChangepointOptions& options = {});

}  // namespace dissect::analysis

#endif  // DISSECT_ANALYSIS_SECTIONS_CHANGEPOINT_H_
