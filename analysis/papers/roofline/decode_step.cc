// GenerateDecodeStepModel (analysis/papers/registry.h): the decode-step
// time model (decode_model.h) of llm_inference_series_5 against measured
// decode layers on this GPU. The roofs are the roofline's (roofline_ceilings):
// the DRAM read bandwidth of memory_bandwidth and the best cuBLASLt TFLOP/s
// of the model's dtype. The measured step is layers × (one layer's linear
// layers + its decode attention): each linear layer of decode_model.h's
// LayerLinears is the cublaslt_gemm row of shape (batch)x(N)x(K) (the gate
// and up projections: the same row twice), the attention the attention row
// of phase decode at (batch, context); a row's time per launch is its own
// FLOPs over its median TFLOP/s.
//
// Params (all optional): hidden, ffn, layers, heads (the model, Llama-2-7B's
// by default), batches and contexts (the table's grid), gemm_dtype, cache
// (of the measured rows: "cold" by default), dram_min_footprint_bytes.
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "analysis/format/format.h"
#include "analysis/papers/paper_figure.h"
#include "analysis/papers/registry.h"
#include "analysis/papers/roofline/decode_model.h"
#include "analysis/papers/roofline/roofline_internal.h"
#include "analysis/papers/roofline/roofline_model.h"
#include "analysis/results/results.h"
#include "analysis/sections/tensor.h"

