// The builder of one device's memory-hierarchy table (memory_hierarchy.h),
// shared by the files that hold its sections: latency curves
// (hierarchy_latency.cc), latency_trace's near and far L2
// (hierarchy_trace.cc), bandwidth curves (hierarchy_bandwidth.cc), the TLB
// sweep (hierarchy_tlb.cc) and imported summaries (hierarchy_summary.cc).
// Internal to the memory_hierarchy library.

#ifndef DISSECT_ANALYSIS_SECTIONS_HIERARCHY_BUILDER_H_
#define DISSECT_ANALYSIS_SECTIONS_HIERARCHY_BUILDER_H_

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "analysis/sections/changepoint.h"
#include "analysis/sections/latency_levels.h"
#include "analysis/sections/memory_hierarchy.h"
#include "analysis/results/results.h"
#include "analysis/sections/tlb.h"

namespace dissect::analysis::hierarchy_internal {

inline constexpr char kMemoryLatency[] = "memory_latency";
inline constexpr char kSharedLatency[] = "shared_latency";
inline constexpr char kLatencyTrace[] = "latency_trace";
inline constexpr char kMemoryBandwidth[] = "memory_bandwidth";
inline constexpr char kSharedBandwidth[] = "shared_bandwidth";
// Summary values imported from another suite (analysis/import: mt4g).
inline constexpr char kHierarchySummary[] = "hierarchy_summary";
inline constexpr const char* kSummaryLevels[] = {"shared", "L1",  "L2",  "L2 near", "L2 far",
                                                 "DRAM",   "tex", "ldg", "const"};
// A summary capacity with a lower confidence is left out.
inline constexpr double kMinSummaryConfidence = 0.5;
// bandwidth_footprint values (see Builder::Bandwidth).
inline constexpr char kTotalSplit[] = "total_split";
inline constexpr char kPerSmShared[] = "per_sm_shared";
inline constexpr char kTotalRoaming[] = "total_roaming";
// The context key of the L1/shared carveout the kernels asked for.
inline constexpr char kL1Carveout[] = "l1_carveout";
// No current NVIDIA GPU has more L1 per SM (H100: 256 KiB L1/shared).
inline constexpr double kLargestL1Bytes = 256 * 1024;

// Latency above the DRAM latency by more than this share is a TLB effect.
inline constexpr double kTlbExcess = 0.10;
// The DRAM point: memory_latency in page_local order (random within each
// 2 MiB page, page by page: one TLB miss a page) over at least 1 GiB, 20x
// the L2 of current GPUs, with slots at least a line and at most 64 KiB
// apart (32 or more loads a page). Slots closer than a line share its fill:
// every load after the first to a line is an L2 hit, not DRAM latency.
inline constexpr char kPageLocal[] = "page_local";
inline constexpr double kDramMinFootprint = 1024.0 * 1024 * 1024;
inline constexpr double kDramMinStride = kLineBytes;
inline constexpr double kDramMaxStride = 64 * 1024;
// Both latency_trace levels need at least this share of the accesses to
// count as two L2 partitions.
inline constexpr double kMinPartitionFraction = 0.10;

// DRAM latency comes from the first level that reaches beyond this multiple
// of the L2 size, from its points up to twice that.
inline constexpr double kDramBeyondL2 = 2;
// Latency rising by more than this share along the DRAM level (TLB reach
// running out) is reported as TLB creep.
inline constexpr double kTlbCreep = 0.03;

// `text` as a finite number; nullopt otherwise.
std::optional<double> ParseNumber(const std::string& text);

// A counter that is finite and > 0.
std::optional<double> Positive(const Row& row, std::string_view counter);

// Everything known about one device while its table is built.
class Builder {
 public:
  Builder(const std::vector<const ResultFile*>& files, const ChangepointOptions& options);

  absl::StatusOr<DeviceHierarchy> Build();

 private:
  HierarchyRow& RowOf(std::string_view level);

