// The intergroup-sharing section's text: per-experiment blocks and tables
// of a SharingDevice (see sharing.h).

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
#include "analysis/sections/sharing.h"

namespace dissect::analysis {
namespace {

constexpr const char* kCoopVariants[] = {"layer", "tiled", "coop"};

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
  return absl::StrCat(
      out, " l2_sm_map inferred ", FormatNumber(*partitions), " partition(s): ",
      std::fabs(*partitions - segments) < 0.5 ? "they agree." : "they differ (a finding).");
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
