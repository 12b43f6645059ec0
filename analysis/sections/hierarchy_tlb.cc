// Memory hierarchy: the TLB sweep's findings and the "TLB miss" row.

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <tuple>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "analysis/format/format.h"
#include "analysis/sections/hierarchy_builder.h"
#include "analysis/sections/latency_levels.h"
#include "analysis/sections/provenance.h"
#include "analysis/sections/tlb.h"

namespace dissect::analysis::hierarchy_internal {

void Builder::Tlb() {
  const std::optional<double> dram = RowOf("DRAM").latency_cycles;
  const std::optional<double> l2_capacity = L2Capacity();
  if (!dram || !l2_capacity) return;
  const std::vector<const Row*> rows = RowsOf(kMemoryLatency);
  for (const char* path : {"global_cg", "global_ca"}) {
    const TlbSelection selection = SelectTlbSweep(rows, path, *l2_capacity);
    const std::string lines_limit =
        absl::StrCat(FormatNumber(kTlbLinesBeyondL2 * *l2_capacity / kLineBytes), " lines, ",
                     FormatNumber(kTlbLinesBeyondL2), "x the L2's ", FormatBytes(*l2_capacity));
    if (selection.l2_lines_rows > 0) {
      Basis("TLB", absl::StrCat("memory_latency ", path),
            absl::StrCat(selection.l2_lines_rows,
                         " row(s) beyond 2x the L2 in footprint but not in distinct lines (",
                         lines_limit, ") left out"),
            "their loads hit the L2 (or some do), whatever their footprint: not a TLB sweep");
    }
    if (!selection.sweep) continue;
    TlbFindings(path, *selection.sweep, *dram, lines_limit);
  }
}

void Builder::TlbFindings(const std::string& path, const TlbSweep& sweep, double dram,
                          const std::string& lines_limit) {
  const std::vector<TlbPoint>& points = sweep.points;
  const double limit = dram * (1 + kTlbExcess);
  size_t first_high = points.size();
  while (first_high > 0 && points[first_high - 1].cycles > limit) --first_high;
  const std::string where =
      absl::StrCat(path, ", ", FormatNumber(sweep.lines), " lines over ", FormatNumber(sweep.pages),
                   " pages of ", FormatBytes(kTlbPageBytes));
  auto pages = [](double n) {
    return absl::StrCat(FormatNumber(n), n == 1 ? " page (" : " pages (",
                        FormatBytes(n * kTlbPageBytes), ")");
  };
  Basis("TLB", absl::StrCat("memory_latency ", where),
        absl::StrCat(points.size(), " TLB working sets from ", pages(points.front().working_pages),
                     " to ", pages(points.back().working_pages),
                     " chased at once, every point beyond ", lines_limit),
        absl::StrCat("compared with ", dram_source_, " + ", FormatPercent(kTlbExcess), " (",
                     FormatNumber(limit), " cycles)"));
  if (first_high == points.size()) return;
  if (out_.Find("TLB miss") == nullptr) TlbMissRow(where, points.back(), dram);
  const std::string range =
      absl::StrCat(FormatNumber(points[first_high].cycles), " cycles at ",
                   pages(points[first_high].working_pages),
                   first_high + 1 < points.size()
                       ? absl::StrCat(" to ", FormatNumber(points.back().cycles), " cycles at ",
                                      pages(points.back().working_pages))
                       : std::string(),
                   " vs ", dram_source_, " of ", FormatNumber(dram), " cycles (", where, ")");
  if (first_high == 0) {
    Note(absl::StrCat("TLB misses at every measured working set: ", range));
  } else {
    Note(absl::StrCat("TLB misses beyond ", pages(points[first_high - 1].working_pages),
                      " chased at once: ", range));
  }
}

void Builder::TlbMissRow(const std::string& where, const TlbPoint& point, double dram) {
  HierarchyRow row;
  row.level = "TLB miss";
  row.latency_cycles = point.cycles;
  row.latency_from = ProgramFor(kMemoryLatency);
  row.latency_ns = point.ns;
  const auto after_dram = std::find_if(out_.rows.begin(), out_.rows.end(),
                                       [](const HierarchyRow& r) { return r.level == "DRAM"; });
  out_.rows.insert(after_dram == out_.rows.end() ? after_dram : after_dram + 1, std::move(row));
  Basis("TLB miss latency", absl::StrCat("memory_latency ", where),
        absl::StrCat("the largest working set, ", FormatNumber(point.working_pages),
                     " pages chased at once: ", FormatNumber(point.cycles), " cycles"),
        absl::StrCat(FormatNumber(point.cycles - dram), " cycles above ", dram_source_, " (",
                     FormatNumber(dram), " cycles)"));
}

}  // namespace dissect::analysis::hierarchy_internal
