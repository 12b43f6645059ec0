// The intergroup-sharing section of the report (see sharing.h).

#include "analysis/sharing.h"

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
#include "analysis/section_util.h"

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
constexpr const char* kCoopVariants[] = {"layer", "tiled", "coop"};

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
      if (const std::string why = path == "dsm_peer" ? SameSmReason(row, "bytes_per_block") : ""; !why.empty()) {
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

std::string HitCell(const std::optional<double>& percent) {
  return percent ? FormatPercent(*percent / 100) : kEmptyCell;
}

std::string Cycles(double cycles) { return absl::StrCat(FormatNumber(cycles), " cycles"); }

// One variant's value at a cluster_coop point, if it has the variant.
std::optional<double> VariantValue(const CoopRow& row, const char* variant,
                                   std::optional<double> CoopVariant::*value) {
  const auto it = row.variants.find(variant);
  return it == row.variants.end() ? std::nullopt : it->second.*value;
}

// "a / b / c" of one value per cluster_coop variant, "—" where none has it.
std::string PerVariant(const CoopRow& row, std::optional<double> CoopVariant::*value,
                       std::string (*format)(const std::optional<double>&)) {
  std::vector<std::string> cells;
  bool any = false;
  for (const char* name : kCoopVariants) {
    const std::optional<double> v = VariantValue(row, name, value);
    any = any || v.has_value();
    cells.push_back(format(v));
  }
  return any ? absl::StrJoin(cells, " / ") : kEmptyCell;
}

std::string SpeedupCell(const CoopRow& row, const char* variant) {
  const std::optional<double> speedup = VariantValue(row, variant, &CoopVariant::speedup);
  if (!speedup) return kEmptyCell;
  const std::optional<double> spread = VariantValue(row, variant, &CoopVariant::speedup_spread);
  return absl::StrCat(absl::StrFormat("%.3f", *speedup),
                      spread ? absl::StrCat(" ±", FormatPercent(*spread)) : "");
}

std::string DuplicationBlock(const SharingDevice& d) {
  return absl::StrCat(
      "### L1 duplication per kernel\n\n",
      "The paper's two per-benchmark figures, the L1 hit ratio and the fraction of L1 data "
      "duplicated across SMs, come from one run here: each row's hit ratio (CUPTI "
      "`cupti/l1_hit_rate`, `--metrics=l1_hit_rate`; — where the run had no counters) and its "
      "duplication (the traced build's per-SM bitmaps of the 128-byte lines each SM loaded) "
      "are from the same result row. Replication: SMs that loaded a touched line, on average "
      "(the per-SM line counts added up ÷ the distinct lines); duplicated: the share of the "
      "per-SM line copies that another SM also holds, 1 − 1 ÷ replication; within a GPC: the "
      "same over the SMs of each GPC; across GPCs: with each GPC as one unit (— without a GPC "
      "map). The bitmaps count loads, not residency: an upper bound on the copies L1 holds at "
      "once.\n\n",
      RenderMarkdownTable(DuplicationTable(d.duplication)));
}

std::string DsmBlock(const SharingDevice& d) {
  return absl::StrCat(
      "### distributed shared memory by cluster size\n\n",
      "Latency in cycles per dependent load (dsm_latency): local shared memory, a peer block's "
      "shared memory through DSM (the mean over the peers, and the range over peer distance), "
      "and L2. Bandwidth (dsm_bandwidth): the best over the bytes moved per block. Max active "
      "clusters: cudaOccupancyMaxActiveClusters.\n\n",
      RenderMarkdownTable(DsmTable(d.dsm)), "\n",
      "Does DSM latency lie between local shared memory and L2? ", DsmCheck(d.dsm), "\n");
}

std::string GpcBlock(const GpcMap& g) {
  std::vector<std::string> sizes;
  for (double s : g.gpc_sizes) sizes.push_back(FormatNumber(s));
  std::string out = absl::StrCat(
      "### GPC map\n\n", "From gpc_topology at launches ", g.launches, ", cluster size ",
      g.cluster_size, ": ", OptionalCell(g.gpcs), " GPCs, ", OptionalCell(g.sms_mapped), " of ",
      g.gpc_of_sm.size(), " SMs mapped, SMs per GPC ",
      sizes.empty() ? std::string(kEmptyCell) : absl::StrJoin(sizes, ", "), "; ",
      OptionalCell(g.inconsistent_sms),
      " inconsistent SM(s) (an SM seen in more than one GPC across "
      "launches)");
  if (g.unresolved_sms) {
    absl::StrAppend(&out, "; ", OptionalCell(g.unresolved_sms),
                    " unresolved SM(s) (in groups smaller than the smallest cluster size, "
                    "which no GPC is: no GPC given)");
  }
  absl::StrAppend(&out, "; max active clusters ", OptionalCell(g.max_active_clusters), ".");
  if (!g.note.empty()) absl::StrAppend(&out, " Note: ", g.note, ".");
  return absl::StrCat(out, "\n\n", RenderMarkdownTable(GpcMapTable(g)));
}

std::string L2Block(const SharingDevice& d) {
  std::string out = absl::StrCat(
      "### near and far L2\n\n",
      "From l2_sm_map: each SM times its first touch of lines homed in every L2 partition, "
      "after a sweep of more than one partition has pushed out its near copies of them. Near: "
      "the mean latency from an SM to the partition it reaches fastest; far: to the others; "
      "per-SM spread: how much the near latency varies over the SMs; re-touch: the same lines "
      "read again at once, a near hit by construction (a near latency far above it is not a "
      "near L2 hit). SMs near each partition: how many SMs reach partition P fastest.\n\n",
      RenderMarkdownTable(L2Table(d.l2)));
  for (const PeerL2Segment& peer : d.peer_l2_segments) {
    absl::StrAppend(&out, "\n", PeerL2Check(d.l2, peer), "\n");
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

std::string CoopBlock(const SharingDevice& d) {
  return absl::StrCat(
      "### cluster cooperation\n\n",
      "cluster_coop: the layer kernel, the same work tiled per cluster without DSM (tiled) and "
      "the cluster-cooperative kernel that shares its tiles through DSM (coop). Times are row "
      "medians; speedup over the layer kernel with its spread; counters and the duplicated "
      "fraction as layer / tiled / coop.\n\n",
      RenderMarkdownTable(CoopTable(d.coop)));
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

std::string PeerL2Check(const std::vector<L2Map>& maps, const PeerL2Segment& peer) {
  const double mib = 1024.0 * 1024.0;
  std::string out = absl::StrCat(peer.source, " (`", peer.path, "`) measured an L2 segment of ",
                                 FormatNumber(peer.segment_bytes / mib), " MiB");
  if (!peer.l2_bytes.has_value()) return absl::StrCat(out, "; the file gives no L2 size.");
  const double segments = *peer.l2_bytes / peer.segment_bytes;
  absl::StrAppend(&out, "; with the ", FormatNumber(*peer.l2_bytes / mib), " MiB L2 that is ",
                  FormatNumber(segments), " segments.");
  std::optional<double> partitions;
  for (const L2Map& m : maps) {
    if (m.partitions.has_value() && std::isfinite(*m.partitions)) {
      partitions = m.partitions;
      break;
    }
  }
  if (!partitions.has_value()) {
    return absl::StrCat(out, " l2_sm_map inferred no partition count to compare.");
  }
  return absl::StrCat(out, " l2_sm_map inferred ", FormatNumber(*partitions), " partition(s): ",
                      std::fabs(*partitions - segments) < 0.5 ? "they agree."
                                                              : "they differ (a finding).");
}

MarkdownTable DuplicationTable(const std::vector<DuplicationRow>& rows) {
  MarkdownTable t = ColumnsTable({{"kernel", false},
                                  {"layer", false},
                                  {"batch", true},
                                  {"L1 hit ratio", true},
                                  {"lines touched", true},
                                  {"replication (SMs/line)", true},
                                  {"duplicated", true},
                                  {"duplicated within a GPC", true},
                                  {"duplicated across GPCs", true},
                                  {"SMs used", true},
                                  {"notes", false}});
  for (const DuplicationRow& r : rows) {
    t.rows.push_back({CellText(r.kernel), CellText(r.layer), r.batch.empty() ? kEmptyCell : r.batch,
                      HitCell(r.l1_hit_pct), OptionalCell(r.lines_touched),
                      OptionalCell(r.replication), OptionalPercentCell(r.duplicated_fraction),
                      OptionalPercentCell(r.gpc_duplicated_fraction),
                      OptionalPercentCell(r.cross_gpc_duplicated_fraction),
                      OptionalCell(r.sms_used), CellText(r.note)});
  }
  return t;
}

MarkdownTable DsmTable(const std::vector<DsmRow>& rows) {
  MarkdownTable t = ColumnsTable({{"cluster size", true},
                                  {"max active clusters", true},
                                  {"local shared (cycles)", true},
                                  {"DSM peer (cycles)", true},
                                  {"DSM peer range (cycles)", true},
                                  {"L2 (cycles)", true},
                                  {"local shared (GB/s)", true},
                                  {"DSM (GB/s)", true},
                                  {"DSM / local", true},
                                  {"notes", false}});
  for (const DsmRow& r : rows) {
    std::string range = kEmptyCell;
    if (r.peer_min_cycles && r.peer_max_cycles) {
      range = *r.peer_min_cycles == *r.peer_max_cycles
                  ? FormatNumber(*r.peer_min_cycles)
                  : absl::StrCat(FormatNumber(*r.peer_min_cycles), "–",
                                 FormatNumber(*r.peer_max_cycles));
    }
    std::string ratio = kEmptyCell;
    if (r.local_gbps && r.dsm_gbps && *r.local_gbps > 0) {
      ratio = absl::StrFormat("%.2f", *r.dsm_gbps / *r.local_gbps);
    }
    t.rows.push_back({absl::StrCat(r.cluster_size), OptionalCell(r.max_active_clusters),
                      OptionalCell(r.local_cycles), OptionalCell(r.peer_cycles), range,
                      OptionalCell(r.l2_cycles), OptionalCell(r.local_gbps),
                      OptionalCell(r.dsm_gbps), ratio, CellText(absl::StrJoin(r.notes, "; "))});
  }
  return t;
}

std::string DsmCheck(const std::vector<DsmRow>& rows) {
  std::vector<std::string> sizes, problems;
  for (const DsmRow& r : rows) {
    if (!r.local_cycles || !r.peer_cycles || !r.l2_cycles) continue;
    sizes.push_back(absl::StrCat(r.cluster_size));
    if (*r.peer_cycles <= *r.local_cycles) {
      problems.push_back(absl::StrCat("cluster size ", r.cluster_size, ": DSM ",
                                      Cycles(*r.peer_cycles), " ≤ local shared ",
                                      Cycles(*r.local_cycles)));
    }
    if (*r.peer_cycles >= *r.l2_cycles) {
      problems.push_back(absl::StrCat("cluster size ", r.cluster_size, ": DSM ",
                                      Cycles(*r.peer_cycles), " ≥ L2 ", Cycles(*r.l2_cycles)));
    }
  }
  if (sizes.empty()) {
    return "cannot tell: no cluster size has local shared, DSM peer and L2 latency.";
  }
  if (!problems.empty()) return absl::StrCat("no: ", absl::StrJoin(problems, "; "), ".");
  return absl::StrCat("yes (cluster size", sizes.size() > 1 ? "s " : " ",
                      absl::StrJoin(sizes, ", "), ").");
}

std::string CompressRanges(std::vector<int> indices) {
  std::sort(indices.begin(), indices.end());
  indices.erase(std::unique(indices.begin(), indices.end()), indices.end());
  std::vector<std::string> ranges;
  for (size_t i = 0; i < indices.size();) {
    size_t j = i;
    while (j + 1 < indices.size() && indices[j + 1] == indices[j] + 1) ++j;
    ranges.push_back(j == i ? absl::StrCat(indices[i]) : absl::StrCat(indices[i], "-", indices[j]));
    i = j + 1;
  }
  return absl::StrJoin(ranges, ", ");
}

MarkdownTable GpcMapTable(const GpcMap& map) {
  MarkdownTable t = ColumnsTable({{"GPC", false}, {"SMs", true}, {"SM indices", false}});
  std::map<int, std::vector<int>> sms_of;
  for (size_t sm = 0; sm < map.gpc_of_sm.size(); ++sm) {
    sms_of[map.gpc_of_sm[sm]].push_back(static_cast<int>(sm));
  }
  for (const auto& [gpc, sms] : sms_of) {
    if (gpc < 0) continue;
    t.rows.push_back({absl::StrCat(gpc), absl::StrCat(sms.size()), CompressRanges(sms)});
  }
  if (const auto it = sms_of.find(-1); it != sms_of.end()) {
    // gpc_topology gives unresolved SMs -1 too.
    const bool unresolved = map.unresolved_sms.value_or(0) > 0;
    t.rows.push_back({unresolved ? "unmapped or unresolved" : "unmapped",
                      absl::StrCat(it->second.size()), CompressRanges(it->second)});
  }
  return t;
}

MarkdownTable L2Table(const std::vector<L2Map>& maps) {
  MarkdownTable t = ColumnsTable({{"lines", true},
                                  {"SM stride", true},
                                  {"partitions", true},
                                  {"SMs measured", true},
                                  {"near (cycles)", true},
                                  {"far (cycles)", true},
                                  {"far − near (cycles)", true},
                                  {"per-SM spread of near (cycles)", true},
                                  {"re-touch (cycles)", true},
                                  {"SMs near each partition", false},
                                  {"notes", false}});
  for (const L2Map& m : maps) {
    std::map<int, int> near_count;
    for (int p : m.near_partition_of_sm) {
      if (p >= 0) ++near_count[p];
    }
    std::vector<std::string> counts;
    for (const auto& [p, n] : near_count) counts.push_back(absl::StrCat("P", p, ": ", n));
    t.rows.push_back({m.lines, m.sm_stride, OptionalCell(m.partitions),
                      OptionalCell(m.sms_measured), OptionalCell(m.near_cycles),
                      OptionalCell(m.far_cycles), OptionalCell(m.far_minus_near_cycles),
                      OptionalCell(m.near_spread_cycles), OptionalCell(m.retouch_cycles),
                      counts.empty() ? kEmptyCell : absl::StrJoin(counts, ", "), CellText(m.note)});
  }
  return t;
}

std::vector<int> LinesByPartition(const L2Map& map) {
  std::vector<int> lines(map.line_count);
  std::iota(lines.begin(), lines.end(), 0);
  auto partition = [&](int line) {
    return line < static_cast<int>(map.partition_of_line.size()) ? map.partition_of_line[line] : -1;
  };
  std::stable_sort(lines.begin(), lines.end(),
                   [&](int a, int b) { return partition(a) < partition(b); });
  return lines;
}

MarkdownTable CoopTable(const std::vector<CoopRow>& rows) {
  MarkdownTable t = ColumnsTable({{"kernel", false},
                                  {"layer", false},
                                  {"batch", true},
                                  {"cluster size", true},
                                  {"max active clusters", true},
                                  {"layer (µs)", true},
                                  {"tiled (µs)", true},
                                  {"coop (µs)", true},
                                  {"tiled speedup", true},
                                  {"coop speedup", true},
                                  {"L2 sectors read", true},
                                  {"L1 hit ratio", true},
                                  {"duplicated", true},
                                  {"notes", false}});
  for (const CoopRow& r : rows) {
    std::optional<double> active;
    std::vector<std::string> notes;
    for (const char* name : kCoopVariants) {
      const auto it = r.variants.find(name);
      if (it == r.variants.end()) continue;
      if (name != std::string("layer") && !active) active = it->second.max_active_clusters;
      if (!it->second.note.empty()) notes.push_back(absl::StrCat(name, ": ", it->second.note));
    }
    t.rows.push_back({CellText(r.kernel), CellText(r.layer), r.batch.empty() ? kEmptyCell : r.batch,
                      absl::StrCat(r.cluster_size), OptionalCell(active),
                      OptionalCell(VariantValue(r, "layer", &CoopVariant::us)),
                      OptionalCell(VariantValue(r, "tiled", &CoopVariant::us)),
                      OptionalCell(VariantValue(r, "coop", &CoopVariant::us)),
                      SpeedupCell(r, "tiled"), SpeedupCell(r, "coop"),
                      PerVariant(r, &CoopVariant::l2_sectors_read, OptionalCell),
                      PerVariant(r, &CoopVariant::l1_hit_pct, HitCell),
                      PerVariant(r, &CoopVariant::duplicated_fraction, OptionalPercentCell),
                      CellText(absl::StrJoin(notes, "; "))});
  }
  return t;
}

std::string RenderSharing(const SharingDevice& d) {
  std::vector<std::string> blocks = {
      absl::StrCat("## intergroup sharing: ", d.title, "\n"),
      absl::StrCat(d.device_line, " · files: `", absl::StrJoin(d.paths, "`, `"), "`\n")};
  if (!d.duplication.empty()) blocks.push_back(DuplicationBlock(d));
  if (!d.dsm.empty()) blocks.push_back(DsmBlock(d));
  if (d.gpc_map) blocks.push_back(GpcBlock(*d.gpc_map));
  if (!d.l2.empty()) blocks.push_back(L2Block(d));
  if (!d.coop.empty()) blocks.push_back(CoopBlock(d));
  return absl::StrJoin(blocks, "\n");
}

std::string RenderSharingSections(const std::vector<ResultFile>& files) {
  std::vector<const ResultFile*> pointers;
  for (const ResultFile& f : files) pointers.push_back(&f);
  std::vector<std::string> sections;
  for (const SharingDevice& d : BuildSharing(pointers)) sections.push_back(RenderSharing(d));
  return absl::StrJoin(sections, "\n");
}

}  // namespace dissect::analysis