  // Inserts a row for `level` after the row of `after` (at the end if there
  // is none) unless it exists; returns it.
  HierarchyRow& InsertRowAfter(std::string_view after, const std::string& level);

  // How `experiment`'s rows were measured, in a few words: for imported
  // files the method their rows' labels give (`source: ...; method: ...`),
  // else the file's `source_method`; for ours, dissect's own method.
  std::string MethodFor(std::string_view experiment) const;

  // The program that measured `experiment`'s rows (provenance.h).
  std::string ProgramFor(std::string_view experiment) const;

  // The `source_method` of the first imported file of `experiment`.
  std::string SourceMethod(std::string_view experiment) const;

  bool Close(double a, double b) const;

  // Latency, ns and footprints of `row` from level k of `s`; its capacity
  // from level `capacity_level` (where the curve leaves it).
  void FromLevel(HierarchyRow& row, const Segmented& s, size_t k, size_t capacity_level);

  std::string CapacityText(const HierarchyRow& row, const Segmented& s,
                           size_t capacity_level) const;

  // Notes the transitions between the levels of `s` and the plateaus too
  // narrow to be levels.
  void Transitions(const Segmented& s);

  // Rows L2 near and L2 far from the first and last of the L2 levels
  // [from, last_l2] of `s`; a note names the levels between them.
  void L2NearFar(const Segmented& s, size_t from, size_t last_l2);

  // L2 (near and far where there are two L2 levels) and DRAM from the
  // levels of `s` from index `from` on.
  void L2AndDram(const Segmented& s, size_t from);

  absl::Status Latencies();

  // The DRAM latency from the page-local point (see kPageLocal), which
  // replaces the last plateau of the random-order curve: that one mixes TLB
  // misses into the latency once the footprint passes the TLB reach.
  void PageLocalDram();

  std::vector<const Row*> RowsOf(std::string_view experiment) const;

  // Rows whose `axis` is `value`, or all rows if they lack the axis.
  static bool AxisIsOrAbsent(const Row& row, std::string_view axis, std::string_view value);

  // The most frequent positive miss_period_bytes of a cold stride-4 or
  // stride-8 walk of `path` (ties to the smaller); nullopt if none. The
  // global paths chase 8-byte pointers now; 4 B strides are older files.
  std::optional<double> MissPeriod(const std::vector<const Row*>& rows, std::string_view path,
                                   int* count, double* stride_used) const;

  std::optional<double> L1Capacity();

  // The L1 capacity for classifying the bandwidth rows of `curve`, measured
  // at L1/shared carveout `carveout`: only a chase at that same carveout
  // gives it (an unknown one, "", matches only another unknown one), since
  // the carveout sets how much of the L1/shared storage is L1.
  std::optional<double> L1CapacityAt(const std::string& carveout, const std::string& curve);

  static std::string CarveoutText(const std::string& carveout);

  // The L2 capacity from the curve, else device_l2_bytes.
  std::optional<double> L2Capacity();

  void Trace();

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
  void NearFarFromTrace(const std::vector<const Row*>& rows);

  // The warm random global_cg trace rows at footprints up to the L2 capacity
  // `high`: the near and far levels (overhead subtracted) of those that show
  // both partitions, and how many were left out and why.
  struct TraceSplit {
    std::vector<double> near, far, near_fraction, far_fraction, clocks, overheads;
    int examined = 0, within_half = 0, at_dram = 0, no_overhead = 0;
  };
  TraceSplit CollectTraceSplit(const std::vector<const Row*>& rows, std::optional<double> high,
                               std::optional<double> dram) const;

  // Basis lines for the trace rows `t` left out.
  void LeftOutTraceRows(const std::string& where, const TraceSplit& t, std::optional<double> dram);

  // A row's trace_overhead_cycles, if it has a finite one.
  static std::optional<double> TraceOverhead(const Row& row);

  // What was done with the trace's timing overhead, for the basis.
  static std::string OverheadText(const std::vector<double>& overheads);

