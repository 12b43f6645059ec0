// GenerateFusionSpeedup (analysis/papers/registry.h): fused vs unfused layer
// kernels from the layer_fusion experiment (experiments/fusion).
//
// Params: {"pattern": P} or {"pattern": [P, ...]}, P one of conv_relu,
// bn_relu, bn_relu_conv (layer_fusion's `pattern` axis); one section per
// pattern, in the order given.
//
// Per pattern: a table per (layer, batch) with the unfused and fused median
// kernel_us, the speedup (unfused / fused) and its noise (the larger
// kernel_us spread of the two rows), the compulsory DRAM bytes fusion saves,
// and each form's achieved GB/s against device_dram_peak_gbps; rows that
// were skipped or failed, and pairs with one form missing, listed with the
// reason; a bar chart of the speedup per layer and batch. Then the "paper vs
// this GPU" table: per pattern the geometric-mean speedup against published
// "<pattern>_speedup", and the device's DRAM peak against published
// "dram_peak_gbps" when the entry has it.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "analysis/format.h"
#include "analysis/papers/registry.h"

namespace dissect::analysis::papers {
namespace {

constexpr char kExperiment[] = "layer_fusion";

// One measured row of one form.
struct Form {
  double us = 0, us_spread = 0, bytes = 0, gbps = 0;
};

// A (layer, batch) of one pattern.
struct Pair {
  std::string layer, batch;
  double peak_gbps = 0;
  std::optional<Form> fused, unfused;
};

std::string PatternTitle(const std::string& pattern) {
  if (pattern == "conv_relu") return "conv then ReLU";
  if (pattern == "bn_relu") return "BN then ReLU";
  return "BN+ReLU then conv (DenseNet order)";
}

absl::StatusOr<std::vector<std::string>> PatternsOf(const CatalogEntry& entry) {
  const auto it = entry.params.find("pattern");
  if (it == entry.params.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat(entry.id, ": params.pattern is missing (conv_relu, bn_relu, bn_relu_conv)"));
  }
  // One name, or a non-empty list of them.
  const absl::StatusOr<std::vector<std::string>> patterns =
      it->is_string() ? std::vector<std::string>{it->get<std::string>()}
                      : StringListParam(entry, "pattern", {}, /*non_empty=*/true);
  if (!patterns.ok()) return BadParam(entry, "pattern", "a pattern name or a list of them");
  for (const std::string& p : *patterns) {
    if (p != "conv_relu" && p != "bn_relu" && p != "bn_relu_conv") {
      return absl::InvalidArgumentError(absl::StrCat(entry.id, ": unknown params.pattern '", p,
                                                     "' (conv_relu, bn_relu, bn_relu_conv)"));
    }
  }
  return patterns;
}

std::optional<Form> FormOf(const Row& row) {
  const std::optional<double> us = row.Counter("kernel_us");
  const std::optional<double> bytes = row.Counter("compulsory_bytes");
  if (!us || !bytes || !(*us > 0)) return std::nullopt;
  Form f;
  f.us = *us;
  f.us_spread = row.Counter("kernel_us.spread").value_or(0);
  f.bytes = *bytes;
  f.gbps = row.Counter("achieved_gbps").value_or(*bytes / (*us * 1e3));
  return f;
}

std::string GbpsCell(const Form& f, double peak) {
  std::string cell = FormatNumber(f.gbps);
  if (peak > 0) absl::StrAppend(&cell, " (", FormatPercent(f.gbps / peak), ")");
  return cell;
}

struct Section {
  std::string markdown;
  std::vector<double> speedups;
};

Section PatternSection(const std::string& pattern, const std::vector<const ResultFile*>& files,
                       const std::vector<std::string>& inputs, PaperFigure& out) {
  std::vector<Pair> pairs;
  std::map<std::string, size_t> index;
  std::vector<std::string> not_measured;
  for (const ResultFile* file : files) {
    const double peak = std::atof(file->ContextOr("device_dram_peak_gbps", "0").c_str());
    for (const Row& row : file->rows) {
      if (row.Axis("pattern") != pattern) continue;
      const std::string layer = row.Axis("layer").value_or("?");
      const std::string batch = row.Axis("batch").value_or("?");
      const std::string mode = row.Axis("mode").value_or("?");
      const std::string key = absl::StrCat(layer, "/", batch);
      auto [it, added] = index.emplace(key, pairs.size());
      if (added) pairs.push_back({layer, batch, peak, std::nullopt, std::nullopt});
      Pair& pair = pairs[it->second];
      const std::optional<Form> form = row.error ? std::nullopt : FormOf(row);
      if (!form) {
        const std::string why = RowNotes(row);
        not_measured.push_back(absl::StrCat("`", layer, "` batch ", batch, " ", mode, ": ",
                                            why.empty() ? "no kernel_us in the row" : why));
        continue;
      }
      (mode == "fused" ? pair.fused : pair.unfused) = form;
    }
  }

  MarkdownTable table;
  table.columns = {{"layer", false},           {"batch", true},        {"unfused µs", true},
                   {"fused µs", true},         {"speedup", true},      {"noise ±", true},
                   {"DRAM bytes saved", true}, {"unfused GB/s", true}, {"fused GB/s", true}};
  BarChart chart;
  chart.stem = absl::StrCat("fusion_", pattern, "_speedup");
  chart.title = absl::StrCat(pattern, ": unfused / fused time");
  chart.ylabel = "speedup (x)";
  chart.series = {"speedup"};
  chart.values.resize(1);
  chart.lines = {{1.0, "no gain"}};
  Section section;
  for (const Pair& p : pairs) {
    if (!p.fused || !p.unfused) {
      if (p.fused || p.unfused) {
        not_measured.push_back(absl::StrCat("`", p.layer, "` batch ", p.batch, ": no ",
                                            p.fused ? "unfused" : "fused", " row to compare with"));
      }
      continue;
    }
    const double speedup = p.unfused->us / p.fused->us;
    const double noise = std::max(p.unfused->us_spread, p.fused->us_spread);
    section.speedups.push_back(speedup);
    table.rows.push_back({CellText(p.layer), p.batch, FormatNumber(p.unfused->us),
                          FormatNumber(p.fused->us), FormatNumber(speedup), FormatPercent(noise),
                          FormatBytes(p.unfused->bytes - p.fused->bytes),
                          GbpsCell(*p.unfused, p.peak_gbps), GbpsCell(*p.fused, p.peak_gbps)});
    chart.categories.push_back(absl::StrCat(p.layer, " b", p.batch));
    chart.values[0].push_back(speedup);
  }

  absl::StrAppend(&section.markdown, "### ", pattern, ": ", PatternTitle(pattern), "\n\n",
                  RenderMarkdownTable(table), "\n",
                  "Speedup = unfused / fused median kernel_us (the whole pattern, CUDA events, "
                  "hot); noise = the larger kernel_us spread of the two rows: a speedup within "
                  "1 ± noise is no effect. DRAM bytes saved = the intermediate's write and "
                  "read; GB/s = compulsory bytes / time (% of device_dram_peak_gbps).\n");
  if (!not_measured.empty()) {
    absl::StrAppend(&section.markdown, "\nNot measured:\n\n");
    for (const std::string& line : not_measured) {
      absl::StrAppend(&section.markdown, "- ", line, "\n");
    }
  }
  absl::StrAppend(&section.markdown, "\n");
  if (!chart.categories.empty()) AddBarChart(chart, inputs, out);
  return section;
}

std::optional<double> GeometricMean(const std::vector<double>& values) {
  if (values.empty()) return std::nullopt;
  double log_sum = 0;
  for (double v : values) log_sum += std::log(v);
  return std::exp(log_sum / values.size());
}

}  // namespace

