// GenerateFusionSpeedup (analysis/papers/registry.h): fused vs unfused layer
// kernels from the layer_fusion experiment (experiments/fusion).
//
// Params: {"pattern": P} or {"pattern": [P, ...]}, P one of conv_relu,
// bn_relu, bn_relu_conv (layer_fusion's `pattern` axis); one section per
// pattern, in the order given.
//
// Per pattern: a table per (layer, batch, cache) with the unfused and fused
// median kernel_us, the speedup (unfused / fused) and its noise (the larger
// kernel_us spread of the two rows), the working set, the bytes fusion saves
// (the intermediate's write and read) and where that intermediate lives, and
// each form's achieved GB/s; rows that were skipped or failed, and pairs with
// one form missing, listed with the reason; a bar chart of the speedup per
// layer, batch and cache. Then the "paper vs this GPU" table: per pattern the
// geometric-mean speedup of the pairs whose intermediate goes through DRAM
// against published "<pattern>_speedup" (the other pairs apart, with no
// paper value), and the device's DRAM peak against published
// "dram_peak_gbps" when the entry has it.
//
// DRAM or L2: L2 is write-back, so an unfused intermediate is read back from
// L2 unless the working set is at least 2x L2. The experiment records that
// per row (beyond_2x_l2). Only such pairs get "DRAM" and a % of
// device_dram_peak_gbps; the others are "L2-resident", and rows that do not
// record it (files from before it did) "not recorded", both with GB/s alone,
// as the tensor section does for hot GEMMs whose operands fit in L2.
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
#include "analysis/format/format.h"
#include "analysis/papers/registry.h"

namespace dissect::analysis::papers {
namespace {

constexpr char kExperiment[] = "layer_fusion";

// Where a pair's unfused intermediate lives while it is timed.
enum class Where { kDram, kL2, kNotRecorded };
constexpr int kWheres = 3;

// One measured row of one form.
struct Form {
  double us = 0, us_spread = 0, bytes = 0, gbps = 0;
  std::optional<double> working_set;
  Where where = Where::kNotRecorded;
};

// A (layer, batch, cache) of one pattern.
struct Pair {
  std::string layer, batch, cache;
  double peak_gbps = 0;
  std::optional<Form> fused, unfused;

