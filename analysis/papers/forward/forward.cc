// Generators of analysis/papers/registry.h for the built-in forward passes,
// from layer_breakdown results (experiments/layer_breakdown): per op, the
// median time op_us[i], the compulsory bytes op_bytes[i], the flops
// op_flops[i], and the row's `ops=<name>:<type>,...` note.
//
// GenerateLayerBandwidth (Jung et al., SysML 2019): per op of one network
// (params "network", default "densenet121"; "batch", default the largest
// measured), the achieved bandwidth op_bytes / op_us against the device's
// DRAM peak (context device_dram_peak_gbps), grouped CONV vs non-CONV (BN,
// ReLU, concat, pooling, add) vs FC/softmax. Compulsory bytes make it a lower
// bound of the op's DRAM traffic rate, and L2 can serve small layers, so a
// small op may exceed the peak.
//
// GenerateOpBreakdown (Fathom, IISWC 2016): per measured (network, batch),
// the share of the summed op time per op type: conv, gemm (fc), bn, relu,
// pooling (max, avg), softmax, elementwise (add, concat). Params "networks"
// (optional list) restricts the networks.
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "analysis/format/format.h"
#include "analysis/papers/registry.h"
#include "analysis/results/results.h"
#include "analysis/sections/section_util.h"

namespace dissect::analysis::papers {
namespace {

constexpr char kExperiment[] = "layer_breakdown";

struct Op {
  std::string name;
  std::string type;  // conv, bn, relu, maxpool, avgpool, add, concat, fc, softmax
  double us = 0;
  double bytes = 0;
  double flops = 0;
};

// One layer_breakdown row.
struct Pass {
  std::string network;
  int batch = 0;
  std::string file;
  std::optional<double> pass_us;  // the row's time: the uninstrumented pass
  double peak_gbps = NAN;         // the file's device_dram_peak_gbps
  std::vector<Op> ops;
  std::string not_measured;  // why not ("" when measured)
};

Pass ReadPass(const ResultFile& file, const Row& row) {
  Pass p;
  p.network = row.Axis("network").value_or("?");
  p.file = file.path;
  double batch = 0;
  if (const std::optional<double> b = AxisNumber(row, "batch")) batch = *b;
  p.batch = static_cast<int>(batch);
  double peak = NAN;
  if (absl::SimpleAtod(file.ContextOr("device_dram_peak_gbps", ""), &peak)) p.peak_gbps = peak;
  if (row.error) {
    p.not_measured = RowNotes(row);
    return p;
  }
  p.pass_us = RowRealTimeUs(row);
  const std::vector<double> us = RowVector(row, "op_us");
  const std::vector<double> bytes = RowVector(row, "op_bytes");
  const std::vector<double> flops = RowVector(row, "op_flops");
  const std::optional<std::string> note = LabelNote(row.label, "ops");
  if (!note) {
    p.not_measured = "the row has no ops= note";
    return p;
  }
  const std::vector<std::string> entries = absl::StrSplit(*note, ',', absl::SkipEmpty());
  if (entries.size() != us.size() || us.size() != bytes.size() || us.size() != flops.size()) {
    p.not_measured =
        absl::StrCat("the ops= note names ", entries.size(), " ops, op_us has ", us.size(),
                     ", op_bytes ", bytes.size(), ", op_flops ", flops.size());
    return p;
  }
  for (size_t i = 0; i < entries.size(); ++i) {
    const std::vector<std::string> name_type = absl::StrSplit(entries[i], ':');
    if (name_type.size() != 2) {
      p.not_measured = absl::StrCat("bad ops= entry \"", entries[i], "\"");
      p.ops.clear();
      return p;
    }
    p.ops.push_back({name_type[0], name_type[1], us[i], bytes[i], flops[i]});
  }
  return p;
}

// Every layer_breakdown row of `results`, in file order; NotFound without
// layer_breakdown results.
absl::StatusOr<std::vector<Pass>> ReadPasses(const std::vector<ResultFile>& results,
                                             std::vector<std::string>* inputs) {
  const std::vector<const ResultFile*> files = FilesOf(results, kExperiment);
  if (files.empty()) {
    return absl::NotFoundError(absl::StrCat(
        "no ", kExperiment, " results (run experiments/layer_breakdown/layer_breakdown)"));
  }
  *inputs = InputPaths(files);
  std::vector<Pass> passes;
  for (const ResultFile* file : files) {
    for (const Row& row : file->rows) passes.push_back(ReadPass(*file, row));
  }
  return passes;
}

std::string NotMeasuredSection(const std::vector<Pass>& passes) {
  std::string out;
  for (const Pass& p : passes) {
    if (p.not_measured.empty()) continue;
    absl::StrAppend(&out, "- ", p.network, " at batch ", p.batch, ": ", p.not_measured, "\n");
  }
  return out.empty() ? "" : absl::StrCat("### Not measured\n\n", out, "\n");
}

double Gbps(const Op& op) { return op.us > 0 ? op.bytes / op.us / 1e3 : NAN; }

// Jung's grouping.
std::string Group(const std::string& type) {
  if (type == "conv") return "CONV";
  if (type == "fc" || type == "softmax") return "FC, softmax";
  return "non-CONV";
}

// Fathom-style op classes, in the chart's order.
const std::vector<std::string>& OpClasses() {
  static const auto* classes = new std::vector<std::string>{
      "conv", "gemm", "bn", "relu", "pooling", "softmax", "elementwise"};
  return *classes;
}

std::string OpClass(const std::string& type) {
  if (type == "fc") return "gemm";
  if (type == "maxpool" || type == "avgpool") return "pooling";
  if (type == "add" || type == "concat") return "elementwise";
  return type;  // conv, bn, relu, softmax
}

std::optional<double> Max(const std::vector<double>& values) {
  if (values.empty()) return std::nullopt;
  return *std::max_element(values.begin(), values.end());
}

std::optional<double> Percent(std::optional<double> value, double peak) {
  if (!value || !std::isfinite(peak) || peak <= 0) return std::nullopt;
  return 100.0 * *value / peak;
}

// Achieved bandwidth of a pass's ops per op type (in first-seen order) and
// per group, and each type's share of the op time.
struct OpBandwidths {
  std::map<std::string, std::vector<double>> by_type;
  std::map<std::string, std::vector<double>> by_group;
  std::map<std::string, double> type_us;
  std::vector<std::string> type_order;
  double total_us = 0;
};

OpBandwidths BandwidthsOf(const Pass& pass) {
  OpBandwidths b;
  for (const Op& op : pass.ops) {
    if (b.by_type.count(op.type) == 0) b.type_order.push_back(op.type);
    b.by_type[op.type].push_back(Gbps(op));
    b.by_group[Group(op.type)].push_back(Gbps(op));
    b.type_us[op.type] += op.us;
    b.total_us += op.us;
  }
  return b;
}

MarkdownTable TypesTable(const OpBandwidths& b, double peak) {
  MarkdownTable types = ColumnsTable({{"op type", false},
                                      {"group", false},
                                      {"ops", true},
                                      {"time share", true},
                                      {"median GB/s", true},
                                      {"max GB/s", true},
                                      {"max % of peak", true}});
  for (const std::string& type : b.type_order) {
    const std::vector<double>& gbps = b.by_type.at(type);
    types.rows.push_back(
        {type, Group(type), absl::StrCat(gbps.size()),
         OptionalPercentCell(b.total_us > 0 ? std::optional<double>(b.type_us.at(type) / b.total_us)
                                            : std::nullopt),
         FormatNumber(Median(gbps)), OptionalCell(Max(gbps)),
         OptionalCell(Percent(Max(gbps), peak))});
  }
  return types;
}

MarkdownTable GroupsTable(const OpBandwidths& b, double peak) {
  MarkdownTable groups = ColumnsTable({{"group", false},
                                       {"ops", true},
                                       {"median GB/s", true},
                                       {"max GB/s", true},
                                       {"max % of peak", true}});
  for (const std::string group : {"CONV", "non-CONV", "FC, softmax"}) {
    const auto it = b.by_group.find(group);
    if (it == b.by_group.end()) continue;
    groups.rows.push_back({group, absl::StrCat(it->second.size()), FormatNumber(Median(it->second)),
                           OptionalCell(Max(it->second)),
                           OptionalCell(Percent(Max(it->second), peak))});
  }
  return groups;
}

// The paper's bandwidths against this pass's.
MarkdownTable LayerComparison(const CatalogEntry& entry, const OpBandwidths& b, double peak) {
  const std::optional<double> conv_max =
      b.by_group.count("CONV") != 0 ? Max(b.by_group.at("CONV")) : std::nullopt;
  const std::optional<double> non_conv_max =
      b.by_group.count("non-CONV") != 0 ? Max(b.by_group.at("non-CONV")) : std::nullopt;
  MarkdownTable comparison = ComparisonTable();
  AddComparison(comparison, "system DRAM peak", entry.FindPublished("system_peak_gbps"),
                std::isfinite(peak) ? std::optional<double>(peak) : std::nullopt, "GB/s",
                std::isfinite(peak) ? "the result file's device_dram_peak_gbps"
                                    : "the result file has no device_dram_peak_gbps");
  AddComparison(comparison, "highest CONV layer bandwidth", entry.FindPublished("conv_max_gbps"),
                conv_max, "GB/s", "compulsory bytes / median time; a lower bound of DRAM traffic");
  AddComparison(comparison, "CONV layers' highest bandwidth as % of peak",
                entry.FindPublished("conv_max_peak_percent"), Percent(conv_max, peak), "%", "");
  AddComparison(comparison, "highest non-CONV layer bandwidth",
                entry.FindPublished("non_conv_max_gbps"), non_conv_max, "GB/s",
                "BN, ReLU, concat, pooling, add");

  return comparison;
}

// Each op's achieved bandwidth, one series per group.
BarChart LayerChart(const std::string& network, const Pass& chosen) {
  BarChart chart;
  chart.stem = absl::StrCat("layer_bandwidth_", network);
  chart.title = absl::StrCat(network, " batch ", chosen.batch,
                             ": achieved bandwidth per op (compulsory bytes / time)");
  chart.ylabel = "GB/s";
  chart.series = {"CONV", "non-CONV (BN, ReLU, concat, pooling, add)", "FC, softmax"};
  chart.values.assign(3, {});
  for (const Op& op : chosen.ops) {
    chart.categories.push_back(op.name);
    const std::string group = Group(op.type);
    for (size_t s = 0; s < 3; ++s) {
      const bool mine = (s == 0 && group == "CONV") || (s == 1 && group == "non-CONV") ||
                        (s == 2 && group == "FC, softmax");
      chart.values[s].push_back(mine ? Gbps(op) : NAN);
    }
  }
  const double peak = chosen.peak_gbps;
  if (std::isfinite(peak)) chart.lines.push_back({peak, "DRAM peak (device_dram_peak_gbps)"});
  return chart;
}

}  // namespace

absl::StatusOr<PaperFigure> GenerateLayerBandwidth(const CatalogEntry& entry,
                                                   const std::vector<ResultFile>& results) {
  const absl::StatusOr<std::string> network_param = StringParam(entry, "network", "densenet121");
  if (!network_param.ok()) return network_param.status();
  const std::string& network = *network_param;
  const absl::StatusOr<int64_t> batch_param = IntParam(entry, "batch", 0, 1);
  if (!batch_param.ok()) return batch_param.status();
  std::optional<int> want_batch;
  if (*batch_param > 0) want_batch = static_cast<int>(*batch_param);
  std::vector<std::string> inputs;
  const absl::StatusOr<std::vector<Pass>> read = ReadPasses(results, &inputs);
  if (!read.ok()) return read.status();
  const std::vector<Pass>& all = *read;
  std::vector<Pass> passes;
  const Pass* chosen = nullptr;
  for (const Pass& p : all) {
    if (p.network != network) continue;
    passes.push_back(p);
  }
  for (const Pass& p : passes) {
    if (!p.not_measured.empty() || (want_batch && p.batch != *want_batch)) continue;
    if (chosen == nullptr || p.batch > chosen->batch) chosen = &p;
  }
  if (chosen == nullptr) {
    return absl::NotFoundError(
        absl::StrCat(kExperiment, " results hold no measured ", network, " pass",
                     want_batch ? absl::StrCat(" at batch ", *want_batch) : std::string()));
  }
  const double peak = chosen->peak_gbps;

  const OpBandwidths b = BandwidthsOf(*chosen);
  const MarkdownTable comparison = LayerComparison(entry, b, peak);

  PaperFigure out;
  absl::StrAppend(
      &out.markdown, "Device: ", DeviceLine(results), "\n\n", network, " forward pass at batch ",
      chosen->batch, " (", chosen->ops.size(),
      " ops, synthetic weights): achieved bandwidth per op = compulsory DRAM bytes (inputs + "
      "output + weights, float32) / median op time. It is a lower bound of the op's DRAM "
      "traffic rate (convs re-read tiles, cuDNN may use workspaces), and L2 may serve a small "
      "op's input, so a small op can exceed the DRAM peak.\n\n### Per op type\n\n",
      RenderMarkdownTable(TypesTable(b, peak)), "\n### CONV vs non-CONV\n\n",
      RenderMarkdownTable(GroupsTable(b, peak)), "\n### Paper vs this GPU\n\n",
      RenderMarkdownTable(comparison), "\n", NotMeasuredSection(passes));

  AddBarChart(LayerChart(network, *chosen), inputs, out);
  return out;
}

namespace {

// The networks of `passes` in first-seen order; sorts `passes` by that
// order, batches ascending within each network.
std::vector<std::string> SortByNetwork(std::vector<Pass>& passes) {
  std::vector<std::string> network_order;
  for (const Pass& p : passes) {
    if (std::find(network_order.begin(), network_order.end(), p.network) == network_order.end()) {
      network_order.push_back(p.network);
    }
  }
  std::stable_sort(passes.begin(), passes.end(), [&](const Pass& a, const Pass& b) {
    const auto ia = std::find(network_order.begin(), network_order.end(), a.network);
    const auto ib = std::find(network_order.begin(), network_order.end(), b.network);
    return ia != ib ? ia < ib : a.batch < b.batch;
  });

  return network_order;
}

// The paper's conv and gemm shares against each network's at its largest
// batch (`share`: network -> op class -> %).
MarkdownTable BreakdownComparison(const CatalogEntry& entry,
                                  const std::vector<std::string>& network_order,
                                  std::map<std::string, std::map<std::string, double>>& share) {
  MarkdownTable comparison = ComparisonTable();
  for (const std::string& network : network_order) {
    const auto it = share.find(network);
    if (it == share.end()) continue;
    AddComparison(comparison, absl::StrCat(network, ": conv share (largest batch)"),
                  entry.FindPublished("conv_share"), it->second["conv"], "%",
                  "Fathom's workloads are TensorFlow models, not this network");
    AddComparison(comparison, absl::StrCat(network, ": gemm (FC) share (largest batch)"),
                  entry.FindPublished("gemm_share"), it->second["gemm"], "%", "");
  }
  return comparison;
}

}  // namespace

absl::StatusOr<PaperFigure> GenerateOpBreakdown(const CatalogEntry& entry,
                                                const std::vector<ResultFile>& results) {
  const absl::StatusOr<std::vector<std::string>> only_param =
      StringListParam(entry, "networks", {});
  if (!only_param.ok()) return only_param.status();
  const std::vector<std::string>& only = *only_param;
  std::vector<std::string> inputs;
  const absl::StatusOr<std::vector<Pass>> read = ReadPasses(results, &inputs);
  if (!read.ok()) return read.status();
  std::vector<Pass> passes;
  for (const Pass& p : *read) {
    if (only.empty() || std::find(only.begin(), only.end(), p.network) != only.end()) {
      passes.push_back(p);
    }
  }
  const std::vector<std::string> network_order = SortByNetwork(passes);

  std::vector<std::pair<std::string, bool>> columns = {
      {"network", false}, {"batch", true}, {"pass µs", true}, {"sum of ops µs", true}};
  for (const std::string& c : OpClasses()) columns.push_back({absl::StrCat(c, " %"), true});
  MarkdownTable table = ColumnsTable(columns);
  BarChart chart;
  chart.stem = "op_breakdown";
  chart.title = "Share of the forward pass's op time per op type";
  chart.ylabel = "% of the summed op time";
  chart.stacked = true;
  chart.series = OpClasses();
  chart.values.assign(OpClasses().size(), {});
  std::map<std::string, std::map<std::string, double>> largest_batch_share;
  int measured = 0;
  for (const Pass& p : passes) {
    if (!p.not_measured.empty()) continue;
    ++measured;
    std::map<std::string, double> us;
    double total = 0;
    for (const Op& op : p.ops) {
      us[OpClass(op.type)] += op.us;
      total += op.us;
    }
    std::vector<std::string> cells = {p.network, absl::StrCat(p.batch), OptionalCell(p.pass_us),
                                      FormatNumber(total)};
    chart.categories.push_back(absl::StrCat(p.network, " b", p.batch));
    for (size_t c = 0; c < OpClasses().size(); ++c) {
      const double share = total > 0 ? 100.0 * us[OpClasses()[c]] / total : NAN;
      cells.push_back(FormatNumber(share));
      chart.values[c].push_back(share);
      largest_batch_share[p.network][OpClasses()[c]] = share;
    }
    table.rows.push_back(std::move(cells));
  }
  if (measured == 0) {
    return absl::NotFoundError(absl::StrCat(kExperiment, " results hold no measured pass",
                                            only.empty() ? "" : " of the params' networks"));
  }
  const MarkdownTable comparison = BreakdownComparison(entry, network_order, largest_batch_share);
  PaperFigure out;
  absl::StrAppend(
      &out.markdown, "Device: ", DeviceLine(results), "\n\n",
      "Share of each op type in the summed per-op time of one forward pass (synthetic "
      "weights; conv = cuDNN convolutions, gemm = FC layers (cuBLAS SGEMM), elementwise = "
      "residual adds and DenseNet's concatenation copies). The pass column is the "
      "uninstrumented pass; the sum of ops includes the events between ops.\n\n",
      RenderMarkdownTable(table), "\n### Paper vs this GPU\n\n", RenderMarkdownTable(comparison),
      "\n", NotMeasuredSection(passes));
  AddBarChart(chart, inputs, out);
  return out;
}

}  // namespace dissect::analysis::papers
