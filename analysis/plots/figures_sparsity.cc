// Figures of the activation sparsity experiments: per layer, per channel
// and the sparse kernels' speedup.

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

// The paper's "across layers": per network, bars of each layer's zero
// fraction, one bar per activation_sparsity pass (source, threshold, batch).
void SparsityLayersFigure(const SparsityDevice& d, const std::string& network,
                          const std::vector<std::string>& inputs, DeviceFigures& out) {
  std::vector<const ActivationPass*> passes;
  std::vector<std::string> layers;
  for (const ActivationPass& p : d.passes) {
    if (p.network != network || p.layers.empty()) continue;
    passes.push_back(&p);
    for (const LayerSparsity& l : p.layers) {
      if (std::find(layers.begin(), layers.end(), l.name) == layers.end()) layers.push_back(l.name);
    }
  }
  if (passes.empty()) return;
  const std::string stem = absl::StrCat("sparsity_layers_", DeviceFolder(network));
  const std::string title = absl::StrCat(d.title, ": ", network, " zero fraction per layer");
  std::vector<std::string> titles;
  for (const ActivationPass* p : passes) {
    titles.push_back(absl::StrCat(p->source, " T=", p->threshold,
                                  p->batch.empty() ? "" : absl::StrCat(" batch ", p->batch)));
  }
  std::string data = absl::StrCat(
      "# ", stem, ".dat: ", title,
      "\n# columns: layer, zero (%) per pass: ", absl::StrJoin(titles, ", "), "; ? where absent\n");
  for (const std::string& name : layers) {
    absl::StrAppend(&data, DataLabel(name));
    for (const ActivationPass* p : passes) {
      std::optional<double> zero;
      for (const LayerSparsity& l : p->layers) {
        if (l.name == name && l.zero) zero = 100 * *l.zero;
      }
      absl::StrAppend(&data, " ", Value(zero));
    }
    data += "\n";
  }
  std::string script = ScriptHead(
      stem, inputs, std::max(800, 200 + 20 * static_cast<int>(layers.size() * passes.size())), 600,
      title);
  absl::StrAppend(&script, "set ylabel 'zero activations (%)'\n", "set yrange [0:100]\n",
                  "set style data histograms\n", "set style histogram clustered gap 1\n",
                  "set style fill solid 0.8 border -1\n", "set boxwidth 0.9\n",
                  "set datafile missing '?'\n", "set xtics rotate by -45 noenhanced\n",
                  "set grid ytics\n", "set key below\n", "plot ");
  std::vector<std::string> plots;
  for (size_t i = 0; i < titles.size(); ++i) {
    plots.push_back(absl::StrCat(i == 0 ? GnuplotQuoted(stem + ".dat") : "''", " using ", i + 2,
                                 i == 0 ? ":xtic(1)" : "", " title ", GnuplotQuoted(titles[i])));
  }
  absl::StrAppend(&script, absl::StrJoin(plots, ", \\\n     "), "\n");
  AddScript(stem, data, script, out);
}

// The paper's "across channels": per network, the sorted per-channel
// sparsity of a few layers (first to last) of its plain-ReLU pass (threshold
// 0; else its first pass with channels), on a common 0-1 channel axis.
void SparsityChannelsFigure(const SparsityDevice& d, const std::string& network,
                            const std::vector<std::string>& inputs, DeviceFigures& out) {
  constexpr int kCurves = 4;
  const ActivationPass* pass = nullptr;
  std::vector<int> with_channels;
  for (const ActivationPass& p : d.passes) {
    if (p.network != network) continue;
    std::vector<int> layers;
    for (size_t l = 0; l < p.layers.size(); ++l) {
      if (!p.layers[l].channels.empty()) layers.push_back(static_cast<int>(l));
    }
    if (layers.empty()) continue;
    if (pass == nullptr || (p.threshold == "0" && pass->threshold != "0")) {
      pass = &p;
      with_channels = layers;
    }
  }
  if (pass == nullptr) return;
  const std::string stem = absl::StrCat("sparsity_channels_", DeviceFolder(network));
  const std::string title = absl::StrCat(d.title, ": ", network, " per-channel sparsity, sorted (",
                                         pass->source, " T=", pass->threshold, ")");
  std::string data = absl::StrCat(
      "# ", stem, ".dat: ", title,
      "\n# one block per layer (gnuplot index); columns: channel rank (0-1), sparsity (%)\n");
  std::vector<std::string> plots;
  int block = 0;
  for (int i : SelectedLayers(static_cast<int>(with_channels.size()), kCurves)) {
    const LayerSparsity& layer = pass->layers[with_channels[i]];
    std::vector<double> channels = layer.channels;
    std::sort(channels.begin(), channels.end());
    absl::StrAppend(&data, block == 0 ? "" : "\n\n", "# index ", block, ": ", layer.name, "\n");
    for (size_t c = 0; c < channels.size(); ++c) {
      const double rank = channels.size() > 1 ? c / (channels.size() - 1.0) : 0;
      absl::StrAppend(&data, Number(rank), " ", Number(100 * channels[c]), "\n");
    }
    plots.push_back(absl::StrCat(GnuplotQuoted(stem + ".dat"), " index ", block,
                                 " using 1:2 with lines lw 2 title ", GnuplotQuoted(layer.name)));
    ++block;
  }
  std::string script = ScriptHead(stem, inputs, 960, 600, title);
  absl::StrAppend(&script, "set xlabel 'channels, sorted by sparsity (fraction of the layer)'\n",
                  "set ylabel 'channel sparsity (%)'\n", "set xrange [0:1]\n",
                  "set yrange [0:100]\n", "set grid xtics ytics\n", "set key below\n", "plot ",
                  absl::StrJoin(plots, ", \\\n     "), "\n");
  AddScript(stem, data, script, out);
}

