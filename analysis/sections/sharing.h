// The intergroup-sharing section of the report, after "GPU
// Performance Optimization via Intergroup Cache Cooperation" (2024): per
// device, the L1 duplication of the layer kernels (l1_duplication), the
// distributed-shared-memory latency and bandwidth by cluster size
// (dsm_latency, dsm_bandwidth), the SM -> GPC map (gpc_topology), the near
// and far L2 partitions of each SM (l2_sm_map) and the cluster-cooperative
// kernels against the layer kernels (cluster_coop). Contracts of these
// experiments: analysis/README.md, "Intergroup sharing".
//
// The builders turn result files into plain rows (SharingDevice); the
// renderers turn rows into markdown; figures.cc draws the same rows.

#ifndef DISSECT_ANALYSIS_SECTIONS_SHARING_H_
#define DISSECT_ANALYSIS_SECTIONS_SHARING_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/format/format.h"
#include "analysis/results/results.h"

namespace dissect::analysis {

// True for the experiments this section reads.
bool IsSharingExperiment(std::string_view experiment);

// A point that was not measured keeps its row with `note` "skipped: <why>"
// or "error: <status>" and no values. Values that are NaN in the file (a
// GPC metric without a GPC map) are nullopt.

// One l1_duplication row: one kernel at one layer and batch.
struct DuplicationRow {
  std::string kernel, layer, batch;
  std::optional<double> l1_hit_pct;  // cupti/l1_hit_rate, 0-100
  std::optional<double> lines_touched;
  std::optional<double> replication;          // SMs holding a touched line, mean
  std::optional<double> duplicated_fraction;  // of the lines, held by > 1 SM
  std::optional<double> gpc_duplicated_fraction;
  std::optional<double> cross_gpc_duplicated_fraction;
  std::optional<double> sms_used;
  std::string note;
};

// One cluster size of dsm_latency and dsm_bandwidth. Latency per path: the
// first measured row of that cluster size and path; bandwidth per path: the
// best bytes_per_block.
struct DsmRow {
  int cluster_size = 0;
  std::optional<double> max_active_clusters;
  std::optional<double> local_cycles;
  // The dsm_peer row's cycles_per_load (the mean over the peers), and the
  // range of its cycles_by_peer over peer distance 1.. (entry 0, the block's
  // own shared memory through the cluster window, in a cluster of 1).
  std::optional<double> peer_cycles;
  std::optional<double> peer_min_cycles, peer_max_cycles;
  std::optional<double> l2_cycles;
  std::optional<double> local_gbps, dsm_gbps;
  // "<experiment> (<paths>): <note>" for the rows of this size with notes
  // (skipped: <why> for a path that has no measured row), paths sharing one
  // note named together.
  std::vector<std::string> notes;
};

// The first measured gpc_topology row.
struct GpcMap {
  std::string launches, cluster_size;  // axis values
  std::optional<double> gpcs, sms_mapped, inconsistent_sms, max_active_clusters;
  // SMs seen but in a group too small to be a GPC (absent in older files).
  std::optional<double> unresolved_sms;
  std::vector<int> gpc_of_sm;  // -1: unmapped (or unresolved)
  std::vector<double> gpc_sizes;
  std::string note;  // the row's label
};

// One l2_sm_map row.
struct L2Map {
  std::string lines, sm_stride;  // axis values
  std::optional<double> partitions, near_cycles, far_cycles, far_minus_near_cycles,
      near_spread_cycles, sms_measured;
  // Mean re-touch latency (a near hit by construction); absent in rows from
  // before the first-touch method.
  std::optional<double> retouch_cycles;
  int line_count = 0;          // the lines axis as a number
  std::vector<double> cycles;  // [sm * line_count + line], NaN: not measured
  std::vector<int> partition_of_line;
  std::vector<int> near_partition_of_sm;  // -1: not measured
  std::string note;
};

// One cluster_coop variant at one point.
struct CoopVariant {
  std::optional<double> us;  // the row's real_time (median), in µs
  std::optional<double> speedup, speedup_spread;
  std::optional<double> l2_sectors_read, l1_hit_pct, duplicated_fraction;
  std::optional<double> max_active_clusters;
  std::string note;
};

// One kernel, layer, batch and cluster size of cluster_coop.
struct CoopRow {
  std::string kernel, layer, batch;
  int cluster_size = 0;
  // Keyed by the variant axis (layer, tiled, coop). Where the point has no
  // layer row of its own, the layer row of the same kernel, layer and batch
  // at another cluster size (the layer kernel does not use clusters).
  std::map<std::string, CoopVariant> variants;
};

// Another suite's L2 segment size for the same device (an imported mt4g
// hierarchy_summary row `level:L2` with segment_bytes): what the number of
// L2 partitions should be, measured by other means.
struct PeerL2Segment {
  std::string source;  // the file's `source`, e.g. "mt4g@4cc55662a954"
  std::string path;
  double segment_bytes = 0;
  std::optional<double> l2_bytes;  // the file's device_l2_bytes
};

struct SharingDevice {
  std::string title;        // device name, "(<source>)" for imported results
  std::string device_line;  // "<name> · cc 9.0 · 132 SMs"
  std::string device_name;
  std::vector<std::string> paths;
  std::vector<DuplicationRow> duplication;
  std::vector<DsmRow> dsm;  // ascending cluster size
  std::optional<GpcMap> gpc_map;
  std::vector<L2Map> l2;
  std::vector<CoopRow> coop;
  // Imported peers' L2 segments for a device of this name (any section).
  std::vector<PeerL2Segment> peer_l2_segments;
};

// One SharingDevice per device (name, compute capability, SM count) and
// source with any of the experiments, in first-seen order.
std::vector<SharingDevice> BuildSharing(const std::vector<const ResultFile*>& files);

// The table builders of the section.
MarkdownTable DuplicationTable(const std::vector<DuplicationRow>& rows);
MarkdownTable DsmTable(const std::vector<DsmRow>& rows);
MarkdownTable GpcMapTable(const GpcMap& map);
MarkdownTable L2Table(const std::vector<L2Map>& maps);
MarkdownTable CoopTable(const std::vector<CoopRow>& rows);

// The L2 partitions inferred by l2_sm_map beside a peer's L2 segment size:
// "mt4g@x (file) measured an L2 segment of 25 MiB; with the 50 MiB L2 that is
// 2 segments. l2_sm_map inferred 2 partitions: they agree." (or "differ",
// or no verdict without a partition count). "" without a peer segment.
std::string PeerL2Check(const std::vector<L2Map>& maps, const PeerL2Segment& peer);

// Whether DSM latency lies between local shared memory and L2, as a
// finding: "yes (cluster sizes 2, 4)", "no: cluster size 8: DSM 300 cycles
// ≥ L2 262 cycles", or "cannot tell: ..." when no cluster size has all three.
std::string DsmCheck(const std::vector<DsmRow>& rows);

// Ascending SM indices as ranges: {0, 1, 8, 9, 12} -> "0-1, 8-9, 12".
std::string CompressRanges(std::vector<int> indices);

// The L2 lines of `map` in plotting order: by inferred partition, then index.
std::vector<int> LinesByPartition(const L2Map& map);

// "## intergroup sharing: <title>" and its tables; ends with a newline.
std::string RenderSharing(const SharingDevice& device);

// The sections of every device with sharing experiments, "" if none.
std::string RenderSharingSections(const std::vector<ResultFile>& files);

}  // namespace dissect::analysis

#endif  // DISSECT_ANALYSIS_SECTIONS_SHARING_H_
