// The levels of a latency curve: its segmentation (changepoint.h) and the
// plateaus wide enough to be levels of the memory hierarchy, with the
// statistics the hierarchy table reads from them (hierarchy_latency.cc).

#ifndef DISSECT_ANALYSIS_SECTIONS_LATENCY_LEVELS_H_
#define DISSECT_ANALYSIS_SECTIONS_LATENCY_LEVELS_H_

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "analysis/sections/changepoint.h"
#include "analysis/sections/memory_hierarchy.h"

namespace dissect::analysis {

// A plateau is a level of the hierarchy only if it is wide in footprint:
// at least this factor from its first to its last point, or at least
// kMinLevelPoints points. A shorter run (on real curves, partial hits make
// the L1->L2 and L2->DRAM steps gradual over several points, and a short run
// on that slope can be flat enough to look like a plateau) is a transition.
inline constexpr double kMinLevelWidth = 1.5;
inline constexpr size_t kMinLevelPoints = 4;

// Whether plateau `p` of `seg` over `points` is a level: wide in footprint,
// or of at least kMinLevelPoints points that are flat (within half the
// minimum step of each other): four points climbing a gradual transition
// by a few % each are not a level.
bool IsLevel(const Plateau& p, const std::vector<CurvePoint>& points, const Segmentation& seg,
             const ChangepointOptions& options);

// "310 KiB – 26 MiB", or one size when both are equal.
std::string BytesRange(double first, double last);

// A curve, its segmentation and its levels.
struct Segmented {
  const LatencyCurve* curve = nullptr;
  Segmentation seg;
  // Indices into seg.plateaus of the plateaus that are levels (IsLevel).
  std::vector<size_t> levels;

  bool has_levels() const { return curve != nullptr && !levels.empty(); }
  const Plateau& level(size_t k) const { return seg.plateaus[levels[k]]; }

  bool IsOutlier(size_t i) const {
    return std::binary_search(seg.outliers.begin(), seg.outliers.end(), i);
  }

  // Median cycles and ns over the points of `p` with footprint in [lo, hi]
  // (outliers excluded), and the footprints of the first and last of them.
  struct Stats {
    std::optional<double> cycles, ns;
    double x_first = 0, x_last = 0;
    size_t points = 0;
  };
  Stats Over(size_t first, size_t last, double lo, double hi) const;

  // Median ns over a plateau's points (outliers excluded).
  std::optional<double> Ns(const Plateau& p) const;

  // The last footprint of level k whose latency is still within half the
  // minimum step of the level: the segmentation admits points up to a full
  // step away, and the first points of a gradual rise are already leaving.
  double LevelEnd(size_t k, const ChangepointOptions& options) const;

  // "level 2 of 4 (310 KiB – 26 MiB, 124 points, 280.4 cycles)".
  std::string LevelText(size_t k) const;

  // The points strictly between level k and level k + 1 (outliers
  // excluded), as "N point(s), A – B (c1 – c2 cycles)"; "" if none.
  std::string TransitionText(size_t k) const;
};

// `curve` segmented, with its levels; an empty Segmented for nullptr.
absl::StatusOr<Segmented> SegmentLatency(const LatencyCurve* curve,
                                         const ChangepointOptions& options);

}  // namespace dissect::analysis

#endif  // DISSECT_ANALYSIS_SECTIONS_LATENCY_LEVELS_H_
