// latency_pair, layer_transactions and l1_bypass_speedup (Dong et al., ICPE
// 2018) over memory_latency and l1_bypass results.
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "analysis/format/format.h"
#include "analysis/sections/l1_bypass.h"
#include "analysis/sections/memory_hierarchy.h"
#include "analysis/papers/registry.h"
#include "analysis/papers/reused/common.h"
#include "analysis/sections/section_util.h"

namespace dissect::analysis::papers {
namespace {

using reused::RequireExperiment;
using reused::UnmeasuredRows;

// The median cycles per load of `curve`'s points with footprint <= max_bytes.
std::optional<double> HitCycles(const LatencyCurve* curve, double max_bytes) {
  if (curve == nullptr) return std::nullopt;
  std::vector<double> ys;
  for (const CurvePoint& p : curve->points) {
    if (p.x <= max_bytes) ys.push_back(p.y);
  }
  if (ys.empty()) return std::nullopt;
  return Median(ys);
}

}  // namespace

absl::StatusOr<PaperFigure> GenerateLatencyPair(const CatalogEntry& entry,
                                                const std::vector<ResultFile>& results) {
  absl::StatusOr<std::vector<const ResultFile*>> files =
      RequireExperiment(entry, results, "memory_latency");
  if (!files.ok()) return files.status();
  const absl::StatusOr<double> hit_max_param = NumberParam(entry, "hit_max_bytes", 16384);
  if (!hit_max_param.ok()) return hit_max_param.status();
  const double hit_max = *hit_max_param;
  const std::vector<LatencyCurve> curves = BuildLatencyCurves(*files);
  const LatencyCurve* shared = ChooseLatencyCurve(curves, "shared");
  const LatencyCurve* tex = ChooseLatencyCurve(curves, "tex");
  const std::optional<double> shared_hit = HitCycles(shared, hit_max);
  const std::optional<double> tex_hit = HitCycles(tex, hit_max);
  std::optional<double> tex_miss;
  std::string miss_label = "tex, largest footprint";
  if (tex != nullptr && !tex->points.empty() && tex->points.back().x > hit_max) {
    tex_miss = tex->points.back().y;
    miss_label = absl::StrCat("tex, ", FormatBytes(tex->points.back().x));
  }
  const std::string hit_words = absl::StrCat("footprints ≤ ", FormatBytes(hit_max), ", median");
  const std::string no_curve = "no measured rows of this path";

  PaperFigure out;
  absl::StrAppend(&out.markdown, "Device: ", DeviceLine(results), "\n\n");
  MarkdownTable compare = ComparisonTable();
  AddComparison(compare, "shared-memory load latency", entry.FindPublished("shared_cycles"),
                shared_hit, "cycles", shared_hit ? hit_words : no_curve);
  AddComparison(compare, "texture-path load latency, texture-cache hit",
                entry.FindPublished("texture_cycles"), tex_hit, "cycles",
                tex_hit ? hit_words : no_curve);
  AddComparison(compare, "texture-path load latency, miss past the texture cache",
                entry.FindPublished("texture_cycles"), tex_miss, "cycles",
                tex_miss ? absl::StrCat("footprint ", FormatBytes(tex->points.back().x))
                         : "no tex footprint beyond the hit range");
  AddPublishedWithoutMeasurement(compare, entry, {"shared_cycles", "texture_cycles"});
  absl::StrAppend(&out.markdown, RenderMarkdownTable(compare), "\n");

  MarkdownTable points =
      ColumnsTable({{"path", false}, {"footprint", true}, {"cycles/load", true}});
  for (const LatencyCurve* curve : {shared, tex}) {
    if (curve == nullptr) continue;
    for (const CurvePoint& p : curve->points) {
      points.rows.push_back({curve->path, FormatBytes(p.x), FormatNumber(p.y)});
    }
  }
  absl::StrAppend(&out.markdown, "Every measured point (",
                  shared ? shared->Describe() : "no shared curve", "; ",
                  tex ? tex->Describe() : "no tex curve", "):\n\n", RenderMarkdownTable(points),
                  "\n", UnmeasuredRows(*files));

  const PublishedValue* sp = entry.FindPublished("shared_cycles");
  const PublishedValue* tp = entry.FindPublished("texture_cycles");
  auto mid = [](const PublishedValue* v) {
    return v != nullptr && v->known() ? (*v->lo + v->hi.value_or(*v->lo)) / 2 : NAN;
  };
  BarChart chart{
      .stem = "latency_pair",
      .title = "Shared vs texture-path load latency",
      .ylabel = "cycles per load",
      .categories = {"shared (hit)", "tex (hit)", miss_label},
      .series = {"this GPU", "paper"},
      .values = {{shared_hit.value_or(NAN), tex_hit.value_or(NAN), tex_miss.value_or(NAN)},
                 {mid(sp), mid(tp), mid(tp)}},
      .log_y = true};
  AddBarChart(chart, InputPaths(*files), out);
  return out;
}

namespace {

// The counters of layer_transactions, with their column headings.
struct Transfer {
  const char* counter;
  const char* heading;
};
constexpr Transfer kTransfers[] = {
    {"cupti/l1_sectors_global_load", "L1 sectors (global load)"},
    {"cupti/l2_sectors_read", "L2 sectors read"},
    {"cupti/l2_sectors_write", "L2 sectors written"},
    {"cupti/dram_bytes_read", "DRAM bytes read"},
    {"cupti/dram_bytes_write", "DRAM bytes written"},
};

// The layer type a l1_bypass kernel stands for.
std::string LayerType(const std::string& kernel) {
  if (kernel == "conv") return "conv";
  if (kernel == "maxpool") return "pool";
  if (kernel == "gemv") return "FC";
  if (kernel == "softmax") return "softmax";
  if (kernel == "stream") return "ReLU (stream)";
  return kernel;
}

}  // namespace

absl::StatusOr<PaperFigure> GenerateLayerTransactions(const CatalogEntry& entry,
                                                      const std::vector<ResultFile>& results) {
  absl::StatusOr<std::vector<const ResultFile*>> files =
      RequireExperiment(entry, results, "l1_bypass");
  if (!files.ok()) return files.status();
  PaperFigure out;
  absl::StrAppend(&out.markdown, "Device: ", DeviceLine(results), "\n\n");
  std::vector<std::pair<std::string, bool>> columns = {
      {"device", false}, {"layer type", false}, {"layer", false}, {"batch", true}};
  for (const Transfer& t : kTransfers) columns.push_back({t.heading, true});
  columns.push_back({"DRAM bytes per input byte", true});
  columns.push_back({"note", false});
  MarkdownTable table = ColumnsTable(columns);
  BarChart chart{.stem = "layer_transactions",
                 .title = "Memory traffic per layer (default build)",
                 .ylabel = "sectors (32 B) or bytes",
                 .log_y = true};
  for (const Transfer& t : kTransfers) {
    chart.series.push_back(t.heading);
    chart.values.emplace_back();
  }
  for (const ResultFile* f : *files) {
    const std::string unavailable = f->ContextOr("counters_unavailable", "");
    for (const Row& row : f->rows) {
      if (row.Axis("variant").value_or("default") != "default") continue;
      if (row.Axis("working_set_bytes").value_or("0") != "0") continue;
      const std::string kernel = row.Axis("kernel").value_or("?");
      const std::string layer = row.Axis("layer").value_or("?");
      const std::string batch = row.Axis("batch").value_or("");
      std::vector<std::string> cells = {CellText(SectionTitle(*f)), LayerType(kernel),
                                        CellText(layer), batch};
      std::string note = RowNotes(row);
      const bool measured = !row.error && note.rfind("skipped", 0) != 0;
      if (measured && !unavailable.empty()) {
        note = absl::StrCat("counters unavailable: ", unavailable);
      }
      chart.categories.push_back(absl::StrCat(LayerType(kernel), " ", layer, " b", batch));
      bool any = false;
      for (size_t i = 0; i < std::size(kTransfers); ++i) {
        const std::optional<double> v =
            measured ? FiniteCounter(row, kTransfers[i].counter) : std::nullopt;
        any = any || v.has_value();
        cells.push_back(v ? FormatNumber(*v) : std::string(kEmptyCell));
        chart.values[i].push_back(v.value_or(NAN));
      }
      const std::optional<double> dram = FiniteCounter(row, "cupti/dram_bytes_read");
      const std::optional<double> input = FiniteCounter(row, "input_bytes");
      cells.push_back(measured && dram && input && *input > 0 ? FormatNumber(*dram / *input)
                                                              : std::string(kEmptyCell));
      if (measured && !any && unavailable.empty())
        note = "no counters in this row (run with --metrics)";
      cells.push_back(note.empty() ? std::string(kEmptyCell) : CellText(note));
      table.rows.push_back(std::move(cells));
    }
  }
  absl::StrAppend(&out.markdown, RenderMarkdownTable(table), "\n");
  MarkdownTable compare = ComparisonTable();
  AddComparison(compare, "memory transactions per layer and level",
                entry.FindPublished("transactions"), std::nullopt, "",
                "per layer above; the paper's numbers are not available to compare");
  AddPublishedWithoutMeasurement(compare, entry, {"transactions"});
  absl::StrAppend(&out.markdown, RenderMarkdownTable(compare), "\n");
  AddBarChart(chart, InputPaths(*files), out);
  return out;
}

absl::StatusOr<PaperFigure> GenerateL1BypassSpeedup(const CatalogEntry& entry,
                                                    const std::vector<ResultFile>& results) {
  absl::StatusOr<std::vector<const ResultFile*>> files =
      RequireExperiment(entry, results, "l1_bypass");
  if (!files.ok()) return files.status();
  std::vector<ResultFile> l1_files;
  for (const ResultFile* f : *files) l1_files.push_back(*f);
  const std::vector<L1BypassTable> tables = BuildL1BypassTables(l1_files);
  PaperFigure out;
  absl::StrAppend(&out.markdown, "Device: ", DeviceLine(results), "\n\n");
  const std::vector<std::string> shown = {"dlcm_cg", "cg"};
  MarkdownTable table = ColumnsTable({{"layer type", false},
                                      {"layer", false},
                                      {"batch", true},
                                      {"timing", false},
                                      {"occupancy %", true},
                                      {"default µs", true},
                                      {"dlcm_cg speedup", true},
                                      {"cg speedup", true},
                                      {"winner", false}});
  BarChart chart{.stem = "l1_bypass_speedup",
                 .title = "Speedup from bypassing L1, per layer",
                 .ylabel = "speedup over default (x)",
                 .series = shown,
                 .values = {{}, {}},
                 .lines = {{1, "no change"}}};
  for (const L1BypassTable& t : tables) {
    for (const SpeedupRow& r : t.rows) {
      if (r.working_set != "as configured") continue;
      std::vector<std::string> cells = {
          LayerType(t.kernel), CellText(r.layer),         r.batch, r.timing,
          r.occupancy_pct,     OptionalCell(r.default_us)};
      chart.categories.push_back(absl::StrCat(LayerType(t.kernel), " ", r.layer, " b", r.batch, " ",
                                              r.timing, " ", r.occupancy_pct, "%"));
      for (size_t s = 0; s < shown.size(); ++s) {
        std::optional<VariantSpeedup> v;
        for (size_t i = 0; i < t.variants.size(); ++i) {
          if (t.variants[i] == shown[s] && i < r.variants.size()) v = r.variants[i];
        }
        cells.push_back(v ? absl::StrCat(FormatNumber(v->speedup), " ± ", FormatPercent(v->noise))
                          : std::string(kEmptyCell));
        chart.values[s].push_back(v ? v->speedup : NAN);
      }
      cells.push_back(r.winner.empty() ? "none beyond noise" : CellText(r.winner));
      table.rows.push_back(std::move(cells));
    }
  }
  absl::StrAppend(&out.markdown, RenderMarkdownTable(table), "\n");
  MarkdownTable compare = ComparisonTable();
  AddComparison(compare, "speedup from bypassing L1, per layer", entry.FindPublished("speedup"),
                std::nullopt, "x",
                "per layer above; the paper's numbers are not available to compare");
  AddPublishedWithoutMeasurement(compare, entry, {"speedup"});
  absl::StrAppend(&out.markdown, RenderMarkdownTable(compare), "\n", UnmeasuredRows(*files));
  AddBarChart(chart, InputPaths(*files), out);
  return out;
}

}  // namespace dissect::analysis::papers
