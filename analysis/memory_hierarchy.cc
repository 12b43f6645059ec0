// Memory-hierarchy inference (see memory_hierarchy.h and the rules in
// analysis/README.md).

#include "analysis/memory_hierarchy.h"

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
#include "analysis/format.h"
#include "analysis/latency_levels.h"
#include "analysis/provenance.h"
#include "analysis/tlb.h"

namespace dissect::analysis {
namespace {

constexpr char kMemoryLatency[] = "memory_latency";
constexpr char kSharedLatency[] = "shared_latency";
constexpr char kLatencyTrace[] = "latency_trace";
constexpr char kMemoryBandwidth[] = "memory_bandwidth";
constexpr char kSharedBandwidth[] = "shared_bandwidth";
// Summary values imported from another suite (analysis/import: mt4g).
constexpr char kHierarchySummary[] = "hierarchy_summary";
constexpr const char* kSummaryLevels[] = {"shared", "L1",  "L2",  "L2 near", "L2 far",
                                          "DRAM",   "tex", "ldg", "const"};
// A summary capacity with a lower confidence is left out.
constexpr double kMinSummaryConfidence = 0.5;
// bandwidth_footprint values (see Builder::Bandwidth).
constexpr char kTotalSplit[] = "total_split";
constexpr char kPerSmShared[] = "per_sm_shared";
constexpr char kTotalRoaming[] = "total_roaming";
// The context key of the L1/shared carveout the kernels asked for.
constexpr char kL1Carveout[] = "l1_carveout";
// No current NVIDIA GPU has more L1 per SM (H100: 256 KiB L1/shared).
constexpr double kLargestL1Bytes = 256 * 1024;

// Latency above the DRAM latency by more than this share is a TLB effect.
constexpr double kTlbExcess = 0.10;
// The DRAM point: memory_latency in page_local order (random within each
// 2 MiB page, page by page: one TLB miss a page) over at least 1 GiB, 20x
// the L2 of current GPUs, with slots at least a line and at most 64 KiB
// apart (32 or more loads a page). Slots closer than a line share its fill:
// every load after the first to a line is an L2 hit, not DRAM latency.
constexpr char kPageLocal[] = "page_local";
constexpr double kDramMinFootprint = 1024.0 * 1024 * 1024;
constexpr double kDramMinStride = kLineBytes;
constexpr double kDramMaxStride = 64 * 1024;
// Both latency_trace levels need at least this share of the accesses to
// count as two L2 partitions.
constexpr double kMinPartitionFraction = 0.10;

std::optional<double> ParseNumber(const std::string& text) {
  double value = 0;
  if (!absl::SimpleAtod(text, &value) || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

// A counter that is finite and > 0.
std::optional<double> Positive(const Row& row, std::string_view counter) {
  const std::optional<double> value = row.Counter(counter);
  if (!value || !std::isfinite(*value) || *value <= 0) return std::nullopt;
  return value;
}

// Files of one device and one source share a table.
std::string DeviceKey(const ResultFile& file) {
  return absl::StrCat(
      file.ContextOr("device_name", ""), "\n", file.ContextOr("device_compute_capability", ""),
      "\n", file.ContextOr("device_sm_count", ""), "\n", file.ContextOr("source", "dissect"));
}

// DRAM latency comes from the first level that reaches beyond this multiple
// of the L2 size, from its points up to twice that.
constexpr double kDramBeyondL2 = 2;
// Latency rising by more than this share along the DRAM level (TLB reach
// running out) is reported as TLB creep.
constexpr double kTlbCreep = 0.03;

// Everything known about one device while its table is built.
class Builder {
 public:
  Builder(const std::vector<const ResultFile*>& files, const ChangepointOptions& options)
      : files_(files), options_(options) {
    const ResultFile& first = *files.front();
    out_.source = first.ContextOr("source", "dissect");
    out_.device_name = first.ContextOr("device_name", "unknown device");
    out_.compute_capability = first.ContextOr("device_compute_capability", "?");
    out_.sm_count = first.ContextOr("device_sm_count", "?");
    for (const ResultFile* f : files) {
      if (!device_l2_bytes_) {
        device_l2_bytes_ = ParseNumber(f->ContextOr("device_l2_bytes", ""));
        if (device_l2_bytes_) l2_origin_ = DeviceFactOrigin(*f, "device_l2_bytes");
      }
      if (!dram_peak_gbps_) {
        dram_peak_gbps_ = ParseNumber(f->ContextOr("device_dram_peak_gbps", ""));
        if (dram_peak_gbps_) dram_peak_origin_ = DeviceFactOrigin(*f, "device_dram_peak_gbps");
      }
      if (!sm_count_) sm_count_ = ParseNumber(f->ContextOr("device_sm_count", ""));
    }
    for (const char* level : {"shared", "L1", "L2", "DRAM", "tex", "ldg", "const"}) {
      HierarchyRow row;
      row.level = level;
      out_.rows.push_back(row);
    }
  }

  absl::StatusOr<DeviceHierarchy> Build() {
    std::vector<const ResultFile*> latency_files;
    for (const ResultFile* f : files_) {
      if (f->experiment == kMemoryLatency || f->experiment == kSharedLatency) {
        latency_files.push_back(f);
      }
    }
    curves_ = BuildLatencyCurves(latency_files);
    if (absl::Status s = Latencies(); !s.ok()) return s;
    PageLocalDram();
    Trace();
    Bandwidth();
    SharedBandwidth();
    Tlb();
    Summary();
    for (const ResultFile* f : files_) out_.files.push_back(f->path);
    return std::move(out_);
  }

 private:
  HierarchyRow& RowOf(std::string_view level) {
    for (HierarchyRow& row : out_.rows) {
      if (row.level == level) return row;
    }
    return out_.rows.front();  // not reached: every level is created above
  }

  // Inserts a row for `level` after the row of `after` (at the end if there
  // is none) unless it exists; returns it.
  HierarchyRow& InsertRowAfter(std::string_view after, const std::string& level) {
    for (HierarchyRow& row : out_.rows) {
      if (row.level == level) return row;
    }
    auto it = std::find_if(out_.rows.begin(), out_.rows.end(),
                           [&](const HierarchyRow& r) { return r.level == after; });
    HierarchyRow row;
    row.level = level;
    return *out_.rows.insert(it == out_.rows.end() ? it : it + 1, std::move(row));
  }

  // How `experiment`'s rows were measured, in a few words: for imported
  // files the method their rows' labels give (`source: ...; method: ...`),
  // else the file's `source_method`; for ours, dissect's own method.
  std::string MethodFor(std::string_view experiment) const {
    for (const ResultFile* f : files_) {
      if (f->experiment != experiment || f->ContextOr("source", "").empty()) continue;
      for (const Row& row : f->rows) {
        if (const std::string method = LabelMethod(row); !method.empty()) return method;
      }
      return f->ContextOr("source_method", "");
    }
    if (experiment == kMemoryLatency || experiment == kSharedLatency) {
      return "in-kernel %clock64, dependent pointer chase by one thread, slope of two timed "
             "segments";
    }
    if (experiment == kMemoryBandwidth) {
      return "CUDA events around tiled streaming reads, footprint split between the SMs, best "
             "over bytes in flight";
    }
    if (experiment == kLatencyTrace) {
      return "per-access %clock64 latencies of a pointer chase, clustered into levels";
    }
    if (experiment == kSharedBandwidth) {
      return "in-kernel %clock64 around ld.volatile.shared streams on every SM";
    }
    return "";
  }

  // The program that measured `experiment`'s rows (provenance.h).
  std::string ProgramFor(std::string_view experiment) const {
    for (const ResultFile* f : files_) {
      if (f->experiment == experiment) return MeasuringProgram(*f);
    }
    return absl::StrCat("dissect ", std::string(experiment));
  }

  // The `source_method` of the first imported file of `experiment`.
  std::string SourceMethod(std::string_view experiment) const {
    for (const ResultFile* f : files_) {
      if (f->experiment == experiment) {
        if (std::string method = f->ContextOr("source_method", ""); !method.empty()) {
          return method;
        }
      }
    }
    return "";
  }

  bool Close(double a, double b) const {
    return std::fabs(std::log(a) - std::log(b)) < std::log1p(options_.min_relative_step);
  }

  // Latency, ns and footprints of `row` from level k of `s`; its capacity
  // from level `capacity_level` (where the curve leaves it).
  void FromLevel(HierarchyRow& row, const Segmented& s, size_t k, size_t capacity_level) {
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

  std::string CapacityText(const HierarchyRow& row, const Segmented& s,
                           size_t capacity_level) const {
    if (row.capacity_is_lower_bound) {
      return absl::StrCat("no level after it: capacity at least ",
                          FormatBytes(*row.capacity_bytes));
    }
    const Plateau& next = s.level(capacity_level + 1);
    return absl::StrCat("the curve leaves it for good after ", FormatBytes(*row.capacity_bytes),
                        " (next level: ", FormatNumber(next.level), " cycles from ",
                        FormatBytes(next.x_first), ")");
  }

  // Notes the transitions between the levels of `s` and the plateaus too
  // narrow to be levels.
  void Transitions(const Segmented& s) {
    const std::string curve = s.curve->Describe();
    for (size_t k = 0; k + 1 < s.levels.size(); ++k) {
      const std::string text = s.TransitionText(k);
      if (!text.empty()) {
        Basis("transition", curve,
              absl::StrCat(FormatNumber(s.level(k).level), " -> ",
                           FormatNumber(s.level(k + 1).level), " cycles"),
              text);
      }
    }
  }

  // L2 (near and far where there are two L2 levels) and DRAM from the
  // levels of `s` from index `from` on.
  // Rows L2 near and L2 far from the first and last of the L2 levels
  // [from, last_l2] of `s`; a note names the levels between them.
  void L2NearFar(const Segmented& s, size_t from, size_t last_l2) {
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

  void L2AndDram(const Segmented& s, size_t from) {
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

  absl::Status Latencies() {
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

  // The DRAM latency from the page-local point (see kPageLocal), which
  // replaces the last plateau of the random-order curve: that one mixes TLB
  // misses into the latency once the footprint passes the TLB reach.
  void PageLocalDram() {
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
                          " above the page-local DRAM latency (",
                          FormatNumber(*dram.latency_cycles),
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

  std::vector<const Row*> RowsOf(std::string_view experiment) const {
    std::vector<const Row*> rows;
    for (const ResultFile* f : files_) {
      if (f->experiment != experiment) continue;
      for (const Row& row : f->rows) {
        if (!row.error) rows.push_back(&row);
      }
    }
    return rows;
  }

  // Rows whose `axis` is `value`, or all rows if they lack the axis.
  static bool AxisIsOrAbsent(const Row& row, std::string_view axis, std::string_view value) {
    const std::optional<std::string> v = row.Axis(axis);
    return !v || *v == value;
  }

  // The most frequent positive miss_period_bytes of a cold stride-4 or
  // stride-8 walk of `path` (ties to the smaller); nullopt if none. The
  // global paths chase 8-byte pointers since issue 11; 4 B is older files.
  std::optional<double> MissPeriod(const std::vector<const Row*>& rows, std::string_view path,
                                   int* count, double* stride_used) const {
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

  std::optional<double> L1Capacity() {
    const HierarchyRow& l1 = RowOf("L1");
    if (!l1.capacity_bytes || l1.capacity_is_lower_bound) return std::nullopt;
    return l1.capacity_bytes;
  }

  // The L1 capacity for classifying the bandwidth rows of `curve`, measured
  // at L1/shared carveout `carveout`: only a chase at that same carveout
  // gives it (an unknown one, "", matches only another unknown one), since
  // the carveout sets how much of the L1/shared storage is L1.
  std::optional<double> L1CapacityAt(const std::string& carveout, const std::string& curve) {
    const std::optional<double> l1 = L1Capacity();
    if (!l1 || l1_carveout_ == carveout) return l1;
    Basis("bandwidth", curve,
          absl::StrCat("L1 capacity not used: ", FormatBytes(*l1), " was measured at ",
                       CarveoutText(l1_carveout_), ", these rows ran at ", CarveoutText(carveout)),
          "their L1 sizes may differ, so no plateau is called L1 or L2 by it");
    return std::nullopt;
  }

  static std::string CarveoutText(const std::string& carveout) {
    return carveout.empty() ? "an unknown L1 carveout (no l1_carveout)"
                            : absl::StrCat("l1_carveout ", carveout);
  }

  // The L2 capacity from the curve, else device_l2_bytes.
  std::optional<double> L2Capacity() {
    const HierarchyRow& l2 = RowOf("L2");
    if (l2.capacity_bytes && !l2.capacity_is_lower_bound) {
      return l2.capacity_bytes;
    }
    return device_l2_bytes_;
  }

  void Trace() {
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
      Note(absl::StrCat("Fill granularity (latency_trace miss_period_bytes): ",
                        absl::StrJoin(fills, ", "),
                        ": what one miss brings in, a sector or the whole line; not the line "
                        "size"));
    }
    NearFarFromTrace(rows);
  }

  // Near and far L2 from warm random global_cg traces. A100 and Hopper
  // copy a far partition's line into the reader's near partition, so a
  // warm walk that fits half the L2 is all near hits: a second level there
  // is something else (TLB walks, noise), and only walks between half and
  // all of the L2 can meet the far partition. Near the L2's capacity lines
  // can also leave the L2, so level 2 counts as far only when it lies well
  // below a DRAM latency measured elsewhere. The trace's levels include
  // its per-access timing overhead and the slope latencies beside them do
  // not: where the rows measured it (trace_overhead_cycles), it is
  // subtracted before anything is compared, and rows without it are left
  // out; where none did, the values say that they include it.
  void NearFarFromTrace(const std::vector<const Row*>& rows) {
    const std::optional<double> high = L2Capacity();
    const std::optional<double> dram = RowOf("DRAM").latency_cycles;
    std::vector<double> near, far, near_fraction, far_fraction, clocks, overheads;
    int examined = 0, within_half = 0, at_dram = 0, no_overhead = 0;
    const bool overhead_known = std::any_of(rows.begin(), rows.end(), [](const Row* row) {
      return TraceOverhead(*row).has_value();
    });
    for (const Row* row : rows) {
      const std::optional<double> footprint = AxisNumber(*row, "footprint_bytes");
      if (row->Axis("path") != std::optional<std::string>("global_cg") ||
          !AxisIsOrAbsent(*row, "state", "warm") || !AxisIsOrAbsent(*row, "order", "random") ||
          !footprint || (high && *footprint > *high)) {
        continue;
      }
      ++examined;
      const std::optional<double> c1 = Positive(*row, "level1_cycles");
      const std::optional<double> f1 = Positive(*row, "level1_fraction");
      const std::optional<double> c2 = Positive(*row, "level2_cycles");
      const std::optional<double> f2 = Positive(*row, "level2_fraction");
      if (!c1 || !f1 || !c2 || !f2 || *f1 < kMinPartitionFraction || *f2 < kMinPartitionFraction) {
        continue;
      }
      if (!high || *footprint <= *high / 2) {
        ++within_half;
        continue;
      }
      const std::optional<double> overhead = TraceOverhead(*row);
      if (overhead_known && !overhead) {
        ++no_overhead;
        continue;
      }
      const double o = overhead.value_or(0);
      if (!dram || !((*c2 - o) * (1 + options_.min_relative_step) < *dram)) {
        ++at_dram;
        continue;
      }
      if (overhead) overheads.push_back(*overhead);
      near.push_back(*c1 - o);
      far.push_back(*c2 - o);
      near_fraction.push_back(*f1);
      far_fraction.push_back(*f2);
      if (const std::optional<double> clock = RowSmClockMhz(*row); clock && *clock > 0) {
        clocks.push_back(*clock);
      }
    }
    if (examined == 0) return;
    const std::string where =
        high ? absl::StrCat("latency_trace global_cg, warm, random, footprints above ",
                            FormatBytes(*high / 2), " (half the L2) up to ", FormatBytes(*high))
             : "latency_trace global_cg, warm, random (no L2 capacity: no footprint known to "
               "exceed half the L2)";
    if (within_half > 0) {
      Basis("L2 partitions (trace)", where,
            absl::StrCat(within_half, " row(s) with two levels at footprints within half the L2 ",
                         "left out"),
            "a warm walk that fits half the L2 finds every line near (far lines are copied "
            "into the near partition), so its second level is not the far partition");
    }
    if (at_dram > 0) {
      Basis("L2 partitions (trace)", where,
            absl::StrCat(at_dram, " row(s) whose second level is not more than ",
                         FormatPercent(options_.min_relative_step), " below ",
                         dram ? absl::StrCat("the DRAM latency (", FormatNumber(*dram), " cycles)")
                              : std::string("a DRAM latency (none measured)"),
                         " left out"),
            "near the L2's capacity a second level can be DRAM misses, not far hits");
    }
    if (no_overhead > 0) {
      Basis("L2 partitions (trace)", where,
            absl::StrCat(no_overhead, " row(s) without trace_overhead_cycles left out"),
            "their levels include a timing overhead the others have subtracted");
    }
    const std::string overhead_text = OverheadText(overheads);
    if (near_far_from_curve_) {
      if (!near.empty()) {
        Basis("L2 near/far (trace)", where,
              absl::StrCat(near.size(), " row(s) with two L2 levels: ", FormatNumber(Median(near)),
                           " and ", FormatNumber(Median(far)), " cycles, ", overhead_text),
              "the rows come from the latency curve's two L2 levels");
      }
      return;
    }
    if (near.empty()) {
      if (within_half + at_dram == 0) {
        Basis("L2 partitions", where, absl::StrCat(examined, " row(s), none with two L2 levels"),
              "no near/far split shown");
      }
      return;
    }
    AddTraceNearFar(where, near, far, near_fraction, far_fraction, clocks, overhead_text,
                    !overheads.empty());
  }

  // A row's trace_overhead_cycles, if it has a finite one.
  static std::optional<double> TraceOverhead(const Row& row) {
    const std::optional<double> v = row.Counter("trace_overhead_cycles");
    if (!v || !std::isfinite(*v)) return std::nullopt;
    return v;
  }

  // What was done with the trace's timing overhead, for the basis.
  static std::string OverheadText(const std::vector<double>& overheads) {
    if (overheads.empty()) {
      return "timing overhead not measured (no trace_overhead_cycles): the values include it";
    }
    return absl::StrCat("timing overhead subtracted: trace_overhead_cycles, median ",
                        FormatNumber(Median(overheads)), " cycles");
  }

  void AddTraceNearFar(const std::string& where, const std::vector<double>& near,
                       const std::vector<double>& far, const std::vector<double>& near_fraction,
                       const std::vector<double>& far_fraction, const std::vector<double>& clocks,
                       const std::string& overhead_text, bool overhead_subtracted) {
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

  // memory_bandwidth curves, one per way of counting the footprint (context
  // `bandwidth_footprint`): dissect's own split the footprint between the
  // SMs (`total_split`, also when the key is absent); gpu-benches' gpu-cache
  // has every SM read the same data set (`per_sm_shared`: per-SM bytes, and
  // beyond L2 the SMs still share the data, so there is no DRAM level), its
  // gpu-l2-cache has blocks roam the whole footprint (`total_roaming`).
  // Files of different L1/shared carveouts (context `l1_carveout`) are
  // curves of their own too: L1 takes what shared memory leaves, so their
  // L1 plateaus end at different footprints.
  void Bandwidth() {
    std::vector<std::pair<std::string, std::string>> kinds;
    for (const ResultFile* f : files_) {
      if (f->experiment != kMemoryBandwidth) continue;
      for (const Row& row : f->rows) {
        const std::pair<std::string, std::string> kind{FootprintKind(*f, row),
                                                       f->ContextOr(kL1Carveout, "")};
        if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) kinds.push_back(kind);
      }
    }
    // Roaming reads are the L2 method (each SM streams the whole footprint,
    // so only a footprint within one SM's L1 hits L1): read first, and
    // beside dissect's own shares, which stream contiguously and give L1
    // and DRAM, they give only L2.
    std::stable_partition(kinds.begin(), kinds.end(),
                          [](const auto& k) { return k.first == kTotalRoaming; });
    const bool split = std::any_of(kinds.begin(), kinds.end(),
                                   [](const auto& k) { return k.first == kTotalSplit; });
    for (const auto& [kind, carveout] : kinds) {
      BandwidthCurve(kind, carveout, /*l2_only=*/split && kind == kTotalRoaming);
    }
  }

  // How a memory_bandwidth row counts its footprint: sharing=roaming rows
  // (every block reads the whole footprint) are total_roaming, the others
  // what their file says.
  static std::string FootprintKind(const ResultFile& f, const Row& row) {
    if (row.Axis("sharing") == std::optional<std::string>("roaming")) return kTotalRoaming;
    return f.ContextOr("bandwidth_footprint", kTotalSplit);
  }

  // Who measured a bandwidth curve, and how.
  struct CurveSource {
    std::string method;
    std::string program;
  };

  // The read curve of one footprint kind and carveout: its points at the
  // widest read width (up to 128 bits), who measured it, and the best point
  // over every op, width and footprint.
  struct BandwidthPoints {
    std::vector<CurvePoint> points;
    int width = 0;
    CurveSource source;
    std::string best_text;
  };

  std::optional<BandwidthPoints> CollectBandwidthCurve(const std::string& kind,
                                                       const std::string& carveout) const {
    BandwidthPoints out;
    std::vector<const Row*> rows;
    for (const ResultFile* f : files_) {
      if (f->experiment != kMemoryBandwidth || f->ContextOr(kL1Carveout, "") != carveout) {
        continue;
      }
      for (const Row& row : f->rows) {
        if (row.error || FootprintKind(*f, row) != kind) continue;
        if (rows.empty()) out.source = BandwidthSource(*f, row, kind);
        rows.push_back(&row);
      }
    }
    // The best measured point over every op, width and footprint.
    const Row* best = nullptr;
    double best_gbps = 0;
    int widest = 0;
    for (const Row* row : rows) {
      const std::optional<double> gbps = Positive(*row, "bandwidth_gbps");
      if (!gbps) continue;
      if (*gbps > best_gbps) {
        best = row;
        best_gbps = *gbps;
      }
      const std::optional<double> width = AxisNumber(*row, "width_bits");
      if (row->Axis("op") == std::optional<std::string>("read") && width) {
        widest = std::max(widest, static_cast<int>(*width));
      }
    }
    if (best == nullptr || widest == 0) return std::nullopt;
    const int width = widest >= 128 ? 128 : widest;
    out.width = width;
    // footprint -> bytes_in_flight_per_thread (-1 where the file has no
    // such axis) -> GB/s: the best setting of the knob is the device's.
    std::map<double, std::map<double, std::vector<double>>> by_footprint;
    for (const Row* row : rows) {
      const std::optional<double> gbps = Positive(*row, "bandwidth_gbps");
      const std::optional<double> footprint = AxisNumber(*row, "footprint_bytes");
      if (!gbps || !footprint || row->Axis("op") != std::optional<std::string>("read") ||
          AxisNumber(*row, "width_bits") != std::optional<double>(width)) {
        continue;
      }
      by_footprint[*footprint][AxisNumber(*row, "bytes_in_flight_per_thread").value_or(-1)]
          .push_back(*gbps);
    }
    for (const auto& [footprint, by_in_flight] : by_footprint) {
      out.points.push_back({footprint, BestOfMedians(by_in_flight)});
    }
    out.best_text =
        absl::StrCat(FormatNumber(best_gbps), " GB/s: ", best->Axis("op").value_or("?"), ", ",
                     best->Axis("width_bits").value_or("?"), "-bit, ",
                     FormatBytes(AxisNumber(*best, "footprint_bytes").value_or(0)));
    return out;
  }

  // The plateaus of `points` wide enough to be levels (IsLevel); narrower
  // ones are transitions. Empty when there is none (said in the basis).
  std::vector<Plateau> BandwidthLevels(const std::string& curve,
                                       const std::vector<CurvePoint>& points) {
    absl::StatusOr<Segmentation> seg = SegmentCurve(points, options_);
    if (!seg.ok() || seg->plateaus.empty()) {
      Basis("bandwidth", curve, "no plateau", "");
      return {};
    }
    std::vector<Plateau> p;
    for (const Plateau& plateau : seg->plateaus) {
      if (IsLevel(plateau, points, *seg, options_)) p.push_back(plateau);
    }
    if (p.size() < seg->plateaus.size()) {
      Basis("bandwidth", curve,
            absl::StrCat(seg->plateaus.size() - p.size(), " plateau(s) narrower than ",
                         FormatNumber(kMinLevelWidth), "x in footprint and not ", kMinLevelPoints,
                         " or more flat points"),
            "transitions, not levels");
    }
    if (p.empty()) Basis("bandwidth", curve, "no plateau wide enough to be a level", "");
    return p;
  }

  // Which of the levels `p` (the highest at `top`) are L1, L2 and DRAM;
  // nullopt when the curve cannot tell (said in the basis).
  using LevelIndices = std::array<std::optional<size_t>, 3>;
  std::optional<LevelIndices> ClassifyBandwidthLevels(const std::string& kind,
                                                      const std::string& carveout,
                                                      const std::string& curve,
                                                      const std::vector<Plateau>& p, size_t top) {
    // Each SM's share of a footprint, where known.
    auto share = [&](double footprint) -> std::optional<double> {
      if (kind != kTotalSplit) return footprint;
      if (!sm_count_ || *sm_count_ <= 0) return std::nullopt;
      return footprint / *sm_count_;
    };
    const std::optional<double> l1_capacity = L1CapacityAt(carveout, curve);
    // Fits L1: the level starts within the measured L1 capacity, else
    // within the largest L1 of current GPUs (256 KiB) when the footprint is
    // per SM. Its start, not its end: a bandwidth level runs on into the
    // transition (points within 15 %), past the capacity the latency curve
    // shows.
    auto fits_l1 = [&](const Plateau& plateau) -> std::optional<bool> {
      const std::optional<double> per_sm = share(plateau.x_first);
      if (!per_sm) return std::nullopt;
      if (l1_capacity) return *per_sm <= *l1_capacity;
      if (kind != kTotalSplit) return *per_sm <= kLargestL1Bytes;
      return std::nullopt;
    };
    std::optional<size_t> l1, l2, dram;
    const size_t left = p.size() - top;
    if (kind == kPerSmShared) {
      // L1 (if the highest plateau fits it), then L2; nothing is DRAM.
      const std::optional<bool> in_l1 = fits_l1(p[top]);
      if (in_l1 != std::optional<bool>(false)) {
        l1 = top;
        if (left >= 2) l2 = top + 1;
      } else {
        l2 = top;
      }
      const size_t used = (l2 ? *l2 : *l1) + 1;
      if (used < p.size()) {
        Basis("bandwidth", curve,
              absl::StrCat(p.size() - used, " plateau(s) after ", l2 ? "L2" : "L1"),
              "not DRAM: every SM reads the same data set, so the SMs keep sharing lines in L2 "
              "beyond its capacity");
      }
    } else if (left >= 3) {
      l1 = top;
      dram = p.size() - 1;
      l2 = top + 1;
      for (size_t k = top + 1; k + 1 < p.size(); ++k) {
        if (p[k].level > p[*l2].level) l2 = k;
      }
    } else if (left == 2) {
      dram = p.size() - 1;
      if (fits_l1(p[top]) == std::optional<bool>(false)) {
        l2 = top;
      } else {
        l1 = top;
      }
      // Roaming reads leave L1 at one SM's L1: a second level that starts
      // within the L2 is L2, not DRAM.
      const std::optional<double> l2_capacity = L2Capacity();
      if (kind == kTotalRoaming && l1 && l2_capacity && p[*dram].x_first <= *l2_capacity) {
        l2 = dram;
        dram.reset();
      }
    } else {
      const std::optional<double> l2_capacity = L2Capacity();
      if (l2_capacity && p[top].x_first > *l2_capacity) {
        dram = top;
      } else if (fits_l1(p[top]) == std::optional<bool>(true)) {
        l1 = top;
      } else if (kind == kTotalRoaming) {
        l2 = top;
      } else {
        Basis("bandwidth", curve, "one plateau", "cannot tell which level");
        return std::nullopt;
      }
    }
    return LevelIndices{l1, l2, dram};
  }

  void BandwidthCurve(const std::string& kind, const std::string& carveout, bool l2_only) {
    const std::optional<BandwidthPoints> collected = CollectBandwidthCurve(kind, carveout);
    if (!collected) return;
    std::string curve = absl::StrCat("memory_bandwidth read, ", collected->width, "-bit");
    if (kind != kTotalSplit) absl::StrAppend(&curve, ", footprint ", kind);
    if (!carveout.empty()) absl::StrAppend(&curve, ", ", CarveoutText(carveout));
    const std::vector<Plateau> p = BandwidthLevels(curve, collected->points);
    if (p.empty()) return;
    // Plateaus before the highest one are the ramp of small footprints that
    // leave SMs idle.
    size_t top = 0;
    for (size_t k = 1; k < p.size(); ++k) {
      if (p[k].level > p[top].level) top = k;
    }
    std::optional<LevelIndices> levels = ClassifyBandwidthLevels(kind, carveout, curve, p, top);
    if (!levels) return;
    auto& [l1, l2, dram] = *levels;
    if (l2_only && (l1 || dram)) {
      Basis("bandwidth", curve, "its L1 and DRAM plateaus not used",
            "the own-share rows (total_split) beside it give those; roaming reads give L2");
      l1.reset();
      dram.reset();
    }
    AssignBandwidths(curve, p, *levels, collected->source, collected->best_text);
    if (top > 0) {
      Basis("bandwidth", curve,
            absl::StrCat(top,
                         " plateau(s) below the highest one at the "
                         "smallest footprints"),
            "ignored as the ramp of too few threads to fill the SMs");
    }
  }

  // The source of a memory_bandwidth curve whose first row is `row` of
  // `file`: an imported file's row label (else its source_method); for
  // ours, MethodFor, with roaming reads said as such.
  CurveSource BandwidthSource(const ResultFile& file, const Row& row,
                              const std::string& kind) const {
    CurveSource out{LabelMethod(row), MeasuringProgram(file)};
    if (!file.ContextOr("source", "").empty()) {
      if (out.method.empty()) out.method = file.ContextOr("source_method", "");
      return out;
    }
    out.method = kind == kTotalRoaming
                     ? "CUDA events around tiled streaming reads, every block roaming the whole "
                       "footprint, best over bytes in flight"
                     : MethodFor(kMemoryBandwidth);
    return out;
  }

  // The L1, L2 and DRAM bandwidths from plateaus `levels` (indices into
  // `p`, in that order) of `curve`, where no earlier curve gave them.
  void AssignBandwidths(const std::string& curve, const std::vector<Plateau>& p,
                        const std::array<std::optional<size_t>, 3>& levels,
                        const CurveSource& source, const std::string& best_text) {
    constexpr const char* kLevels[] = {"L1", "L2", "DRAM"};
    for (size_t i = 0; i < levels.size(); ++i) {
      if (!levels[i]) continue;
      const Plateau& plateau = p[*levels[i]];
      const std::string text =
          absl::StrCat("plateau ", *levels[i] + 1, " of ", p.size(), " (",
                       FormatBytes(plateau.x_first), " – ", FormatBytes(plateau.x_last), ", ",
                       FormatNumber(plateau.level), " GB/s)");
      const std::string what = absl::StrCat(kLevels[i], " bandwidth");
      HierarchyRow& row = RowOf(kLevels[i]);
      if (row.bandwidth) {
        Basis(what, curve, text,
              absl::StrCat("not used: the ", kLevels[i], " row has one from an earlier curve"));
        continue;
      }
      row.bandwidth = plateau.level;
      row.bandwidth_unit = "GB/s";
      row.bandwidth_method = source.method;
      row.bandwidth_from = source.program;
      Basis(what, curve, text,
            i == 2 ? DramCeiling(row)
                   : absl::StrCat("no ceiling is defined for ", kLevels[i],
                                  " (the curve's best point: ", best_text, ")"));
    }
  }

  // Sets `row`'s ceiling to the device's DRAM peak where it is known;
  // returns the words for its basis.
  std::string DramCeiling(HierarchyRow& row) {
    if (!dram_peak_gbps_ || *dram_peak_gbps_ <= 0) return "no device_dram_peak_gbps: no %";
    row.ceiling_fraction = *row.bandwidth / *dram_peak_gbps_;
    row.ceiling_value = *dram_peak_gbps_;
    row.ceiling = "DRAM peak";
    row.ceiling_from = absl::StrCat("device_dram_peak_gbps, ", dram_peak_origin_);
    return absl::StrCat("% of device_dram_peak_gbps (", FormatNumber(*dram_peak_gbps_), " GB/s, ",
                        dram_peak_origin_, ")");
  }

  // Values of an imported summary (experiment hierarchy_summary, from
  // mt4g): one row per level with latency_cycles (mt4g's mean),
  // capacity_bytes (with capacity_confidence), line_bytes and
  // read_bandwidth_gbps. They fill the rows that no curve filled.
  void Summary() {
    for (const Row* row : RowsOf(kHierarchySummary)) {
      const std::optional<std::string> level = row->Axis("level");
      if (!level || level->empty()) continue;
      const bool known = std::find(std::begin(kSummaryLevels), std::end(kSummaryLevels), *level) !=
                         std::end(kSummaryLevels);
      if (!known) {
        Basis(absl::StrCat(*level, " (summary)"), kHierarchySummary,
              "a level the table has no row for", "left out");
        continue;
      }
      HierarchyRow& out = RowOf(*level);
      const std::string method = MethodFor(kHierarchySummary);
      std::vector<std::string> taken;
      if (const std::optional<double> c = Positive(*row, "latency_cycles");
          c && !out.latency_cycles) {
        out.latency_cycles = c;
        out.latency_from = ProgramFor(kHierarchySummary);
        std::string detail = absl::StrCat("latency ", FormatNumber(*c), " cycles (mean");
        if (const std::optional<double> p50 = Positive(*row, "latency_cycles.p50")) {
          absl::StrAppend(&detail, "; p50 ", FormatNumber(*p50));
        }
        if (const std::optional<double> p95 = Positive(*row, "latency_cycles.p95")) {
          absl::StrAppend(&detail, "; p95 ", FormatNumber(*p95));
        }
        taken.push_back(absl::StrCat(detail, ")"));
      }
      if (const std::optional<double> bytes = Positive(*row, "capacity_bytes");
          bytes && !out.capacity_bytes) {
        const std::optional<double> confidence = row->Counter("capacity_confidence");
        if (confidence && *confidence < kMinSummaryConfidence) {
          taken.push_back(absl::StrCat("capacity ", FormatBytes(*bytes), " left out (confidence ",
                                       FormatNumber(*confidence), ")"));
        } else {
          out.capacity_bytes = bytes;
          out.capacity_from = ProgramFor(kHierarchySummary);
          taken.push_back(absl::StrCat("capacity ", FormatBytes(*bytes)));
        }
      }
      if (const std::optional<double> line = Positive(*row, "line_bytes");
          line && !out.line_bytes) {
        out.line_bytes = line;
        taken.push_back(absl::StrCat("line ", FormatBytes(*line)));
      }
      if (const std::optional<double> gbps = Positive(*row, "read_bandwidth_gbps");
          gbps && !out.bandwidth) {
        out.bandwidth = gbps;
        out.bandwidth_unit = "GB/s";
        out.bandwidth_from = ProgramFor(kHierarchySummary);
        out.bandwidth_method = "read bandwidth as the summary gives it (it names no method)";
        if (*level == "DRAM") DramCeiling(out);
        taken.push_back(absl::StrCat("read bandwidth ", FormatNumber(*gbps), " GB/s"));
      }
      if (taken.empty()) continue;
      if (out.method.empty()) {
        const std::string own = LabelMethod(*row);
        out.method = own.empty() ? SourceMethod(kHierarchySummary) : own;
      }
      Basis(absl::StrCat(*level, " (summary)"), absl::StrCat(kHierarchySummary, " level ", *level),
            absl::StrJoin(taken, ", "),
            method.empty() ? std::string() : absl::StrCat("as reported: ", method));
    }
  }

  void SharedBandwidth() {
    const Row* best = nullptr;
    double best_bpc = 0;
    for (const Row* row : RowsOf(kSharedBandwidth)) {
      const std::optional<double> bpc = Positive(*row, "bytes_per_clk_per_sm");
      if (bpc && *bpc > best_bpc) {
        best = row;
        best_bpc = *bpc;
      }
    }
    if (best == nullptr) return;
    HierarchyRow& row = RowOf("shared");
    row.bandwidth = best_bpc;
    row.bandwidth_unit = "B/clk/SM";
    row.bandwidth_from = ProgramFor(kSharedBandwidth);
    row.bandwidth_method = MethodFor(kSharedBandwidth);
    std::string ceiling = "no shared_peak_pct: no %";
    if (const std::optional<double> pct = Positive(*best, "shared_peak_pct")) {
      row.ceiling_fraction = *pct / 100;
      row.ceiling_value = best_bpc * 100 / *pct;
      row.ceiling = "shared peak";
      row.ceiling_from = "shared_bandwidth's shared_peak_pct";
      ceiling = absl::StrCat("% of the experiment's ceiling, ", FormatNumber(*row.ceiling_value),
                             " B/clk/SM");
    }
    Basis("shared bandwidth", "shared_bandwidth",
          absl::StrCat("best width: ", best->Axis("width_bits").value_or("?"), "-bit, ",
                       FormatNumber(best_bpc), " B/clk/SM"),
          ceiling);
  }

  // The TLB sweep (analysis/tlb.h): rows of one count of distinct lines,
  // all beyond 2x the L2, at several TLB working sets; the rows whose
  // footprint lies beyond 2x the L2 but whose lines do not are L2 points,
  // named in the basis and left out.
  void Tlb() {
    const std::optional<double> dram = RowOf("DRAM").latency_cycles;
    const std::optional<double> l2_capacity = L2Capacity();
    if (!dram || !l2_capacity) return;
    const std::vector<const Row*> rows = RowsOf(kMemoryLatency);
    for (const char* path : {"global_cg", "global_ca"}) {
      const TlbSelection selection = SelectTlbSweep(rows, path, *l2_capacity);
      const std::string lines_limit =
          absl::StrCat(FormatNumber(kTlbLinesBeyondL2 * *l2_capacity / kLineBytes), " lines, ",
                       FormatNumber(kTlbLinesBeyondL2), "x the L2's ",
                       FormatBytes(*l2_capacity));
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

  void TlbFindings(const std::string& path, const TlbSweep& sweep, double dram,
                   const std::string& lines_limit) {
    const std::vector<TlbPoint>& points = sweep.points;
    const double limit = dram * (1 + kTlbExcess);
    size_t first_high = points.size();
    while (first_high > 0 && points[first_high - 1].cycles > limit) --first_high;
    const std::string where =
        absl::StrCat(path, ", ", FormatNumber(sweep.lines), " lines over ",
                     FormatNumber(sweep.pages), " pages of ", FormatBytes(kTlbPageBytes));
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
    const std::string range = absl::StrCat(
        FormatNumber(points[first_high].cycles), " cycles at ",
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

  // The "TLB miss" row, after DRAM: the latency at the sweep's largest
  // working set, where (nearly) every load misses the TLB.
  void TlbMissRow(const std::string& where, const TlbPoint& point, double dram) {
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

  void Basis(const std::string& what, const std::string& source, const std::string& detail,
             const std::string& conclusion) {
    std::string line = absl::StrCat(what, ": ", source, ": ", detail);
    if (!conclusion.empty()) absl::StrAppend(&line, "; ", conclusion);
    out_.basis.push_back(line);
  }

  void Note(const std::string& note) { out_.notes.push_back(note); }

  const std::vector<const ResultFile*>& files_;
  const ChangepointOptions& options_;
  std::vector<LatencyCurve> curves_;
  std::optional<double> device_l2_bytes_;
  std::optional<double> dram_peak_gbps_;
  // Who gave device_l2_bytes and device_dram_peak_gbps (provenance.h).
  std::string l2_origin_;
  std::string dram_peak_origin_;
  std::optional<double> sm_count_;
  // The L1/shared carveout (context l1_carveout) of the curve the L1
  // capacity comes from; "" when unknown.
  std::string l1_carveout_;
  // The latency curve showed two L2 levels (rows L2 near and L2 far).
  bool near_far_from_curve_ = false;
  // What the DRAM latency is, for the TLB lines.
  std::string dram_source_ = "the DRAM plateau";
  DeviceHierarchy out_;
};

}  // namespace

const HierarchyRow* DeviceHierarchy::Find(std::string_view level) const {
  for (const HierarchyRow& row : rows) {
    if (row.level == level) return &row;
  }
  return nullptr;
}

bool IsMemoryExperiment(std::string_view experiment) {
  return experiment == kMemoryLatency || experiment == kLatencyTrace ||
         experiment == kMemoryBandwidth || experiment == kSharedBandwidth ||
         experiment == kHierarchySummary;
}

absl::StatusOr<std::vector<DeviceHierarchy>> InferMemoryHierarchies(
    const std::vector<ResultFile>& files, const ChangepointOptions& options) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<const ResultFile*>> by_device;
  std::map<std::string, bool> has_memory;
  for (const ResultFile& file : files) {
    const bool memory = IsMemoryExperiment(file.experiment);
    if (!memory && file.experiment != kSharedLatency) continue;
    const std::string key = DeviceKey(file);
    auto& group = by_device[key];
    if (group.empty()) order.push_back(key);
    group.push_back(&file);
    has_memory[key] = has_memory[key] || memory;
  }
  std::vector<DeviceHierarchy> tables;
  for (const std::string& key : order) {
    if (!has_memory[key]) continue;
    absl::StatusOr<DeviceHierarchy> table = Builder(by_device[key], options).Build();
    if (!table.ok()) return table.status();
    tables.push_back(*std::move(table));
  }
  return tables;
}

}  // namespace dissect::analysis
