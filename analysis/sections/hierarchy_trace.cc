// Memory hierarchy: near and far L2 from latency_trace's warm traces.

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

void Builder::Trace() {
  const std::vector<const Row*> rows = RowsOf(kLatencyTrace);
  if (rows.empty()) return;
  // A cold walk misses once per fill: the miss period is what one miss
  // brings in (a sector, or the whole line where a miss fills it), which
  // is not the line size, so it is no line or sector column.
  std::vector<std::string> fills;
  for (const auto& [path, level] : {std::pair<const char*, const char*>{"global_ca", "L1"},
                                    std::pair<const char*, const char*>{"global_cg", "L2"}}) {
    int count = 0;
    double stride = 0;
    const std::optional<double> fill = MissPeriod(rows, path, &count, &stride);
    if (!fill) continue;
    RowOf(level).fill_bytes = *fill;
    fills.push_back(absl::StrCat(level, " ", FormatBytes(*fill)));
    Basis(absl::StrCat(level, " fill granularity"),
          absl::StrCat("latency_trace ", path, ", cold, strided, stride ", FormatBytes(stride)),
          absl::StrCat("miss_period_bytes ", FormatNumber(*fill), " in ", count, " row(s)"),
          "what one miss fills");
  }
  if (!fills.empty()) {
    Note(absl::StrCat(
        "Fill granularity (latency_trace miss_period_bytes): ", absl::StrJoin(fills, ", "),
        ": what one miss brings in, a sector or the whole line; not the line "
        "size"));
  }
  NearFarFromTrace(rows);
}

Builder::TraceSplit Builder::CollectTraceSplit(const std::vector<const Row*>& rows,
                                               std::optional<double> high,
                                               std::optional<double> dram) const {
  TraceSplit t;
  const bool overhead_known = std::any_of(
      rows.begin(), rows.end(), [](const Row* row) { return TraceOverhead(*row).has_value(); });
  for (const Row* row : rows) {
    const std::optional<double> footprint = AxisNumber(*row, "footprint_bytes");
    if (row->Axis("path") != std::optional<std::string>("global_cg") ||
        !AxisIsOrAbsent(*row, "state", "warm") || !AxisIsOrAbsent(*row, "order", "random") ||
        !footprint || (high && *footprint > *high)) {
      continue;
    }
    ++t.examined;
    const std::optional<double> c1 = Positive(*row, "level1_cycles");
    const std::optional<double> f1 = Positive(*row, "level1_fraction");
    const std::optional<double> c2 = Positive(*row, "level2_cycles");
    const std::optional<double> f2 = Positive(*row, "level2_fraction");
    if (!c1 || !f1 || !c2 || !f2 || *f1 < kMinPartitionFraction || *f2 < kMinPartitionFraction) {
      continue;
    }
    if (!high || *footprint <= *high / 2) {
      ++t.within_half;
      continue;
    }
    const std::optional<double> overhead = TraceOverhead(*row);
    if (overhead_known && !overhead) {
      ++t.no_overhead;
      continue;
    }
    const double o = overhead.value_or(0);
    if (!dram || !((*c2 - o) * (1 + options_.min_relative_step) < *dram)) {
      ++t.at_dram;
      continue;
    }
    if (overhead) t.overheads.push_back(*overhead);
    t.near.push_back(*c1 - o);
    t.far.push_back(*c2 - o);
    t.near_fraction.push_back(*f1);
    t.far_fraction.push_back(*f2);
    if (const std::optional<double> clock = RowSmClockMhz(*row); clock && *clock > 0) {
      t.clocks.push_back(*clock);
    }
  }
  return t;
}

void Builder::LeftOutTraceRows(const std::string& where, const TraceSplit& t,
                               std::optional<double> dram) {
  if (t.within_half > 0) {
    Basis("L2 partitions (trace)", where,
          absl::StrCat(t.within_half, " row(s) with two levels at footprints within half the L2 ",
                       "left out"),
          "a warm walk that fits half the L2 finds every line near (far lines are copied "
          "into the near partition), so its second level is not the far partition");
  }
  if (t.at_dram > 0) {
    Basis("L2 partitions (trace)", where,
          absl::StrCat(t.at_dram, " row(s) whose second level is not more than ",
                       FormatPercent(options_.min_relative_step), " below ",
                       dram ? absl::StrCat("the DRAM latency (", FormatNumber(*dram), " cycles)")
                            : std::string("a DRAM latency (none measured)"),
                       " left out"),
          "near the L2's capacity a second level can be DRAM misses, not far hits");
  }
  if (t.no_overhead > 0) {
    Basis("L2 partitions (trace)", where,
          absl::StrCat(t.no_overhead, " row(s) without trace_overhead_cycles left out"),
          "their levels include a timing overhead the others have subtracted");
  }
}

