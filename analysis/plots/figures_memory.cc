// Figures of the memory experiments: latency and bandwidth curves, warp
// stall breakdowns and l1_bypass.

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

void LatencyFigure(const std::vector<const ResultFile*>& files,
                   const std::vector<std::string>& inputs, const std::string& device,
                   DeviceFigures& out) {
  const std::vector<LatencyCurve> curves = BuildLatencyCurves(files);
  std::vector<Line> lines;
  for (const std::string& path : LatencyPaths()) {
    const LatencyCurve* curve = ChooseLatencyCurve(curves, path);
    if (curve == nullptr) continue;
    Line line;
    line.title = absl::StrCat(path, " (", curve->order.empty() ? "" : curve->order + ", ",
                              "stride ", FormatBytes(curve->stride), ")");
    for (const CurvePoint& p : curve->points) line.points.push_back({p.x, p.y});
    lines.push_back(std::move(line));
  }
  if (lines.empty()) return;
  AddFigure("latency_vs_footprint", absl::StrCat(device, ": load latency vs footprint"),
            "latency (cycles, log scale)", "cycles_per_load", lines, "", inputs, out);
}

// What sets a bandwidth row's curve apart beyond its op and width: for an
// imported row the program and method that measured it (two programs of
// one suite measure differently), for ours roaming reads; "" otherwise.
std::string BandwidthSeries(const ResultFile& file, const Row& row) {
  if (!file.ContextOr("source", "").empty()) {
    const std::string method = LabelMethod(row);
    return absl::StrCat(MeasuringProgram(file), method.empty() ? "" : ": ", method);
  }
  if (row.Axis("sharing") == std::optional<std::string>("roaming")) {
    return "every block roaming the footprint";
  }
  return "";
}

// The dashed DRAM peak line of the first file of `files` that knows it,
// "" when none does.
std::string DramPeakPlot(const std::vector<const ResultFile*>& files) {
  for (const ResultFile* f : files) {
    double peak = 0;
    if (f->experiment != "memory_bandwidth" ||
        !absl::SimpleAtod(f->ContextOr("device_dram_peak_gbps", ""), &peak) || !(peak > 0)) {
      continue;
    }
    return absl::StrCat(
        Number(peak), " with lines dashtype 2 lc rgb 'black' title ",
        GnuplotQuoted(absl::StrCat("DRAM peak, ", FormatNumber(peak), " GB/s (",
                                   DeviceFactOrigin(*f, "device_dram_peak_gbps"), ")")));
  }
  return "";
}

void BandwidthFigure(const std::vector<const ResultFile*>& files,
                     const std::vector<std::string>& inputs, const std::string& device,
                     DeviceFigures& out) {
  auto op_rank = [](const std::string& op) {
    return op == "read" ? 0 : op == "write" ? 1 : op == "copy" ? 2 : 3;
  };
  // (series, op rank, op, width) -> footprint -> bytes_in_flight_per_thread
  // (-1 where the file has no such axis) -> GB/s samples
  std::map<std::tuple<std::string, int, std::string, double>,
           std::map<double, std::map<double, std::vector<double>>>>
      grouped;
  for (const ResultFile* f : files) {
    if (f->experiment != "memory_bandwidth") continue;
    for (const Row& row : f->rows) {
      const std::optional<double> gbps = row.Counter("bandwidth_gbps");
      const std::optional<double> footprint = AxisNumber(row, "footprint_bytes");
      const std::optional<double> width = AxisNumber(row, "width_bits");
      if (row.error || !gbps || !std::isfinite(*gbps) || *gbps <= 0 || !footprint ||
          *footprint <= 0 || !width) {
        continue;
      }
      const std::string op = row.Axis("op").value_or("?");
      const double in_flight = AxisNumber(row, "bytes_in_flight_per_thread").value_or(-1);
      grouped[{BandwidthSeries(*f, row), op_rank(op), op, *width}][*footprint][in_flight].push_back(
          *gbps);
    }
  }
  if (grouped.empty()) return;
  std::vector<Line> lines;
  for (const auto& [key, by_footprint] : grouped) {
    Line line;
    const std::string& series = std::get<0>(key);
    const std::string op_width =
        absl::StrCat(std::get<2>(key), ", ", FormatNumber(std::get<3>(key)), "-bit");
    line.title = series.empty() ? op_width : absl::StrCat(series, " (", op_width, ")");
    for (const auto& [footprint, by_in_flight] : by_footprint) {
      line.points.push_back({footprint, BestOfMedians(by_in_flight)});
    }
    lines.push_back(std::move(line));
  }
  AddFigure("bandwidth_vs_footprint", absl::StrCat(device, ": streaming bandwidth vs footprint"),
            "bandwidth (GB/s, log scale)", "bandwidth_gbps", lines, DramPeakPlot(files), inputs,
            out);
}

// Distinct fill colours for the stacked bars, one per reason in order
// (gnuplot's default set has only eight).
constexpr const char* kStallColors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                        "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
                                        "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5",
                                        "#c49c94", "#f7b6d2", "#c7c7c7", "#dbdb8d", "#9edae5"};

