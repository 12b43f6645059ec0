// The intergroup-sharing section of the report (see sharing.h).

#include "analysis/sections/sharing.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>
#include <tuple>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "analysis/sections/section_util.h"

namespace dissect::analysis {
namespace {

constexpr char kDuplication[] = "l1_duplication";
constexpr char kGpcTopology[] = "gpc_topology";
constexpr char kDsmLatency[] = "dsm_latency";
constexpr char kDsmBandwidth[] = "dsm_bandwidth";
constexpr char kL2SmMap[] = "l2_sm_map";
constexpr char kClusterCoop[] = "cluster_coop";
// Imported peer summaries (analysis/import: mt4g), for their L2 segment.
constexpr char kHierarchySummary[] = "hierarchy_summary";

// A vector of indices (GPC, partition) with -1 for a missing or NaN entry.
std::vector<int> IndexVector(const Row& row, std::string_view name) {
  std::vector<int> out;
  for (double v : RowVector(row, name)) out.push_back(std::isfinite(v) ? static_cast<int>(v) : -1);
  return out;
}

// The row's notes as `report` writes them, then the experiment's own label
// (gpc_topology's notes on inconsistent SMs) where they do not hold it.
std::string Note(const Row& row) {
  const std::string notes = RowNotes(row);
  if (row.label.empty() || absl::StrContains(notes, row.label)) return notes;
  return notes.empty() ? row.label : absl::StrCat(notes, "; ", row.label);
}

int ClusterSize(const Row& row) {
  return static_cast<int>(AxisNumber(row, "cluster_size").value_or(0));
}

DuplicationRow Duplication(const Row& row) {
  DuplicationRow d;
  d.kernel = row.Axis("kernel").value_or("?");
  d.layer = row.Axis("layer").value_or("?");
  d.batch = row.Axis("batch").value_or("");
  d.note = Note(row);
  if (row.error) return d;
  d.l1_hit_pct = FiniteCounter(row, "cupti/l1_hit_rate");
  d.lines_touched = FiniteCounter(row, "lines_touched");
  d.replication = FiniteCounter(row, "replication");
  d.duplicated_fraction = FiniteCounter(row, "duplicated_fraction");
  d.gpc_duplicated_fraction = FiniteCounter(row, "gpc_duplicated_fraction");
  d.cross_gpc_duplicated_fraction = FiniteCounter(row, "cross_gpc_duplicated_fraction");
  d.sms_used = FiniteCounter(row, "sms_used");
  return d;
}

GpcMap Gpc(const Row& row) {
  GpcMap g;
  g.launches = row.Axis("launches").value_or("?");
  g.cluster_size = row.Axis("cluster_size").value_or("?");
  g.gpcs = FiniteCounter(row, "gpcs");
  g.sms_mapped = FiniteCounter(row, "sms_mapped");
  g.inconsistent_sms = FiniteCounter(row, "inconsistent_sms");
  g.unresolved_sms = FiniteCounter(row, "unresolved_sms");
  g.max_active_clusters = FiniteCounter(row, "max_active_clusters");
  g.gpc_of_sm = IndexVector(row, "gpc_of_sm");
  g.gpc_sizes = RowVector(row, "gpc_sizes");
  g.note = Note(row);
  return g;
}

L2Map L2(const Row& row) {
  L2Map m;
  m.lines = row.Axis("lines").value_or("?");
  m.sm_stride = row.Axis("sm_stride").value_or("?");
  m.note = Note(row);
  if (row.error) return m;
  m.partitions = FiniteCounter(row, "partitions");
  m.near_cycles = FiniteCounter(row, "near_cycles");
  m.far_cycles = FiniteCounter(row, "far_cycles");
  m.far_minus_near_cycles = FiniteCounter(row, "far_minus_near_cycles");
  m.near_spread_cycles = FiniteCounter(row, "near_spread_cycles");
  m.retouch_cycles = FiniteCounter(row, "retouch_cycles");
  m.sms_measured = FiniteCounter(row, "sms_measured");
  m.line_count = static_cast<int>(AxisNumber(row, "lines").value_or(0));
  m.cycles = RowVector(row, "cycles");
  m.partition_of_line = IndexVector(row, "partition_of_line");
  m.near_partition_of_sm = IndexVector(row, "near_partition_of_sm");
  return m;
}

CoopVariant Coop(const Row& row) {
  CoopVariant v;
  v.note = Note(row);
  if (row.error) return v;
  v.us = RowRealTimeUs(row);
  v.speedup = FiniteCounter(row, "speedup_vs_layer");
  v.speedup_spread = FiniteCounter(row, "speedup_spread");
  v.l2_sectors_read = FiniteCounter(row, "cupti/l2_sectors_read");
  v.l1_hit_pct = FiniteCounter(row, "cupti/l1_hit_rate");
  v.duplicated_fraction = FiniteCounter(row, "duplicated_fraction");
  v.max_active_clusters = FiniteCounter(row, "max_active_clusters");
  return v;
}

// Why a row that reads a peer block's shared memory (dsm_bandwidth's
// dsm_peer, cluster_coop's coop) is not traffic between SMs, or "" if it
// is: a block whose peer ran on its own SM read it without leaving the SM,
// which is local shared memory however the row is labelled; a row without
// the fraction cannot show that its peers were elsewhere. `axis` names the
// row in the note.
std::string SameSmReason(const Row& row, const std::string& axis) {
  const std::string where =
      absl::StrCat("left out (", axis, " ", row.Axis(axis).value_or("?"), "): ");
  const std::optional<double> same_sm = FiniteCounter(row, "peer_same_sm_fraction");
  if (!same_sm) {
    return absl::StrCat(where, "no peer_same_sm_fraction: its peers may have shared an SM");
  }
  if (*same_sm <= 0) return "";
  return absl::StrFormat(
      "%speer_same_sm_fraction %.3g: those blocks read a peer on their own SM, not across SMs",
      where, *same_sm);
}

// The DSM rows of one device: latency and bandwidth rows by cluster size.
struct DsmCollector {
  std::map<int, DsmRow> rows;
  // (cluster size, experiment/path) already measured; and the notes of the
  // rows, by cluster size, in first-seen order.
  struct Noted {
    std::string experiment, path, note;
    bool error = false;
  };
  std::set<std::pair<int, std::string>> measured;
  std::map<int, std::vector<Noted>> noted;