void Builder::NearFarFromTrace(const std::vector<const Row*>& rows) {
  const std::optional<double> high = L2Capacity();
  const std::optional<double> dram = RowOf("DRAM").latency_cycles;
  const TraceSplit t = CollectTraceSplit(rows, high, dram);
  if (t.examined == 0) return;
  const std::string where =
      high ? absl::StrCat("latency_trace global_cg, warm, random, footprints above ",
                          FormatBytes(*high / 2), " (half the L2) up to ", FormatBytes(*high))
           : "latency_trace global_cg, warm, random (no L2 capacity: no footprint known to "
             "exceed half the L2)";
  LeftOutTraceRows(where, t, dram);
  const std::string overhead_text = OverheadText(t.overheads);
  if (near_far_from_curve_) {
    if (!t.near.empty()) {
      Basis(
          "L2 near/far (trace)", where,
          absl::StrCat(t.near.size(), " row(s) with two L2 levels: ", FormatNumber(Median(t.near)),
                       " and ", FormatNumber(Median(t.far)), " cycles, ", overhead_text),
          "the rows come from the latency curve's two L2 levels");
    }
    return;
  }
  if (t.near.empty()) {
    if (t.within_half + t.at_dram == 0) {
      Basis("L2 partitions", where, absl::StrCat(t.examined, " row(s), none with two L2 levels"),
            "no near/far split shown");
    }
    return;
  }
  AddTraceNearFar(where, t.near, t.far, t.near_fraction, t.far_fraction, t.clocks, overhead_text,
                  !t.overheads.empty());
}

std::optional<double> Builder::TraceOverhead(const Row& row) {
  const std::optional<double> v = row.Counter("trace_overhead_cycles");
  if (!v || !std::isfinite(*v)) return std::nullopt;
  return v;
}

std::string Builder::OverheadText(const std::vector<double>& overheads) {
  if (overheads.empty()) {
    return "timing overhead not measured (no trace_overhead_cycles): the values include it";
  }
  return absl::StrCat("timing overhead subtracted: trace_overhead_cycles, median ",
                      FormatNumber(Median(overheads)), " cycles");
}

void Builder::AddTraceNearFar(const std::string& where, const std::vector<double>& near,
                              const std::vector<double>& far,
                              const std::vector<double>& near_fraction,
                              const std::vector<double>& far_fraction,
                              const std::vector<double>& clocks, const std::string& overhead_text,
                              bool overhead_subtracted) {
  const double clock = clocks.empty() ? 0 : Median(clocks);
  auto make = [&](const char* level, double cycles) {
    HierarchyRow row;
    row.level = level;
    row.latency_cycles = cycles;
    if (clock > 0) row.latency_ns = cycles / clock * 1e3;
    row.latency_from = ProgramFor(kLatencyTrace);
    row.method = absl::StrCat(MethodFor(kLatencyTrace),
                              overhead_subtracted
                                  ? "; per-access timing overhead subtracted"
                                  : "; includes the per-access timing overhead (not measured)");
    return row;
  };
  const size_t l2 =
      static_cast<size_t>(std::find_if(out_.rows.begin(), out_.rows.end(),
                                       [](const HierarchyRow& r) { return r.level == "L2"; }) -
                          out_.rows.begin());
  out_.rows.insert(out_.rows.begin() + static_cast<long>(l2) + 1,
                   {make("L2 near", Median(near)), make("L2 far", Median(far))});
  Basis("L2 near/far latency", where,
        absl::StrCat(near.size(), " row(s): level 1 (", FormatPercent(Median(near_fraction)),
                     " of accesses) and level 2 (", FormatPercent(Median(far_fraction)), "), ",
                     overhead_text),
        clock > 0 ? absl::StrCat("ns at the rows' SM clock, ", FormatNumber(clock), " MHz")
                  : "no SM clock in the rows: no ns");
}

}  // namespace dissect::analysis::hierarchy_internal
