// The roofline's report (roofline.cc): the ceilings and operators tables,
// the comparison with the paper, and the log-log figure.

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "analysis/plots/figures.h"
#include "analysis/format/format.h"
#include "analysis/papers/paper_figure.h"
#include "analysis/papers/registry.h"
#include "analysis/papers/roofline/roofline_internal.h"
#include "analysis/papers/roofline/roofline_model.h"
#include "analysis/results/results.h"
#include "analysis/sections/tensor.h"
#include "analysis/sections/tensor_peaks_embedded.h"

namespace dissect::analysis::papers::roofline_internal {

namespace rl = roofline;

std::string CeilingsMarkdown(const std::vector<Ceiling>& ceilings, double bandwidth) {
  MarkdownTable ct{{{"roof"},
                    {"this GPU", true},
                    {"unit"},
                    {"how"},
                    {"source"},
                    {"ridge (FLOP/B)", true},
                    {"datasheet / computed peak (side column)"}},
                   {}};
  for (const Ceiling& c : ceilings) {
    const bool compute = c.unit == "TFLOP/s";
    ct.rows.push_back(
        {c.name, FormatNumber(c.value), c.unit, c.measured ? "measured" : "computed", c.source,
         compute ? FormatNumber(rl::RidgePoint(c.value, bandwidth)) : kEmptyCell, c.datasheet});
  }
  return absl::StrCat(
      RenderMarkdownTable(ct),
      "\nattainable(AI) = min(roof, AI × DRAM bandwidth); an operator left of its "
      "roof's ridge is memory-bound. GEMM points use the tensor roof of their dtype; "
      "our attention kernel does not use tensor cores, so its roof is the FP32 FMA "
      "pipe. Attention rows whose working set is under 2 × L2 (beyond_2x_l2 0) are "
      "L2-resident: their bytes came partly from L2, so left of the ridge they get "
      "no attainable rate or % from the DRAM roof.\n\n");
}

std::string OperatorsMarkdown(const std::vector<OpPoint>& points, double bandwidth,
                              SetTally& tally) {
  MarkdownTable ot{{{"operator"},
                    {"shape"},
                    {"dtype"},
                    {"AI (FLOP/B)", true},
                    {"measured TFLOP/s", true},
                    {"roof"},
                    {"attainable TFLOP/s", true},
                    {"% of attainable", true},
                    {"bound"},
                    {"note"}},
                   {}};
  for (const OpPoint& p : points) {
    ++tally.counts[p.set];
    std::string attainable = kEmptyCell, pct = kEmptyCell, bound = kEmptyCell;
    if (p.roof != nullptr) {
      const double a = rl::Attainable(p.intensity, p.roof->value, bandwidth);
      const rl::Bound b = rl::BoundAt(p.intensity, p.roof->value, bandwidth);
      if (b == rl::Bound::kMemory) ++tally.memory_bound[p.set];
      bound = rl::BoundName(b);
      // Left of the ridge the DRAM roof sets the attainable rate, which an
      // L2-resident point's bytes did not all cross.
      if (p.set != kL2ResidentAttention || b == rl::Bound::kCompute) {
        attainable = FormatNumber(a);
        pct = FormatPercent(p.tflops / a);
      }
    }
    ot.rows.push_back({kSetNames[p.set], p.shape, p.dtype, FormatNumber(p.intensity),
                       FormatNumber(p.tflops), p.roof ? p.roof->name : kEmptyCell, attainable, pct,
                       bound, p.note.empty() ? kEmptyCell : p.note});
  }
  return RenderMarkdownTable(ot);
}

MarkdownTable PaperComparison(const CatalogEntry& entry, const std::vector<OpPoint>& points,
                              const Roofs& roofs, double bandwidth) {
  std::optional<double> decode_ai, prefill_ai;
  std::string decode_shape, prefill_shape;
  for (const OpPoint& p : points) {
    if (p.set == 1 && !decode_ai) decode_ai = p.intensity, decode_shape = p.shape;
    if (p.set == 0 && !prefill_ai) prefill_ai = p.intensity, prefill_shape = p.shape;
  }
  const Ceiling& first_tensor = roofs.ceilings[roofs.tensor_roof.begin()->second];
  MarkdownTable cmp = ComparisonTable();
  for (const PublishedValue& v : entry.published) {
    std::optional<double> measured;
    std::string note;
    if (v.key == "decode_gemv_intensity" && decode_ai) {
      measured = decode_ai;
      note = absl::StrCat("from the shape of the least intense decode GEMV, ", decode_shape);
    } else if (v.key == "prefill_gemm_intensity" && prefill_ai) {
      measured = prefill_ai;
      note = absl::StrCat("from the shape of the least intense prefill GEMM, ", prefill_shape);
    } else if (v.key == "ridge_point") {
      measured = rl::RidgePoint(first_tensor.value, bandwidth);
      note = absl::StrCat(first_tensor.name, " / DRAM read bandwidth, both measured");
    } else if (v.key == "dram_bandwidth") {
      measured = bandwidth;
      note = "measured (memory_bandwidth)";
    } else if (v.key == "fp16_tflops" && roofs.tensor_roof.count("fp16")) {
      measured = roofs.ceilings[roofs.tensor_roof.at("fp16")].value;
      note = "measured (best cuBLASLt fp16)";
    } else {
      note = "no measurement of this GPU for it";
    }
    AddComparison(cmp, v.quantity, &v, measured, v.unit, note);
  }
  return cmp;
}

void AddRooflineFigure(const std::vector<OpPoint>& points, const std::vector<Ceiling>& ceilings,
                       const SetTally& tally, double bandwidth,
                       const std::vector<std::string>& inputs, PaperFigure& out) {
  std::string data = "# roofline.dat: operator points, one block per set: AI (FLOP/B) TFLOP/s\n";
  std::vector<int> present;
  double x_lo = 1e300, x_hi = 0, y_lo = 1e300, y_hi = 0;
  for (int set = 0; set < kSets; ++set) {
    if (tally.counts[set] == 0) continue;
    absl::StrAppend(&data, present.empty() ? "" : "\n\n", "# ", kSetNames[set], "\n");
    present.push_back(set);
    for (const OpPoint& p : points) {
      if (p.set != set) continue;
      absl::StrAppend(&data, GpNumber(p.intensity), " ", GpNumber(p.tflops), " ", GpLabel(p.shape),
                      "\n");
      x_lo = std::min(x_lo, p.intensity);
      x_hi = std::max(x_hi, p.intensity);
      y_lo = std::min(y_lo, p.tflops);
    }
  }
  for (const Ceiling& c : ceilings) {
    if (c.unit != "TFLOP/s") continue;
    x_hi = std::max(x_hi, rl::RidgePoint(c.value, bandwidth));
    y_hi = std::max(y_hi, c.value);
  }
  if (points.empty()) x_lo = 1;
  x_lo = std::exp2(std::floor(std::log2(x_lo)) - 1);
  x_hi = std::exp2(std::ceil(std::log2(x_hi)) + 1);
  y_lo = std::min(y_lo, rl::Attainable(x_lo, y_hi, bandwidth));
  y_lo = std::pow(10, std::floor(std::log10(y_lo)));
  y_hi = std::pow(10, std::ceil(std::log10(y_hi * 1.5)));
  std::string script = ScriptHead("roofline", inputs, 960, 640,
                                  "Roofline with measured ceilings: Llama-2-7B operators");
  absl::StrAppend(&script, "set xlabel 'arithmetic intensity (FLOP/B)'\n", "set ylabel 'TFLOP/s'\n",
                  "set logscale x 2\n", "set logscale y 10\n", "set xrange [", GpNumber(x_lo), ":",
                  GpNumber(x_hi), "]\n", "set yrange [", GpNumber(y_lo), ":", GpNumber(y_hi), "]\n",
                  "set samples 2000\n", "set grid xtics ytics\n", "set key below\n",
                  "bw = ", GpNumber(bandwidth), "  # GB/s, ", ceilings.front().source, "\n",
                  "roof(x, c) = (x * bw / 1000.0 < c) ? x * bw / 1000.0 : c\n");
  std::vector<std::string> plots;
  int dash = 1;
  for (const Ceiling& c : ceilings) {
    if (c.unit != "TFLOP/s") continue;
    plots.push_back(
        absl::StrCat("roof(x, ", GpNumber(c.value), ") with lines lw 2 dt ", dash++, " title ",
                     GnuplotQuoted(absl::StrCat(c.name, ": ", FormatNumber(c.value), " TFLOP/s (",
                                                c.measured ? "measured" : "computed", "), DRAM ",
                                                FormatNumber(bandwidth), " GB/s (measured)"))));
  }
  const int point_types[kSets] = {7, 5, 9, 8};
  for (size_t i = 0; i < present.size(); ++i) {
    plots.push_back(absl::StrCat("'roofline.dat' index ", i, " using 1:2 with points pt ",
                                 point_types[present[i]], " ps 1.2 title ",
                                 GnuplotQuoted(kSetNames[present[i]])));
  }
  absl::StrAppend(&script, "plot ", absl::StrJoin(plots, ", \\\n     "), "\n");
  out.files.push_back({"roofline.dat", data});
  out.files.push_back({"roofline.gp", script});
  out.scripts.push_back("roofline.gp");
}

}  // namespace dissect::analysis::papers::roofline_internal