absl::StatusOr<PaperFigure> GenerateFusionSpeedup(const CatalogEntry& entry,
                                                  const std::vector<ResultFile>& results) {
  const absl::StatusOr<std::vector<std::string>> patterns = PatternsOf(entry);
  if (!patterns.ok()) return patterns.status();
  const std::vector<const ResultFile*> files = FilesOf(results, kExperiment);
  if (files.empty()) {
    return absl::NotFoundError(absl::StrCat(entry.id, ": no ", kExperiment, " result among ",
                                            results.size(), " file(s); run the entry's sweep"));
  }
  PaperFigure out;
  const std::vector<std::string> inputs = InputPaths(files);
  std::vector<ResultFile> measured;
  for (const ResultFile* f : files) measured.push_back(*f);
  absl::StrAppend(&out.markdown, "Device: ", DeviceLine(measured), "\n\n");
  MarkdownTable comparison = ComparisonTable();
  for (const std::string& pattern : *patterns) {
    const Section section = PatternSection(pattern, files, inputs, out);
    out.markdown += section.markdown;
    const std::optional<double> mean = GeometricMean(section.speedups);
    AddComparison(comparison,
                  absl::StrCat(pattern, " speedup (fused vs unfused), geometric mean over ",
                               section.speedups.size(), " layer × batch point(s)"),
                  entry.FindPublished(absl::StrCat(pattern, "_speedup")), mean, "x",
                  mean ? "this GPU: our direct conv and elementwise kernels"
                       : "no layer with both forms measured");
  }
  if (const PublishedValue* peak = entry.FindPublished("dram_peak_gbps")) {
    const double device_peak =
        std::atof(files.front()->ContextOr("device_dram_peak_gbps", "0").c_str());
    AddComparison(comparison, "peak DRAM bandwidth of the system", peak,
                  device_peak > 0 ? std::optional<double>(device_peak) : std::nullopt, "GB/s",
                  "this GPU: device_dram_peak_gbps (theoretical)");
  }
  absl::StrAppend(&out.markdown, "### Paper vs this GPU\n\n", RenderMarkdownTable(comparison));
  return out;
}

}  // namespace dissect::analysis::papers
