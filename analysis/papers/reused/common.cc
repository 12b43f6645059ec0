#include "analysis/papers/reused/common.h"

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "analysis/plots/figures.h"
#include "analysis/format/format.h"

namespace dissect::analysis::papers::reused {

absl::StatusOr<std::vector<const ResultFile*>> RequireAnyExperiment(
    const CatalogEntry& entry, const std::vector<ResultFile>& results,
    const std::vector<std::string>& experiments) {
  std::vector<const ResultFile*> files;
  for (const ResultFile& f : results) {
    for (const std::string& e : experiments) {
      if (f.experiment == e) files.push_back(&f);
    }
  }
  if (files.empty()) {
    return absl::NotFoundError(absl::StrCat(
        entry.id, ": no ", absl::StrJoin(experiments, ", "), " results among the ", results.size(),
        " result files; run the entry's sweep (--paper=", entry.id, ")"));
  }
  return files;
}

absl::StatusOr<std::vector<const ResultFile*>> RequireExperiment(
    const CatalogEntry& entry, const std::vector<ResultFile>& results,
    std::string_view experiment) {
  return RequireAnyExperiment(entry, results, {std::string(experiment)});
}

std::vector<std::string> AppendDeviceFigures(const std::vector<DeviceFigures>& figures,
                                             PaperFigure& out) {
  std::set<std::string> taken;
  for (const FigureFile& f : out.files) taken.insert(f.name);
  std::vector<std::string> notes;
  for (const DeviceFigures& device : figures) {
    for (const FigureFile& f : device.files) {
      if (!taken.insert(f.name).second) {
        notes.push_back(absl::StrCat(f.name, " of ", device.device_name,
                                     " left out: a figure of that name is already drawn"));
        continue;
      }
      out.files.push_back(f);
      for (const std::string& script : device.scripts) {
        if (script == f.name) out.scripts.push_back(script);
      }
    }
  }
  return notes;
}

std::string UnmeasuredRows(const std::vector<const ResultFile*>& files) {
  std::string list;
  for (const ResultFile* f : files) {
    for (const Row& row : f->rows) {
      const std::string notes = RowNotes(row);
      if (row.error || notes.rfind("skipped", 0) == 0) {
        absl::StrAppend(&list, "- `", row.name, "`: ", notes, "\n");
      }
    }
  }
  return list.empty() ? "" : absl::StrCat("Rows not measured:\n\n", list, "\n");
}

void AddHeatmap(const Heatmap& map, const std::vector<std::string>& inputs, PaperFigure& out) {
  std::string data =
      absl::StrCat("# ", map.stem, ".dat: ", map.title, "\n# columns: x index, y index, value (",
                   map.cblabel, "), x label, y label; ? where not measured\n");
  for (size_t y = 0; y < map.y.size(); ++y) {
    for (size_t x = 0; x < map.x.size(); ++x) {
      const double v = x < map.values[y].size() ? map.values[y][x] : NAN;
      absl::StrAppend(&data, x, " ", y, " ", GpNumber(v), " ", GpLabel(map.x[x]), " ",
                      GpLabel(map.y[y]), "\n");
    }
  }
  std::vector<std::string> xtics, ytics;
  for (size_t x = 0; x < map.x.size(); ++x)
    xtics.push_back(absl::StrCat(GnuplotQuoted(map.x[x]), " ", x));
  for (size_t y = 0; y < map.y.size(); ++y)
    ytics.push_back(absl::StrCat(GnuplotQuoted(map.y[y]), " ", y));
  const int width = 300 + 70 * static_cast<int>(map.x.size());
  const int height = 200 + 45 * static_cast<int>(map.y.size());
  std::string script = ScriptHead(map.stem, inputs, width, height, map.title);
  absl::StrAppend(
      &script, "set xlabel ", GnuplotQuoted(map.xlabel), "\nset ylabel ", GnuplotQuoted(map.ylabel),
      "\nset cblabel ", GnuplotQuoted(map.cblabel), "\nset datafile missing '?'\n", "set xtics (",
      absl::StrJoin(xtics, ", "), ")\n", "set ytics (", absl::StrJoin(ytics, ", "), ")\n",
      "set xrange [-0.5:", GpNumber(map.x.size() - 0.5), "]\n",
      "set yrange [-0.5:", GpNumber(map.y.size() - 0.5), "]\n", "set cbrange [0:*]\n",
      "set palette rgbformulae 33,13,10\n", "set style fill solid 1.0 noborder\n", "unset key\n",
      "plot ", GnuplotQuoted(map.stem + ".dat"),
      " using 1:2:(0.5):(0.5):3 with boxxyerror fillcolor palette, \\\n     '' using 1:2:"
      "(sprintf('%.0f', $3)) with labels\n");
  out.files.push_back({map.stem + ".dat", data});
  out.files.push_back({map.stem + ".gp", script});
  out.scripts.push_back(map.stem + ".gp");
}

std::string HeatmapMarkdown(const Heatmap& map, const std::string& corner) {
  MarkdownTable table;
  table.columns.push_back({corner, false});
  for (const std::string& x : map.x) table.columns.push_back({x, true});
  for (size_t y = 0; y < map.y.size(); ++y) {
    std::vector<std::string> row = {CellText(map.y[y])};
    for (size_t x = 0; x < map.x.size(); ++x) {
      const double v = x < map.values[y].size() ? map.values[y][x] : NAN;
      row.push_back(std::isfinite(v) ? FormatNumber(v) : std::string(kEmptyCell));
    }
    table.rows.push_back(std::move(row));
  }
  return RenderMarkdownTable(table);
}

}  // namespace dissect::analysis::papers::reused
