#include "analysis/papers/paper_figure.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "analysis/sections/section_util.h"

namespace dissect::analysis::papers {

std::vector<const ResultFile*> FilesOf(const std::vector<ResultFile>& results,
                                       std::string_view experiment) {
  std::vector<const ResultFile*> files;
  for (const ResultFile& f : results) {
    if (f.experiment == experiment) files.push_back(&f);
  }
  return files;
}

std::string DeviceLine(const std::vector<ResultFile>& results) {
  if (results.empty()) return "unknown device";
  return SectionDeviceLine(results.front());
}

namespace {

std::string ValueText(const PublishedValue& v) {
  if (!v.known()) return "";
  std::string text = FormatNumber(*v.lo);
  if (v.hi && *v.hi != *v.lo) absl::StrAppend(&text, "–", FormatNumber(*v.hi));
  if (!v.unit.empty()) absl::StrAppend(&text, " ", v.unit);
  return text;
}

}  // namespace

std::string PublishedCell(const PublishedValue* value) {
  if (value == nullptr) return kEmptyCell;
  if (!value->known()) return absl::StrCat("unknown: ", value->why);
  std::string cell = ValueText(*value);
  if (!value->source.empty()) absl::StrAppend(&cell, " (", value->source, ")");
  return cell;
}

MarkdownTable ComparisonTable() {
  return ColumnsTable({{"quantity", false},
                       {"paper", false},
                       {"this GPU", true},
                       {"this GPU / paper", true},
                       {"note", false}});
}

void AddComparison(MarkdownTable& table, const std::string& quantity,
                   const PublishedValue* published, std::optional<double> measured,
                   const std::string& unit, const std::string& note) {
  std::string measured_cell = "not measured";
  if (measured) {
    measured_cell = FormatNumber(*measured);
    if (!unit.empty()) absl::StrAppend(&measured_cell, " ", unit);
  }
  std::string ratio = kEmptyCell;
  if (measured && published != nullptr && published->known()) {
    const double paper = (*published->lo + published->hi.value_or(*published->lo)) / 2;
    if (paper != 0 && std::isfinite(*measured)) ratio = FormatNumber(*measured / paper);
  }
  table.rows.push_back({CellText(quantity), CellText(PublishedCell(published)),
                        CellText(measured_cell), ratio, CellText(note)});
}

void AddPublishedWithoutMeasurement(MarkdownTable& table, const CatalogEntry& entry,
                                    const std::vector<std::string>& compared) {
  for (const PublishedValue& p : entry.published) {
    if (std::find(compared.begin(), compared.end(), p.key) != compared.end()) continue;
    AddComparison(table, p.quantity, &p, std::nullopt, p.unit,
                  "the paper's number; nothing on this page measures it");
  }
}

absl::Status BadParam(const CatalogEntry& entry, std::string_view key, std::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat(entry.id, ": params.", std::string(key), " must be ", std::string(what)));
}

absl::StatusOr<std::string> StringParam(const CatalogEntry& entry, std::string_view key,
                                        std::string fallback) {
  const auto it = entry.params.find(std::string(key));
  if (it == entry.params.end()) return fallback;
  if (!it->is_string()) return BadParam(entry, key, "a string");
  return it->get<std::string>();
}

absl::StatusOr<int64_t> IntParam(const CatalogEntry& entry, std::string_view key, int64_t fallback,
                                 int64_t min) {
  const auto it = entry.params.find(std::string(key));
  if (it == entry.params.end()) return fallback;
  if (!it->is_number_integer() || it->get<int64_t>() < min) {
    return BadParam(entry, key,
                    min == std::numeric_limits<int64_t>::min()
                        ? std::string("an integer")
                        : absl::StrCat("an integer >= ", min));
  }
  return it->get<int64_t>();
}

absl::StatusOr<double> NumberParam(const CatalogEntry& entry, std::string_view key,
                                   double fallback) {
  const auto it = entry.params.find(std::string(key));
  if (it == entry.params.end()) return fallback;
  if (!it->is_number()) return BadParam(entry, key, "a number");
  return it->get<double>();
}

absl::StatusOr<std::vector<std::string>> StringListParam(const CatalogEntry& entry,
                                                         std::string_view key,
                                                         std::vector<std::string> fallback,
                                                         bool non_empty) {
  const auto it = entry.params.find(std::string(key));
  if (it == entry.params.end()) return fallback;
  const char* what = non_empty ? "a non-empty list of strings" : "a list of strings";
  if (!it->is_array() || (non_empty && it->empty())) return BadParam(entry, key, what);
  std::vector<std::string> list;
  for (const auto& v : *it) {
    if (!v.is_string()) return BadParam(entry, key, what);
    list.push_back(v.get<std::string>());
  }
  return list;
}

absl::StatusOr<std::vector<double>> NumberListParam(const CatalogEntry& entry, std::string_view key,
                                                    std::vector<double> fallback) {
  const auto it = entry.params.find(std::string(key));
  if (it == entry.params.end()) return fallback;
  if (!it->is_array()) return BadParam(entry, key, "a list of numbers");
  std::vector<double> list;
  for (const auto& v : *it) {
    if (!v.is_number()) return BadParam(entry, key, "a list of numbers");
    list.push_back(v.get<double>());
  }
  return list;
}

std::string GpNumber(double value) {
  if (!std::isfinite(value)) return "?";
  return absl::StrFormat("%.10g", value);
}

std::string GpLabel(std::string_view text) {
  std::string out;
  for (char c : text) out += (c == ' ' || c == '\t' || c == '"' || c == '\'') ? '_' : c;
  return out.empty() ? "-" : out;
}

