// Which memory_latency rows make a TLB sweep (memory hierarchy rule 9 in
// analysis/README.md). A chase's latency changes with its TLB misses only
// where nothing else changes, and its distinct lines decide what else does:
// lines that fit the L2 hit it after the warm-up lap whatever the footprint,
// so a stride sweep at one footprint moves L2 residency, not TLB misses.
// Rows are therefore classified by their distinct lines and pages, computed
// from their axes, and a sweep is a set of rows with the same distinct lines,
// all beyond 2x the L2, whose TLB working set (pages chased at once) varies.
#ifndef DISSECT_ANALYSIS_SECTIONS_TLB_H_
#define DISSECT_ANALYSIS_SECTIONS_TLB_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/results/results.h"

namespace dissect::analysis {

// The L2 line of the NVIDIA GPUs the suite targets (sm_70 .. sm_100): loads
// less than a line apart share one fill.
inline constexpr double kLineBytes = 128;
// The page cudaMalloc maps device memory with
// (experiments/workloads/inputs/pointer_chain.h).
inline constexpr double kTlbPageBytes = 2.0 * 1024 * 1024;
// Lines beyond this multiple of the L2's lines miss it at every point.
inline constexpr double kTlbLinesBeyondL2 = 2;

// What one chase row touches, from its axes.
struct ChaseGeometry {
  double lines = 0;          // distinct 128 B lines: footprint / max(stride, line)
  double pages = 0;          // distinct 2 MiB pages: footprint / max(stride, page)
  double working_pages = 0;  // pages chased at once: the TLB working set
};

// nullopt without footprint_bytes or stride_bytes, or in an order whose
// TLB working set is not known (strided: page by page, with prefetching).
// random: every page at once; page_local: group_pages (1 if absent), at
// most the pages.
std::optional<ChaseGeometry> GeometryOf(const Row& row);

struct TlbPoint {
  double working_pages = 0;
  double cycles = 0;              // median cycles_per_load
  std::optional<double> ns;       // median ns_per_load
};

struct TlbSweep {
  double lines = 0;
  double pages = 0;  // the most pages any of its rows touches
  std::vector<TlbPoint> points;  // working_pages ascending
};

struct TlbSelection {
  std::optional<TlbSweep> sweep;
  // Rows left out whose footprint lies beyond 2x the L2 but whose distinct
  // lines do not (they hit the L2, or some of them do).
  int l2_lines_rows = 0;
};

// The memory_latency rows of `path` (not failed, finite positive
// cycles_per_load) grouped by distinct lines, only lines beyond
// kTlbLinesBeyondL2 x l2_bytes / kLineBytes; the group with the most
// working-set sizes (at least 2; ties: more lines) is the sweep.
TlbSelection SelectTlbSweep(const std::vector<const Row*>& rows, std::string_view path,
                            double l2_bytes);

}  // namespace dissect::analysis

#endif  // DISSECT_ANALYSIS_SECTIONS_TLB_H_
