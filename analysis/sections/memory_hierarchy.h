// Infers a memory-hierarchy table (latency, capacity, line and sector size,
// bandwidth per level) from the curves of the memory experiments
// (memory_latency, latency_trace, memory_bandwidth, shared_bandwidth; see
// SCHEMA.md). Nothing is hard-coded per device: every value comes from a
// plateau, step or counter in the result files, and the rules are listed in
// analysis/README.md.

#ifndef DISSECT_ANALYSIS_SECTIONS_MEMORY_HIERARCHY_H_
#define DISSECT_ANALYSIS_SECTIONS_MEMORY_HIERARCHY_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "analysis/sections/changepoint.h"
#include "analysis/results/results.h"

namespace dissect::analysis {

// One level of the table. Unset values are "no data".
struct HierarchyRow {
  // shared, L1, L2, L2 near, L2 far, DRAM, TLB miss, tex, ldg, const
  std::string level;
  std::optional<double> latency_cycles;
  std::optional<double> latency_ns;
  std::optional<double> capacity_bytes;
  // The curve never left this level: the capacity is at least this much.
  bool capacity_is_lower_bound = false;
  std::optional<double> line_bytes;
  std::optional<double> sector_bytes;
  // What one miss of this level fills, from latency_trace's miss period on
  // a cold walk: a sector or the whole line, not the line size (the table
  // shows it in a finding, not in the line or sector column).
  std::optional<double> fill_bytes;
  std::optional<double> bandwidth;
  std::string bandwidth_unit;  // "GB/s", or "B/clk/SM" for shared
  // The level's own bandwidth ceiling, set only where one is defined: DRAM
  // the device's DRAM peak (device_dram_peak_gbps), shared the ceiling of
  // shared_bandwidth (shared_peak_pct). L1 and L2 have none.
  std::optional<double> ceiling_fraction;  // bandwidth / ceiling
  std::optional<double> ceiling_value;     // in bandwidth_unit
  std::string ceiling;                     // what the ceiling is, e.g. "DRAM peak"
  std::string ceiling_from;                // who gave it, e.g. "reported by the driver"
  // The footprints of the plateau the latency comes from (first and last
  // point), where it comes from a latency curve.
  std::optional<double> footprint_first;
  std::optional<double> footprint_last;
  // How the latency (and capacity) of this row were measured, in a few
  // words: for dissect's own results the experiment's method, for imported
  // peer results the peer's (row label or context `source_method`).
  std::string method;
  // How the bandwidth was measured: the method of the curve or summary it
  // comes from, never the latency's.
  std::string bandwidth_method;
  // The program each value comes from (provenance.h MeasuringProgram):
  // "dissect memory_latency", "gpu-benches gpu-l2-cache", "mt4g".
  std::string latency_from;
  std::string capacity_from;
  std::string bandwidth_from;
};

struct DeviceHierarchy {
  // Whose measurements these are: "dissect" for our own result files, else
  // the context key `source` of imported peer results, e.g.
  // "gpu-benches@1038c5d0d0f4" (analysis/import). Files of one device but
  // different sources get separate tables.
  std::string source = "dissect";
  std::string device_name;
  std::string compute_capability;
  std::string sm_count;
  std::vector<std::string> files;  // the files used, in input order
  // shared, L1, L2, [L2 near, L2 far when latency_trace shows them], DRAM,
  // [TLB miss when a stride sweep shows TLB misses], tex, ldg, const. The
  // DRAM latency comes from memory_latency in page_local order at >= 1 GiB
  // when there is such a row (TLB misses amortized), else from the last
  // plateau of the random-order curve.
  std::vector<HierarchyRow> rows;
  std::vector<std::string> basis;  // how each value was obtained
  std::vector<std::string> notes;  // findings such as TLB misses

  // The row of `level`, or nullptr.
  const HierarchyRow* Find(std::string_view level) const;
};

// True for the experiments the table is built from.
bool IsMemoryExperiment(std::string_view experiment);

// One latency curve: the rows of one (experiment, path, order, stride),
// footprint ascending, duplicates reduced to their median.
struct LatencyCurve {
  std::string experiment;  // memory_latency or shared_latency
  std::string path;        // shared_latency rows are path "shared"
  std::string order;       // "" when the experiment has no order axis
  double stride = 0;
  // Context `l1_carveout` of its files ("" when absent): rows of different
  // carveouts are different curves, as L1's size depends on it.
  std::string l1_carveout;
  std::vector<CurvePoint> points;         // x: footprint, y: cycles per load
  std::vector<std::optional<double>> ns;  // ns per load, per point

  // "memory_latency global_ca, random order, stride 128 B" (and ", l1_carveout
  // max_l1" where the files record one).
  std::string Describe() const;
};

// The latency curves of the memory_latency and shared_latency rows of
// `files` (skipped, failed and non-positive rows left out).
std::vector<LatencyCurve> BuildLatencyCurves(const std::vector<const ResultFile*>& files);

// The curve the table reads `path` from: at least two footprints; random
// order first, then the smallest stride >= 32 B, else the largest smaller
// stride; memory_latency before shared_latency; a curve whose files record
// their L1 carveout before one whose files do not. nullptr if none.
const LatencyCurve* ChooseLatencyCurve(const std::vector<LatencyCurve>& curves,
                                       std::string_view path);

// The latency paths in table order: shared, global_ca, global_cg, ldg, tex,
// const.
const std::vector<std::string>& LatencyPaths();

// One table per device (name, compute capability and SM count) that has at
// least one memory experiment among `files`, in first-seen order.
// shared_latency files of such a device stand in for memory_latency's
// shared path when that is missing. Fails only if a curve cannot be
// segmented (which valid result files do not cause).
absl::StatusOr<std::vector<DeviceHierarchy>> InferMemoryHierarchies(
    const std::vector<ResultFile>& files, const ChangepointOptions& options = {});

}  // namespace dissect::analysis

#endif  // DISSECT_ANALYSIS_SECTIONS_MEMORY_HIERARCHY_H_