std::string ScriptHead(const std::string& stem, const std::vector<std::string>& inputs,
                       int width, int height, const std::string& title) {
  std::string script =
      absl::StrCat("# ", stem, ".gp: generated by //experiments:reproduce (analysis/papers) from\n");
  for (const std::string& input : inputs) absl::StrAppend(&script, "#   ", input, "\n");
  absl::StrAppend(&script, "set terminal svg size ", width, ",", height,
                  " dynamic noenhanced font 'sans,12' background rgb 'white'\n", "set output ",
                  GnuplotQuoted(stem + ".svg"), "\n", "set title ", GnuplotQuoted(title), "\n");
  return script;
}

std::vector<std::string> InputPaths(const std::vector<const ResultFile*>& files) {
  std::vector<std::string> paths;
  for (const ResultFile* f : files) paths.push_back(f->path);
  return paths;
}

void AddBarChart(const BarChart& chart, const std::vector<std::string>& inputs,
                 PaperFigure& out) {
  std::string data = absl::StrCat("# ", chart.stem, ".dat: ", chart.title, "\n# columns: category");
  for (const std::string& s : chart.series) absl::StrAppend(&data, ", ", s);
  absl::StrAppend(&data, " (", chart.ylabel, "); ? where absent\n");
  for (size_t c = 0; c < chart.categories.size(); ++c) {
    absl::StrAppend(&data, GpLabel(chart.categories[c]));
    for (size_t s = 0; s < chart.series.size(); ++s) {
      const double v = c < chart.values[s].size() ? chart.values[s][c] : NAN;
      absl::StrAppend(&data, " ", GpNumber(v));
    }
    absl::StrAppend(&data, "\n");
  }
  const int width = std::max<int>(
      800, 200 + static_cast<int>(chart.categories.size() *
                                  std::max<size_t>(1, chart.stacked ? 1 : chart.series.size()) *
                                  18));
  std::string script = ScriptHead(chart.stem, inputs, std::min(width, 4000), 600, chart.title);
  absl::StrAppend(&script, "set ylabel ", GnuplotQuoted(chart.ylabel), "\n");
  if (chart.log_y) absl::StrAppend(&script, "set logscale y 10\n");
  absl::StrAppend(&script, "set style data histograms\n",
                  chart.stacked ? "set style histogram rowstacked\n"
                                : "set style histogram clustered gap 1\n",
                  "set style fill solid 0.8 border -1\n", "set boxwidth 0.9\n",
                  "set datafile missing '?'\n", "set xtics rotate by -45 noenhanced\n",
                  "set grid ytics\n", "set key below\n");
  if (!chart.log_y) absl::StrAppend(&script, "set yrange [0:*]\n");
  std::vector<std::string> plots;
  for (size_t s = 0; s < chart.series.size(); ++s) {
    plots.push_back(absl::StrCat(s == 0 ? GnuplotQuoted(chart.stem + ".dat") : "''", " using ",
                                 s + 2, s == 0 ? ":xtic(1)" : "", " title ",
                                 GnuplotQuoted(chart.series[s])));
  }
  for (const BarChart::Line& line : chart.lines) {
    plots.push_back(absl::StrCat(GpNumber(line.y), " with lines dashtype 2 lw 2 title ",
                                 GnuplotQuoted(line.title)));
  }
  absl::StrAppend(&script, "plot ", absl::StrJoin(plots, ", \\\n     "), "\n");
  out.files.push_back({chart.stem + ".dat", data});
  out.files.push_back({chart.stem + ".gp", script});
  out.scripts.push_back(chart.stem + ".gp");
}

void AddLinePlot(const LinePlot& plot, const std::vector<std::string>& inputs,
                 PaperFigure& out) {
  std::string data = absl::StrCat("# ", plot.stem, ".dat: ", plot.title,
                                  "\n# one block per series (gnuplot index): x y\n");
  for (size_t s = 0; s < plot.series.size(); ++s) {
    const LinePlot::Series& series = plot.series[s];
    absl::StrAppend(&data, s == 0 ? "" : "\n\n", "# ", series.title, "\n");
    for (size_t i = 0; i < series.x.size() && i < series.y.size(); ++i) {
      absl::StrAppend(&data, GpNumber(series.x[i]), " ", GpNumber(series.y[i]), "\n");
    }
  }
  std::string script = ScriptHead(plot.stem, inputs, 960, 640, plot.title);
  absl::StrAppend(&script, "set xlabel ", GnuplotQuoted(plot.xlabel), "\n", "set ylabel ",
                  GnuplotQuoted(plot.ylabel), "\n");
  if (plot.log_x) absl::StrAppend(&script, "set logscale x 2\n");
  if (plot.log_y) absl::StrAppend(&script, "set logscale y 10\n");
  absl::StrAppend(&script, "set datafile missing '?'\n", "set grid xtics ytics\n",
                  "set key below\n", plot.extra_commands);
  std::vector<std::string> plots;
  for (size_t s = 0; s < plot.series.size(); ++s) {
    plots.push_back(absl::StrCat(GnuplotQuoted(plot.stem + ".dat"), " index ", s,
                                 " using 1:2 with ", plot.series[s].style, " title ",
                                 GnuplotQuoted(plot.series[s].title)));
  }
  for (const std::string& extra : plot.extra_plots) plots.push_back(extra);
  absl::StrAppend(&script, "plot ", absl::StrJoin(plots, ", \\\n     "), "\n");
  out.files.push_back({plot.stem + ".dat", data});
  out.files.push_back({plot.stem + ".gp", script});
  out.scripts.push_back(plot.stem + ".gp");
}

}  // namespace dissect::analysis::papers