  void Add(const std::string& experiment, const Row& row) {
    const int size = ClusterSize(row);
    DsmRow& d = rows[size];
    d.cluster_size = size;
    const std::string path = row.Axis("path").value_or("?");
    if (const std::string note = Note(row); !note.empty()) {
      noted[size].push_back({experiment, path, note, row.error});
    }
    if (row.error) return;
    if (!d.max_active_clusters) d.max_active_clusters = FiniteCounter(row, "max_active_clusters");
    if (experiment == kDsmBandwidth) {
      if (const std::string why = path == "dsm_peer" ? SameSmReason(row, "bytes_per_block") : "";
          !why.empty()) {
        noted[size].push_back({experiment, path, why, false});
        return;
      }
      const std::optional<double> gbps = FiniteCounter(row, "bandwidth_gbps");
      std::optional<double>& best = path == "shared_local" ? d.local_gbps : d.dsm_gbps;
      if (gbps && (!best || *gbps > *best)) best = gbps;
      if (gbps) measured.insert({size, absl::StrCat(experiment, "/", path)});
      return;
    }
    if (!measured.insert({size, absl::StrCat(experiment, "/", path)}).second) return;
    const std::optional<double> cycles = FiniteCounter(row, "cycles_per_load");
    if (path == "shared_local") {
      d.local_cycles = cycles;
    } else if (path == "l2") {
      d.l2_cycles = cycles;
    } else if (path == "dsm_peer") {
      d.peer_cycles = cycles;
      // Entry d is the peer at cluster distance d; entry 0, the block's own
      // shared memory through the cluster window, is the peer only in a
      // cluster of 1.
      const std::vector<double> by_peer = RowVector(row, "cycles_by_peer");
      std::vector<double> peers;
      for (size_t i = by_peer.size() > 1 ? 1 : 0; i < by_peer.size(); ++i) {
        if (std::isfinite(by_peer[i])) peers.push_back(by_peer[i]);
      }
      if (peers.empty()) return;
      d.peer_min_cycles = *std::min_element(peers.begin(), peers.end());
      d.peer_max_cycles = *std::max_element(peers.begin(), peers.end());
    }
  }

