// Memory hierarchy from the bandwidth curves (memory_bandwidth,
// shared_bandwidth): L1, L2 and DRAM bandwidths and their ceilings.

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

void Builder::Bandwidth() {
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
  const bool split =
      std::any_of(kinds.begin(), kinds.end(), [](const auto& k) { return k.first == kTotalSplit; });
  for (const auto& [kind, carveout] : kinds) {
    BandwidthCurve(kind, carveout, /*l2_only=*/split && kind == kTotalRoaming);
  }
}

std::string Builder::FootprintKind(const ResultFile& f, const Row& row) {
  if (row.Axis("sharing") == std::optional<std::string>("roaming")) return kTotalRoaming;
  return f.ContextOr("bandwidth_footprint", kTotalSplit);
}

std::optional<Builder::BandwidthPoints> Builder::CollectBandwidthCurve(
    const std::string& kind, const std::string& carveout) const {
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
    by_footprint[*footprint][AxisNumber(*row, "bytes_in_flight_per_thread").value_or(-1)].push_back(
        *gbps);
  }
  for (const auto& [footprint, by_in_flight] : by_footprint) {
    out.points.push_back({footprint, BestOfMedians(by_in_flight)});
  }
  out.best_text = absl::StrCat(FormatNumber(best_gbps), " GB/s: ", best->Axis("op").value_or("?"),
                               ", ", best->Axis("width_bits").value_or("?"), "-bit, ",
                               FormatBytes(AxisNumber(*best, "footprint_bytes").value_or(0)));
  return out;
}

std::vector<Plateau> Builder::BandwidthLevels(const std::string& curve,
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

std::optional<Builder::LevelIndices> Builder::ClassifyBandwidthLevels(const std::string& kind,
                                                                      const std::string& carveout,
                                                                      const std::string& curve,
                                                                      const std::vector<Plateau>& p,
                                                                      size_t top) {
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

void Builder::BandwidthCurve(const std::string& kind, const std::string& carveout, bool l2_only) {
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

Builder::CurveSource Builder::BandwidthSource(const ResultFile& file, const Row& row,
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

void Builder::AssignBandwidths(const std::string& curve, const std::vector<Plateau>& p,
                               const std::array<std::optional<size_t>, 3>& levels,
                               const CurveSource& source, const std::string& best_text) {
  constexpr const char* kLevels[] = {"L1", "L2", "DRAM"};
  for (size_t i = 0; i < levels.size(); ++i) {
    if (!levels[i]) continue;
    const Plateau& plateau = p[*levels[i]];
    const std::string text = absl::StrCat(
        "plateau ", *levels[i] + 1, " of ", p.size(), " (", FormatBytes(plateau.x_first), " – ",
        FormatBytes(plateau.x_last), ", ", FormatNumber(plateau.level), " GB/s)");
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

std::string Builder::DramCeiling(HierarchyRow& row) {
  if (!dram_peak_gbps_ || *dram_peak_gbps_ <= 0) return "no device_dram_peak_gbps: no %";
  row.ceiling_fraction = *row.bandwidth / *dram_peak_gbps_;
  row.ceiling_value = *dram_peak_gbps_;
  row.ceiling = "DRAM peak";
  row.ceiling_from = absl::StrCat("device_dram_peak_gbps, ", dram_peak_origin_);
  return absl::StrCat("% of device_dram_peak_gbps (", FormatNumber(*dram_peak_gbps_), " GB/s, ",
                      dram_peak_origin_, ")");
}

void Builder::SharedBandwidth() {
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

}  // namespace dissect::analysis::hierarchy_internal
