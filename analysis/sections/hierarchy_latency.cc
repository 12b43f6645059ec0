// Memory hierarchy from the latency curves (memory_latency, shared_latency):
// levels, capacities, L2 near/far and DRAM, the page-local DRAM point and
// the fill granularity of latency_trace's cold walks.

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

void Builder::FromLevel(HierarchyRow& row, const Segmented& s, size_t k, size_t capacity_level) {
  const Plateau& p = s.level(k);
  row.latency_cycles = p.level;
  row.latency_ns = s.Ns(p);
  row.footprint_first = p.x_first;
  row.footprint_last = p.x_last;
  row.method = MethodFor(s.curve->experiment);
  row.latency_from = row.capacity_from = ProgramFor(s.curve->experiment);
  row.capacity_bytes = s.LevelEnd(capacity_level, options_);
  row.capacity_is_lower_bound = capacity_level + 1 == s.levels.size();
}

std::string Builder::CapacityText(const HierarchyRow& row, const Segmented& s,
                                  size_t capacity_level) const {
  if (row.capacity_is_lower_bound) {
    return absl::StrCat("no level after it: capacity at least ", FormatBytes(*row.capacity_bytes));
  }
  const Plateau& next = s.level(capacity_level + 1);
  return absl::StrCat("the curve leaves it for good after ", FormatBytes(*row.capacity_bytes),
                      " (next level: ", FormatNumber(next.level), " cycles from ",
                      FormatBytes(next.x_first), ")");
}

void Builder::Transitions(const Segmented& s) {
  const std::string curve = s.curve->Describe();
  for (size_t k = 0; k + 1 < s.levels.size(); ++k) {
    const std::string text = s.TransitionText(k);
    if (!text.empty()) {
      Basis("transition", curve,
            absl::StrCat(FormatNumber(s.level(k).level), " -> ", FormatNumber(s.level(k + 1).level),
                         " cycles"),
            text);
    }
  }
}

void Builder::L2NearFar(const Segmented& s, size_t from, size_t last_l2) {
  const std::string curve = s.curve->Describe();
  HierarchyRow& near = InsertRowAfter("L2", "L2 near");
  FromLevel(near, s, from, from);
  HierarchyRow& far = InsertRowAfter("L2 near", "L2 far");
  FromLevel(far, s, last_l2, last_l2);
  near_far_from_curve_ = true;
  Basis("L2 near/far latency", curve,
        absl::StrCat("two L2 levels: ", s.LevelText(from), " and ", s.LevelText(last_l2)),
        "near: the partition of the SM's own L2 half; far: lines held in the other "
        "partition");
  if (last_l2 > from + 1) {
    std::vector<std::string> middle;
    for (size_t k = from + 1; k < last_l2; ++k) {
      middle.push_back(FormatNumber(s.level(k).level));
    }
    Note(absl::StrCat(curve, " has ", last_l2 - from + 1, " L2 levels; the rows give the ",
                      "first and the last, the others are at ", absl::StrJoin(middle, ", "),
                      " cycles"));
  }
}

