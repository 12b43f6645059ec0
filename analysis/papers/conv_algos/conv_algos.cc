// Generators of analysis/papers/registry.h for conv_algos, from
// conv_algorithms results (experiments/conv_algos):
//  - GenerateConvAlgorithms (Xu, Ma & Guo, NAS 2018): per network and layer
//    each algorithm's time and workspace at one batch, the fastest marked;
//    how often each algorithm wins; the network's conv time with the best
//    algorithm per layer vs each fixed algorithm. Params: "batch" (default
//    64), "networks" (default: every network in the results), "math"
//    (default "fma"), "figure_network" (default the first network). With
//    "ours" (an algorithm of our own, e.g. "two_stage": cuConv 2022 as we
//    read it) the page also sets it against cuDNN's algorithms per layer at
//    each of "ours_batches" (default [batch]) (ours_vs_cudnn.h), and the
//    paper comparison gives its largest speedup over cuDNN's best.
//  - GenerateWorkspaceLimit (µ-cuDNN, Oyama et al., CLUSTER 2018): per layer
//    and workspace limit, the best time of the whole mini-batch with the
//    algorithms that fit vs the best split into measured micro-batch sizes
//    (micro_batch.h). Params: "batch" (the mini-batch, default 128),
//    "limits_bytes" (default [0, 8 MiB, 64 MiB, 512 MiB, -1]; -1 is no
//    limit), "networks", "math".
// A network's totals weight each layer by its row's shape_count (repeats of
// a shape are measured once) and are given only when every conv layer of the
// network was measured.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "analysis/format/format.h"
#include "analysis/papers/conv_algos/conv_data.h"
#include "analysis/papers/conv_algos/micro_batch.h"
#include "analysis/papers/conv_algos/ours_vs_cudnn.h"
#include "analysis/papers/registry.h"
#include "analysis/sections/section_util.h"