// A gnuplot data-file string ("..." with no double quote inside).
std::string DataLabel(const std::string& text) {
  std::string out = "\"";
  for (char c : text) out += (c == '"' || c == '\n' || c == '\r') ? '\'' : c;
  return out + "\"";
}

// One stacked bar per stall row: the fractions of the row's stall per
// reason (see stalls.h), reasons in the order of the report's table.
void StallFigure(const std::vector<const ResultFile*>& files, const std::string& device,
                 DeviceFigures& out) {
  const StallTable table = BuildStallTable(files);
  if (table.rows.empty()) return;
  const std::string stem = "stall_breakdown";
  const std::string title =
      absl::StrCat(device, ": warp stall reasons (fraction of each row's stall)");
  const bool numbered = table.files.size() > 1;
  std::string data =
      absl::StrCat("# ", stem, ".dat: ", title,
                   "\n# one line per result row; columns: label, then the fraction of the "
                   "row's stall per reason:\n#  ",
                   absl::StrJoin(table.reasons, " "),
                   "\n# (0 where the row has no counter for the reason; a row without any "
                   "stall, or with invalid values, is all 0 and labelled so)\n");
  size_t longest = 0;
  for (const StallRow& row : table.rows) {
    std::string label = numbered ? absl::StrCat("[", row.file + 1, "] ", row.name) : row.name;
    if (row.breakdown.fractions.empty()) {
      absl::StrAppend(&label, " (", row.breakdown.problem, ")");
    }
    longest = std::max(longest, label.size());
    absl::StrAppend(&data, DataLabel(label));
    for (const std::string& reason : table.reasons) {
      auto it = row.breakdown.fractions.find(reason);
      absl::StrAppend(&data, " ", Number(it == row.breakdown.fractions.end() ? 0 : it->second));
    }
    data += "\n";
  }
  std::string script = absl::StrCat("# ", stem, ".gp: generated by //analysis:figures from\n");
  for (size_t i = 0; i < table.files.size(); ++i) {
    absl::StrAppend(&script, "#   ", numbered ? absl::StrCat("[", i + 1, "] ") : "",
                    table.files[i]->path, "\n");
  }
  // Labels are rotated by 45 degrees: a label of n characters reaches about
  // 0.6 n character widths left of its bar and 0.3 n character heights
  // below the axis. The margins and the canvas grow with the longest one,
  // so that none is cut off, and the canvas with the rows.
  const int n = static_cast<int>(longest);
  const int lmargin = std::max(10, (60 * n + 99) / 100 + 2);
  const int bmargin = std::max(4, (30 * n + 99) / 100 + 3);
  const int width =
      std::max<int>(960, 120 * static_cast<int>(table.rows.size()) + 10 * lmargin + 360);
  const int height = 480 + 16 * bmargin;
  absl::StrAppend(&script, "set terminal svg size ", width, ",", height,
                  " dynamic noenhanced font 'sans,12' background rgb 'white'\n", "set output ",
                  GnuplotQuoted(stem + ".svg"), "\n", "set title ", GnuplotQuoted(title), "\n",
                  "set ylabel 'fraction of stall'\n", "set yrange [0:1]\n",
                  "set style data histograms\n", "set style histogram rowstacked\n",
                  "set style fill solid 0.9 border rgb 'black'\n", "set boxwidth 0.75\n",
                  "set xtics rotate by 45 right nomirror\n", "set lmargin ", lmargin, "\n",
                  "set bmargin ", bmargin, "\n", "set grid ytics\n", "set key outside right top\n",
                  "plot ");
  std::vector<std::string> plots;
  for (size_t i = 0; i < table.reasons.size(); ++i) {
    const char* color = kStallColors[i % (sizeof(kStallColors) / sizeof(kStallColors[0]))];
    plots.push_back(absl::StrCat(
        i == 0 ? GnuplotQuoted(stem + ".dat") : "''", " using ", i + 2, i == 0 ? ":xtic(1)" : "",
        " title ", GnuplotQuoted(table.reasons[i]), " lc rgb ", GnuplotQuoted(color)));
  }
  absl::StrAppend(&script, absl::StrJoin(plots, ", \\\n     "), "\n");
  out.files.push_back({stem + ".dat", data});
  out.files.push_back({stem + ".gp", script});
  out.scripts.push_back(stem + ".gp");
}

}  // namespace

void AddMemoryFigures(const std::vector<const ResultFile*>& group, DeviceFigures& device) {
  const FigureInputs memory = InputsWhere(group, IsFigureMemoryExperiment);
  LatencyFigure(memory.files, memory.paths, device.device_name, device);
  BandwidthFigure(memory.files, memory.paths, device.device_name, device);
  StallFigure(group, device.device_name, device);
  std::vector<std::string> l1_inputs;
  for (const ResultFile* f : group) {
    if (f->experiment == "l1_bypass") l1_inputs.push_back(f->path);
  }
  if (auto fig = BuildL1BypassFigure(group, l1_inputs, device.device_name)) {
    AddScript(fig->stem, fig->data, fig->script, device);
  }
}

}  // namespace dissect::analysis::figures_internal
