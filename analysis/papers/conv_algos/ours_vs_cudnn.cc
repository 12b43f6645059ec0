// Our algorithm against cuDNN's per layer; see ours_vs_cudnn.h.
#include "analysis/papers/conv_algos/ours_vs_cudnn.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "analysis/format/format.h"
#include "analysis/sections/section_util.h"

namespace dissect::analysis::papers::conv_algos {
namespace {

// The fastest of `data`'s algorithms other than `ours` for layer `l` at
// `batch`: its name and measurement, or nullptr.
const Measured* FastestCudnn(const ConvData& data, const LayerData& l, const std::string& ours,
                             int batch, std::string* algo) {
  const Measured* best = nullptr;
  for (const std::string& a : data.algos) {
    const Measured* m = a == ours ? nullptr : MeasuredAt(l, a, batch);
    if (m != nullptr && (best == nullptr || m->time_us < best->time_us)) {
      best = m;
      *algo = a;
    }
  }
  return best;
}

std::string SpeedupCell(double speedup) { return absl::StrCat(FormatNumber(speedup), "x"); }

// Keeps the largest and smallest speedup seen and where.
void Record(double speedup, const std::string& where, OursVersusCudnn& out) {
  if (!out.largest_speedup || speedup > *out.largest_speedup) {
    out.largest_speedup = speedup;
    out.largest_where = where;
  }
  if (!out.smallest_speedup || speedup < *out.smallest_speedup) {
    out.smallest_speedup = speedup;
    out.smallest_where = where;
  }
}

// `network`'s table at `batch`; counts the layers `ours` wins among those
// both ran, and appends the chart's values of this batch.
MarkdownTable NetworkTable(const ConvData& data, const std::string& network,
                           const std::string& ours, int batch, int& wins, int& compared,
                           std::vector<double>* ours_bars, std::vector<double>* best_bars,
                           OursVersusCudnn& out) {
  std::vector<std::pair<std::string, bool>> columns = {
      {"layer", false}, {"×", true}, {ours, true}, {"cuDNN's best", false}, {"speedup", true}};
  for (const std::string& a : data.algos) {
    if (a != ours) columns.push_back({absl::StrCat("vs ", a), true});
  }
  MarkdownTable table = ColumnsTable(columns);
  for (const LayerData& l : data.layers) {
    if (l.network != network) continue;
    const Measured* mine = MeasuredAt(l, ours, batch);
    std::string best_algo;
    const Measured* best = FastestCudnn(data, l, ours, batch, &best_algo);
    std::vector<std::string> cells = {
        ShortName(l.name), l.shape_count ? absl::StrCat(*l.shape_count) : kEmptyCell,
        mine ? TimeCell(mine->time_us) : kEmptyCell,
        best ? absl::StrCat(TimeCell(best->time_us), " (", best_algo, ")") : kEmptyCell,
        kEmptyCell};
    if (mine != nullptr && best != nullptr) {
      const double speedup = best->time_us / mine->time_us;
      cells.back() =
          speedup > 1 ? absl::StrCat("**", SpeedupCell(speedup), "**") : SpeedupCell(speedup);
      ++compared;
      if (speedup > 1) ++wins;
      Record(speedup, absl::StrCat(l.name, " at batch ", batch), out);
    }
    for (const std::string& a : data.algos) {
      if (a == ours) continue;
      const Measured* m = MeasuredAt(l, a, batch);
      cells.push_back(m != nullptr && mine != nullptr ? SpeedupCell(m->time_us / mine->time_us)
                                                      : kEmptyCell);
    }
    table.rows.push_back(std::move(cells));
    if (ours_bars != nullptr) {
      ours_bars->push_back(mine != nullptr ? mine->time_us : NAN);
      best_bars->push_back(best != nullptr ? best->time_us : NAN);
    }
  }
  return table;
}

}  // namespace

OursVersusCudnn OursVersusCudnnSection(const ConvData& data,
                                       const std::vector<std::string>& networks,
                                       const std::string& ours, const std::vector<int>& batches,
                                       const std::string& chart_network) {
  OursVersusCudnn out;
  out.markdown = absl::StrCat("### ", ours, " against cuDNN\n\n", ours,
                              " is our own kernel, not cuDNN's. Speedup = cuDNN's time / ", ours,
                              "'s time (> 1: ", ours,
                              " is faster, in bold against cuDNN's best); cuDNN's best is the "
                              "fastest of cuDNN's algorithms measured for the layer (",
                              ours, " left out); — not measured.\n\n");
  BarChart& chart = out.chart;
  chart.stem = absl::StrCat(ours, "_vs_cudnn_", chart_network);
  chart.title = absl::StrCat(chart_network, ": ", ours, " vs cuDNN's best per layer");
  chart.ylabel = "time (µs)";
  chart.log_y = true;
  MarkdownTable summary =
      ColumnsTable({{"network", false}, {"batch", true}, {"layers where " + ours + " wins", true}});
  for (const int batch : batches) {
    const bool charted =
        std::find(networks.begin(), networks.end(), chart_network) != networks.end();
    if (charted) {
      chart.series.push_back(absl::StrCat(ours, " (batch ", batch, ")"));
      chart.series.push_back(absl::StrCat("cuDNN's best (batch ", batch, ")"));
      chart.values.emplace_back();
      chart.values.emplace_back();
    }
    for (const std::string& network : networks) {
      const bool chart_this = charted && network == chart_network;
      int wins = 0;
      int compared = 0;
      const MarkdownTable table =
          NetworkTable(data, network, ours, batch, wins, compared,
                       chart_this ? &chart.values[chart.values.size() - 2] : nullptr,
                       chart_this ? &chart.values.back() : nullptr, out);
      absl::StrAppend(&out.markdown, "#### ", network, ", batch ", batch, "\n\n",
                      RenderMarkdownTable(table), "\n");
      summary.rows.push_back(
          {network, absl::StrCat(batch), absl::StrCat(wins, " of ", compared, " both ran")});
    }
  }
  for (const LayerData& l : data.layers) {
    if (l.network == chart_network) chart.categories.push_back(ShortName(l.name));
  }
  absl::StrAppend(&out.markdown, "#### How often ", ours, " beats cuDNN's best\n\n",
                  RenderMarkdownTable(summary), "\n");
  return out;
}

}  // namespace dissect::analysis::papers::conv_algos