void Builder::L2AndDram(const Segmented& s, size_t from) {
  const size_t n = s.levels.size();
  if (from >= n) return;
  const std::string curve = s.curve->Describe();
  // DRAM: the first level reaching beyond 2x device_l2_bytes; without
  // that size, the last of two or more levels.
  std::optional<size_t> dram;
  if (device_l2_bytes_) {
    for (size_t k = from; k < n; ++k) {
      if (s.level(k).x_last > kDramBeyondL2 * *device_l2_bytes_) {
        dram = k;
        break;
      }
    }
    if (!dram && s.level(n - 1).x_first > *device_l2_bytes_) dram = n - 1;
  } else if (n - from >= 2) {
    dram = n - 1;
  }
  const size_t l2_end = dram.value_or(n);  // L2 levels: [from, l2_end)
  if (l2_end > from) {
    const size_t last_l2 = l2_end - 1;
    HierarchyRow& l2 = RowOf("L2");
    FromLevel(l2, s, from, last_l2);
    Basis("L2 latency", curve, s.LevelText(from), "");
    Basis("L2 capacity", curve, s.LevelText(last_l2), CapacityText(l2, s, last_l2));
    if (last_l2 > from) L2NearFar(s, from, last_l2);
    // Looked up again: inserting the near/far rows may have moved it.
    const HierarchyRow& l2_row = RowOf("L2");
    if (device_l2_bytes_ && !l2_row.capacity_is_lower_bound) {
      Note(absl::StrCat("L2 capacity from the curve: ", FormatBytes(*l2_row.capacity_bytes),
                        " (the last footprint of the last L2 level); device_l2_bytes is ",
                        FormatBytes(*device_l2_bytes_), ", ", l2_origin_));
    }
  }
  if (!dram) return;
  const Plateau& p = s.level(*dram);
  HierarchyRow& row = RowOf("DRAM");
  row.method = MethodFor(s.curve->experiment);
  row.latency_from = ProgramFor(s.curve->experiment);
  Segmented::Stats start;
  std::string where;
  if (device_l2_bytes_) {
    const double lo = kDramBeyondL2 * *device_l2_bytes_;
    start = s.Over(p.first, p.last, lo, 2 * lo);
    if (start.points == 0) start = s.Over(p.first, p.last, lo, HUGE_VAL);
    where = absl::StrCat("its points from ", FormatNumber(kDramBeyondL2), "x device_l2_bytes (",
                         FormatBytes(lo), ")");
  }
  if (start.points == 0) {
    // No L2 size (or no point beyond 2x of it): the level's first points.
    start = s.Over(p.first, std::min(p.last, p.first + kMinLevelPoints - 1), -HUGE_VAL, HUGE_VAL);
    where = "its first points";
  }
  row.latency_cycles = start.cycles;
  row.latency_ns = start.ns;
  row.footprint_first = start.x_first;
  row.footprint_last = start.x_last;
  Basis("DRAM latency", curve, s.LevelText(*dram),
        absl::StrCat("median of ", where, ": ", start.points, " point(s), ",
                     BytesRange(start.x_first, start.x_last)));
  // TLB creep: the latency at the curve's largest footprints.
  const size_t last = s.curve->points.size() - 1;
  const Segmented::Stats end = s.Over(last >= 2 ? last - 2 : 0, last, start.x_last, HUGE_VAL);
  if (start.cycles && end.cycles && end.x_last > start.x_last &&
      *end.cycles > *start.cycles * (1 + kTlbCreep)) {
    Note(absl::StrCat("TLB creep: ", curve, " rises from the DRAM latency of ",
                      FormatNumber(*start.cycles), " cycles (",
                      BytesRange(start.x_first, start.x_last), ") to ", FormatNumber(*end.cycles),
                      " cycles at ", BytesRange(end.x_first, end.x_last), " (+",
                      FormatPercent(*end.cycles / *start.cycles - 1),
                      "): pages beyond the TLB's reach add a miss to more loads"));
  }
}

absl::Status Builder::Latencies() {
  std::map<std::string, Segmented> by_path;
  for (const std::string& path : LatencyPaths()) {
    absl::StatusOr<Segmented> s = SegmentLatency(ChooseLatencyCurve(curves_, path), options_);
    if (!s.ok()) return s.status();
    by_path[path] = *std::move(s);
  }
  const Segmented& ca = by_path["global_ca"];
  const Segmented& cg = by_path["global_cg"];

  bool l1_seen = false;
  if (ca.has_levels()) {
    const Plateau& first = ca.level(0);
    if (cg.has_levels() && Close(first.level, cg.level(0).level)) {
      Note(absl::StrCat("global_ca's first level (", FormatNumber(first.level),
                        " cycles) matches global_cg's (", FormatNumber(cg.level(0).level),
                        " cycles): these ld.global.ca loads were not cached in L1"));
    } else {
      l1_seen = true;
      HierarchyRow& l1 = RowOf("L1");
      FromLevel(l1, ca, 0, 0);
      l1_carveout_ = ca.curve->l1_carveout;
      Basis("L1 latency and capacity", ca.curve->Describe(), ca.LevelText(0),
            CapacityText(l1, ca, 0));
    }
    Transitions(ca);
  }
  if (cg.has_levels()) {
    L2AndDram(cg, 0);
    Transitions(cg);
  } else if (ca.has_levels() && l1_seen) {
    L2AndDram(ca, 1);
  }

  for (const char* path : {"shared", "tex", "ldg", "const"}) {
    const Segmented& s = by_path[path];
    if (!s.has_levels()) continue;
    HierarchyRow& row = RowOf(path);
    FromLevel(row, s, 0, 0);
    Basis(absl::StrCat(path, " latency and capacity"), s.curve->Describe(), s.LevelText(0),
          CapacityText(row, s, 0));
  }
  return absl::OkStatus();
}

