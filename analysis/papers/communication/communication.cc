// GenerateCommunicationBreakdown (analysis/papers/registry.h): Alibaba-PAI
// (IISWC 2019) found weight/gradient communication to take about 62 % of
// data-parallel training time on their clusters, and a 25 -> 100 Gbps
// Ethernet upgrade to speed training up 1.7x on average. One GPU cannot
// measure a cluster; this page models one from what it can measure:
//   - compute per training step: layer_breakdown's whole forward pass (the
//     row's time, measured) x 3, backward modelled as 2 x forward
//     (comm_model.h);
//   - gradient bytes: 4 B per trainable parameter, counted from
//     configs/networks (comm_model.h), exchanged by ring AllReduce over
//     params "workers" workers (default 8);
//   - links: PCIe as measured by host_link (pinned, bidirectional, the
//     largest size measured, bandwidth_gbps / 2 per direction: a ring's
//     worker sends and receives at once), and 25 and 100 Gbps Ethernet at
//     line rate (modelled).
// No overlap of compute and communication. Params: "workers" (int >= 2),
// "batch" (default each network's largest measured), "networks" (list).
// Where the results read are not the setting of the entry's own sweep
// (networks missing, passes at another batch, as the GPU smoke results of a
// first-contact run are), the page says so and names the networks its
// means are over.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "analysis/format/format.h"
#include "analysis/papers/communication/comm_model.h"
#include "analysis/papers/registry.h"
#include "analysis/results/results.h"
#include "analysis/sections/section_util.h"