// Speedup over dense vs sparsity for one shape: a panel per structure, a
// line per method (and batch) with the noise as error bars, y = 1 dashed
// and each crossover beyond noise marked on it.
void SparsitySpeedupFigure(const SparsityDevice& d, const std::string& shape,
                           const std::vector<std::string>& inputs, DeviceFigures& out) {
  std::vector<std::string> structures;
  bool batches = false;
  for (const SpeedCurve& c : d.speed) {
    if (c.shape != shape) continue;
    if (std::find(structures.begin(), structures.end(), c.structure) == structures.end()) {
      structures.push_back(c.structure);
    }
    for (const SpeedCurve& other : d.speed)
      batches |= other.shape == shape && other.batch != c.batch;
  }
  const std::string stem = absl::StrCat("sparsity_speedup_", DeviceFolder(shape));
  const std::string title = absl::StrCat(d.title, ": ", shape, " speedup over dense vs sparsity");
  std::string data = absl::StrCat(
      "# ", stem, ".dat: ", title,
      "\n# one block per curve (gnuplot index); columns: sparsity (%), speedup_vs_dense, .min, "
      ".max; crossover blocks: crossover sparsity (%), 1, method\n");
  int block = 0;
  const auto start_block = [&](const std::string& name) {
    absl::StrAppend(&data, block == 0 ? "" : "\n\n", "# index ", block, ": ", name, "\n");
    return block++;
  };
  std::vector<std::string> panels;
  for (const std::string& structure : structures) {
    std::vector<std::string> plots;
    std::string crossings;
    for (const SpeedCurve& c : d.speed) {
      if (c.shape != shape || c.structure != structure) continue;
      const std::string name = batches ? absl::StrCat(c.method, " batch ", c.batch) : c.method;
      std::string points;
      for (const SpeedPoint& p : c.points) {
        if (!p.speedup) continue;
        absl::StrAppend(&points, Number(p.sparsity_pct), " ", Number(*p.speedup), " ",
                        Number(p.speedup_min.value_or(*p.speedup)), " ",
                        Number(p.speedup_max.value_or(*p.speedup)), "\n");
      }
      if (points.empty()) continue;
      const int index = start_block(absl::StrCat(structure, " ", name));
      data += points;
      plots.push_back(absl::StrCat(GnuplotQuoted(stem + ".dat"), " index ", index,
                                   " using 1:2:3:4 with yerrorlines title ", GnuplotQuoted(name)));
      const Crossover x = NoiseCrossover(c);
      if (c.method != "dense_cublas" && x.sparsity_pct) {
        absl::StrAppend(&crossings, Number(*x.sparsity_pct), " 1 ", DataLabel(name), "\n");
      }
    }
    if (plots.empty()) continue;
    if (!crossings.empty()) {
      const int index = start_block(absl::StrCat(structure, " crossovers"));
      data += crossings;
      const std::string file = absl::StrCat(GnuplotQuoted(stem + ".dat"), " index ", index);
      plots.push_back(absl::StrCat(
          file,
          " using 1:2 with points pt 7 ps 1.5 lc rgb 'black' title 'crossover (beyond noise)'"));
      plots.push_back(absl::StrCat(file,
                                   " using 1:2:3 with labels rotate by 90 left offset 0,1 "
                                   "noenhanced notitle"));
    }
    plots.push_back("1 with lines dt 2 lc rgb 'gray40' title 'dense (y = 1)'");
    panels.push_back(absl::StrCat("set title ",
                                  GnuplotQuoted(structure.empty() ? shape : structure), "\n",
                                  "plot ", absl::StrJoin(plots, ", \\\n     "), "\n"));
  }
  if (panels.empty()) return;
  const int count = static_cast<int>(panels.size());
  std::string script = ScriptHead(stem, inputs, std::max(800, 520 * count), 600, title);
  absl::StrAppend(&script, "unset title\n", "set xlabel 'sparsity (%)'\n",
                  "set ylabel 'speedup over dense at 0 % (log scale)'\n", "set xrange [0:100]\n",
                  "set logscale y 2\n", "set grid xtics ytics\n", "set key below\n",
                  "set multiplot layout 1,", count, " title ", GnuplotQuoted(title), "\n",
                  absl::StrJoin(panels, ""), "unset multiplot\n");
  AddScript(stem, data, script, out);
}

}  // namespace

void AddSparsityFigures(const std::vector<const ResultFile*>& group, DeviceFigures& device) {
  const FigureInputs sparsity = InputsWhere(
      group, [](const std::string& experiment) { return IsSparsityExperiment(experiment); });
  const std::vector<std::string>& sparsity_inputs = sparsity.paths;
  for (const SparsityDevice& d : BuildSparsity(sparsity.files)) {
    std::vector<std::string> networks, shapes;
    for (const ActivationPass& p : d.passes) {
      if (std::find(networks.begin(), networks.end(), p.network) == networks.end()) {
        networks.push_back(p.network);
      }
    }
    for (const SpeedCurve& c : d.speed) {
      if (std::find(shapes.begin(), shapes.end(), c.shape) == shapes.end()) {
        shapes.push_back(c.shape);
      }
    }
    for (const std::string& network : networks) {
      SparsityLayersFigure(d, network, sparsity_inputs, device);
      SparsityChannelsFigure(d, network, sparsity_inputs, device);
    }
    for (const std::string& shape : shapes)
      SparsitySpeedupFigure(d, shape, sparsity_inputs, device);
  }
}

}  // namespace dissect::analysis::figures_internal
