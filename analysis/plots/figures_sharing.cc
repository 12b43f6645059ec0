// Figures of the intergroup sharing experiments: L1 duplication, DSM,
// the L2 slice heatmap and the GPC map.

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "analysis/plots/figures_internal.h"
#include "analysis/format/format.h"
#include "analysis/sections/l1_bypass.h"
#include "analysis/sections/memory_hierarchy.h"
#include "analysis/sections/provenance.h"
#include "analysis/sections/sharing.h"
#include "analysis/sections/sparsity.h"
#include "analysis/sections/stalls.h"

namespace dissect::analysis::figures_internal {
namespace {

// The paper's figures: per kernel, layer and batch, the L1 hit ratio and the
// duplicated fraction, side by side, from one run.
void DuplicationFigure(const SharingDevice& d, const std::vector<std::string>& inputs,
                       DeviceFigures& out) {
  const std::string stem = "sharing_l1_duplication";
  const std::string title =
      absl::StrCat(d.title, ": L1 hit ratio and duplicated L1 data per kernel (one run)");
  std::string data = absl::StrCat(
      "# ", stem, ".dat: ", title,
      "\n# columns: kernel layer batch, L1 hit ratio (%, cupti/l1_hit_rate), duplicated "
      "fraction (%); ? where absent\n");
  int bars = 0;
  for (const DuplicationRow& r : d.duplication) {
    if (!r.l1_hit_pct && !r.duplicated_fraction) continue;
    ++bars;
    absl::StrAppend(
        &data,
        DataLabel(absl::StrCat(r.kernel, " ", r.layer,
                               r.batch.empty() ? "" : absl::StrCat(" batch ", r.batch))),
        " ", Value(r.l1_hit_pct), " ",
        Value(r.duplicated_fraction ? std::optional<double>(100 * *r.duplicated_fraction)
                                    : std::nullopt),
        "\n");
  }
  if (bars == 0) return;
  std::string script = ScriptHead(stem, inputs, std::max(800, 200 + 60 * bars), 600, title);
  absl::StrAppend(&script, "set ylabel '%'\n", "set yrange [0:100]\n",
                  "set style data histograms\n", "set style histogram clustered gap 1\n",
                  "set style fill solid 0.8 border -1\n", "set boxwidth 0.9\n",
                  "set datafile missing '?'\n", "set xtics rotate by -45 noenhanced\n",
                  "set grid ytics\n", "set key below\n", "plot ", GnuplotQuoted(stem + ".dat"),
                  " using 2:xtic(1) title 'L1 hit ratio', \\\n     '' using 3 title "
                  "'duplicated fraction of L1 data'\n");
  AddScript(stem, data, script, out);
}

// DSM latency (local shared, DSM peer with its range over peer distance, L2)
// and bandwidth (local shared, DSM) vs cluster size, side by side.
void DsmFigure(const SharingDevice& d, const std::vector<std::string>& inputs, DeviceFigures& out) {
  const std::string stem = "sharing_dsm";
  const std::string title = absl::StrCat(d.title, ": distributed shared memory vs cluster size");
  std::string data = absl::StrCat(
      "# ", stem, ".dat: ", title,
      "\n# columns: cluster_size, latency (cycles/load): local_shared dsm_peer_mean "
      "dsm_peer_min dsm_peer_max l2, bandwidth (GB/s): local_shared dsm; ? where absent\n");
  int points = 0;
  int lo = 0, hi = 0;
  for (const DsmRow& r : d.dsm) {
    const bool any = r.local_cycles || r.peer_cycles || r.l2_cycles || r.local_gbps || r.dsm_gbps;
    if (!any || r.cluster_size <= 0) continue;
    ++points;
    lo = lo == 0 ? r.cluster_size : std::min(lo, r.cluster_size);
    hi = std::max(hi, r.cluster_size);
    // Without per-peer values the range is the mean itself.
    absl::StrAppend(&data, r.cluster_size, " ", Value(r.local_cycles), " ", Value(r.peer_cycles),
                    " ", Value(r.peer_min_cycles ? r.peer_min_cycles : r.peer_cycles), " ",
                    Value(r.peer_max_cycles ? r.peer_max_cycles : r.peer_cycles), " ",
                    Value(r.l2_cycles), " ", Value(r.local_gbps), " ", Value(r.dsm_gbps), "\n");
  }
  if (points == 0) return;
  const std::string file = GnuplotQuoted(stem + ".dat");
  std::string script = ScriptHead(stem, inputs, 1200, 520, title);
  absl::StrAppend(
      &script, "unset title\n", "set datafile missing '?'\n", "set logscale x 2\n",
      "set xlabel 'cluster size (blocks)'\n", "set xrange [", Number(lo / 1.4), ":",
      Number(hi * 1.4), "]\n", "set xtics 2\n", "set grid xtics ytics\n", "set key below\n",
      "set multiplot layout 1,2 title ", GnuplotQuoted(title), "\n",
      "set ylabel 'latency (cycles)'\n", "set yrange [0:*]\n", "plot ", file,
      " using 1:2 with linespoints title 'local shared', \\\n     ", file,
      " using 1:3:4:5 with yerrorlines title 'DSM peer (mean, range over peers)', \\\n     ", file,
      " using 1:6 with linespoints title 'L2'\n", "set ylabel 'bandwidth (GB/s)'\n", "plot ", file,
      " using 1:7 with linespoints title 'local shared', \\\n     ", file,
      " using 1:8 with linespoints title 'DSM'\n", "unset multiplot\n");
  AddScript(stem, data, script, out);
}

// The SM x L2 line latency matrix of the first l2_sm_map row that has one:
// SMs on y, lines on x grouped by their inferred partition.
void L2HeatmapFigure(const SharingDevice& d, const std::vector<std::string>& inputs,
                     DeviceFigures& out) {
  const L2Map* map = nullptr;
  for (const L2Map& m : d.l2) {
    if (m.line_count > 0 && !m.cycles.empty() && m.cycles.size() % m.line_count == 0) {
      map = &m;
      break;
    }
  }
  if (map == nullptr) return;
  const std::string stem = "sharing_l2_heatmap";
  const std::string title = absl::StrCat(d.title, ": SM to L2 line latency");
  const std::vector<int> lines = LinesByPartition(*map);
  const size_t sms = map->cycles.size() / map->line_count;
  std::string data = absl::StrCat(
      "# ", stem, ".dat: ", title,
      "\n# columns: column (lines ordered by inferred partition), SM, cycles (NaN: not "
      "measured), line index; one block per SM\n");
  for (size_t sm = 0; sm < sms; ++sm) {
    if (sm > 0) data += "\n";
    for (size_t x = 0; x < lines.size(); ++x) {
      absl::StrAppend(&data, x, " ", sm, " ", Number(map->cycles[sm * map->line_count + lines[x]]),
                      " ", lines[x], "\n");
    }
  }
  // One tic per partition, at the middle of its columns.
  std::vector<std::string> tics;
  for (size_t first = 0; first < lines.size();) {
    const auto partition = [&](size_t x) {
      const int line = lines[x];
      return line < static_cast<int>(map->partition_of_line.size()) ? map->partition_of_line[line]
                                                                    : -1;
    };
    size_t last = first;
    while (last + 1 < lines.size() && partition(last + 1) == partition(first)) ++last;
    const int p = partition(first);
    tics.push_back(absl::StrCat(GnuplotQuoted(p < 0 ? std::string("?") : absl::StrCat("P", p)), " ",
                                Number((first + last) / 2.0)));
    first = last + 1;
  }
  std::string script =
      ScriptHead(stem, inputs, 960, std::max(480, 200 + 8 * static_cast<int>(sms)), title);
  absl::StrAppend(&script, "set datafile missing 'nan'\n",
                  "set xlabel 'L2 lines, grouped by inferred partition'\n", "set ylabel 'SM'\n",
                  "set cblabel 'latency (cycles)'\n", "set xtics (", absl::StrJoin(tics, ", "),
                  ")\n", "set xrange [-0.5:", Number(lines.size() - 0.5), "]\n",
                  "set yrange [-0.5:", Number(sms - 0.5), "]\n",
                  "set palette rgbformulae 33,13,10\n", "plot ", GnuplotQuoted(stem + ".dat"),
                  " using 1:2:3 with image pixels notitle\n");
  AddScript(stem, data, script, out);
}

// The SM -> GPC map: one point per SM at its GPC, unmapped SMs at -1.
void GpcMapFigure(const SharingDevice& d, const std::vector<std::string>& inputs,
                  DeviceFigures& out) {
  if (!d.gpc_map || d.gpc_map->gpc_of_sm.empty()) return;
  const GpcMap& map = *d.gpc_map;
  const std::string stem = "sharing_gpc_map";
  const std::string title = absl::StrCat(d.title, ": GPC of each SM");
  std::string data =
      absl::StrCat("# ", stem, ".dat: ", title, "\n# columns: SM, GPC (-1: unmapped)\n");
  int gpcs = 0;
  for (size_t sm = 0; sm < map.gpc_of_sm.size(); ++sm) {
    absl::StrAppend(&data, sm, " ", map.gpc_of_sm[sm], "\n");
    gpcs = std::max(gpcs, map.gpc_of_sm[sm] + 1);
  }
  std::vector<std::string> tics = {"'unmapped' -1"};
  for (int g = 0; g < gpcs; ++g) tics.push_back(absl::StrCat("'GPC ", g, "' ", g));
  const int sms = static_cast<int>(map.gpc_of_sm.size());
  std::string script =
      ScriptHead(stem, inputs, std::max(800, 200 + 6 * sms), std::max(360, 160 + 30 * gpcs), title);
  absl::StrAppend(&script, "set xlabel 'SM'\n", "set xrange [-1:", sms, "]\n",
                  "set yrange [-1.5:", Number(gpcs - 0.5), "]\n", "set ytics (",
                  absl::StrJoin(tics, ", "), ")\n", "set grid xtics ytics\n", "plot ",
                  GnuplotQuoted(stem + ".dat"),
                  " using 1:2:($2 + 2) with points pt 5 ps 1.2 lc variable notitle\n");
  AddScript(stem, data, script, out);
}

}  // namespace

void AddSharingFigures(const std::vector<const ResultFile*>& group, DeviceFigures& device) {
  const FigureInputs sharing = InputsWhere(
      group, [](const std::string& experiment) { return IsSharingExperiment(experiment); });
  const std::vector<std::string>& sharing_inputs = sharing.paths;
  for (const SharingDevice& d : BuildSharing(sharing.files)) {
    DuplicationFigure(d, sharing_inputs, device);
    DsmFigure(d, sharing_inputs, device);
    L2HeatmapFigure(d, sharing_inputs, device);
    GpcMapFigure(d, sharing_inputs, device);
  }
}

}  // namespace dissect::analysis::figures_internal