namespace dissect::analysis::papers {
namespace {

using communication::BuiltinNetworkParameters;
using communication::CommunicationSharePercent;
using communication::kGradientBytesPerParameter;
using communication::LineRateGBps;
using communication::ModelledStepComputeMs;
using communication::RingAllReduceBytesPerWorker;
using communication::TransferMs;
using communication::UpgradeSpeedup;

constexpr char kCompute[] = "layer_breakdown";
constexpr char kHostLink[] = "host_link";
constexpr double kSlowEthernetGbps = 25;
constexpr double kFastEthernetGbps = 100;
// Links() lists PCIe, then the slow and the fast Ethernet.
constexpr size_t kSlowEthernet = 1;
constexpr size_t kFastEthernet = 2;

struct Link {
  std::string name;
  std::optional<double> gb_per_s;  // per direction; nullopt: not measured
  std::string source;
  bool measured = false;  // by host_link; else a line rate (modelled)
};

// One network's forward pass at its chosen batch.
struct Network {
  std::string name;
  int batch = 0;
  double forward_ms = NAN;
  int64_t parameters = 0;
  std::string parameters_note;  // why no count ("" when counted)
};

// host_link's pinned bidirectional row of the largest size, per direction.
Link MeasuredPcie(const std::vector<ResultFile>& results, std::vector<std::string>* inputs) {
  Link link{"PCIe (host link)", std::nullopt,
            "not measured: no host_link row of pinned bidirectional copies"};
  double best_bytes = 0;
  const std::vector<const ResultFile*> files = FilesOf(results, kHostLink);
  for (const std::string& path : InputPaths(files)) inputs->push_back(path);
  for (const ResultFile* file : files) {
    for (const Row& row : file->rows) {
      const std::optional<double> bytes = AxisNumber(row, "bytes");
      const std::optional<double> gbps = FiniteCounter(row, "bandwidth_gbps");
      if (row.error || row.Axis("memory") != "pinned" || row.Axis("direction") != "bidirectional" ||
          !bytes || !gbps || *bytes <= best_bytes) {
        continue;
      }
      best_bytes = *bytes;
      link.gb_per_s = *gbps / 2;
      link.measured = true;
      link.source =
          absl::StrCat("measured: host_link, pinned, bidirectional, ", FormatBytes(*bytes),
                       " each way: bandwidth_gbps ", FormatNumber(*gbps), " (both directions) / 2");
    }
  }
  return link;
}

std::vector<Link> Links(const std::vector<ResultFile>& results, std::vector<std::string>* inputs) {
  std::vector<Link> links = {MeasuredPcie(results, inputs)};
  for (const double gbit : {kSlowEthernetGbps, kFastEthernetGbps}) {
    links.push_back({absl::StrCat(FormatNumber(gbit), " Gbps Ethernet"), LineRateGBps(gbit),
                     absl::StrCat("modelled: line rate, ", FormatNumber(gbit),
                                  " Gbit/s / 8, no protocol overhead")});
  }
  return links;
}

// The chosen pass of each network (params' batch, else the largest
// measured); the rows that were not measured go to `not_measured`.
absl::StatusOr<std::vector<Network>> ReadNetworks(const CatalogEntry& entry,
                                                  const std::vector<ResultFile>& results,
                                                  std::vector<std::string>* inputs,
                                                  std::string* not_measured) {
  const absl::StatusOr<int64_t> batch = IntParam(entry, "batch", 0, 1);
  if (!batch.ok()) return batch.status();
  const absl::StatusOr<std::vector<std::string>> only = StringListParam(entry, "networks", {});
  if (!only.ok()) return only.status();
  const std::vector<const ResultFile*> files = FilesOf(results, kCompute);
  if (files.empty()) {
    return absl::NotFoundError(absl::StrCat(
        "no ", kCompute, " results (run experiments/layer_breakdown/layer_breakdown)"));
  }
  *inputs = InputPaths(files);
  std::vector<Network> networks;
  for (const ResultFile* file : files) {
    for (const Row& row : file->rows) {
      const std::string name = row.Axis("network").value_or("?");
      const int b = static_cast<int>(AxisNumber(row, "batch").value_or(0));
      if ((!only->empty() && std::find(only->begin(), only->end(), name) == only->end()) ||
          (*batch > 0 && b != *batch)) {
        continue;
      }
      const std::optional<double> us = RowRealTimeUs(row);
      if (!us) {
        absl::StrAppend(not_measured, "- ", name, " at batch ", b, ": ", RowNotes(row), "\n");
        continue;
      }
      auto it = std::find_if(networks.begin(), networks.end(),
                             [&](const Network& n) { return n.name == name; });
      if (it == networks.end()) it = networks.insert(networks.end(), Network{name});
      if (b <= it->batch) continue;
      it->batch = b;
      it->forward_ms = *us / 1e3;
    }
  }
  if (networks.empty()) {
    return absl::NotFoundError(absl::StrCat(kCompute, " results hold no measured pass",
                                            *batch > 0 ? absl::StrCat(" at batch ", *batch) : "",
                                            only->empty() ? "" : " of the params' networks"));
  }
  for (Network& n : networks) {
    const absl::StatusOr<int64_t> count = BuiltinNetworkParameters(n.name);
    if (count.ok()) {
      n.parameters = *count;
    } else {
      n.parameters_note = std::string(count.status().message());
    }
  }
  return networks;
}

// The comma-separated values of axis `key` of the sweep's entries of
// `experiment` (the catalog entry's own sweep), in order, each once.
std::vector<std::string> SweepAxisValues(const CatalogEntry& entry, const std::string& experiment,
                                         const std::string& key) {
  std::vector<std::string> values;
  const auto entries = entry.sweep.find("entries");
  if (entries == entry.sweep.end() || !entries->is_array()) return values;
  for (const auto& e : *entries) {
    if (e.value("experiment", "") != experiment) continue;
    const auto axes = e.find("axes");
    if (axes == e.end() || !axes->is_object()) continue;
    const auto axis = axes->find(key);
    if (axis == axes->end()) continue;
    const std::string text = axis->is_string() ? axis->get<std::string>() : axis->dump();
    for (const absl::string_view v : absl::StrSplit(text, ',', absl::SkipEmpty())) {
      AddOnce(values, std::string(v));
    }
  }
  return values;
}

// Where the results read are not the setting the entry's sweep measures: its
// networks missing here, and passes at another batch (less compute per step
// against the same gradient bytes, so another communication share). ""
// where they are the sweep's.
std::string SweepGaps(const CatalogEntry& entry, const std::vector<Network>& networks) {
  const std::vector<std::string> sweep_networks = SweepAxisValues(entry, kCompute, "network");
  const std::vector<std::string> sweep_batches = SweepAxisValues(entry, kCompute, "batch");
  std::vector<std::string> missing;
  for (const std::string& name : sweep_networks) {
    if (std::none_of(networks.begin(), networks.end(),
                     [&](const Network& n) { return n.name == name; })) {
      missing.push_back(name);
    }
  }
  std::vector<std::string> other_batch;
  for (const Network& n : networks) {
    if (!sweep_batches.empty() && std::find(sweep_batches.begin(), sweep_batches.end(),
                                            absl::StrCat(n.batch)) == sweep_batches.end()) {
      other_batch.push_back(absl::StrCat(n.name, " at batch ", n.batch));
    }
  }
  std::string out;
  if (!missing.empty()) {
    absl::StrAppend(&out, "- no measured pass of ", absl::StrJoin(missing, ", "),
                    ": the means below are over the other networks only (the sweep measures ",
                    absl::StrJoin(sweep_networks, ", "), ")\n");
  }
  if (!other_batch.empty()) {
    absl::StrAppend(&out, "- ", absl::StrJoin(other_batch, ", "), ", not the sweep's batch ",
                    absl::StrJoin(sweep_batches, ", "),
                    ": a smaller batch is less compute per step against the same gradient bytes, "
                    "so its modelled communication share is higher than at the sweep's batch, "
                    "and the other way round\n");
  }
  return out;
}

// "alexnet, densenet121": the networks a mean is over.
std::string NetworkNames(const std::vector<Network>& networks) {
  std::vector<std::string> names;
  for (const Network& n : networks) names.push_back(n.name);
  return absl::StrJoin(names, ", ");
}

// The model of one network over one link.
struct Modelled {
  double comm_ms = NAN;
  double share_percent = NAN;
  double step_ms = NAN;
};

Modelled Model(const Network& n, const Link& link, int workers) {
  Modelled m;
  if (n.parameters <= 0 || !link.gb_per_s) return m;
  const double compute_ms = ModelledStepComputeMs(n.forward_ms);
  const double bytes =
      RingAllReduceBytesPerWorker(kGradientBytesPerParameter * n.parameters, workers);
  m.comm_ms = TransferMs(bytes, *link.gb_per_s);
  m.share_percent = CommunicationSharePercent(compute_ms, m.comm_ms);
  m.step_ms = compute_ms + m.comm_ms;
  return m;
}

std::optional<double> Finite(double v) {
  return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

std::optional<double> Mean(const std::vector<double>& values) {
  double sum = 0;
  int n = 0;
  for (double v : values) {
    if (!std::isfinite(v)) continue;
    sum += v;
    ++n;
  }
  return n > 0 ? std::optional<double>(sum / n) : std::nullopt;
}

MarkdownTable LinksTable(const std::vector<Link>& links) {
  MarkdownTable table = ColumnsTable(
      {{"link", false}, {"GB/s per direction", true}, {"measured or modelled", false}});
  for (const Link& l : links) {
    table.rows.push_back({l.name, OptionalCell(l.gb_per_s), CellText(l.source)});
  }
  return table;
}

MarkdownTable ComputeTable(const std::vector<Network>& networks, int workers) {
  MarkdownTable table = ColumnsTable({{"network", false},
                                      {"batch", true},
                                      {"forward ms (measured)", true},
                                      {"step compute ms (modelled: 3 x forward)", true},
                                      {"trainable parameters (configs/networks)", true},
                                      {"AllReduce MB sent per worker per step (modelled)", true}});
  for (const Network& n : networks) {
    const double bytes =
        RingAllReduceBytesPerWorker(kGradientBytesPerParameter * n.parameters, workers);
    table.rows.push_back(
        {n.name, absl::StrCat(n.batch), FormatNumber(n.forward_ms),
         FormatNumber(ModelledStepComputeMs(n.forward_ms)),
         n.parameters > 0 ? absl::StrCat(n.parameters) : CellText(n.parameters_note),
         n.parameters > 0 ? FormatNumber(bytes / 1e6) : std::string(kEmptyCell)});
  }
  return table;
}

MarkdownTable ModelTable(const std::vector<Network>& networks, const std::vector<Link>& links,
                         int workers, BarChart& chart) {
  MarkdownTable table = ColumnsTable({{"network", false},
                                      {"link", false},
                                      {"comm ms per step (modelled)", true},
                                      {"communication share (modelled)", true},
                                      {"step ms (modelled)", true}});
  chart.values.assign(2, {});
  for (const Network& n : networks) {
    for (const Link& l : links) {
      const Modelled m = Model(n, l, workers);
      table.rows.push_back({n.name, l.name, OptionalCell(Finite(m.comm_ms)),
                            std::isfinite(m.share_percent)
                                ? absl::StrCat(FormatNumber(m.share_percent), " %")
                                : std::string(kEmptyCell),
                            OptionalCell(Finite(m.step_ms))});
      chart.categories.push_back(absl::StrCat(n.name, " ", l.name));
      chart.values[0].push_back(ModelledStepComputeMs(n.forward_ms));
      chart.values[1].push_back(m.comm_ms);
    }
  }
  return table;
}

// The paper's 62 % and 1.7x beside the model's averages over the networks
// (and each network's speedup).
MarkdownTable Comparison(const CatalogEntry& entry, const std::vector<Network>& networks,
                         const std::vector<Link>& links, int workers) {
  MarkdownTable table = ComparisonTable();
  const PublishedValue* share = entry.FindPublished("communication_share");
  for (const Link& l : links) {
    std::vector<double> shares;
    for (const Network& n : networks) shares.push_back(Model(n, l, workers).share_percent);
    AddComparison(table,
                  absl::StrCat("communication share of a step over ", l.name,
                               ", mean over ", NetworkNames(networks), " (modelled)"),
                  share, Mean(shares), "%",
                  !l.gb_per_s  ? l.source
                  : l.measured ? "from the measured forward pass and link; exchange modelled"
                               : "from the measured forward pass; link at line rate (modelled)");
  }
  const PublishedValue* speedup = entry.FindPublished("speedup_25_to_100_gbps");
  std::vector<double> speedups;
  for (const Network& n : networks) {
    const Modelled slow = Model(n, links[kSlowEthernet], workers);
    const Modelled fast = Model(n, links[kFastEthernet], workers);
    const double s =
        UpgradeSpeedup(ModelledStepComputeMs(n.forward_ms), slow.comm_ms, fast.comm_ms);
    speedups.push_back(s);
    AddComparison(table, absl::StrCat(n.name, ": step speedup, 25 -> 100 Gbps (modelled)"), speedup,
                  Finite(s), "x", "");
  }
  AddComparison(table,
                absl::StrCat("step speedup, 25 -> 100 Gbps, mean over ", NetworkNames(networks),
                             " (modelled)"),
                speedup,
                Mean(speedups), "x",
                "the paper's is over its own workloads and clusters, not these networks");
  AddPublishedWithoutMeasurement(table, entry, {"communication_share", "speedup_25_to_100_gbps"});
  return table;
}

}  // namespace

absl::StatusOr<PaperFigure> GenerateCommunicationBreakdown(const CatalogEntry& entry,
                                                           const std::vector<ResultFile>& results) {
  const absl::StatusOr<int64_t> workers_param = IntParam(entry, "workers", 8, 2);
  if (!workers_param.ok()) return workers_param.status();
  const int workers = static_cast<int>(*workers_param);
  std::vector<std::string> inputs;
  std::string not_measured;
  const absl::StatusOr<std::vector<Network>> networks =
      ReadNetworks(entry, results, &inputs, &not_measured);
  if (!networks.ok()) return networks.status();
  const std::vector<Link> links = Links(results, &inputs);

  BarChart chart;
  chart.stem = "communication_breakdown";
  chart.title = absl::StrCat("Modelled training step, ring AllReduce over ", workers, " workers");
  chart.ylabel = "ms per step (modelled)";
  chart.stacked = true;
  chart.series = {"compute (3 x measured forward)", "gradient exchange (modelled)"};
  const MarkdownTable model = ModelTable(*networks, links, workers, chart);

  PaperFigure out;
  absl::StrAppend(
      &out.markdown, "Device: ", DeviceLine(results), "\n\n",
      "A model, not a measurement of a cluster: data-parallel training of each network on ",
      workers,
      " workers, gradients float32 (4 B per trainable parameter, counted from "
      "configs/networks: conv and FC weights, BN scale and shift; no biases), exchanged by ring "
      "AllReduce after every step: each worker sends and receives 2 (N - 1) / N = ",
      FormatNumber(RingAllReduceBytesPerWorker(1.0, workers)),
      " x the gradient bytes per step, at the link's per-direction bandwidth. Measured: the "
      "forward pass (layer_breakdown, the whole pass's median time) and the PCIe host link "
      "(host_link). Modelled: a step's compute as 3 x the forward pass (backward taken as 2 x "
      "forward; no backward pass is measured), the exchange's bytes and time, and Ethernet at "
      "line rate. Compute and communication do not overlap (a step is their sum); the PCIe hop "
      "to a network card is not added to the Ethernet links; a parameter server's push and "
      "pull are not modelled.\n\n### Links\n\n",
      RenderMarkdownTable(LinksTable(links)), "\n### Compute and gradient bytes per network\n\n",
      RenderMarkdownTable(ComputeTable(*networks, workers)), "\n");
  if (const std::string gaps = SweepGaps(entry, *networks); !gaps.empty()) {
    absl::StrAppend(&out.markdown, "### Not the sweep's setting\n\n", gaps, "\n");
  }
  absl::StrAppend(
      &out.markdown, "### Modelled step per link\n\n",
      RenderMarkdownTable(model), "\n### Paper vs this GPU\n\n",
      RenderMarkdownTable(Comparison(entry, *networks, links, workers)), "\n");
  if (!not_measured.empty())
    absl::StrAppend(&out.markdown, "### Not measured\n\n", not_measured, "\n");
  AddBarChart(chart, inputs, out);
  return out;
}

}  // namespace dissect::analysis::papers
