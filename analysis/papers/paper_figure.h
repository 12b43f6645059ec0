// What an analysis generator of the paper catalog makes from result files:
// the figure (gnuplot data and scripts, drawn to SVG) and a markdown "paper
// vs this GPU" table, plus helpers shared by the generators. The generators
// themselves are listed in analysis/papers/registry.h.
#ifndef DISSECT_ANALYSIS_PAPERS_PAPER_FIGURE_H_
#define DISSECT_ANALYSIS_PAPERS_PAPER_FIGURE_H_

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "analysis/plots/figures.h"
#include "analysis/format/format.h"
#include "analysis/papers/catalog.h"
#include "analysis/results/results.h"

namespace dissect::analysis::papers {

struct PaperFigure {
  // The body of the figure's markdown page, without a top-level heading:
  // the "paper vs this GPU" table(s), findings, and a note on every row
  // that could not be measured. Deterministic (golden-tested).
  std::string markdown;
  // Data files and gnuplot scripts; each script, run in the figure's
  // folder, writes <script stem>.svg there (RunGnuplot, figures.h).
  std::vector<FigureFile> files;
  std::vector<std::string> scripts;
};

// A generator: the catalog entry (its params and published values) and
// every result file of the entry's run folder. Errors: the results hold
// nothing the figure can be made of (says which experiment is missing).
// Rows that failed or were skipped are reported, not dropped silently.
using Generator = absl::StatusOr<PaperFigure> (*)(const CatalogEntry& entry,
                                                 const std::vector<ResultFile>& results);

// --- Helpers for generators ---

// The files of `results` written by `experiment` (context dissect_experiment).
std::vector<const ResultFile*> FilesOf(const std::vector<ResultFile>& results,
                                       std::string_view experiment);

// "<name> · cc 9.0 · 132 SMs" of the first file, "unknown device" if none.
std::string DeviceLine(const std::vector<ResultFile>& results);

// A published value as a table cell: "38 cycles (Table 2)", "436–443 cycles
// (...)", "unknown: <why>"; "—" for nullptr.
std::string PublishedCell(const PublishedValue* value);

// The "paper vs this GPU" table: quantity | paper | this GPU | this GPU /
// paper | note. Add rows with AddComparison, render with
// RenderMarkdownTable (format.h).
MarkdownTable ComparisonTable();
// `measured` nullopt: "not measured" (with `note` saying why). The ratio is
// measured / paper (the middle of a range), "—" if either is unknown.
void AddComparison(MarkdownTable& table, const std::string& quantity,
                   const PublishedValue* published, std::optional<double> measured,
                   const std::string& unit, const std::string& note);
// A row, with no measurement, for each of `entry`'s published values whose
// key is not in `compared` (the keys the generator set against a
// measurement), so that every number the paper gives is on its page.
void AddPublishedWithoutMeasurement(MarkdownTable& table, const CatalogEntry& entry,
                                    const std::vector<std::string>& compared);

// Typed readers of a generator's parameters (entry.params[key]): `fallback`
// when the key is absent, else the value; a value of the wrong type (or
// outside the range) is an InvalidArgumentError
// "<entry id>: params.<key> must be <what>".
absl::StatusOr<std::string> StringParam(const CatalogEntry& entry, std::string_view key,
                                        std::string fallback);
// An integer >= `min`; `fallback` need not be >= min (e.g. 0 for "not
// given" where min is 1).
absl::StatusOr<int64_t> IntParam(const CatalogEntry& entry, std::string_view key, int64_t fallback,
                                 int64_t min = std::numeric_limits<int64_t>::min());
absl::StatusOr<double> NumberParam(const CatalogEntry& entry, std::string_view key,
                                   double fallback);
// A list of strings; `non_empty`: an empty list is an error too.
absl::StatusOr<std::vector<std::string>> StringListParam(const CatalogEntry& entry,
                                                         std::string_view key,
                                                         std::vector<std::string> fallback,
                                                         bool non_empty = false);
absl::StatusOr<std::vector<double>> NumberListParam(const CatalogEntry& entry, std::string_view key,
                                                    std::vector<double> fallback);
// The readers' error, for checks of their own: "<entry id>: params.<key>
// must be <what>".
absl::Status BadParam(const CatalogEntry& entry, std::string_view key, std::string_view what);

// gnuplot text helpers (a quoted string: GnuplotQuoted, figures.h): a
// number ("%.10g"), and a label safe as one data-file token (spaces become
// '_').
std::string GpNumber(double value);
std::string GpLabel(std::string_view text);

// A clustered bar chart: one group per category (x), one bar per series.
// values[s][c]; NaN draws nothing. Optional horizontal reference lines
// (e.g. the device's peak) are drawn across the chart.
struct BarChart {
  std::string stem;  // file stem: <stem>.dat, <stem>.gp -> <stem>.svg
  std::string title, ylabel;
  std::vector<std::string> categories;
  std::vector<std::string> series;
  std::vector<std::vector<double>> values;
  bool log_y = false;
  bool stacked = false;  // rowstacked instead of clustered
  struct Line {
    double y;
    std::string title;
  };
  std::vector<Line> lines;
};
void AddBarChart(const BarChart& chart, const std::vector<std::string>& inputs,
                 PaperFigure& out);

// An x-y line plot, one line per series (x ascending), optional log axes.
struct LinePlot {
  std::string stem, title, xlabel, ylabel;
  bool log_x = false, log_y = false;
  struct Series {
    std::string title;
    std::vector<double> x, y;
    std::string style = "linespoints";  // gnuplot's `with`: "lines", "points", ...
  };
  std::vector<Series> series;
  // Extra gnuplot commands before `plot` (labels, arrows), and extra plot
  // clauses (e.g. a ceiling function) appended to the plot command.
  std::string extra_commands;
  std::vector<std::string> extra_plots;
};
void AddLinePlot(const LinePlot& plot, const std::vector<std::string>& inputs,
                 PaperFigure& out);

// The first lines of a script: provenance (the inputs), SVG terminal,
// output and title. Generators writing their own scripts start with it.
std::string ScriptHead(const std::string& stem, const std::vector<std::string>& inputs,
                       int width, int height, const std::string& title);

// The paths of `results`, for ScriptHead's provenance lines.
std::vector<std::string> InputPaths(const std::vector<const ResultFile*>& files);

}  // namespace dissect::analysis::papers

#endif  // DISSECT_ANALYSIS_PAPERS_PAPER_FIGURE_H_