  // DRAM only when both rows say so; L2 when either does.
  Where where() const {
    if (fused->where == Where::kL2 || unfused->where == Where::kL2) return Where::kL2;
    if (fused->where == Where::kDram && unfused->where == Where::kDram) return Where::kDram;
    return Where::kNotRecorded;
  }
};

std::string WhereCell(Where where) {
  if (where == Where::kDram) return "DRAM";
  if (where == Where::kL2) return "L2-resident";
  return "not recorded";
}

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
  f.gbps = row.Counter("bandwidth_gbps").value_or(*bytes / (*us * 1e3));
  f.working_set = row.Counter("working_set_bytes");
  const std::optional<double> beyond = row.Counter("beyond_2x_l2");
  if (beyond && !std::isnan(*beyond)) f.where = *beyond >= 1 ? Where::kDram : Where::kL2;
  return f;
}

// GB/s, as a % of the DRAM peak only for data that goes through DRAM.
std::string GbpsCell(const Form& f, double peak, Where where) {
  std::string cell = FormatNumber(f.gbps);
  if (peak > 0 && where == Where::kDram) {
    absl::StrAppend(&cell, " (", FormatPercent(f.gbps / peak), ")");
  }
  return cell;
}

struct Section {
  std::string markdown;
  std::vector<double> speedups[kWheres];  // by Where
};

// The fused and unfused rows of `pattern`, paired by layer, batch and
// cache; rows that did not measure go to `not_measured`.
std::vector<Pair> PairRows(const std::string& pattern, const std::vector<const ResultFile*>& files,
                           std::vector<std::string>& not_measured) {
  std::vector<Pair> pairs;
  std::map<std::string, size_t> index;
  for (const ResultFile* file : files) {
    const double peak = std::atof(file->ContextOr("device_dram_peak_gbps", "0").c_str());
    for (const Row& row : file->rows) {
      if (row.Axis("pattern") != pattern) continue;
      const std::string layer = row.Axis("layer").value_or("?");
      const std::string batch = row.Axis("batch").value_or("?");
      const std::string mode = row.Axis("mode").value_or("?");
      // Files from before the cache axis timed hot only.
      const std::string cache = row.Axis("cache").value_or("hot");
      const std::string key = absl::StrCat(layer, "/", batch, "/", cache);
      auto [it, added] = index.emplace(key, pairs.size());
      if (added) pairs.push_back({layer, batch, cache, peak, std::nullopt, std::nullopt});
      Pair& pair = pairs[it->second];
      const std::optional<Form> form = row.error ? std::nullopt : FormOf(row);
      if (!form) {
        const std::string why = RowNotes(row);
        not_measured.push_back(absl::StrCat("`", layer, "` batch ", batch, " ", cache, " ", mode,
                                            ": ", why.empty() ? "no kernel_us in the row" : why));
        continue;
      }
      (mode == "fused" ? pair.fused : pair.unfused) = form;
    }
  }
  return pairs;
}

Section PatternSection(const std::string& pattern, const std::vector<const ResultFile*>& files,
                       const std::vector<std::string>& inputs, PaperFigure& out) {
  std::vector<std::string> not_measured;
  const std::vector<Pair> pairs = PairRows(pattern, files, not_measured);

  MarkdownTable table;
  table.columns = {{"layer", false},        {"batch", true},        {"cache", false},
                   {"unfused µs", true},    {"fused µs", true},     {"speedup", true},
                   {"noise ±", true},       {"working set", true},  {"bytes saved", true},
                   {"intermediate", false}, {"unfused GB/s", true}, {"fused GB/s", true}};
  BarChart chart;
  chart.stem = absl::StrCat("fusion_", pattern, "_speedup");
  chart.title = absl::StrCat(pattern, ": unfused / fused time");
  chart.ylabel = "speedup (x)";
  chart.series = {"intermediate through DRAM", "L2-resident or not recorded"};
  chart.values.resize(2);
  chart.lines = {{1.0, "no gain"}};
  Section section;
  for (const Pair& p : pairs) {
    if (!p.fused || !p.unfused) {
      if (p.fused || p.unfused) {
        not_measured.push_back(absl::StrCat("`", p.layer, "` batch ", p.batch, " ", p.cache,
                                            ": no ", p.fused ? "unfused" : "fused",
                                            " row to compare with"));
      }
      continue;
    }
    const double speedup = p.unfused->us / p.fused->us;
    const double noise = std::max(p.unfused->us_spread, p.fused->us_spread);
    const Where where = p.where();
    section.speedups[static_cast<int>(where)].push_back(speedup);
    table.rows.push_back({CellText(p.layer), p.batch, p.cache, FormatNumber(p.unfused->us),
                          FormatNumber(p.fused->us), FormatNumber(speedup), FormatPercent(noise),
                          p.unfused->working_set ? FormatBytes(*p.unfused->working_set) : "—",
                          FormatBytes(p.unfused->bytes - p.fused->bytes), WhereCell(where),
                          GbpsCell(*p.unfused, p.peak_gbps, where),
                          GbpsCell(*p.fused, p.peak_gbps, where)});
    chart.categories.push_back(absl::StrCat(p.layer, " b", p.batch, " ", p.cache));
    chart.values[0].push_back(where == Where::kDram ? speedup : NAN);
    chart.values[1].push_back(where == Where::kDram ? NAN : speedup);
  }

  absl::StrAppend(
      &section.markdown, "### ", pattern, ": ", PatternTitle(pattern), "\n\n",
      RenderMarkdownTable(table), "\n",
      "Speedup = unfused / fused median kernel_us (the whole pattern, CUDA events; cold: L2 "
      "flushed before each sample); noise = the larger kernel_us spread of the two rows: a "
      "speedup within 1 ± noise is no effect. Working set = input, parameters, intermediate "
      "and output once each; bytes saved = the intermediate's write and read. Intermediate: "
      "DRAM when the working set is at least 2× device_l2_bytes (the row's beyond_2x_l2), "
      "else L2-resident: L2 is write-back, so the intermediate is read back from L2 and never "
      "reaches DRAM while timed (nor, when hot, does the input); not recorded: a result file "
      "from before the experiment recorded it. GB/s = compulsory bytes / time, a % of "
      "device_dram_peak_gbps only for DRAM rows.\n");
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

// The paper's claim is about an intermediate in DRAM: only pairs whose
// working set is at least 2x L2 are set against its number; the others are
// shown apart, with no paper value.
void AddSpeedupComparisons(const std::string& pattern, const Section& section,
                           const CatalogEntry& entry, MarkdownTable& comparison) {
  const std::vector<double>& dram = section.speedups[static_cast<int>(Where::kDram)];
  const std::optional<double> mean = GeometricMean(dram);
  AddComparison(comparison,
                absl::StrCat(pattern,
                             " speedup (fused vs unfused), intermediate through DRAM "
                             "(working set ≥ 2× L2), geometric mean over ",
                             dram.size(), " layer × batch point(s)"),
                entry.FindPublished(absl::StrCat(pattern, "_speedup")), mean, "x",
                mean ? "this GPU: our direct conv and elementwise kernels"
                     : "no pair with both forms measured and a working set of at least 2× L2");
  const struct {
    Where where;
    const char* what;
    const char* note;
  } others[] = {
      {Where::kL2, "L2-resident intermediate (working set < 2× L2)",
       "not the paper's claim: the intermediate stays in L2"},
      {Where::kNotRecorded, "working set not recorded",
       "not the paper's claim: where the intermediate lived is unknown"},
  };
  for (const auto& other : others) {
    const std::vector<double>& speedups = section.speedups[static_cast<int>(other.where)];
    if (speedups.empty()) continue;
    AddComparison(
        comparison,
        absl::StrCat(pattern, " speedup (fused vs unfused), ", other.what, ", geometric mean over ",
                     speedups.size(), " layer × batch point(s)"),
        nullptr, GeometricMean(speedups), "x", other.note);
  }
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
  std::vector<std::string> compared = {"dram_peak_gbps"};
  for (const std::string& pattern : *patterns) {
    const Section section = PatternSection(pattern, files, inputs, out);
    out.markdown += section.markdown;
    AddSpeedupComparisons(pattern, section, entry, comparison);
    compared.push_back(absl::StrCat(pattern, "_speedup"));
  }
  if (const PublishedValue* peak = entry.FindPublished("dram_peak_gbps")) {
    const double device_peak =
        std::atof(files.front()->ContextOr("device_dram_peak_gbps", "0").c_str());
    AddComparison(comparison, "peak DRAM bandwidth of the system", peak,
                  device_peak > 0 ? std::optional<double>(device_peak) : std::nullopt, "GB/s",
                  "this GPU: device_dram_peak_gbps (theoretical)");
  }
  AddPublishedWithoutMeasurement(comparison, entry, compared);
  absl::StrAppend(&out.markdown, "### Paper vs this GPU\n\n", RenderMarkdownTable(comparison));
  return out;
}

}  // namespace dissect::analysis::papers
