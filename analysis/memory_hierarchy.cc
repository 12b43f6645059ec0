// Memory-hierarchy inference (see memory_hierarchy.h and the rules in
// analysis/README.md).

#include "analysis/memory_hierarchy.h"

#include <algorithm>
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

namespace dissect::analysis {
namespace {

constexpr char kMemoryLatency[] = "memory_latency";
constexpr char kSharedLatency[] = "shared_latency";
constexpr char kLatencyTrace[] = "latency_trace";
constexpr char kMemoryBandwidth[] = "memory_bandwidth";
constexpr char kSharedBandwidth[] = "shared_bandwidth";

// Latency above the DRAM latency by more than this share is a TLB effect.
constexpr double kTlbExcess = 0.10;
// The DRAM point: memory_latency in page_local order (random within each
// 2 MiB page, page by page: one TLB miss a page) over at least 1 GiB, 20x
// the L2 of current GPUs, with slots at least a sector and at most 64 KiB
// apart (32 or more loads a page).
constexpr char kPageLocal[] = "page_local";
constexpr double kDramMinFootprint = 1024.0 * 1024 * 1024;
constexpr double kDramMinStride = 32;
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

std::string DeviceKey(const ResultFile& file) {
  return absl::StrCat(file.ContextOr("device_name", ""), "\n",
                      file.ContextOr("device_compute_capability", ""), "\n",
                      file.ContextOr("device_sm_count", ""));
}

// A curve and its segmentation.
struct Segmented {
  const LatencyCurve* curve = nullptr;
  Segmentation seg;

  bool has_plateaus() const {
    return curve != nullptr && !seg.plateaus.empty();
  }

  // Median ns over a plateau's points (outliers excluded).
  std::optional<double> Ns(const Plateau& p) const {
    std::vector<double> values;
    for (size_t i = p.first; i <= p.last; ++i) {
      if (std::binary_search(seg.outliers.begin(), seg.outliers.end(), i)) {
        continue;
      }
      if (curve->ns[i]) values.push_back(*curve->ns[i]);
    }
    if (values.empty()) return std::nullopt;
    return Median(values);
  }

