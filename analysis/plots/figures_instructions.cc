// Figures of the instruction chapter (see figures.h): per device, each op's
// latency against its throughput, and the block-dispatch fit.

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "analysis/format/format.h"
#include "analysis/plots/figures_internal.h"
#include "analysis/sections/instructions.h"

namespace dissect::analysis::figures_internal {
namespace {

// One point per op with both a latency and a throughput, labelled with the
// op: fast and wide ops at the top left, slow and narrow ones bottom right.
void LatencyThroughputFigure(const InstructionsDevice& d, const std::vector<std::string>& inputs,
                             DeviceFigures& out) {
  const std::string stem = "instructions_latency_throughput";
  const std::string title = absl::StrCat(d.title, ": latency vs throughput per op");
  std::string data =
      absl::StrCat("# ", stem, ".dat: ", title,
                   "\n# columns: op, latency (cycles, instruction_latency at the longest "
                   "chain), "
                   "throughput (results/clk/SM, instruction_throughput's best)\n");
  int points = 0;
  for (const InstructionOpSummary& op : d.ops) {
    if (!op.latency_cycles || !op.results_per_clock_per_sm) continue;
    ++points;
    absl::StrAppend(&data, DataLabel(op.Label()), " ", Number(*op.latency_cycles), " ",
                    Number(*op.results_per_clock_per_sm), "\n");
  }
  if (points == 0) return;
  const std::string file = GnuplotQuoted(stem + ".dat");
  std::string script = ScriptHead(stem, inputs, 960, 600, title);
  absl::StrAppend(
      &script, "set xlabel 'latency (cycles per dependent op, log scale)'\n",
      "set ylabel 'throughput (results per clock per SM, log scale)'\n", "set logscale xy 2\n",
      "set offsets graph 0.05, graph 0.5, graph 0.15, graph 0.1\n", "set grid xtics ytics\n",
      "unset key\n", "plot ", file, " using 2:3 with points pointtype 7, \\\n     ", file,
      " using 2:3:1 with labels left rotate by 20 offset 1,0 noenhanced\n");
  AddScript(stem, data, script, out);
}

// kernel_time_us over blocks per mode with the least-squares line whose
// slope is dispatch_ns_per_block.
void DispatchFigure(const InstructionsDevice& d, const std::vector<std::string>& inputs,
                    DeviceFigures& out) {
  const auto measure = d.launch.find("block_dispatch");
  if (measure == d.launch.end()) return;
  const std::string stem = "instructions_block_dispatch";
  const std::string title = absl::StrCat(d.title, ": kernel time vs blocks (block dispatch)");
  std::string data = absl::StrCat("# ", stem, ".dat: ", title,
                                  "\n# one block per mode (gnuplot index); columns: blocks, "
                                  "kernel_time_us\n");
  std::vector<std::string> plots;
  int index = 0;
  const std::string file = GnuplotQuoted(stem + ".dat");
  for (const auto& [mode, value] : measure->second) {
    if (value.points.empty()) continue;
    absl::StrAppend(&data, index == 0 ? "" : "\n\n", "# index ", index, ": ", mode, "\n");
    for (const auto& [blocks, us] : value.points) {
      absl::StrAppend(&data, Number(blocks), " ", Number(us), "\n");
    }
    plots.push_back(absl::StrCat(file, " index ", index,
                                 " using 1:2 with points pointtype 7 title ", GnuplotQuoted(mode)));
    if (value.fit) {
      plots.push_back(absl::StrCat(
          Number(value.fit->intercept), " + ", Number(value.fit->slope),
          " * x with lines dashtype 2 title ",
          GnuplotQuoted(absl::StrCat(mode, " fit: ", FormatNumber(value.fit->slope * 1000),
                                     " ns per block"))));
    }
    ++index;
  }
  if (plots.empty()) return;
  std::string script = ScriptHead(stem, inputs, 960, 600, title);
  absl::StrAppend(&script, "set xlabel 'blocks'\n", "set ylabel 'kernel time (us)'\n",
                  "set grid xtics ytics\n", "set key below\n", "plot ",
                  absl::StrJoin(plots, ", \\\n     "), "\n");
  AddScript(stem, data, script, out);
}

}  // namespace

void AddInstructionFigures(const std::vector<const ResultFile*>& group, DeviceFigures& device) {
  const FigureInputs inputs = InputsWhere(group, IsInstructionExperiment);
  if (inputs.files.empty()) return;
  for (const InstructionsDevice& d : BuildInstructions(inputs.files)) {
    LatencyThroughputFigure(d, inputs.paths, device);
    DispatchFigure(d, inputs.paths, device);
  }
}

}  // namespace dissect::analysis::figures_internal