  // Rows ascending by cluster size, with the notes of their rows, one per
  // experiment and note: "dsm_latency (shared_local, l2): skipped: ...". A
  // skipped row of a path measured at that size by another row is left out.
  std::vector<DsmRow> Finish() {
    std::vector<DsmRow> out;
    for (auto& [size, row] : rows) {
      std::vector<std::pair<std::string, std::string>> reasons;  // (experiment, note)
      std::map<std::pair<std::string, std::string>, std::vector<std::string>> paths_of;
      for (const Noted& n : noted[size]) {
        const std::pair<std::string, std::string> reason{n.experiment, n.note};
        std::vector<std::string>& paths = paths_of[reason];
        if ((n.error && measured.count({size, absl::StrCat(n.experiment, "/", n.path)}) > 0) ||
            std::find(paths.begin(), paths.end(), n.path) != paths.end()) {
          continue;
        }
        if (paths.empty()) reasons.push_back(reason);
        paths.push_back(n.path);
      }
      for (const auto& reason : reasons) {
        row.notes.push_back(absl::StrCat(reason.first, " (", absl::StrJoin(paths_of[reason], ", "),
                                         "): ", reason.second));
      }
      out.push_back(std::move(row));
    }
    return out;
  }
};

// The cluster_coop rows of one device, in first-seen order.
std::vector<CoopRow> CoopRows(const std::vector<std::pair<const ResultFile*, const Row*>>& rows) {
  using Point = std::tuple<std::string, std::string, std::string, int>;
  std::vector<Point> order;
  std::map<Point, CoopRow> points;
  // The first layer row of each (kernel, layer, batch), at any cluster size.
  std::map<std::tuple<std::string, std::string, std::string>, CoopVariant> layer_rows;
  for (const auto& [file, row] : rows) {
    CoopRow c;
    c.kernel = row->Axis("kernel").value_or("?");
    c.layer = row->Axis("layer").value_or("?");
    c.batch = row->Axis("batch").value_or("");
    c.cluster_size = ClusterSize(*row);
    const std::string variant = row->Axis("variant").value_or("?");
    const Point point{c.kernel, c.layer, c.batch, c.cluster_size};
    CoopVariant v = Coop(*row);
    // The coop variant's gain is credited to DSM only where no block shared
    // an SM with a peer of its cluster; otherwise its time is left out. A
    // cluster of 1 has no peer (its fraction is NaN) and keeps its time.
    if (const std::string why = variant == "coop" && !row->error && c.cluster_size != 1
                                    ? SameSmReason(*row, "cluster_size")
                                    : "";
        !why.empty()) {
      v.us = v.speedup = v.speedup_spread = std::nullopt;
      v.note = v.note.empty() ? why : absl::StrCat(v.note, "; ", why);
    }
    if (variant == "layer" && !row->error)
      layer_rows.emplace(std::tie(c.kernel, c.layer, c.batch), v);
    auto [it, added] = points.emplace(point, c);
    if (added) order.push_back(point);
    it->second.variants.emplace(variant, v);
  }
  std::vector<CoopRow> out;
  for (const Point& point : order) {
    CoopRow& c = points[point];
    if (c.variants.count("layer") == 0) {
      const auto it = layer_rows.find(std::tie(c.kernel, c.layer, c.batch));
      if (it != layer_rows.end()) c.variants.emplace("layer", it->second);
    }
    out.push_back(std::move(c));
  }
  return out;
}

// An imported hierarchy_summary row of level L2 with a segment size.
std::optional<PeerL2Segment> PeerSegment(const ResultFile& f) {
  if (f.experiment != kHierarchySummary) return std::nullopt;
  for (const Row& row : f.rows) {
    if (row.error || row.Axis("level") != "L2") continue;
    const std::optional<double> segment = row.Counter("segment_bytes");
    if (!segment.has_value() || !std::isfinite(*segment) || *segment <= 0) continue;
    PeerL2Segment peer;
    peer.source = f.ContextOr("source", "an imported suite");
    peer.path = f.path;
    peer.segment_bytes = *segment;
    double l2 = 0;
    if (absl::SimpleAtod(f.ContextOr("device_l2_bytes", ""), &l2) && l2 > 0) peer.l2_bytes = l2;
    return peer;
  }
  return std::nullopt;
}

}  // namespace

bool IsSharingExperiment(std::string_view experiment) {
  for (const char* name :
       {kDuplication, kGpcTopology, kDsmLatency, kDsmBandwidth, kL2SmMap, kClusterCoop}) {
    if (experiment == name) return true;
  }
  return false;
}

std::vector<SharingDevice> BuildSharing(const std::vector<const ResultFile*>& files) {
  struct Group {
    SharingDevice device;
    DsmCollector dsm;
    std::vector<std::pair<const ResultFile*, const Row*>> coop;
  };
  std::vector<std::string> order;
  std::map<std::string, Group> groups;
  for (const ResultFile* f : files) {
    if (!IsSharingExperiment(f->experiment)) continue;
    auto [it, added] = groups.try_emplace(SectionDeviceKey(*f));
    Group& g = it->second;
    SharingDevice& d = g.device;
    if (added) {
      order.push_back(SectionDeviceKey(*f));
      d.title = SectionTitle(*f);
      d.device_name = f->ContextOr("device_name", "");
      d.device_line = SectionDeviceLine(*f);
    }
    d.paths.push_back(f->path);
    for (const Row& row : f->rows) {
      if (f->experiment == kDuplication) {
        d.duplication.push_back(Duplication(row));
      } else if (f->experiment == kGpcTopology) {
        if (!row.error && !d.gpc_map) d.gpc_map = Gpc(row);
      } else if (f->experiment == kDsmLatency || f->experiment == kDsmBandwidth) {
        g.dsm.Add(f->experiment, row);
      } else if (f->experiment == kL2SmMap) {
        d.l2.push_back(L2(row));
      } else if (f->experiment == kClusterCoop) {
        g.coop.push_back({f, &row});
      }
    }
  }
  std::vector<SharingDevice> out;
  for (const std::string& key : order) {
    Group& g = groups[key];
    g.device.dsm = g.dsm.Finish();
    g.device.coop = CoopRows(g.coop);
    if (!g.device.l2.empty()) {
      for (const ResultFile* f : files) {
        if (f->ContextOr("device_name", "") != g.device.device_name) continue;
        if (std::optional<PeerL2Segment> peer = PeerSegment(*f)) {
          g.device.peer_l2_segments.push_back(*std::move(peer));
        }
      }
    }
    out.push_back(std::move(g.device));
  }
  return out;
}
}  // namespace dissect::analysis