namespace dissect::analysis::papers {
namespace {

namespace rl = roofline;
using roofline_internal::BestGemm;
using roofline_internal::CacheParam;
using roofline_internal::Ceiling;
using roofline_internal::LlmFilesOf;
using roofline_internal::LlmResultFiles;
using roofline_internal::MemoryCeiling;
using roofline_internal::PointName;

constexpr char kName[] = "decode_step_model";

struct Params {
  rl::DecoderShape shape;
  int64_t heads = 32;
  std::vector<int64_t> batches = {1, 4, 16, 64};
  std::vector<int64_t> contexts = {512, 2048, 8192};
  std::string gemm_dtype = "fp16";
  std::string cache = "cold";
  int64_t dram_min_footprint_bytes = roofline_internal::kDefaultDramMinFootprintBytes;
};

// A list param of positive integers, not empty.
absl::StatusOr<std::vector<int64_t>> PositiveInts(const CatalogEntry& entry, const char* key,
                                                  const std::vector<int64_t>& fallback) {
  absl::StatusOr<std::vector<double>> list =
      NumberListParam(entry, key, std::vector<double>(fallback.begin(), fallback.end()));
  if (!list.ok()) return list.status();
  std::vector<int64_t> out;
  for (double v : *list) {
    if (!(v >= 1) || v != std::floor(v)) break;
    out.push_back(static_cast<int64_t>(v));
  }
  if (out.empty() || out.size() != list->size()) {
    return BadParam(entry, key, "a non-empty list of positive integers");
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

absl::StatusOr<Params> ReadParams(const CatalogEntry& entry) {
  Params p;
  auto integer = [&](const char* key, int64_t& out) -> absl::Status {
    const absl::StatusOr<int64_t> v = IntParam(entry, key, out, 1);
    if (v.ok()) out = *v;
    return v.status();
  };
  auto list = [&](const char* key, std::vector<int64_t>& out) -> absl::Status {
    absl::StatusOr<std::vector<int64_t>> v = PositiveInts(entry, key, out);
    if (v.ok()) out = *std::move(v);
    return v.status();
  };
  const std::vector<std::pair<const char*, int64_t*>> integers = {
      {"hidden", &p.shape.hidden},
      {"ffn", &p.shape.ffn},
      {"layers", &p.shape.layers},
      {"heads", &p.heads},
      {"dram_min_footprint_bytes", &p.dram_min_footprint_bytes}};
  for (const auto& [key, out] : integers) {
    if (absl::Status s = integer(key, *out); !s.ok()) return s;
  }
  if (p.shape.hidden % p.heads != 0) return BadParam(entry, "heads", "a divisor of hidden");
  if (absl::Status s = list("batches", p.batches); !s.ok()) return s;
  if (absl::Status s = list("contexts", p.contexts); !s.ok()) return s;
  absl::StatusOr<std::string> dtype = StringParam(entry, "gemm_dtype", p.gemm_dtype);
  if (!dtype.ok()) return dtype.status();
  p.gemm_dtype = *dtype;
  absl::StatusOr<std::string> cache = CacheParam(entry, "cache", p.cache);
  if (!cache.ok()) return cache.status();
  p.cache = *cache;
  return p;
}

// Seconds per launch of the measured rows, by shape.
struct Measured {
  std::map<std::tuple<int64_t, int64_t, int64_t>, std::vector<double>> gemm_s;  // (M, N, K)
  std::map<std::pair<int64_t, int64_t>, std::vector<double>> attention_s;       // (batch, context)
  // (batch, context) of attention rows with beyond_2x_l2 0: (partly) L2-served.
  std::set<std::pair<int64_t, int64_t>> l2_resident;
  std::vector<std::string> not_measured;  // rows that did not run, or cannot be used
};

void ReadGemmRows(const std::vector<const ResultFile*>& files, const Params& params, Measured& m) {
  for (const ResultFile* f : files) {
    for (const Row& row : f->rows) {
      const std::optional<GemmShape> shape = ParseGemmShape(row.Axis("shape").value_or(""));
      if (!shape || row.Axis("dtype") != std::optional<std::string>(params.gemm_dtype) ||
          row.Axis("cache") != std::optional<std::string>(params.cache)) {
        continue;
      }
      const std::optional<double> tflops = row.Counter("tflops");
      if (row.error || !tflops || !(*tflops > 0)) {
        m.not_measured.push_back(
            absl::StrCat("`", PointName(*f, row), "`: ", row.error ? RowNotes(row) : "no tflops"));
        continue;
      }
      m.gemm_s[{shape->m, shape->n, shape->k}].push_back(
          rl::GemmFlops(shape->m, shape->n, shape->k) / (*tflops * 1e12));
    }
  }
}

// Decode attention rows of the model's head count. A row's own FLOPs must be
// one layer's attention of the model (decode_model.h): another head width
// is another model, listed, not used.
void ReadAttentionRows(const std::vector<const ResultFile*>& files, const Params& params,
                       Measured& m) {
  for (const ResultFile* f : files) {
    for (const Row& row : f->rows) {
      const std::optional<double> batch = AxisNumber(row, "batch");
      const std::optional<double> context = AxisNumber(row, "context");
      if (row.Axis("phase") != std::optional<std::string>("decode") || !batch || !context ||
          AxisNumber(row, "heads") != std::optional<double>(params.heads) ||
          row.Axis("cache") != std::optional<std::string>(params.cache)) {
        continue;
      }
      const std::optional<double> tflops = row.Counter("tflops");
      const std::optional<double> flops = row.Counter("flops");
      const auto key = std::make_pair(static_cast<int64_t>(*batch), static_cast<int64_t>(*context));
      const double layer_flops =
          rl::AttentionFlops(params.shape, key.first, key.second) / params.shape.layers;
      std::string problem;
      if (row.error) {
        problem = RowNotes(row);
      } else if (!tflops || !(*tflops > 0) || !flops) {
        problem = "no tflops or flops";
      } else if (std::abs(*flops - layer_flops) > 1e-6 * layer_flops) {
        problem = absl::StrCat("its ", FormatNumber(*flops), " FLOP are not one layer's ",
                               FormatNumber(layer_flops), " (another head width)");
      }
      if (!problem.empty()) {
        m.not_measured.push_back(absl::StrCat("`", PointName(*f, row), "`: ", problem));
        continue;
      }
      m.attention_s[key].push_back(*flops / (*tflops * 1e12));
      if (row.Counter("beyond_2x_l2") == 0.0) m.l2_resident.insert(key);
    }
  }
}

// One cell of the grid: the model and, where every row ran, the measurement.
struct StepRow {
  int64_t batch = 0, context = 0;
  rl::StepModel model;
  std::optional<double> linear_s, attention_s;  // all layers
  std::vector<std::string> missing;
  bool l2_resident = false;
  std::optional<double> measured_s() const {
    if (!linear_s || !attention_s) return std::nullopt;
    return *linear_s + *attention_s;
  }
};

StepRow MeasureStep(const Params& params, const Measured& m, int64_t batch, int64_t context,
                    double bandwidth, double tflops) {
  StepRow r{batch, context, rl::ModelStep(params.shape, batch, context, bandwidth, tflops)};
  const double layers = static_cast<double>(params.shape.layers);
  double linear = 0;
  for (const rl::Linear& l : rl::LayerLinears(params.shape)) {
    const auto it = m.gemm_s.find({batch, l.n, l.k});
    if (it == m.gemm_s.end()) {
      const std::string name = absl::StrCat("cublaslt_gemm ", params.gemm_dtype, " ", params.cache,
                                            " ", batch, "x", l.n, "x", l.k);
      if (std::find(r.missing.begin(), r.missing.end(), name) == r.missing.end()) {
        r.missing.push_back(name);
      }
      continue;
    }
    linear += Median(it->second);
  }
  if (r.missing.empty()) r.linear_s = layers * linear;
  const auto attention = m.attention_s.find({batch, context});
  if (attention == m.attention_s.end()) {
    r.missing.push_back(absl::StrCat("attention decode ", params.cache, " batch ", batch,
                                     " context ", context, " heads ", params.heads));
  } else {
    r.attention_s = layers * Median(attention->second);
  }
  r.l2_resident = m.l2_resident.count({batch, context}) > 0;
  return r;
}

std::string Ms(double seconds) { return FormatNumber(seconds * 1e3); }

std::string StepTable(const std::vector<StepRow>& rows, double bandwidth) {
  MarkdownTable t{{{"batch", true},
                   {"context", true},
                   {"model bytes", true},
                   {"model GFLOP", true},
                   {"model ms", true},
                   {"model bound"},
                   {"linear ms", true},
                   {"attention ms", true},
                   {"measured ms", true},
                   {"measured / model", true},
                   {"of DRAM bandwidth", true},
                   {"note"}},
                  {}};
  for (const StepRow& r : rows) {
    const std::optional<double> measured = r.measured_s();
    std::string note;
    if (!r.missing.empty()) note = absl::StrCat("missing: ", absl::StrJoin(r.missing, ", "));
    if (r.l2_resident) {
      absl::StrAppend(&note, note.empty() ? "" : "; ",
                      "attention working set under 2 × L2: (partly) L2-served");
    }
    t.rows.push_back(
        {absl::StrCat(r.batch), absl::StrCat(r.context), FormatBytes(r.model.bytes),
         FormatNumber(r.model.flops / 1e9), Ms(r.model.seconds), rl::BoundName(r.model.bound),
         r.linear_s ? Ms(*r.linear_s) : kEmptyCell, r.attention_s ? Ms(*r.attention_s) : kEmptyCell,
         measured ? Ms(*measured) : kEmptyCell,
         measured ? FormatNumber(*measured / r.model.seconds) : kEmptyCell,
         measured ? FormatPercent(r.model.bytes / *measured / (bandwidth * 1e9)) : kEmptyCell,
         note.empty() ? kEmptyCell : note});
  }
  return RenderMarkdownTable(t);
}

std::string ModelMarkdown(const Params& params, const Ceiling& memory, const Ceiling& compute) {
  const rl::DecoderShape& s = params.shape;
  std::vector<std::string> shapes;
  for (const rl::Linear& l : rl::LayerLinears(s)) shapes.push_back(absl::StrCat(l.n, "x", l.k));
  std::string md = absl::StrCat(
      "- Model: ", s.layers, " layers, hidden ", s.hidden, ", FFN ", s.ffn, ", ", params.heads,
      " heads, ", s.element_bytes,
      "-byte weights and KV cache; a layer's linear layers (N x K): ", absl::StrJoin(shapes, ", "),
      ".\n- Weights read per step: ", FormatNumber(rl::WeightParams(s) / 1e9),
      " G params = ", FormatBytes(rl::WeightBytes(s)),
      " (the layers' linear weights; the LM head, embedding lookup and norms are neither "
      "modelled nor measured). KV cache read per step: ",
      FormatBytes(rl::KvCacheBytes(s, 1, 1)), " per token of context per sequence.\n",
      "- Roofs (both measured): ", memory.name, " ", FormatNumber(memory.value), " GB/s (`",
      memory.source, "`); ", compute.name, " ", FormatNumber(compute.value), " TFLOP/s (`",
      compute.source, "`); ridge ", FormatNumber(rl::RidgePoint(compute.value, memory.value)),
      " FLOP/B.\n- Model time = max(bytes / bandwidth, FLOPs / peak).\n");
  std::vector<int64_t> contexts = {0};
  contexts.insert(contexts.end(), params.contexts.begin(), params.contexts.end());
  for (int64_t context : contexts) {
    const std::optional<int64_t> batch =
        rl::ComputeBoundBatch(s, context, memory.value, compute.value);
    absl::StrAppend(
        &md, "- Compute-bound from batch: ",
        batch ? absl::StrCat(*batch)
              : "never (each added sequence's KV cache brings fewer FLOPs "
                "per byte than the ridge)",
        context == 0 ? " with no KV cache (weights only)" : absl::StrCat(" at context ", context),
        ".\n");
  }
  return md;
}

void AddStepFigure(const Params& params, const std::vector<StepRow>& rows, double bandwidth,
                   double tflops, const std::vector<std::string>& inputs, PaperFigure& out) {
  std::set<int64_t> xs(params.batches.begin(), params.batches.end());
  for (int64_t b = 1; b <= params.batches.back(); b *= 2) xs.insert(b);
  LinePlot plot{"decode_step",
                "Decode step time vs batch: model (lines), measured (points)",
                "batch (sequences)",
                "step time (ms)",
                true,
                true};
  std::vector<LinePlot::Series> measured;
  int color = 0;  // one colour per context, the model's line and its measured points
  for (int64_t context : params.contexts) {
    ++color;
    LinePlot::Series model{
        absl::StrCat("model, context ", context), {}, {}, absl::StrCat("lines lw 2 lc ", color)};
    for (int64_t b : xs) {
      model.x.push_back(static_cast<double>(b));
      model.y.push_back(rl::ModelStep(params.shape, b, context, bandwidth, tflops).seconds * 1e3);
    }
    plot.series.push_back(model);
    LinePlot::Series points{absl::StrCat("measured, context ", context),
                            {},
                            {},
                            absl::StrCat("points pt 7 ps 1.3 lc ", color)};
    for (const StepRow& r : rows) {
      if (r.context != context || !r.measured_s()) continue;
      points.x.push_back(static_cast<double>(r.batch));
      points.y.push_back(*r.measured_s() * 1e3);
    }
    if (!points.x.empty()) measured.push_back(points);
  }
  for (const LinePlot::Series& s : measured) plot.series.push_back(s);
  AddLinePlot(plot, inputs, out);
}

// The measured step's range against the model, over the rows that have one.
std::string RatioFindings(const std::vector<StepRow>& rows, double bandwidth) {
  double lo = 1e300, hi = 0, bw_lo = 1e300, bw_hi = 0;
  int complete = 0;
  for (const StepRow& r : rows) {
    const std::optional<double> measured = r.measured_s();
    if (!measured) continue;
    ++complete;
    lo = std::min(lo, *measured / r.model.seconds);
    hi = std::max(hi, *measured / r.model.seconds);
    const double fraction = r.model.bytes / *measured / (bandwidth * 1e9);
    bw_lo = std::min(bw_lo, fraction);
    bw_hi = std::max(bw_hi, fraction);
  }
  if (complete == 0) return "- No (batch, context) has every row measured: no measured step.\n";
  return absl::StrCat("- ", complete, " of ", rows.size(),
                      " (batch, context) have every row measured: measured / model ",
                      FormatNumber(lo), " to ", FormatNumber(hi), "; the model's bytes moved at ",
                      FormatPercent(bw_lo), " to ", FormatPercent(bw_hi),
                      " of the measured DRAM bandwidth.\n");
}

// A batch whose linear layers take more than this × a larger batch's: the
// larger batch reads the same weights and does more FLOPs, so the GEMM
// library's kernel for the smaller batch, not the bytes, sets its time.
constexpr double kSlowerThanLargerBatch = 1.10;

// The batches whose linear layers are slower than larger batches' (the
// linear layers do not depend on the context), with those batches.
std::string LinearFindings(const std::vector<StepRow>& rows) {
  std::map<int64_t, double> linear_s;
  for (const StepRow& r : rows) {
    if (r.linear_s) linear_s[r.batch] = *r.linear_s;
  }
  std::vector<std::string> slower;
  for (auto it = linear_s.begin(); it != linear_s.end(); ++it) {
    std::vector<std::string> faster_larger;
    for (auto larger = std::next(it); larger != linear_s.end(); ++larger) {
      if (it->second > kSlowerThanLargerBatch * larger->second) {
        faster_larger.push_back(
            absl::StrCat("batch ", larger->first, " (", Ms(larger->second), " ms)"));
      }
    }
    if (faster_larger.empty()) continue;
    slower.push_back(absl::StrCat("batch ", it->first, " (", Ms(it->second), " ms) above ",
                                  absl::StrJoin(faster_larger, " and ")));
  }
  if (slower.empty()) return "";
  return absl::StrCat(
      "- Linear layers' time not monotonic in batch: ", absl::StrJoin(slower, "; "),
      ". A larger batch reads the same weights and does more FLOPs: the GEMM library's kernel "
      "for the smaller batch, not the memory, sets its time.\n");
}

// Decode attention reading its KV cache below this fraction of the measured
// DRAM bandwidth: the kernel, not the memory, limits it.
constexpr double kKernelLimitedFraction = 0.25;

// The fraction of the DRAM bandwidth each cell's attention reads its KV
// cache at (KV bytes / attention time), and the cells below
// kKernelLimitedFraction.
std::string AttentionFindings(const rl::DecoderShape& shape, const std::vector<StepRow>& rows,
                              double bandwidth) {
  double lo = 1e300, hi = 0;
  std::vector<std::string> limited;
  for (const StepRow& r : rows) {
    if (!r.attention_s) continue;
    const double floor_s = rl::KvCacheBytes(shape, r.batch, r.context) / (bandwidth * 1e9);
    const double fraction = floor_s / *r.attention_s;
    lo = std::min(lo, fraction);
    hi = std::max(hi, fraction);
    if (fraction >= kKernelLimitedFraction) continue;
    limited.push_back(absl::StrCat("batch ", r.batch, " context ", r.context, ": ",
                                   FormatPercent(fraction), " (", Ms(*r.attention_s),
                                   " ms against a KV-read floor of ", Ms(floor_s), " ms)"));
  }
  if (hi == 0) return "";
  const std::string range = absl::StrCat("- Decode attention reads its KV cache at ",
                                         FormatPercent(lo), " to ", FormatPercent(hi),
                                         " of the measured DRAM bandwidth");
  if (limited.empty()) return absl::StrCat(range, ".\n");
  return absl::StrCat(range, "; below ", FormatPercent(kKernelLimitedFraction), " at ",
                      absl::StrJoin(limited, ", "),
                      ": there the kernel, not the memory, limits it.\n");
}

// From one measured batch to the next at the same context, decode
// attention's work (its KV cache and FLOPs) grows by the batch ratio; where
// its time grows by under half that, the kernel at the smaller batch ran at
// under half the rate it reaches at the larger: too little parallel work to
// fill the GPU, not the memory, sets its time.
std::string AttentionScalingFindings(const std::vector<StepRow>& rows) {
  std::map<int64_t, std::map<int64_t, double>> by_context;  // context -> batch -> seconds
  for (const StepRow& r : rows) {
    if (r.attention_s) by_context[r.context][r.batch] = *r.attention_s;
  }
  std::vector<std::string> flat;
  for (const auto& [context, by_batch] : by_context) {
    for (auto it = by_batch.begin(); std::next(it) != by_batch.end(); ++it) {
      const auto next = std::next(it);
      const double work = static_cast<double>(next->first) / static_cast<double>(it->first);
      const double time = next->second / it->second;
      if (!(time < 0.5 * work)) continue;
      flat.push_back(absl::StrCat("context ", context, " batch ", it->first, " to ", next->first,
                                  " (", FormatNumber(work), "x the work in ", FormatNumber(time),
                                  "x the time: ", Ms(it->second), " to ", Ms(next->second),
                                  " ms)"));
    }
  }
  if (flat.empty()) return "";
  return absl::StrCat(
      "- Decode attention's time grows by under half its work from one batch to the next at ",
      absl::StrJoin(flat, ", "),
      ": at the smaller batch the kernel has too little parallel work to fill the GPU, so it, "
      "not the memory, sets the time.\n");
}

}  // namespace

absl::StatusOr<PaperFigure> GenerateDecodeStepModel(const CatalogEntry& entry,
                                                    const std::vector<ResultFile>& results) {
  absl::StatusOr<Params> params_or = ReadParams(entry);
  if (!params_or.ok()) return params_or.status();
  const Params& params = *params_or;
  const LlmResultFiles files = LlmFilesOf(results);
  absl::StatusOr<Ceiling> memory =
      MemoryCeiling(files.bandwidth, static_cast<double>(params.dram_min_footprint_bytes), kName);
  if (!memory.ok()) return memory.status();
  const std::optional<Ceiling> compute = BestGemm(
      files.gemm, params.gemm_dtype, absl::StrCat(params.gemm_dtype, " tensor (cuBLASLt)"));
  if (!compute) {
    return absl::FailedPreconditionError(
        absl::StrCat(kName, ": no measured cublaslt_gemm rows of dtype ", params.gemm_dtype,
                     ": the compute roof cannot be measured"));
  }
  Measured measured;
  ReadGemmRows(files.gemm, params, measured);
  ReadAttentionRows(files.attention, params, measured);
  std::vector<StepRow> rows;
  for (int64_t context : params.contexts) {
    for (int64_t batch : params.batches) {
      rows.push_back(MeasureStep(params, measured, batch, context, memory->value, compute->value));
    }
  }

  MarkdownTable comparison = ComparisonTable();
  AddPublishedWithoutMeasurement(comparison, entry, {});
  std::string md = absl::StrCat(
      DeviceLine(results), "\n\n### Model\n\n", ModelMarkdown(params, *memory, *compute),
      "\n### Decode step: model vs measured\n\n", StepTable(rows, memory->value),
      "\nmeasured = ", params.shape.layers,
      " × (one layer's linear layers + its decode attention), each row's time per launch = its "
      "FLOPs / its median TFLOP/s; of DRAM bandwidth = model bytes / measured time / measured "
      "DRAM bandwidth.\n\n### Findings\n\n",
      RatioFindings(rows, memory->value), LinearFindings(rows),
      AttentionFindings(params.shape, rows, memory->value), AttentionScalingFindings(rows),
      "- Expected: ",
      entry.expected_signature,
      "\n\n### Paper vs this GPU\n\n", RenderMarkdownTable(comparison));
  if (!measured.not_measured.empty()) {
    absl::StrAppend(&md, "\n### Not measured\n\n");
    for (const std::string& line : measured.not_measured) absl::StrAppend(&md, "- ", line, "\n");
  }
  PaperFigure out;
  out.markdown = md;
  AddStepFigure(params, rows, memory->value, compute->value, files.Paths(), out);
  return out;
}

}  // namespace dissect::analysis::papers
