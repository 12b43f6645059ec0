// What the figure families (figures_memory.cc, figures_sharing.cc,
// figures_sparsity.cc, figures_instructions.cc) share: gnuplot number and label text, a line
// figure's data and script, a script's head. Internal to figures_lib.

#ifndef DISSECT_ANALYSIS_PLOTS_FIGURES_INTERNAL_H_
#define DISSECT_ANALYSIS_PLOTS_FIGURES_INTERNAL_H_

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analysis/plots/figures.h"
#include "analysis/results/results.h"

namespace dissect::analysis::figures_internal {

// Full precision, locale-independent.
std::string Number(double value);

// A value for a data file, '?' (gnuplot's missing value) when absent.
std::string Value(const std::optional<double>& value);

// A gnuplot data-file string ("..." with no double quote inside).
std::string DataLabel(const std::string& text);

struct Line {
  std::string title;
  std::vector<std::pair<double, double>> points;
};

// The data file (one gnuplot index per line) and the script plotting it.
void AddFigure(const std::string& stem, const std::string& title, const std::string& ylabel,
               const std::string& column, const std::vector<Line>& lines,
               const std::string& extra_plot, const std::vector<std::string>& inputs,
               DeviceFigures& out);

// The first lines of a figure script: provenance, SVG terminal, output and
// title.
std::string ScriptHead(const std::string& stem, const std::vector<std::string>& inputs, int width,
                       int height, const std::string& title);

// Adds `stem`.dat, `stem`.gp and the script to draw to `out`.
void AddScript(const std::string& stem, const std::string& data, const std::string& script,
               DeviceFigures& out);

// The files of `group` whose experiment `keep` accepts, and their paths
// (the inputs a figure script names).
struct FigureInputs {
  std::vector<const ResultFile*> files;
  std::vector<std::string> paths;
};
FigureInputs InputsWhere(const std::vector<const ResultFile*>& group,
                         const std::function<bool(const std::string&)>& keep);

// Whether `experiment` is drawn as a latency or bandwidth curve.
bool IsFigureMemoryExperiment(const std::string& experiment);

// The figures of one device's files `group`, per family: memory curves,
// stalls and l1_bypass; intergroup sharing; activation sparsity; the
// instruction chapter.
void AddMemoryFigures(const std::vector<const ResultFile*>& group, DeviceFigures& device);
void AddSharingFigures(const std::vector<const ResultFile*>& group, DeviceFigures& device);
void AddSparsityFigures(const std::vector<const ResultFile*>& group, DeviceFigures& device);
void AddInstructionFigures(const std::vector<const ResultFile*>& group, DeviceFigures& device);

}  // namespace dissect::analysis::figures_internal

#endif  // DISSECT_ANALYSIS_PLOTS_FIGURES_INTERNAL_H_
