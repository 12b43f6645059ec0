// TLB sweep selection; see tlb.h.
#include "analysis/sections/tlb.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

namespace dissect::analysis {

std::optional<ChaseGeometry> GeometryOf(const Row& row) {
  const std::optional<double> footprint = AxisNumber(row, "footprint_bytes");
  const std::optional<double> stride = AxisNumber(row, "stride_bytes");
  const std::optional<std::string> order = row.Axis("order");
  if (!footprint || !stride || *footprint <= 0 || *stride <= 0 || !order) return std::nullopt;
  ChaseGeometry g;
  g.lines = std::ceil(*footprint / std::max(*stride, kLineBytes));
  g.pages = std::ceil(*footprint / std::max(*stride, kTlbPageBytes));
  if (*order == "random") {
    g.working_pages = g.pages;
  } else if (*order == "page_local") {
    // Files from before group_pages chased page by page.
    const double group = AxisNumber(row, "group_pages").value_or(1);
    if (group < 1) return std::nullopt;
    g.working_pages = std::min(group, g.pages);
  } else {
    return std::nullopt;
  }
  return g;
}

TlbSelection SelectTlbSweep(const std::vector<const Row*>& rows, std::string_view path,
                            double l2_bytes) {
  const double min_lines = kTlbLinesBeyondL2 * l2_bytes / kLineBytes;
  struct Group {
    double pages = 0;
    std::map<double, std::vector<double>> cycles, ns;  // by working pages
  };
  std::map<double, Group> groups;  // by lines
  TlbSelection out;
  for (const Row* row : rows) {
    const std::optional<double> cycles = row->Counter("cycles_per_load");
    const std::optional<ChaseGeometry> g = GeometryOf(*row);
    if (row->error || row->Axis("path") != std::optional<std::string>(std::string(path)) ||
        !cycles || !std::isfinite(*cycles) || *cycles <= 0 || !g) {
      continue;
    }
    if (g->lines <= min_lines) {
      const std::optional<double> footprint = AxisNumber(*row, "footprint_bytes");
      if (footprint && *footprint > kTlbLinesBeyondL2 * l2_bytes) ++out.l2_lines_rows;
      continue;
    }
    Group& group = groups[g->lines];
    group.pages = std::max(group.pages, g->pages);
    group.cycles[g->working_pages].push_back(*cycles);
    const std::optional<double> ns = row->Counter("ns_per_load");
    if (ns && std::isfinite(*ns) && *ns > 0) group.ns[g->working_pages].push_back(*ns);
  }
  const Group* chosen = nullptr;
  double chosen_lines = 0;
  for (const auto& [lines, group] : groups) {
    // Ascending lines: >= prefers more lines on a tie.
    if (group.cycles.size() >= 2 &&
        (chosen == nullptr || group.cycles.size() >= chosen->cycles.size())) {
      chosen = &group;
      chosen_lines = lines;
    }
  }
  if (chosen == nullptr) return out;
  TlbSweep sweep;
  sweep.lines = chosen_lines;
  sweep.pages = chosen->pages;
  for (const auto& [working, values] : chosen->cycles) {
    TlbPoint point;
    point.working_pages = working;
    point.cycles = Median(values);
    if (const auto it = chosen->ns.find(working); it != chosen->ns.end()) {
      point.ns = Median(it->second);
    }
    sweep.points.push_back(point);
  }
  out.sweep = std::move(sweep);
  return out;
}

}  // namespace dissect::analysis
