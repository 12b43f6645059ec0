// fc_heatmap (ParaDnn, Wang et al. 2019) and tensor_good_bad_ugly over
// cublaslt_gemm results.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "analysis/format/format.h"
#include "analysis/papers/registry.h"
#include "analysis/papers/reused/common.h"
#include "analysis/papers/reused/paradnn_fc.h"
#include "analysis/sections/tensor.h"
#include "analysis/sections/tensor_peaks_embedded.h"

namespace dissect::analysis::papers {
namespace {

using reused::Heatmap;

// What both generators read: the entry's cublaslt_gemm files and the
// embedded configs/tensor/peaks.json.
struct GemmInputs {
  std::vector<const ResultFile*> files;
  TensorPeaks peaks;
};

absl::StatusOr<GemmInputs> ReadGemmInputs(const CatalogEntry& entry,
                                          const std::vector<ResultFile>& results) {
  absl::StatusOr<std::vector<const ResultFile*>> files =
      reused::RequireExperiment(entry, results, "cublaslt_gemm");
  if (!files.ok()) return files.status();
  absl::StatusOr<TensorPeaks> peaks =
      ParseTensorPeaksJson(kEmbeddedTensorPeaksJson, kEmbeddedTensorPeaksOrigin);
  if (!peaks.ok()) return peaks.status();
  return GemmInputs{*std::move(files), *std::move(peaks)};
}

// The dense peak of `dtype` on the file's device in TFLOP/s, as the tensor
// section grades it (TensorCeilings::Basis, tensor.h): NVIDIA's published
// peak of the product where configs/tensor/peaks.json knows it, else SMs x
// max boost clock x the architecture's per-SM rate. `basis` says which.
std::optional<double> DensePeak(const TensorPeaks& peaks, const ResultFile& f,
                                const std::string& dtype, std::string* basis) {
  const TensorCeilings ceilings = CeilingsOf(f, peaks);
  const TensorKind kind{.dtype = dtype, .sparse = false};
  if (const std::optional<double> published = ceilings.Published(kind)) {
    *basis = absl::StrCat("published peak of the ", ceilings.product->name);
    return published;
  }
  const std::optional<double> computed = ceilings.AtMax(kind);
  if (computed) {
    *basis = absl::StrCat(ceilings.arch->name, " per-SM rate × ", FormatNumber(ceilings.sms),
                          " SMs × ", FormatNumber(ceilings.max_mhz), " MHz (max boost clock)");
  }
  return computed;
}

// One hot GEMM row graded against its input type's dense peak.
struct GradedGemm {
  std::string dtype, shape_text;
  GemmShape shape;
  std::optional<double> pct;  // nullopt: not measured or no peak
};

// Every hot cublaslt_gemm row of `files` (first-seen order), and per dtype
// the basis of its peak.
std::vector<GradedGemm> GradeGemms(const std::vector<const ResultFile*>& files,
                                   const TensorPeaks& peaks,
                                   std::map<std::string, std::string>& basis) {
  std::vector<GradedGemm> graded;
  for (const ResultFile* f : files) {
    for (const Row& row : f->rows) {
      const std::optional<std::string> dtype = row.Axis("dtype");
      const std::optional<std::string> shape_text = row.Axis("shape");
      const std::optional<GemmShape> shape = ParseGemmShape(shape_text.value_or(""));
      if (!dtype || !shape || row.Axis("cache").value_or("hot") != "hot") continue;
      GradedGemm g{.dtype = *dtype, .shape_text = *shape_text, .shape = *shape};
      const std::optional<double> tflops = row.error ? std::nullopt : row.Counter("tflops");
      std::string why;
      const std::optional<TensorKind> kind = KindOf(*dtype);
      const std::optional<double> peak =
          kind && !kind->sparse ? DensePeak(peaks, *f, kind->dtype, &why) : std::nullopt;
      if (tflops && peak && *peak > 0) {
        g.pct = 100 * *tflops / *peak;
        basis.emplace(*dtype, why);
      }
      graded.push_back(std::move(g));
    }
  }
  return graded;
}

void AddFirstSeen(std::vector<std::string>& list, const std::string& value) {
  if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(value);
}

// The shared data folder: $DISSECT_SHARED_DATA, else ../shared/data beside
// the workspace (bazel run), else beside the working directory.
std::string SharedDataDir() {
  if (const char* dir = std::getenv("DISSECT_SHARED_DATA"); dir != nullptr && *dir != '\0') {
    return dir;
  }
  if (const char* workspace = std::getenv("BUILD_WORKSPACE_DIRECTORY"); workspace != nullptr) {
    return absl::StrCat(workspace, "/../shared/data");
  }
  return "../shared/data";
}

// dtype -> (batch, width) -> % of the dtype's dense peak.
using FcPeakPct = std::map<std::string, std::map<std::pair<int64_t, int64_t>, double>>;

// The cells on both grids, the paper's fewest-layer model beside our GEMM
// per input type: the same batch and width, but a whole TensorFlow training
// step of several layers on a V100 against one cuBLASLt GEMM on this GPU.
std::string SideBySide(const std::vector<reused::ParaDnnFcCell>& cells,
                       const std::vector<std::string>& dtypes, const FcPeakPct& pct) {
  int64_t layers = 0;
  for (const reused::ParaDnnFcCell& c : cells) {
    if (layers == 0 || c.layers < layers) layers = c.layers;
  }
  MarkdownTable table;
  table.columns = {{"batch", true},
                   {"width", true},
                   {absl::StrCat("paper V100, ", layers, " layers: GFLOP/s (examples/s)"), true}};
  for (const std::string& dtype : dtypes) {
    table.columns.push_back({absl::StrCat("ours ", dtype, ": % of peak"), true});
  }
  std::vector<const reused::ParaDnnFcCell*> shown;
  for (const reused::ParaDnnFcCell& c : cells) {
    if (c.layers == layers) shown.push_back(&c);
  }
  std::sort(shown.begin(), shown.end(), [](const auto* a, const auto* b) {
    return std::make_pair(a->batch, a->width) < std::make_pair(b->batch, b->width);
  });
  for (const reused::ParaDnnFcCell* c : shown) {
    std::vector<std::string> row{absl::StrCat(c->batch), absl::StrCat(c->width),
                                 reused::ParaDnnFcCellText(*c)};
    bool ours = false;
    for (const std::string& dtype : dtypes) {
      std::optional<double> value;
      if (const auto by_dtype = pct.find(dtype); by_dtype != pct.end()) {
        const auto it = by_dtype->second.find({c->batch, c->width});
        if (it != by_dtype->second.end()) value = it->second;
      }
      ours = ours || value.has_value();
      row.push_back(value ? FormatNumber(*value) : std::string(kEmptyCell));
    }
    if (ours) table.rows.push_back(std::move(row));
  }
  if (table.rows.empty()) return "No cell is on both the paper's grid and ours.\n\n";
  return absl::StrCat("Where the grids meet (", layers,
                      " hidden layers, the paper's shallowest):\n\n", RenderMarkdownTable(table),
                      "\n");
}

// The paper's own V100 cells (params.paper_data: the authors' gpu_fc.json,
// a path relative to the shared data folder, or absolute) on the paper's
// grid, with their heatmaps. Optional because the file is the authors', read
// in place and never copied into the project: where it is absent the page
// says so in one line. A file that is there but malformed is an error.
absl::StatusOr<std::string> PaperCells(const CatalogEntry& entry,
                                       const std::vector<std::string>& dtypes,
                                       const FcPeakPct& pct, PaperFigure& out) {
  absl::StatusOr<std::string> data = StringParam(entry, "paper_data", "");
  if (!data.ok()) return data.status();
  if (data->empty()) return std::string();
  const bool absolute = (*data)[0] == '/';
  const std::string path = absolute ? *data : absl::StrCat(SharedDataDir(), "/", *data);
  // What the page names: the catalog's relative path, or an absolute path's
  // file name (a test's fixture), so that pages do not depend on the machine.
  const std::string shown = absolute ? std::filesystem::path(*data).filename().string() : *data;
  absl::StatusOr<std::vector<reused::ParaDnnFcCell>> cells = reused::ReadParaDnnFc(path);
  if (absl::IsNotFound(cells.status())) {
    return absl::StrCat("The paper's V100 heatmap is not drawn: ", *data,
                        " is not in the shared data folder (../shared/data or "
                        "$DISSECT_SHARED_DATA); the authors' file is read in place, never "
                        "copied into the project.\n\n");
  }
  if (!cells.ok()) return cells.status();
  std::map<int64_t, Heatmap> maps;  // per layer count, GFLOP/s
  std::vector<int64_t> batches, widths;
  for (const reused::ParaDnnFcCell& c : *cells) {
    batches.push_back(c.batch);
    widths.push_back(c.width);
  }
  for (std::vector<int64_t>* v : {&batches, &widths}) {
    std::sort(v->begin(), v->end());
    v->erase(std::unique(v->begin(), v->end()), v->end());
  }
  for (const reused::ParaDnnFcCell& c : *cells) {
    Heatmap& map = maps[c.layers];
    if (map.stem.empty()) {
      map = Heatmap{.stem = absl::StrCat("paradnn_v100_fc_", c.layers, "_layers"),
                    .title = absl::StrCat("ParaDnn V100, ", c.layers,
                                          " hidden FC layers: GFLOP/s of a TensorFlow step"),
                    .xlabel = "layer width",
                    .ylabel = "batch",
                    .cblabel = "GFLOP/s"};
      for (int64_t w : widths) map.x.push_back(absl::StrCat(w));
      for (int64_t b : batches) map.y.push_back(absl::StrCat(b));
      map.values.assign(batches.size(), std::vector<double>(widths.size(), NAN));
    }
    const size_t x = std::find(widths.begin(), widths.end(), c.width) - widths.begin();
    const size_t y = std::find(batches.begin(), batches.end(), c.batch) - batches.begin();
    map.values[y][x] = c.gflops;
  }
  for (const auto& [layers, map] : maps) reused::AddHeatmap(map, {shown}, out);
  return absl::StrCat("### The paper's V100 cells (", shown, ")\n\n",
                      SideBySide(*cells, dtypes, pct), reused::ParaDnnFcMarkdown(*cells));
}

}  // namespace

absl::StatusOr<PaperFigure> GenerateFcHeatmap(const CatalogEntry& entry,
                                              const std::vector<ResultFile>& results) {
  absl::StatusOr<GemmInputs> in = ReadGemmInputs(entry, results);
  if (!in.ok()) return in.status();
  const std::vector<const ResultFile*>& files = in->files;
  const TensorPeaks& peaks = in->peaks;
  std::map<std::string, std::string> basis;
  // dtype -> (batch, width) -> % of peak; the first measured row wins.
  std::vector<std::string> dtypes;
  FcPeakPct pct;
  std::vector<int64_t> batches, widths;
  for (const GradedGemm& g : GradeGemms(files, peaks, basis)) {
    if (g.shape.n != g.shape.k) continue;  // not an FC shape
    AddFirstSeen(dtypes, g.dtype);
    batches.push_back(g.shape.m);
    widths.push_back(g.shape.n);
    if (g.pct) pct[g.dtype].emplace(std::make_pair(g.shape.m, g.shape.n), *g.pct);
  }
  for (std::vector<int64_t>* v : {&batches, &widths}) {
    std::sort(v->begin(), v->end());
    v->erase(std::unique(v->begin(), v->end()), v->end());
  }
  PaperFigure out;
  absl::StrAppend(&out.markdown, "Device: ", DeviceLine(results), "\n\n",
                  "FC layers as GEMMs: M = batch, N = K = layer width; % of the input type's "
                  "dense peak (hot, cuBLASLt); — not measured.\n\n");
  for (const std::string& dtype : dtypes) {
    Heatmap map{.stem = absl::StrCat("fc_heatmap_", dtype),
                .title = absl::StrCat("FC layer ", dtype, ": % of peak (batch × width)"),
                .xlabel = "layer width (N = K)",
                .ylabel = "batch (M)",
                .cblabel = "% of peak"};
    for (int64_t w : widths) map.x.push_back(absl::StrCat(w));
    for (int64_t b : batches) {
      map.y.push_back(absl::StrCat(b));
      map.values.emplace_back();
      for (int64_t w : widths) {
        const auto it = pct[dtype].find({b, w});
        map.values.back().push_back(it == pct[dtype].end() ? NAN : it->second);
      }
    }
    const auto b = basis.find(dtype);
    absl::StrAppend(&out.markdown, "### ", dtype, "\n\nPeak: ",
                    b == basis.end()
                        ? "unknown (no rate for this device in configs/tensor/peaks.json)"
                        : b->second,
                    "\n\n", reused::HeatmapMarkdown(map, "batch \\ width"), "\n");
    reused::AddHeatmap(map, InputPaths(files), out);
  }
  MarkdownTable compare = ComparisonTable();
  AddComparison(compare, "FC-layer % of peak per batch and width",
                entry.FindPublished("fc_peak_pct"), std::nullopt, "%",
                "per dtype above; the paper's heatmaps are for other devices");
  AddPublishedWithoutMeasurement(compare, entry, {"fc_peak_pct"});
  absl::StatusOr<std::string> paper = PaperCells(entry, dtypes, pct, out);
  if (!paper.ok()) return paper.status();
  absl::StrAppend(&out.markdown, RenderMarkdownTable(compare), "\n", *paper,
                  reused::UnmeasuredRows(files));
  return out;
}

absl::StatusOr<PaperFigure> GenerateTensorGoodBadUgly(const CatalogEntry& entry,
                                                      const std::vector<ResultFile>& results) {
  absl::StatusOr<GemmInputs> in = ReadGemmInputs(entry, results);
  if (!in.ok()) return in.status();
  const std::vector<const ResultFile*>& files = in->files;
  const TensorPeaks& peaks = in->peaks;
  std::vector<ResultFile> gemm;
  for (const ResultFile* f : files) gemm.push_back(*f);
  PaperFigure out;
  MarkdownTable compare = ComparisonTable();
  AddComparison(compare, "% of peak per GEMM shape", entry.FindPublished("peak_fraction"),
                std::nullopt, "%", "per shape in the heatmap and good / bad / ugly table below");
  AddPublishedWithoutMeasurement(compare, entry, {"peak_fraction"});
  absl::StrAppend(&out.markdown, RenderMarkdownTable(compare), "\n",
                  RenderTensorSections(gemm, peaks));
  std::map<std::string, std::string> basis;
  const std::vector<GradedGemm> graded = GradeGemms(files, peaks, basis);
  reused::Heatmap map{.stem = "gemm_peak_pct",
                      .title = "cuBLASLt GEMM: % of the input type's dense peak (hot)",
                      .xlabel = "input type",
                      .ylabel = "shape (MxNxK)",
                      .cblabel = "% of peak"};
  for (const GradedGemm& g : graded) {
    AddFirstSeen(map.x, g.dtype);
    AddFirstSeen(map.y, g.shape_text);
  }
  map.values.assign(map.y.size(), std::vector<double>(map.x.size(), NAN));
  for (const GradedGemm& g : graded) {
    const size_t x = std::find(map.x.begin(), map.x.end(), g.dtype) - map.x.begin();
    const size_t y = std::find(map.y.begin(), map.y.end(), g.shape_text) - map.y.begin();
    if (g.pct && std::isnan(map.values[y][x])) map.values[y][x] = *g.pct;
  }
  reused::AddHeatmap(map, InputPaths(files), out);
  return out;
}

}  // namespace dissect::analysis::papers
