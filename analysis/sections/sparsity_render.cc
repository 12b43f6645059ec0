// The activation-sparsity section's text: per-experiment blocks and
// tables of a SparsityDevice (see sparsity.h).

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <tuple>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "analysis/sections/section_util.h"
#include "analysis/sections/sparsity.h"

namespace dissect::analysis {
namespace {

constexpr char kDense[] = "dense_cublas";
constexpr char kSparseMma[] = "sparse_mma_sp";

std::string Pct(double pct) { return absl::StrCat(FormatNumber(pct), " %"); }

// "1.120 (min 1.05, ±13.4%)": a speedup with its slowest sample and spread.
std::string SpeedupText(const SpeedPoint& p) {
  if (!p.speedup) return kEmptyCell;
  std::string out = absl::StrFormat("%.3f", *p.speedup);
  std::vector<std::string> noise;
  if (p.speedup_min) noise.push_back(absl::StrFormat("min %.3f", *p.speedup_min));
  if (p.speedup_spread) noise.push_back(absl::StrCat("±", FormatPercent(*p.speedup_spread)));
  if (!noise.empty()) absl::StrAppend(&out, " (", absl::StrJoin(noise, ", "), ")");
  return out;
}

// The crossover and, when interpolated, the measured points around it.
std::string CrossoverCell(const SpeedCurve& curve, const Crossover& c) {
  std::string out = CrossoverText(c);
  if (c.interpolated) {
    absl::StrAppend(&out, " (between ", FormatNumber(curve.points[c.last_loss].sparsity_pct),
                    " and ", Pct(curve.points[c.first_win].sparsity_pct), ")");
  }
  return out;
}

// "<pct> %: <note>" for each noted point of the curve.
std::string CurveNotes(const SpeedCurve& curve) {
  std::vector<std::string> notes;
  for (const SpeedPoint& p : curve.points) {
    if (!p.note.empty()) notes.push_back(absl::StrCat(Pct(p.sparsity_pct), ": ", p.note));
  }
  return CellText(absl::StrJoin(notes, "; "));
}

std::string Batch(const std::string& batch) { return batch.empty() ? kEmptyCell : batch; }

std::string PassHeading(const ActivationPass& p) {
  std::string out = absl::StrCat("#### ", p.network, " · ", p.source, " · threshold ", p.threshold,
                                 p.threshold == "0" ? " (ReLU)" : "");
  if (!p.batch.empty()) absl::StrAppend(&out, " · batch ", p.batch);
  return absl::StrCat(out, "\n\n");
}

std::string LayersBlock(const SparsityDevice& d) {
  std::string out = absl::StrCat(
      "### sparsity per layer\n\n",
      "From activation_sparsity: per forward pass, each layer's output activations after its "
      "ReLU (FATReLU with threshold T: values ≤ T become 0). zero: the share of zero values; "
      "32-channel vectors: the share of 32-channel vectors at one position that are all zero "
      "(what a warp can skip); 16×16 tiles: the share of all-zero 16×16 tiles; 2:4-compatible: "
      "the share of 4-channel groups with at least 2 zeros. Per channel: the sparsity of each "
      "channel over the batch and positions, its minimum, median and maximum over the layer's "
      "channels, and the share of dead channels (zero everywhere).\n");
  for (const ActivationPass& p : d.passes) {
    absl::StrAppend(&out, "\n", PassHeading(p));
    if (p.layers.empty()) {
      absl::StrAppend(&out, p.note.empty() ? "No per-layer values." : p.note, "\n");
      continue;
    }
    if (!p.note.empty()) absl::StrAppend(&out, p.note, "\n\n");
    absl::StrAppend(&out, OptionalCell(p.layer_count), " layers; mean zero fraction ",
                    OptionalPercentCell(p.mean_zero), ", overall ",
                    OptionalPercentCell(p.overall_zero), ".\n\n",
                    RenderMarkdownTable(LayerTable(p)));
  }
  return out;
}

std::string ThresholdBlock(const SparsityDevice& d) {
  return absl::StrCat(
      "### FATReLU thresholds\n\n",
      "The sparsity each threshold gives: per network and activation source, the mean of the "
      "layers' zero fractions and the zero fraction over all activations (threshold 0: plain "
      "ReLU).\n\n",
      RenderMarkdownTable(ThresholdTable(d.passes)));
}

std::string CrossoverBlock(const SparsityDevice& d) {
  return absl::StrCat(
      "### crossover: sparse against dense\n\n",
      "From sparsity_speed: each method on inputs of a controlled sparsity and structure "
      "(uniform zeros, whole channels, runs of 32), speedup over dense_cublas at sparsity 0 "
      "of the same shape, structure and batch. A point wins beyond noise when even its slowest "
      "sample's ratio wins (speedup_vs_dense.min > 1); the crossover is the first sustained "
      "win, the first winning point after which every measured point wins (a win followed by "
      "a loss does not count), interpolated linearly to where the speedup.min crosses 1 "
      "between the last loss and that win. Noise: the speedup at that first win with its "
      "slowest sample and spread. Nominal: the same rule on the median speedup. End to end: "
      "conversion included, dense's time at sparsity 0 over end_to_end_ms.max.\n\n",
      RenderMarkdownTable(CrossoverTable(d.speed)), "\n", "#### does dense speed up on zeros?\n\n",
      "dense_cublas at the highest sparsity against itself at 0: yes when its slowest sample "
      "still wins, slower when its fastest loses; board power where NVML gave it.\n\n",
      RenderMarkdownTable(DenseOnZerosTable(d.speed)));
}

std::string Sparse24Block(const SparsityDevice& d) {
  return absl::StrCat(
      "### 2:4 structured sparsity\n\n",
      "From sparse24_gemm: sparse_mma_sp (the input pruned to 2:4, the two largest magnitudes "
      "of every 4 kept) against dense_mma; its speedup does not depend on the input's "
      "sparsity, what the pruning keeps does: kept magnitude is the share of the input's total "
      "magnitude that survives. Load-bound ceiling: the most speedup the kernel can show, "
      "its operands coming from global memory (dense over sparse operand bytes); a speedup "
      "whose slowest sample lies above it is flagged, since the method, not sparsity, would "
      "have produced it.\n\n",
      RenderMarkdownTable(Sparse24Table(d.sparse24)));
}

std::string CompressionBlock(const SparsityDevice& d) {
  return absl::StrCat(
      "### compressible memory\n\n",
      "From compressible_bandwidth: read bandwidth of an ordinary and a compressible allocation "
      "(cuMemCreate with generic compression) holding a share of zero bytes; granted: whether "
      "the driver gave the allocation compression.\n\n",
      RenderMarkdownTable(CompressionTable(d.compression)));
}

}  // namespace

std::string CrossoverText(const Crossover& c) {
  if (c.sparsity_pct) return Pct(*c.sparsity_pct);
  if (!c.max_pct) return kEmptyCell;
  return absl::StrCat("never (up to ", Pct(*c.max_pct), ")");
}

const SpeedCurve* DenseCurve(const std::vector<SpeedCurve>& curves, const SpeedCurve& curve) {
  for (const SpeedCurve& c : curves) {
    if (c.method == kDense && c.shape == curve.shape && c.structure == curve.structure &&
        c.batch == curve.batch) {
      return &c;
    }
  }
  return nullptr;
}

MarkdownTable LayerTable(const ActivationPass& pass) {
  MarkdownTable t = ColumnsTable({{"layer", false},
                                  {"zero", true},
                                  {"32-channel vectors", true},
                                  {"16×16 tiles", true},
                                  {"2:4-compatible", true},
                                  {"channel min", true},
                                  {"channel median", true},
                                  {"channel max", true},
                                  {"dead channels", true}});
  for (const LayerSparsity& l : pass.layers) {
    t.rows.push_back({CellText(l.name), OptionalPercentCell(l.zero),
                      OptionalPercentCell(l.warp_zero), OptionalPercentCell(l.tile_zero),
                      OptionalPercentCell(l.two_four), OptionalPercentCell(l.channel_min),
                      OptionalPercentCell(l.channel_median), OptionalPercentCell(l.channel_max),
                      OptionalPercentCell(l.dead_channels)});
  }
  return t;
}

MarkdownTable ThresholdTable(const std::vector<ActivationPass>& passes) {
  MarkdownTable t = ColumnsTable({{"network", false},
                                  {"source", false},
                                  {"batch", true},
                                  {"threshold", true},
                                  {"layers", true},
                                  {"mean zero fraction", true},
                                  {"overall zero fraction", true},
                                  {"notes", false}});
  std::vector<const ActivationPass*> sorted;
  for (const ActivationPass& p : passes) sorted.push_back(&p);
  const auto threshold = [](const ActivationPass* p) {
    double value = 0;
    return absl::SimpleAtod(p->threshold, &value) ? value : HUGE_VAL;
  };
  std::stable_sort(sorted.begin(), sorted.end(),
                   [&](const ActivationPass* a, const ActivationPass* b) {
                     return std::forward_as_tuple(a->network, a->source, a->batch, threshold(a)) <
                            std::forward_as_tuple(b->network, b->source, b->batch, threshold(b));
                   });
  for (const ActivationPass* p : sorted) {
    t.rows.push_back({CellText(p->network), CellText(p->source), Batch(p->batch),
                      CellText(p->threshold), OptionalCell(p->layer_count),
                      OptionalPercentCell(p->mean_zero), OptionalPercentCell(p->overall_zero),
                      CellText(p->note)});
  }
  return t;
}

MarkdownTable CrossoverTable(const std::vector<SpeedCurve>& curves) {
  MarkdownTable t = ColumnsTable({{"shape", false},
                                  {"batch", true},
                                  {"structure", false},
                                  {"method", false},
                                  {"crossover (beyond noise)", true},
                                  {"speedup at the crossing", true},
                                  {"nominal crossover", true},
                                  {"end-to-end crossover", true},
                                  {"notes", false}});
  for (const SpeedCurve& c : curves) {
    if (c.method == kDense) continue;
    const Crossover noise = NoiseCrossover(c);
    std::string end_to_end = kEmptyCell;
    const SpeedCurve* dense = DenseCurve(curves, c);
    if (dense != nullptr && !dense->points.empty() && dense->points.front().sparsity_pct == 0 &&
        dense->points.front().kernel_ms) {
      const Crossover e = EndToEndCrossover(c, *dense->points.front().kernel_ms);
      if (e.max_pct) end_to_end = CrossoverText(e);
    }
    t.rows.push_back({CellText(c.shape), Batch(c.batch), CellText(c.structure), CellText(c.method),
                      CrossoverCell(c, noise),
                      noise.first_win >= 0 ? SpeedupText(c.points[noise.first_win]) : kEmptyCell,
                      CrossoverText(NominalCrossover(c)), end_to_end, CurveNotes(c)});
  }
  return t;
}

MarkdownTable DenseOnZerosTable(const std::vector<SpeedCurve>& curves) {
  MarkdownTable t = ColumnsTable({{"shape", false},
                                  {"batch", true},
                                  {"structure", false},
                                  {"highest sparsity", true},
                                  {"speedup there vs 0 %", true},
                                  {"speeds up on zeros?", false},
                                  {"power at 0 % (W)", true},
                                  {"power at highest (W)", true}});
  for (const SpeedCurve& c : curves) {
    if (c.method != kDense) continue;
    const SpeedPoint* zero = nullptr;
    const SpeedPoint* top = nullptr;
    for (const SpeedPoint& p : c.points) {
      if (!p.speedup) continue;
      if (p.sparsity_pct == 0 && zero == nullptr) zero = &p;
      top = &p;
    }
    if (top == nullptr) continue;
    std::string verdict = "no (within noise)";
    if (top->speedup_min && *top->speedup_min > 1) {
      verdict = "yes";
    } else if (top->speedup_max && *top->speedup_max < 1) {
      verdict = "slower";
    }
    t.rows.push_back({CellText(c.shape), Batch(c.batch), CellText(c.structure),
                      Pct(top->sparsity_pct), SpeedupText(*top), verdict,
                      OptionalCell(zero ? zero->power_w : std::nullopt),
                      OptionalCell(top->power_w)});
  }
  return t;
}

MarkdownTable Sparse24Table(const std::vector<SpeedCurve>& curves) {
  MarkdownTable t = ColumnsTable({{"shape", false},
                                  {"batch", true},
                                  {"input sparsity", true},
                                  {"speedup vs dense_mma", true},
                                  {"load-bound ceiling", true},
                                  {"kept magnitude", true},
                                  {"achieved sparsity", true},
                                  {"max rel. error", true},
                                  {"notes", false}});
  for (const SpeedCurve& c : curves) {
    if (c.method != kSparseMma) continue;
    for (const SpeedPoint& p : c.points) {
      std::string note = p.note;
      if (p.load_bound && p.speedup_min && *p.speedup_min > *p.load_bound) {
        note = absl::StrCat(note.empty() ? "" : note + "; ",
                            "above the load-bound ceiling: check the method");
      }
      t.rows.push_back({CellText(c.shape), Batch(c.batch), Pct(p.sparsity_pct), SpeedupText(p),
                        OptionalCell(p.load_bound), OptionalPercentCell(p.kept_magnitude),
                        OptionalPercentCell(p.achieved_sparsity), OptionalCell(p.max_rel_error),
                        CellText(note)});
    }
  }
  return t;
}

MarkdownTable CompressionTable(const std::vector<CompressionRow>& rows) {
  MarkdownTable t = ColumnsTable({{"zero bytes", true},
                                  {"size", true},
                                  {"ordinary (GB/s)", true},
                                  {"compressible (GB/s)", true},
                                  {"compressible / ordinary", true},
                                  {"compression granted", false},
                                  {"notes", false}});
  for (const CompressionRow& r : rows) {
    std::string ratio = kEmptyCell;
    if (r.ordinary_gbps && r.compressible_gbps && *r.ordinary_gbps > 0) {
      ratio = absl::StrFormat("%.2f", *r.compressible_gbps / *r.ordinary_gbps);
    }
    double bytes = 0;
    std::string granted = kEmptyCell;
    if (r.granted) granted = *r.granted != 0 ? "yes" : "no";
    t.rows.push_back({absl::StrCat(CellText(r.zero_pct), " %"),
                      absl::SimpleAtod(r.bytes, &bytes) ? FormatBytes(bytes) : CellText(r.bytes),
                      OptionalCell(r.ordinary_gbps), OptionalCell(r.compressible_gbps), ratio,
                      granted, CellText(absl::StrJoin(r.notes, "; "))});
  }
  return t;
}

std::string RenderSparsity(const SparsityDevice& d) {
  std::vector<std::string> blocks = {
      absl::StrCat("## activation sparsity: ", d.title, "\n"),
      absl::StrCat(d.device_line, " · files: `", absl::StrJoin(d.paths, "`, `"), "`\n")};
  if (!d.passes.empty()) {
    blocks.push_back(LayersBlock(d));
    blocks.push_back(ThresholdBlock(d));
  }
  if (!d.speed.empty()) blocks.push_back(CrossoverBlock(d));
  if (!d.sparse24.empty()) blocks.push_back(Sparse24Block(d));
  if (!d.compression.empty()) blocks.push_back(CompressionBlock(d));
  return absl::StrJoin(blocks, "\n");
}

std::string RenderSparsitySections(const std::vector<ResultFile>& files) {
  std::vector<const ResultFile*> pointers;
  for (const ResultFile& f : files) pointers.push_back(&f);
  std::vector<std::string> sections;
  for (const SparsityDevice& d : BuildSparsity(pointers)) sections.push_back(RenderSparsity(d));
  return absl::StrJoin(sections, "\n");
}

}  // namespace dissect::analysis