void Builder::PageLocalDram() {
  for (const char* path : {"global_cg", "global_ca"}) {
    std::vector<double> cycles, ns, footprints, strides;
    for (const Row* row : RowsOf(kMemoryLatency)) {
      const std::optional<double> c = Positive(*row, "cycles_per_load");
      const std::optional<double> footprint = AxisNumber(*row, "footprint_bytes");
      const std::optional<double> stride = AxisNumber(*row, "stride_bytes");
      if (row->Axis("path") != std::optional<std::string>(path) ||
          row->Axis("order") != std::optional<std::string>(kPageLocal) || !c || !footprint ||
          *footprint < kDramMinFootprint || !stride || *stride < kDramMinStride ||
          *stride > kDramMaxStride || AxisNumber(*row, "group_pages").value_or(1) != 1) {
        continue;
      }
      cycles.push_back(*c);
      footprints.push_back(*footprint);
      strides.push_back(*stride);
      if (const std::optional<double> n = Positive(*row, "ns_per_load")) {
        ns.push_back(*n);
      }
    }
    if (cycles.empty()) continue;
    HierarchyRow& dram = RowOf("DRAM");
    const std::optional<double> plateau = dram.latency_cycles;
    dram.latency_cycles = Median(cycles);
    dram.latency_from = ProgramFor(kMemoryLatency);
    dram.latency_ns = ns.empty() ? std::nullopt : std::optional<double>(Median(ns));
    dram_source_ = "the page-local DRAM latency";
    const auto [fmin, fmax] = std::minmax_element(footprints.begin(), footprints.end());
    const auto [smin, smax] = std::minmax_element(strides.begin(), strides.end());
    auto range = [](double lo, double hi) {
      return lo == hi ? FormatBytes(lo) : absl::StrCat(FormatBytes(lo), " – ", FormatBytes(hi));
    };
    // In place of the plateau's line, if there was one.
    const size_t lines = out_.basis.size();
    Basis("DRAM latency",
          absl::StrCat("memory_latency ", path, ", page_local order, footprint ",
                       range(*fmin, *fmax), ", stride ", range(*smin, *smax)),
          absl::StrCat(cycles.size(), " row(s), median ", FormatNumber(*dram.latency_cycles),
                       " cycles"),
          "random within each 2 MiB page, page by page: TLB misses "
          "amortized over the page");
    for (size_t k = 0; k < lines; ++k) {
      if (absl::StartsWith(out_.basis[k], "DRAM latency: ")) {
        out_.basis[k] = std::move(out_.basis.back());
        out_.basis.pop_back();
        break;
      }
    }
    if (plateau && *plateau > *dram.latency_cycles * (1 + kTlbExcess)) {
      Note(absl::StrCat("the random-order curve's last plateau (", FormatNumber(*plateau),
                        " cycles) lies ", FormatPercent(*plateau / *dram.latency_cycles - 1),
                        " above the page-local DRAM latency (", FormatNumber(*dram.latency_cycles),
                        " cycles): its loads also miss the TLB"));
    }
    return;
  }
  for (std::string& line : out_.basis) {
    if (absl::StartsWith(line, "DRAM latency: ")) {
      absl::StrAppend(&line, "; it may include TLB misses (no page_local ", "row of at least ",
                      FormatBytes(kDramMinFootprint), ")");
    }
  }
}

std::optional<double> Builder::MissPeriod(const std::vector<const Row*>& rows,
                                          std::string_view path, int* count,
                                          double* stride_used) const {
  std::map<double, int> histogram;
  for (const Row* row : rows) {
    const std::optional<double> stride = AxisNumber(*row, "stride_bytes");
    if (row->Axis("path") != std::optional<std::string>(std::string(path)) || !stride ||
        (*stride != 4 && *stride != 8) || !AxisIsOrAbsent(*row, "state", "cold") ||
        !AxisIsOrAbsent(*row, "order", "strided")) {
      continue;
    }
    if (const std::optional<double> period = Positive(*row, "miss_period_bytes")) {
      ++histogram[*period];
      *stride_used = *stride;
    }
  }
  std::optional<double> best;
  int best_count = 0;
  for (const auto& [period, n] : histogram) {
    if (n > best_count) {
      best = period;
      best_count = n;
    }
  }
  *count = best_count;
  return best;
}

std::optional<double> Builder::L1Capacity() {
  const HierarchyRow& l1 = RowOf("L1");
  if (!l1.capacity_bytes || l1.capacity_is_lower_bound) return std::nullopt;
  return l1.capacity_bytes;
}

std::optional<double> Builder::L1CapacityAt(const std::string& carveout, const std::string& curve) {
  const std::optional<double> l1 = L1Capacity();
  if (!l1 || l1_carveout_ == carveout) return l1;
  Basis("bandwidth", curve,
        absl::StrCat("L1 capacity not used: ", FormatBytes(*l1), " was measured at ",
                     CarveoutText(l1_carveout_), ", these rows ran at ", CarveoutText(carveout)),
        "their L1 sizes may differ, so no plateau is called L1 or L2 by it");
  return std::nullopt;
}

std::string Builder::CarveoutText(const std::string& carveout) {
  return carveout.empty() ? "an unknown L1 carveout (no l1_carveout)"
                          : absl::StrCat("l1_carveout ", carveout);
}

std::optional<double> Builder::L2Capacity() {
  const HierarchyRow& l2 = RowOf("L2");
  if (l2.capacity_bytes && !l2.capacity_is_lower_bound) {
    return l2.capacity_bytes;
  }
  return device_l2_bytes_;
}

}  // namespace dissect::analysis::hierarchy_internal