namespace dissect::analysis::papers {
namespace {

using conv_algos::ConvData;
using conv_algos::Coverage;
using conv_algos::CoverageOf;
using conv_algos::Fastest;
using conv_algos::Inputs;
using conv_algos::LayerData;
using conv_algos::MathNote;
using conv_algos::Measured;
using conv_algos::MeasuredAt;
using conv_algos::NotMeasuredSection;
using conv_algos::ReadInputs;
using conv_algos::ShortName;
using conv_algos::TimeCell;

// A network's conv time with the best algorithm per layer and with each
// algorithm everywhere (fixed_missing: layers that algorithm cannot run).
struct NetworkTotals {
  double best_total = 0;
  std::map<std::string, double> fixed_total;
  std::map<std::string, int> fixed_missing;
};

// How often each algorithm is the fastest: distinct layers and conv layers.
struct Wins {
  std::map<std::string, int> distinct;
  std::map<std::string, int> all;
};

// The table of `network`'s layers × algorithms at `batch`; adds up `totals`
// and `wins`.
MarkdownTable LayerTable(const ConvData& data, const std::string& network, int batch,
                         NetworkTotals& totals, Wins& wins) {
  std::vector<std::pair<std::string, bool>> columns = {{"layer", false}, {"×", true}};
  for (const std::string& a : data.algos) columns.push_back({a, true});
  MarkdownTable table = ColumnsTable(columns);
  for (const LayerData& l : data.layers) {
    if (l.network != network) continue;
    std::string best_algo;
    const Measured* best = Fastest(l, batch, std::nullopt, &best_algo);
    const int weight = l.shape_count.value_or(0);
    std::vector<std::string> cells = {ShortName(l.name),
                                      l.shape_count ? absl::StrCat(*l.shape_count) : kEmptyCell};
    for (const std::string& a : data.algos) {
      const Measured* m = MeasuredAt(l, a, batch);
      if (m == nullptr) {
        cells.push_back(kEmptyCell);
        totals.fixed_missing[a] += weight;
        continue;
      }
      std::string cell =
          absl::StrCat(TimeCell(m->time_us), " (", FormatBytes(m->workspace_bytes), ")");
      cells.push_back(a == best_algo ? absl::StrCat("**", cell, "**") : cell);
      totals.fixed_total[a] += weight * m->time_us;
    }
    table.rows.push_back(cells);
    if (best == nullptr) continue;
    totals.best_total += weight * best->time_us;
    if (weight > 0) {
      ++wins.distinct[best_algo];
      wins.all[best_algo] += weight;
    }
  }
  return table;
}

// `network`'s rows of the whole-network table and its line of the paper
// comparison: the best algorithm per layer against each fixed algorithm.
void AddNetworkTotals(const CatalogEntry& entry, const std::string& network, const ConvData& data,
                      const Coverage& coverage, NetworkTotals& t, MarkdownTable& totals,
                      MarkdownTable& comparison) {
  const std::string& incomplete = coverage.incomplete;
  if (!incomplete.empty()) {
    totals.rows.push_back({network, "—", "not given", CellText(incomplete)});
    AddComparison(comparison, absl::StrCat(network, ": best algorithm per layer vs fixed"),
                  entry.FindPublished(absl::StrCat(network, "_speedup")), std::nullopt, "x",
                  incomplete);
    return;
  }
  totals.rows.push_back({network, "best algorithm per layer", FormatNumber(t.best_total), "1x"});
  double lo = std::numeric_limits<double>::infinity();
  double hi = 0;
  std::string lo_algo;
  std::string hi_algo;
  int complete = 0;
  for (const std::string& a : data.algos) {
    if (t.fixed_missing[a] > 0) {
      totals.rows.push_back({network, a + " everywhere", "—",
                             absl::StrCat("cannot run ", t.fixed_missing[a], " of ",
                                          coverage.expected, " conv layers")});
      continue;
    }
    const double speedup = t.fixed_total[a] / t.best_total;
    totals.rows.push_back({network, a + " everywhere", FormatNumber(t.fixed_total[a]),
                           absl::StrCat(FormatNumber(speedup), "x")});
    ++complete;
    if (speedup < lo) lo = speedup, lo_algo = a;
    if (speedup > hi) hi = speedup, hi_algo = a;
  }
  const std::string note =
      complete == 0 ? "no fixed algorithm ran every layer"
                    : absl::StrCat("range ", FormatNumber(lo), "–", FormatNumber(hi), "x over ",
                                   complete, " fixed algorithms that run every layer (", lo_algo,
                                   " closest, ", hi_algo, " farthest)");
  AddComparison(comparison,
                absl::StrCat(network, ": best algorithm per layer vs fixed (largest speedup)"),
                entry.FindPublished(absl::StrCat(network, "_speedup")),
                complete > 0 ? std::optional<double>(hi) : std::nullopt, "x", note);
}

// Every algorithm's time per layer of `network` at `batch`.
BarChart AlgorithmChart(const ConvData& data, const std::string& network, int batch) {
  BarChart chart;
  chart.stem = "conv_algorithms_" + network;
  chart.title = absl::StrCat(network, ": cuDNN forward algorithms per layer, batch ", batch);
  chart.ylabel = "time (µs)";
  chart.log_y = true;
  chart.series = data.algos;
  chart.values.assign(data.algos.size(), {});
  for (const LayerData& l : data.layers) {
    if (l.network != network) continue;
    chart.categories.push_back(ShortName(l.name));
    for (size_t a = 0; a < data.algos.size(); ++a) {
      const Measured* m = MeasuredAt(l, data.algos[a], batch);
      chart.values[a].push_back(m != nullptr ? m->time_us : NAN);
    }
  }
  return chart;
}

// One layer at one workspace limit: the fastest fitting algorithm for the
// whole batch, and the best split into measured micro-batches.
struct LayerAtLimit {
  const Measured* whole = nullptr;
  std::string whole_algo;
  std::optional<MicroBatchSplit> split;
  std::map<int, std::string> algo_at_batch;  // the algorithm of each micro-batch size
};

LayerAtLimit AtLimit(const LayerData& l, int batch, std::optional<double> limit) {
  LayerAtLimit at;
  at.whole = Fastest(l, batch, limit, &at.whole_algo);
  std::map<int, double> time_at_batch;
  std::set<int> sizes;
  for (const auto& [algo, by_batch] : l.measured) {
    for (const auto& [b, m] : by_batch) sizes.insert(b);
  }
  for (int b : sizes) {
    if (b > batch) continue;
    std::string algo;
    if (const Measured* m = Fastest(l, b, limit, &algo)) {
      time_at_batch[b] = m->time_us;
      at.algo_at_batch[b] = algo;
    }
  }
  at.split = BestMicroBatchSplit(time_at_batch, batch);
  return at;
}

// "812 µs (2×64 algo + ...)", or why there is no split.
std::string SplitCell(const LayerAtLimit& at) {
  if (!at.split) return "no split fits";
  const MicroBatchSplit& split = *at.split;
  std::vector<std::string> parts;
  for (size_t i = 0; i < split.sizes.size();) {
    size_t j = i;
    while (j < split.sizes.size() && split.sizes[j] == split.sizes[i]) ++j;
    parts.push_back(
        absl::StrCat(j - i, "×", split.sizes[i], " ", at.algo_at_batch.at(split.sizes[i])));
    i = j;
  }
  return absl::StrCat(TimeCell(split.time), " (", absl::StrJoin(parts, " + "), ")");
}

std::string LimitLabel(double limit) {
  return limit < 0 ? std::string("no limit") : FormatBytes(limit);
}

// The largest per-layer speedup seen, and where.
struct BestSpeedup {
  double speedup = 0;
  std::string where;
};

// `network`'s layers at workspace limit `limit_bytes` (-1: none) as rows of
// `table`; its whole-network row goes to `summary` and `chart`.
void NetworkAtLimit(const ConvData& data, const std::string& network, int batch, double limit_bytes,
                    const std::string& incomplete, MarkdownTable& table, MarkdownTable& summary,
                    BarChart& chart, BestSpeedup& best) {
  const std::optional<double> limit =
      limit_bytes < 0 ? std::nullopt : std::optional<double>(limit_bytes);
  double whole_total = 0;
  double split_total = 0;
  bool totals_ok = incomplete.empty();
  for (const LayerData& l : data.layers) {
    if (l.network != network) continue;
    const LayerAtLimit at = AtLimit(l, batch, limit);
    std::string speedup_cell = kEmptyCell;
    if (at.whole != nullptr && at.split) {
      const double speedup = at.whole->time_us / at.split->time;
      speedup_cell = absl::StrCat(FormatNumber(speedup), "x");
      if (speedup > best.speedup) {
        best.speedup = speedup;
        best.where = absl::StrCat(l.name, " at ", LimitLabel(limit_bytes));
      }
    }
    table.rows.push_back({ShortName(l.name), LimitLabel(limit_bytes),
                          at.whole != nullptr
                              ? absl::StrCat(TimeCell(at.whole->time_us), " (", at.whole_algo, ")")
                              : "none fits",
                          SplitCell(at), speedup_cell});
    const int weight = l.shape_count.value_or(0);
    if (weight == 0) continue;
    if (at.whole == nullptr || !at.split) {
      totals_ok = false;
      continue;
    }
    whole_total += weight * at.whole->time_us;
    split_total += weight * at.split->time;
  }
  if (totals_ok) {
    summary.rows.push_back({network, LimitLabel(limit_bytes), FormatNumber(whole_total),
                            FormatNumber(split_total),
                            absl::StrCat(FormatNumber(whole_total / split_total), "x")});
    chart.values.back().push_back(whole_total / split_total);
  } else {
    summary.rows.push_back(
        {network, LimitLabel(limit_bytes), "—", "—",
         CellText(incomplete.empty() ? "a layer has no fitting algorithm or split" : incomplete)});
    chart.values.back().push_back(NAN);
  }
}

// params.ours_batches as batch sizes (whole numbers >= 1).
absl::StatusOr<std::vector<int>> OursBatches(const CatalogEntry& entry,
                                             const std::vector<double>& values) {
  std::vector<int> batches;
  for (const double b : values) {
    if (b < 1 || b != std::floor(b)) return BadParam(entry, "ours_batches", "batch sizes >= 1");
    batches.push_back(static_cast<int>(b));
  }
  if (batches.empty()) return BadParam(entry, "ours_batches", "a non-empty list");
  return batches;
}

// The paper comparison's row for our algorithm: its largest speedup over
// cuDNN's best per layer, against the entry's published "published_numbers".
void AddOursComparison(const CatalogEntry& entry, const std::string& ours,
                       const conv_algos::OursVersusCudnn& versus, MarkdownTable& comparison) {
  const std::string note =
      versus.largest_speedup
          ? absl::StrCat("largest at ", versus.largest_where, "; smallest ",
                         FormatNumber(*versus.smallest_speedup), "x at ", versus.smallest_where)
          : absl::StrCat("no layer has both ", ours, " and a cuDNN algorithm measured");
  AddComparison(comparison, absl::StrCat(ours, " over cuDNN's best per layer (largest speedup)"),
                entry.FindPublished("published_numbers"), versus.largest_speedup, "x", note);
}

}  // namespace

absl::StatusOr<PaperFigure> GenerateConvAlgorithms(const CatalogEntry& entry,
                                                   const std::vector<ResultFile>& results) {
  absl::StatusOr<Inputs> in = ReadInputs(entry, results, 64);
  if (!in.ok()) return in.status();
  const int batch = in->batch;
  const std::string& math = in->math;
  const ConvData& data = in->data;
  const std::vector<std::string>& networks = in->networks;
  const absl::StatusOr<std::string> figure_network =
      StringParam(entry, "figure_network", networks.front());
  if (!figure_network.ok()) return figure_network.status();
  const absl::StatusOr<std::string> ours = StringParam(entry, "ours", "");
  if (!ours.ok()) return ours.status();
  const absl::StatusOr<std::vector<double>> ours_batches =
      NumberListParam(entry, "ours_batches", {static_cast<double>(batch)});
  if (!ours_batches.ok()) return ours_batches.status();

  PaperFigure out;
  out.markdown = absl::StrCat(
      "Device: ", DeviceLine(results), "\n\nBatch ", batch, ", ", MathNote(math),
      ". Each time is the median of the hot, event-timed samples of one "
      "cudnnConvolutionForward call (its output checked against a CPU reference first); "
      "**bold**: the layer's fastest algorithm; workspace in parentheses; × counts the "
      "network's conv layers of that shape; — not measured (listed at the end).",
      ours->empty() ? ""
                    : absl::StrCat(" ", *ours,
                                   " is our own kernel, not cuDNN's: its launches of one call "
                                   "are timed together, its output checked the same way."),
      "\n\n");

  Wins wins_count;
  MarkdownTable totals = ColumnsTable({{"network", false},
                                       {"strategy", false},
                                       {"conv time (µs)", true},
                                       {"best per layer is faster by", true}});
  MarkdownTable comparison = ComparisonTable();
  for (const std::string& network : networks) {
    NetworkTotals network_totals;
    const MarkdownTable table = LayerTable(data, network, batch, network_totals, wins_count);
    absl::StrAppend(&out.markdown, "### ", network, "\n\n", RenderMarkdownTable(table), "\n");
    AddNetworkTotals(entry, network, data, CoverageOf(data, network), network_totals, totals,
                     comparison);
  }

  MarkdownTable wins = ColumnsTable(
      {{"algorithm", false}, {"distinct layers won", true}, {"conv layers won", true}});
  for (const std::string& a : data.algos) {
    wins.rows.push_back({a, absl::StrCat(wins_count.distinct[a]), absl::StrCat(wins_count.all[a])});
  }
  absl::StrAppend(&out.markdown, "### How often each algorithm is fastest\n\n",
                  RenderMarkdownTable(wins), "\n### Whole network (conv layers only)\n\n",
                  RenderMarkdownTable(totals), "\n");
  std::optional<conv_algos::OursVersusCudnn> versus;
  if (!ours->empty()) {
    const absl::StatusOr<std::vector<int>> batches = OursBatches(entry, *ours_batches);
    if (!batches.ok()) return batches.status();
    versus = conv_algos::OursVersusCudnnSection(data, networks, *ours, *batches, *figure_network);
    absl::StrAppend(&out.markdown, versus->markdown);
    AddOursComparison(entry, *ours, *versus, comparison);
  }
  absl::StrAppend(&out.markdown, "### Paper vs this GPU\n\n", RenderMarkdownTable(comparison),
                  "\n", NotMeasuredSection(data));
  AddBarChart(AlgorithmChart(data, *figure_network, batch), data.inputs, out);
  if (versus) AddBarChart(versus->chart, data.inputs, out);
  return out;
}

absl::StatusOr<PaperFigure> GenerateWorkspaceLimit(const CatalogEntry& entry,
                                                   const std::vector<ResultFile>& results) {
  const absl::StatusOr<std::vector<double>> limits_param =
      NumberListParam(entry, "limits_bytes", {0, 8 << 20, 64 << 20, 512 << 20, -1});
  if (!limits_param.ok()) return limits_param.status();
  const std::vector<double>& limits = *limits_param;
  for (const double limit : limits) {
    if (limit < 0 && limit != -1) {
      return BadParam(entry, "limits_bytes", "byte counts >= 0 or -1 (no limit)");
    }
  }
  absl::StatusOr<Inputs> in = ReadInputs(entry, results, 128);
  if (!in.ok()) return in.status();
  const int batch = in->batch;
  const std::string& math = in->math;
  const ConvData& data = in->data;
  const std::vector<std::string>& networks = in->networks;

  PaperFigure out;
  out.markdown = absl::StrCat(
      "Device: ", DeviceLine(results), "\n\nMini-batch ", batch, ", ", MathNote(math),
      ". At each workspace limit, *whole batch* is the fastest algorithm whose workspace fits "
      "at batch ",
      batch,
      "; *micro-batched* is µ-cuDNN's best split of the mini-batch into "
      "measured batch sizes, each micro-batch with its own fastest fitting algorithm (dynamic "
      "programming over the splits). The split's time is the sum of its micro-batches' "
      "separately measured times: this assumes back-to-back micro-batches cost the sum of "
      "their separate times (no overlap, no extra launch gaps). Speedup = whole batch / "
      "micro-batched.\n\n");

  BarChart chart;
  chart.stem = "workspace_limit";
  chart.title =
      absl::StrCat("µ-cuDNN: micro-batching speedup of the conv layers, mini-batch ", batch);
  chart.ylabel = "speedup over the whole batch (x)";
  for (double limit : limits) chart.categories.push_back(LimitLabel(limit));
  chart.lines.push_back({1.0, "no speedup"});
  MarkdownTable summary = ColumnsTable({{"network", false},
                                        {"workspace limit", false},
                                        {"whole batch (µs)", true},
                                        {"micro-batched (µs)", true},
                                        {"speedup", true}});
  BestSpeedup best;
  for (const std::string& network : networks) {
    MarkdownTable table = ColumnsTable({{"layer", false},
                                        {"workspace limit", false},
                                        {"whole batch", false},
                                        {"micro-batched", false},
                                        {"speedup", true}});
    const std::string incomplete = CoverageOf(data, network).incomplete;
    chart.series.push_back(network);
    chart.values.emplace_back();
    for (double limit_bytes : limits) {
      NetworkAtLimit(data, network, batch, limit_bytes, incomplete, table, summary, chart, best);
    }
    absl::StrAppend(&out.markdown, "### ", network, "\n\n", RenderMarkdownTable(table), "\n");
  }
  MarkdownTable comparison = ComparisonTable();
  AddComparison(comparison, "largest per-layer speedup of micro-batching",
                entry.FindPublished("layer_speedup"),
                best.speedup > 0 ? std::optional<double>(best.speedup) : std::nullopt, "x",
                best.speedup > 0 ? best.where : "no layer had both a whole-batch and a split time");
  absl::StrAppend(&out.markdown, "### Whole network (conv layers only)\n\n",
                  RenderMarkdownTable(summary), "\n### Paper vs this GPU\n\n",
                  RenderMarkdownTable(comparison), "\n", NotMeasuredSection(data));
  AddBarChart(chart, data.inputs, out);
  return out;
}

}  // namespace dissect::analysis::papers