  void AddTraceNearFar(const std::string& where, const std::vector<double>& near,
                       const std::vector<double>& far, const std::vector<double>& near_fraction,
                       const std::vector<double>& far_fraction, const std::vector<double>& clocks,
                       const std::string& overhead_text, bool overhead_subtracted);

  // memory_bandwidth curves, one per way of counting the footprint (context
  // `bandwidth_footprint`): dissect's own split the footprint between the
  // SMs (`total_split`, also when the key is absent); gpu-benches' gpu-cache
  // has every SM read the same data set (`per_sm_shared`: per-SM bytes, and
  // beyond L2 the SMs still share the data, so there is no DRAM level), its
  // gpu-l2-cache has blocks roam the whole footprint (`total_roaming`).
  // Files of different L1/shared carveouts (context `l1_carveout`) are
  // curves of their own too: L1 takes what shared memory leaves, so their
  // L1 plateaus end at different footprints.
  void Bandwidth();

  // How a memory_bandwidth row counts its footprint: sharing=roaming rows
  // (every block reads the whole footprint) are total_roaming, the others
  // what their file says.
  static std::string FootprintKind(const ResultFile& f, const Row& row);

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
                                                       const std::string& carveout) const;

  // The plateaus of `points` wide enough to be levels (IsLevel); narrower
  // ones are transitions. Empty when there is none (said in the basis).
  std::vector<Plateau> BandwidthLevels(const std::string& curve,
                                       const std::vector<CurvePoint>& points);

  // Which of the levels `p` (the highest at `top`) are L1, L2 and DRAM;
  // nullopt when the curve cannot tell (said in the basis).
  using LevelIndices = std::array<std::optional<size_t>, 3>;
  std::optional<LevelIndices> ClassifyBandwidthLevels(const std::string& kind,
                                                      const std::string& carveout,
                                                      const std::string& curve,
                                                      const std::vector<Plateau>& p, size_t top);

  void BandwidthCurve(const std::string& kind, const std::string& carveout, bool l2_only);

  // The source of a memory_bandwidth curve whose first row is `row` of
  // `file`: an imported file's row label (else its source_method); for
  // ours, MethodFor, with roaming reads said as such.
  CurveSource BandwidthSource(const ResultFile& file, const Row& row,
                              const std::string& kind) const;

  // The L1, L2 and DRAM bandwidths from plateaus `levels` (indices into
  // `p`, in that order) of `curve`, where no earlier curve gave them.
  void AssignBandwidths(const std::string& curve, const std::vector<Plateau>& p,
                        const std::array<std::optional<size_t>, 3>& levels,
                        const CurveSource& source, const std::string& best_text);

  // Sets `row`'s ceiling to the device's DRAM peak where it is known;
  // returns the words for its basis.
  std::string DramCeiling(HierarchyRow& row);

  // Values of an imported summary (experiment hierarchy_summary, from
  // mt4g): one row per level with latency_cycles (mt4g's mean),
  // capacity_bytes (with capacity_confidence), line_bytes and
  // read_bandwidth_gbps. They fill the rows that no curve filled.
  void Summary();

  void SharedBandwidth();

  // The TLB sweep (analysis/sections/tlb.h): rows of one count of distinct lines,
  // all beyond 2x the L2, at several TLB working sets; the rows whose
  // footprint lies beyond 2x the L2 but whose lines do not are L2 points,
  // named in the basis and left out.
  void Tlb();

  void TlbFindings(const std::string& path, const TlbSweep& sweep, double dram,
                   const std::string& lines_limit);

  // The "TLB miss" row, after DRAM: the latency at the sweep's largest
  // working set, where (nearly) every load misses the TLB.
  void TlbMissRow(const std::string& where, const TlbPoint& point, double dram);

  void Basis(const std::string& what, const std::string& source, const std::string& detail,
             const std::string& conclusion);

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

}  // namespace dissect::analysis::hierarchy_internal

#endif  // DISSECT_ANALYSIS_SECTIONS_HIERARCHY_BUILDER_H_
