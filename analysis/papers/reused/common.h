// Helpers shared by the generators of analysis/papers/reused.
#ifndef DISSECT_ANALYSIS_PAPERS_REUSED_COMMON_H_
#define DISSECT_ANALYSIS_PAPERS_REUSED_COMMON_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "analysis/plots/figures.h"
#include "analysis/papers/paper_figure.h"
#include "analysis/results/results.h"

namespace dissect::analysis::papers::reused {

// The files of `experiment` among `results`; NotFound naming the experiment
// and the entry when there are none.
absl::StatusOr<std::vector<const ResultFile*>> RequireExperiment(
    const CatalogEntry& entry, const std::vector<ResultFile>& results, std::string_view experiment);

// The files of any of `experiments`; NotFound naming them when none is there.
absl::StatusOr<std::vector<const ResultFile*>> RequireAnyExperiment(
    const CatalogEntry& entry, const std::vector<ResultFile>& results,
    const std::vector<std::string>& experiments);

// Copies the files and scripts of report figures (figures.h) into `out`. A
// file name already taken (a second device) is left out and named in the
// returned notes.
std::vector<std::string> AppendDeviceFigures(const std::vector<DeviceFigures>& figures,
                                             PaperFigure& out);

// "Rows not measured" notes as a markdown list ("" without any): one line per
// row that errored or was skipped, "- `<row name>`: <RowNotes>".
std::string UnmeasuredRows(const std::vector<const ResultFile*>& files);

// A heatmap: one cell per (x, y), values[y][x] (NaN: not measured), drawn as
// coloured boxes with the value printed in each.
struct Heatmap {
  std::string stem, title, xlabel, ylabel, cblabel;
  std::vector<std::string> x, y;
  std::vector<std::vector<double>> values;
};
void AddHeatmap(const Heatmap& map, const std::vector<std::string>& inputs, PaperFigure& out);
// The same values as a markdown grid: rows y, columns x (FormatNumber).
std::string HeatmapMarkdown(const Heatmap& map, const std::string& corner);

}  // namespace dissect::analysis::papers::reused

#endif  // DISSECT_ANALYSIS_PAPERS_REUSED_COMMON_H_