  std::string PlateauText(size_t k) const {
    const Plateau& p = seg.plateaus[k];
    return absl::StrCat("plateau ", k + 1, " of ", seg.plateaus.size(), " (",
                        FormatBytes(p.x_first), " – ", FormatBytes(p.x_last),
                        ", ", p.points, " points, ", FormatNumber(p.level),
                        " cycles)");
  }
};

absl::StatusOr<Segmented> SegmentLatency(const LatencyCurve* curve,
                                         const ChangepointOptions& options) {
  Segmented s;
  s.curve = curve;
  if (curve == nullptr) return s;
  absl::StatusOr<Segmentation> seg = SegmentCurve(curve->points, options);
  if (!seg.ok()) {
    return absl::InternalError(
        absl::StrCat(curve->Describe(), ": ", seg.status().message()));
  }
  s.seg = *std::move(seg);
  return s;
}

// Everything known about one device while its table is built.
class Builder {
 public:
  Builder(const std::vector<const ResultFile*>& files,
          const ChangepointOptions& options)
      : files_(files), options_(options) {
    const ResultFile& first = *files.front();
    out_.device_name = first.ContextOr("device_name", "unknown device");
    out_.compute_capability = first.ContextOr("device_compute_capability", "?");
    out_.sm_count = first.ContextOr("device_sm_count", "?");
    for (const ResultFile* f : files) {
      if (!device_l2_bytes_) {
        device_l2_bytes_ = ParseNumber(f->ContextOr("device_l2_bytes", ""));
      }
      if (!dram_peak_gbps_) {
        dram_peak_gbps_ =
            ParseNumber(f->ContextOr("device_dram_peak_gbps", ""));
      }
      if (!sm_count_)
        sm_count_ = ParseNumber(f->ContextOr("device_sm_count", ""));
    }
    for (const char* level :
         {"shared", "L1", "L2", "DRAM", "tex", "ldg", "const"}) {
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

  bool Close(double a, double b) const {
    return std::fabs(std::log(a) - std::log(b)) <
           std::log1p(options_.min_relative_step);
  }

  // Latency, ns and capacity of `row` from plateau k of `s`.
  void FromPlateau(HierarchyRow& row, const Segmented& s, size_t k,
                   size_t capacity_plateau) {
    const Plateau& p = s.seg.plateaus[k];
    row.latency_cycles = p.level;
    row.latency_ns = s.Ns(p);
    const Plateau& cap = s.seg.plateaus[capacity_plateau];
    row.capacity_bytes = cap.x_last;
    row.capacity_is_lower_bound = capacity_plateau + 1 == s.seg.plateaus.size();
  }

  std::string CapacityText(const HierarchyRow& row, const Segmented& s,
                           size_t capacity_plateau) const {
    if (row.capacity_is_lower_bound) {
      return absl::StrCat("no step after it: capacity at least ",
                          FormatBytes(*row.capacity_bytes));
    }
    const Step& step = s.seg.steps[capacity_plateau];
    return absl::StrCat(
        "step to ", FormatNumber(s.seg.plateaus[capacity_plateau + 1].level),
        " cycles between ", FormatBytes(step.x_before), " and ",
        FormatBytes(step.x_after));
  }

  // L2 and DRAM from the plateaus of `s` from index `from` on.
  void L2AndDram(const Segmented& s, size_t from) {
    const size_t n = s.seg.plateaus.size();
    if (from >= n) return;
    const std::string curve = s.curve->Describe();
    if (n - from == 1) {
      const Plateau& p = s.seg.plateaus[from];
      if (device_l2_bytes_ && p.x_first > *device_l2_bytes_) {
        HierarchyRow& dram = RowOf("DRAM");
        dram.latency_cycles = p.level;
        dram.latency_ns = s.Ns(p);
        Basis("DRAM latency", curve, s.PlateauText(from),
              absl::StrCat("it starts above device_l2_bytes (",
                           FormatBytes(*device_l2_bytes_), ")"));
        return;
      }
      HierarchyRow& l2 = RowOf("L2");
      FromPlateau(l2, s, from, from);
      Basis("L2 latency and capacity", curve, s.PlateauText(from),
            CapacityText(l2, s, from));
      return;
    }
    HierarchyRow& l2 = RowOf("L2");
    FromPlateau(l2, s, from, n - 2);
    Basis("L2 latency and capacity", curve, s.PlateauText(from),
          CapacityText(l2, s, n - 2));
    if (n - from > 2) {
      std::vector<std::string> levels;
      for (size_t k = from; k + 1 < n; ++k) {
        levels.push_back(FormatNumber(s.seg.plateaus[k].level));
      }
      Note(absl::StrCat(curve, " has ", n - from - 1, " plateaus below DRAM (",
                        absl::StrJoin(levels, ", "),
                        " cycles): L2 latency rises with the footprint; the L2 "
                        "row gives the first"));
    }
    const Plateau& last = s.seg.plateaus[n - 1];
    HierarchyRow& dram = RowOf("DRAM");
    dram.latency_cycles = last.level;
    dram.latency_ns = s.Ns(last);
    Basis("DRAM latency", curve, s.PlateauText(n - 1), "the last plateau");
    if (device_l2_bytes_) {
      Note(absl::StrCat(
          "L2 capacity from the curve: ", FormatBytes(*l2.capacity_bytes),
          " (last footprint before the step); the driver reports ",
          FormatBytes(*device_l2_bytes_), " (device_l2_bytes)"));
    }
  }

  absl::Status Latencies() {
    std::map<std::string, Segmented> by_path;
    for (const std::string& path : LatencyPaths()) {
      absl::StatusOr<Segmented> s =
          SegmentLatency(ChooseLatencyCurve(curves_, path), options_);
      if (!s.ok()) return s.status();
      by_path[path] = *std::move(s);
    }
    const Segmented& ca = by_path["global_ca"];
    const Segmented& cg = by_path["global_cg"];

    bool l1_seen = false;
    if (ca.has_plateaus()) {
      const Plateau& first = ca.seg.plateaus[0];
      if (cg.has_plateaus() && Close(first.level, cg.seg.plateaus[0].level)) {
        Note(absl::StrCat(
            "global_ca's first plateau (", FormatNumber(first.level),
            " cycles) matches global_cg's (",
            FormatNumber(cg.seg.plateaus[0].level),
            " cycles): these ld.global.ca loads were not cached in L1"));
      } else {
        l1_seen = true;
        HierarchyRow& l1 = RowOf("L1");
        FromPlateau(l1, ca, 0, 0);
        Basis("L1 latency and capacity", ca.curve->Describe(),
              ca.PlateauText(0), CapacityText(l1, ca, 0));
      }
    }
    if (cg.has_plateaus()) {
      L2AndDram(cg, 0);
    } else if (ca.has_plateaus() && l1_seen) {
      L2AndDram(ca, 1);
    }

    for (const char* path : {"shared", "tex", "ldg", "const"}) {
      const Segmented& s = by_path[path];
      if (!s.has_plateaus()) continue;
      HierarchyRow& row = RowOf(path);
      FromPlateau(row, s, 0, 0);
      Basis(absl::StrCat(path, " latency and capacity"), s.curve->Describe(),
            s.PlateauText(0), CapacityText(row, s, 0));
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
        const std::optional<double> footprint =
            AxisNumber(*row, "footprint_bytes");
        const std::optional<double> stride = AxisNumber(*row, "stride_bytes");
        if (row->Axis("path") != std::optional<std::string>(path) ||
            row->Axis("order") != std::optional<std::string>(kPageLocal) ||
            !c || !footprint || *footprint < kDramMinFootprint || !stride ||
            *stride < kDramMinStride || *stride > kDramMaxStride) {
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
      dram.latency_ns =
          ns.empty() ? std::nullopt : std::optional<double>(Median(ns));
      dram_source_ = "the page-local DRAM latency";
      const auto [fmin, fmax] =
          std::minmax_element(footprints.begin(), footprints.end());
      const auto [smin, smax] =
          std::minmax_element(strides.begin(), strides.end());
      auto range = [](double lo, double hi) {
        return lo == hi ? FormatBytes(lo)
                        : absl::StrCat(FormatBytes(lo), " – ", FormatBytes(hi));
      };
      // In place of the plateau's line, if there was one.
      const size_t lines = out_.basis.size();
      Basis("DRAM latency",
            absl::StrCat("memory_latency ", path,
                         ", page_local order, footprint ", range(*fmin, *fmax),
                         ", stride ", range(*smin, *smax)),
            absl::StrCat(cycles.size(), " row(s), median ",
                         FormatNumber(*dram.latency_cycles), " cycles"),
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
        Note(absl::StrCat("the random-order curve's last plateau (",
                          FormatNumber(*plateau), " cycles) lies ",
                          FormatPercent(*plateau / *dram.latency_cycles - 1),
                          " above the page-local DRAM latency (",
                          FormatNumber(*dram.latency_cycles),
                          " cycles): its loads also miss the TLB"));
      }
      return;
    }
    for (std::string& line : out_.basis) {
      if (absl::StartsWith(line, "DRAM latency: ")) {
        absl::StrAppend(&line, "; it may include TLB misses (no page_local ",
                        "row of at least ", FormatBytes(kDramMinFootprint),
                        ")");
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
  static bool AxisIsOrAbsent(const Row& row, std::string_view axis,
                             std::string_view value) {
    const std::optional<std::string> v = row.Axis(axis);
    return !v || *v == value;
  }

  // The most frequent positive miss_period_bytes of a cold stride-4 or
  // stride-8 walk of `path` (ties to the smaller); nullopt if none. The
  // global paths chase 8-byte pointers since issue 11; 4 B is older files.
  std::optional<double> MissPeriod(const std::vector<const Row*>& rows,
                                   std::string_view path, int* count,
                                   double* stride_used) const {
    std::map<double, int> histogram;
    for (const Row* row : rows) {
      const std::optional<double> stride = AxisNumber(*row, "stride_bytes");
      if (row->Axis("path") != std::optional<std::string>(std::string(path)) ||
          !stride || (*stride != 4 && *stride != 8) ||
          !AxisIsOrAbsent(*row, "state", "cold") ||
          !AxisIsOrAbsent(*row, "order", "strided")) {
        continue;
      }
      if (const std::optional<double> period =
              Positive(*row, "miss_period_bytes")) {
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
    int count = 0;
    double stride = 0;
    if (const std::optional<double> line =
            MissPeriod(rows, "global_ca", &count, &stride)) {
      RowOf("L1").line_bytes = *line;
      Basis("L1 line size",
            absl::StrCat("latency_trace global_ca, cold, strided, stride ",
                         FormatBytes(stride)),
            absl::StrCat("miss_period_bytes ", FormatNumber(*line), " in ",
                         count, " row(s)"),
            "");
    }
    if (const std::optional<double> sector =
            MissPeriod(rows, "global_cg", &count, &stride)) {
      RowOf("L2").sector_bytes = *sector;
      Basis("L2 sector size",
            absl::StrCat("latency_trace global_cg, cold, strided, stride ",
                         FormatBytes(stride)),
            absl::StrCat("miss_period_bytes ", FormatNumber(*sector), " in ",
                         count, " row(s)"),
            "");
    }

    // Near and far L2 partitions.
    const double low = L1Capacity().value_or(0);
    const std::optional<double> high = L2Capacity();
    const std::optional<double> dram = RowOf("DRAM").latency_cycles;
    std::vector<double> near, far, near_fraction, far_fraction, clocks;
    int examined = 0;
    for (const Row* row : rows) {
      const std::optional<double> footprint =
          AxisNumber(*row, "footprint_bytes");
      if (row->Axis("path") != std::optional<std::string>("global_cg") ||
          !AxisIsOrAbsent(*row, "state", "warm") ||
          !AxisIsOrAbsent(*row, "order", "random") || !footprint ||
          *footprint <= low || (high && *footprint > *high)) {
        continue;
      }
      ++examined;
      const std::optional<double> c1 = Positive(*row, "level1_cycles");
      const std::optional<double> f1 = Positive(*row, "level1_fraction");
      const std::optional<double> c2 = Positive(*row, "level2_cycles");
      const std::optional<double> f2 = Positive(*row, "level2_fraction");
      if (!c1 || !f1 || !c2 || !f2 || *f1 < kMinPartitionFraction ||
          *f2 < kMinPartitionFraction) {
        continue;
      }
      if (dram && !(*c2 * (1 + options_.min_relative_step) < *dram)) continue;
      near.push_back(*c1);
      far.push_back(*c2);
      near_fraction.push_back(*f1);
      far_fraction.push_back(*f2);
      const std::optional<double> before =
          Positive(*row, "sm_clock_mhz.before");
      const std::optional<double> after = Positive(*row, "sm_clock_mhz.after");
      if (before && after) clocks.push_back((*before + *after) / 2);
    }
    const std::string where = absl::StrCat(
        "latency_trace global_cg, warm, random, footprints above ",
        FormatBytes(low),
        high ? absl::StrCat(" up to ", FormatBytes(*high)) : std::string());
    if (near.empty()) {
      if (examined > 0) {
        Basis("L2 partitions", where,
              absl::StrCat(examined, " row(s), none with two L2 levels"),
              "no near/far split shown");
      }
      return;
    }
    const double clock = clocks.empty() ? 0 : Median(clocks);
    auto make = [&](const char* level, double cycles) {
      HierarchyRow row;
      row.level = level;
      row.latency_cycles = cycles;
      if (clock > 0) row.latency_ns = cycles / clock * 1e3;
      return row;
    };
    const size_t l2 = static_cast<size_t>(
        std::find_if(out_.rows.begin(), out_.rows.end(),
                     [](const HierarchyRow& r) { return r.level == "L2"; }) -
        out_.rows.begin());
    out_.rows.insert(
        out_.rows.begin() + static_cast<long>(l2) + 1,
        {make("L2 near", Median(near)), make("L2 far", Median(far))});
    Basis("L2 near/far latency", where,
          absl::StrCat(near.size(), " row(s): level 1 (",
                       FormatPercent(Median(near_fraction)),
                       " of accesses) and level 2 (",
                       FormatPercent(Median(far_fraction)), ")"),
          clock > 0 ? absl::StrCat("ns at the rows' SM clock, ",
                                   FormatNumber(clock), " MHz")
                    : "no SM clock in the rows: no ns");
  }

  void Bandwidth() {
    const std::vector<const Row*> rows = RowsOf(kMemoryBandwidth);
    if (rows.empty()) return;
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
    if (best == nullptr || widest == 0) return;
    const int width = widest >= 128 ? 128 : widest;
    // footprint -> bytes_in_flight_per_thread (-1 where the file has no
    // such axis) -> GB/s: the best setting of the knob is the device's.
    std::map<double, std::map<double, std::vector<double>>> by_footprint;
    for (const Row* row : rows) {
      const std::optional<double> gbps = Positive(*row, "bandwidth_gbps");
      const std::optional<double> footprint =
          AxisNumber(*row, "footprint_bytes");
      if (!gbps || !footprint ||
          row->Axis("op") != std::optional<std::string>("read") ||
          AxisNumber(*row, "width_bits") != std::optional<double>(width)) {
        continue;
      }
      by_footprint[*footprint][AxisNumber(*row, "bytes_in_flight_per_thread").value_or(-1)]
          .push_back(*gbps);
    }
    std::vector<CurvePoint> points;
    for (const auto& [footprint, by_in_flight] : by_footprint) {
      points.push_back({footprint, BestOfMedians(by_in_flight)});
    }
    const std::string curve =
        absl::StrCat("memory_bandwidth read, ", width, "-bit");
    absl::StatusOr<Segmentation> seg = SegmentCurve(points, options_);
    if (!seg.ok() || seg->plateaus.empty()) {
      Basis("bandwidth", curve, "no plateau", "");
      return;
    }
    const std::vector<Plateau>& p = seg->plateaus;
    // Plateaus before the highest one are the ramp of small footprints that
    // leave SMs idle.
    size_t top = 0;
    for (size_t k = 1; k < p.size(); ++k) {
      if (p[k].level > p[top].level) top = k;
    }
    std::optional<size_t> l1, l2, dram;
    const size_t left = p.size() - top;
    if (left >= 3) {
      l1 = top;
      dram = p.size() - 1;
      l2 = top + 1;
      for (size_t k = top + 1; k + 1 < p.size(); ++k) {
        if (p[k].level > p[*l2].level) l2 = k;
      }
    } else if (left == 2) {
      dram = p.size() - 1;
      const std::optional<double> l1_capacity = L1Capacity();
      if (l1_capacity && sm_count_ &&
          p[top].x_last / *sm_count_ > *l1_capacity) {
        l2 = top;
      } else {
        l1 = top;
      }
    } else {
      const std::optional<double> l2_capacity = L2Capacity();
      const std::optional<double> l1_capacity = L1Capacity();
      if (l2_capacity && p[top].x_first > *l2_capacity) {
        dram = top;
      } else if (l1_capacity && sm_count_ &&
                 p[top].x_last / *sm_count_ <= *l1_capacity) {
        l1 = top;
      } else {
        Basis("bandwidth", curve, "one plateau", "cannot tell which level");
        return;
      }
    }
    auto text = [&](size_t k) {
      return absl::StrCat("plateau ", k + 1, " of ", p.size(), " (",
                          FormatBytes(p[k].x_first), " – ",
                          FormatBytes(p[k].x_last), ", ",
                          FormatNumber(p[k].level), " GB/s)");
    };
    const std::string best_text = absl::StrCat(
        FormatNumber(best_gbps), " GB/s: ", best->Axis("op").value_or("?"),
        ", ", best->Axis("width_bits").value_or("?"), "-bit, ",
        FormatBytes(AxisNumber(*best, "footprint_bytes").value_or(0)));
    using Labeled = std::pair<std::optional<size_t>, const char*>;
    for (auto [index, level] : {Labeled{l1, "L1"}, Labeled{l2, "L2"}}) {
      if (!index) continue;
      HierarchyRow& row = RowOf(level);
      row.bandwidth = p[*index].level;
      row.bandwidth_unit = "GB/s";
      row.ceiling_fraction = p[*index].level / best_gbps;
      row.ceiling = "best measured";
      Basis(absl::StrCat(level, " bandwidth"), curve, text(*index),
            absl::StrCat("% of the best measured point (", best_text, ")"));
    }
    if (dram) {
      HierarchyRow& row = RowOf("DRAM");
      row.bandwidth = p[*dram].level;
      row.bandwidth_unit = "GB/s";
      std::string ceiling = "no device_dram_peak_gbps: no %";
      if (dram_peak_gbps_ && *dram_peak_gbps_ > 0) {
        row.ceiling_fraction = p[*dram].level / *dram_peak_gbps_;
        row.ceiling = "DRAM peak";
        ceiling = absl::StrCat("% of device_dram_peak_gbps (",
                               FormatNumber(*dram_peak_gbps_), " GB/s)");
      }
      Basis("DRAM bandwidth", curve, text(*dram), ceiling);
    }
    if (top > 0) {
      Basis("bandwidth", curve,
            absl::StrCat(top,
                         " plateau(s) below the highest one at the "
                         "smallest footprints"),
            "ignored as the ramp of too few threads to fill the SMs");
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
    std::string ceiling = "no shared_peak_pct: no %";
    if (const std::optional<double> pct = Positive(*best, "shared_peak_pct")) {
      row.ceiling_fraction = *pct / 100;
      row.ceiling =
          absl::StrCat(FormatNumber(best_bpc * 100 / *pct), " B/clk/SM");
      ceiling = absl::StrCat("% of the experiment's ceiling, ", row.ceiling);
    }
    Basis("shared bandwidth", "shared_bandwidth",
          absl::StrCat("best width: ", best->Axis("width_bits").value_or("?"),
                       "-bit, ", FormatNumber(best_bpc), " B/clk/SM"),
          ceiling);
  }

  void Tlb() {
    const std::optional<double> dram = RowOf("DRAM").latency_cycles;
    if (!dram) return;
    const std::optional<double> l2_capacity = L2Capacity();
    for (const char* path : {"global_cg", "global_ca"}) {
      // (order, footprint) -> stride -> cycles (and ns)
      std::map<std::pair<std::string, double>,
               std::map<double, std::vector<double>>>
          groups, group_ns;
      for (const Row* row : RowsOf(kMemoryLatency)) {
        const std::optional<double> cycles = Positive(*row, "cycles_per_load");
        const std::optional<double> footprint =
            AxisNumber(*row, "footprint_bytes");
        const std::optional<double> stride = AxisNumber(*row, "stride_bytes");
        // Page-local order avoids TLB misses by design: not a TLB sweep.
        if (row->Axis("path") != std::optional<std::string>(path) || !cycles ||
            !footprint || !stride ||
            row->Axis("order") == std::optional<std::string>(kPageLocal) ||
            (l2_capacity && *footprint <= *l2_capacity)) {
          continue;
        }
        const std::pair<std::string, double> key{
            row->Axis("order").value_or(""), *footprint};
        groups[key][*stride].push_back(*cycles);
        if (const std::optional<double> ns = Positive(*row, "ns_per_load")) {
          group_ns[key][*stride].push_back(*ns);
        }
      }
      // The group with the most strides (ties: the larger footprint).
      const std::pair<std::string, double>* chosen = nullptr;
      for (const auto& [key, strides] : groups) {
        if (strides.size() < 2) continue;
        if (chosen == nullptr || strides.size() > groups[*chosen].size() ||
            (strides.size() == groups[*chosen].size() &&
             key.second > chosen->second)) {
          chosen = &key;
        }
      }
      if (chosen == nullptr) continue;
      std::vector<std::pair<double, double>> sweep;  // stride, cycles
      for (const auto& [stride, values] : groups[*chosen]) {
        sweep.push_back({stride, Median(values)});
      }
      const double limit = *dram * (1 + kTlbExcess);
      size_t first_high = sweep.size();
      while (first_high > 0 && sweep[first_high - 1].second > limit) {
        --first_high;
      }
      const std::string where = absl::StrCat(
          path, chosen->first.empty() ? "" : absl::StrCat(", ", chosen->first),
          ", footprint ", FormatBytes(chosen->second));
      Basis("TLB", absl::StrCat("memory_latency ", where),
            absl::StrCat(sweep.size(), " strides from ",
                         FormatBytes(sweep.front().first), " to ",
                         FormatBytes(sweep.back().first)),
            absl::StrCat("compared with ", dram_source_, " + ",
                         FormatPercent(kTlbExcess), " (", FormatNumber(limit),
                         " cycles)"));
      if (first_high == sweep.size()) continue;
      if (out_.Find("TLB miss") == nullptr) {
        TlbMissRow(where, sweep.back().first, sweep.back().second,
                   group_ns[*chosen][sweep.back().first], *dram);
      }
      const std::string range = absl::StrCat(
          FormatNumber(sweep[first_high].second), " cycles at stride ",
          FormatBytes(sweep[first_high].first),
          first_high + 1 < sweep.size()
              ? absl::StrCat(" to ", FormatNumber(sweep.back().second),
                             " cycles at ", FormatBytes(sweep.back().first))
              : std::string(),
          " vs ", dram_source_, " of ", FormatNumber(*dram), " cycles (", where,
          ")");
      if (first_high == 0) {
        Note(absl::StrCat("TLB misses at every measured stride: ", range));
      } else {
        Note(absl::StrCat("TLB misses beyond stride ",
                          FormatBytes(sweep[first_high - 1].first), ": ",
                          range));
      }
    }
  }

  // The "TLB miss" row, after DRAM: the latency at the sweep's largest
  // stride, where (nearly) every load misses the TLB.
  void TlbMissRow(const std::string& where, double stride, double cycles,
                  const std::vector<double>& ns, double dram) {
    HierarchyRow row;
    row.level = "TLB miss";
    row.latency_cycles = cycles;
    if (!ns.empty()) row.latency_ns = Median(ns);
    const auto after_dram =
        std::find_if(out_.rows.begin(), out_.rows.end(),
                     [](const HierarchyRow& r) { return r.level == "DRAM"; });
    out_.rows.insert(
        after_dram == out_.rows.end() ? after_dram : after_dram + 1,
        std::move(row));
    Basis("TLB miss latency", absl::StrCat("memory_latency ", where),
          absl::StrCat("the largest stride, ", FormatBytes(stride), ": ",
                       FormatNumber(cycles), " cycles"),
          absl::StrCat(FormatNumber(cycles - dram), " cycles above ",
                       dram_source_, " (", FormatNumber(dram), " cycles)"));
  }

  void Basis(const std::string& what, const std::string& source,
             const std::string& detail, const std::string& conclusion) {
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
  std::optional<double> sm_count_;
  // What the DRAM latency is, for the TLB lines.
  std::string dram_source_ = "the DRAM plateau";
  DeviceHierarchy out_;
};

}  // namespace

std::string LatencyCurve::Describe() const {
  std::string text = absl::StrCat(experiment, " ", path);
  if (!order.empty()) absl::StrAppend(&text, ", ", order, " order");
  absl::StrAppend(&text, ", stride ", FormatBytes(stride));
  return text;
}

std::vector<LatencyCurve> BuildLatencyCurves(
    const std::vector<const ResultFile*>& files) {
  struct Samples {
    std::vector<double> cycles;
    std::vector<double> ns;
  };
  using Key = std::tuple<std::string, std::string, std::string, double>;
  std::map<Key, std::map<double, Samples>> grouped;
  for (const ResultFile* file : files) {
    if (file->experiment != kMemoryLatency &&
        file->experiment != kSharedLatency) {
      continue;
    }
    for (const Row& row : file->rows) {
      if (row.error) continue;
      const std::optional<double> cycles = Positive(row, "cycles_per_load");
      const std::optional<double> footprint =
          AxisNumber(row, "footprint_bytes");
      const std::optional<double> stride = AxisNumber(row, "stride_bytes");
      if (!cycles || !footprint || !stride || *footprint <= 0) continue;
      const Key key{file->experiment, row.Axis("path").value_or("shared"),
                    row.Axis("order").value_or(""), *stride};
      Samples& samples = grouped[key][*footprint];
      samples.cycles.push_back(*cycles);
      if (const std::optional<double> ns = Positive(row, "ns_per_load")) {
        samples.ns.push_back(*ns);
      }
    }
  }
  std::vector<LatencyCurve> curves;
  for (const auto& [key, by_footprint] : grouped) {
    LatencyCurve curve;
    std::tie(curve.experiment, curve.path, curve.order, curve.stride) = key;
    for (const auto& [footprint, samples] : by_footprint) {
      curve.points.push_back({footprint, Median(samples.cycles)});
      curve.ns.push_back(samples.ns.empty()
                             ? std::nullopt
                             : std::optional<double>(Median(samples.ns)));
    }
    curves.push_back(std::move(curve));
  }
  return curves;
}

const LatencyCurve* ChooseLatencyCurve(const std::vector<LatencyCurve>& curves,
                                       std::string_view path) {
  const LatencyCurve* best = nullptr;
  auto rank = [](const LatencyCurve& c) {
    return std::make_tuple(c.experiment != kMemoryLatency, c.order != "random",
                           c.stride < 32,
                           c.stride >= 32 ? c.stride : -c.stride);
  };
  for (const LatencyCurve& c : curves) {
    if (c.path != path || c.points.size() < 2) continue;
    if (best == nullptr || rank(c) < rank(*best)) best = &c;
  }
  return best;
}

const std::vector<std::string>& LatencyPaths() {
  static const auto* const kPaths = new std::vector<std::string>{
      "shared", "global_ca", "global_cg", "ldg", "tex", "const"};
  return *kPaths;
}

const HierarchyRow* DeviceHierarchy::Find(std::string_view level) const {
  for (const HierarchyRow& row : rows) {
    if (row.level == level) return &row;
  }
  return nullptr;
}

bool IsMemoryExperiment(std::string_view experiment) {
  return experiment == kMemoryLatency || experiment == kLatencyTrace ||
         experiment == kMemoryBandwidth || experiment == kSharedBandwidth;
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
    absl::StatusOr<DeviceHierarchy> table =
        Builder(by_device[key], options).Build();
    if (!table.ok()) return table.status();
    tables.push_back(*std::move(table));
  }
  return tables;
}

}  // namespace dissect::analysis
