// GenerateRoofline (analysis/papers/registry.h): the LLM-inference roofline
// of yuan_2024 with ceilings measured on this GPU. Reads memory_bandwidth
// (the memory roof: the best 128-bit read bandwidth at DRAM footprints),
// cublaslt_gemm (the tensor roof per dtype: its best TFLOP/s; the FP32 FMA
// roof: its best fp32 TFLOP/s, else computed from device attributes; and
// Llama-2-7B's linear layers as prefill GEMM and decode GEMV points) and
// attention (our FFMA kernel, placed under the FP32 FMA roof; rows with
// beyond_2x_l2 0 are a set of their own, "attention, L2-resident", not judged
// against the DRAM roof, experiments/harness/l2_residency.h; each row's
// intensity and bytes are the experiment's own arithmetic_intensity and
// bytes). Params (all
// optional): gemm_dtypes, llm_nk ("NxK" list), prefill_min_m, decode_max_m,
// prefill_cache, decode_cache, dram_min_footprint_bytes.
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
#include "analysis/figures.h"
#include "analysis/format.h"
#include "analysis/papers/paper_figure.h"
#include "analysis/papers/registry.h"
#include "analysis/papers/roofline/roofline_model.h"
#include "analysis/results.h"
#include "analysis/tensor.h"
#include "analysis/tensor_peaks_embedded.h"

namespace dissect::analysis::papers {
namespace {

namespace rl = roofline;

struct Params {
  std::vector<std::string> gemm_dtypes = {"fp16", "bf16"};
  std::vector<std::string> llm_nk = {"12288x4096", "4096x4096", "11008x4096", "4096x11008"};
  int64_t prefill_min_m = 128;
  int64_t decode_max_m = 64;
  std::string prefill_cache = "hot";
  std::string decode_cache = "hot";
  double dram_min_footprint_bytes = 268435456;
};

absl::StatusOr<Params> ReadParams(const CatalogEntry& entry) {
  Params p;
  auto strings = [&](const char* key, std::vector<std::string>& out) -> absl::Status {
    absl::StatusOr<std::vector<std::string>> v = StringListParam(entry, key, out, true);
    if (v.ok()) out = *std::move(v);
    return v.status();
  };
  auto integer = [&](const char* key, int64_t& out) -> absl::Status {
    const absl::StatusOr<int64_t> v = IntParam(entry, key, out, 1);
    if (v.ok()) out = *v;
    return v.status();
  };
  auto cache = [&](const char* key, std::string& out) -> absl::Status {
    absl::StatusOr<std::string> v = StringParam(entry, key, out);
    if (v.ok() && *v != "hot" && *v != "cold") return BadParam(entry, key, "\"hot\" or \"cold\"");
    if (v.ok()) out = *std::move(v);
    return v.status();
  };
  if (absl::Status s = strings("gemm_dtypes", p.gemm_dtypes); !s.ok()) return s;
  if (absl::Status s = strings("llm_nk", p.llm_nk); !s.ok()) return s;
  if (absl::Status s = integer("prefill_min_m", p.prefill_min_m); !s.ok()) return s;
  if (absl::Status s = integer("decode_max_m", p.decode_max_m); !s.ok()) return s;
  if (absl::Status s = cache("prefill_cache", p.prefill_cache); !s.ok()) return s;
  if (absl::Status s = cache("decode_cache", p.decode_cache); !s.ok()) return s;
  int64_t footprint = static_cast<int64_t>(p.dram_min_footprint_bytes);
  if (absl::Status s = integer("dram_min_footprint_bytes", footprint); !s.ok()) return s;
  p.dram_min_footprint_bytes = static_cast<double>(footprint);
  return p;
}

// "experiment/axis:value/..." without Google Benchmark's own segments.
std::string PointName(const ResultFile& file, const Row& row) {
  std::string name = file.experiment;
  for (const auto& [axis, value] : row.axes) absl::StrAppend(&name, "/", axis, ":", value);
  return name;
}

std::optional<double> ContextNumber(const ResultFile& file, std::string_view key) {
  const std::string text = file.ContextOr(key, "");
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || !std::isfinite(v)) return std::nullopt;
  return v;
}

struct Ceiling {
  std::string name;
  double value = 0;
  std::string unit;
  bool measured = true;
  std::string source;
  std::string datasheet;  // the side column
};

// The roof of the device: DRAM read bandwidth, best (footprint, bytes in
// flight) median of 128-bit reads (else the widest read) at footprints >=
// the DRAM minimum.
absl::StatusOr<Ceiling> MemoryCeiling(const std::vector<const ResultFile*>& files,
                                      const Params& params) {
  if (files.empty()) {
    return absl::FailedPreconditionError(
        "roofline: no memory_bandwidth results: the memory ceiling (DRAM read bandwidth) cannot "
        "be measured");
  }
  double widest = 0;
  for (const ResultFile* f : files) {
    for (const Row& row : f->rows) {
      const std::optional<double> width = AxisNumber(row, "width_bits");
      if (!row.error && row.Axis("op") == std::optional<std::string>("read") && width) {
        widest = std::max(widest, std::min(*width, 128.0));
      }
    }
  }
  // (footprint, bytes in flight) -> values and the first row's name.
  std::map<std::pair<double, double>, std::pair<std::vector<double>, std::string>> groups;
  for (const ResultFile* f : files) {
    for (const Row& row : f->rows) {
      const std::optional<double> gbps = row.Counter("bandwidth_gbps");
      const std::optional<double> footprint = AxisNumber(row, "footprint_bytes");
      if (row.error || !gbps || !(*gbps > 0) || !footprint ||
          *footprint < params.dram_min_footprint_bytes ||
          row.Axis("op") != std::optional<std::string>("read") ||
          AxisNumber(row, "width_bits") != std::optional<double>(widest)) {
        continue;
      }
      auto& group =
          groups[{*footprint, AxisNumber(row, "bytes_in_flight_per_thread").value_or(-1)}];
      group.first.push_back(*gbps);
      if (group.second.empty()) group.second = PointName(*f, row);
    }
  }
  if (groups.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("roofline: no measured memory_bandwidth read rows at footprints >= ",
                     FormatBytes(params.dram_min_footprint_bytes),
                     ": the memory ceiling (DRAM read bandwidth) cannot be measured"));
  }
  Ceiling c{"DRAM read bandwidth", 0, "GB/s", true, "", kEmptyCell};
  for (const auto& [key, group] : groups) {
    const double median = Median(group.first);
    if (median > c.value) {
      c.value = median;
      c.source = absl::StrCat(group.second, " (median of ", group.first.size(), " row(s))");
    }
  }
  if (const std::optional<double> peak = ContextNumber(*files.front(), "device_dram_peak_gbps")) {
    c.datasheet = absl::StrCat(FormatNumber(*peak),
                               " GB/s computed (2 × memory clock × bus width, device attributes)");
  }
  return c;
}

// NVIDIA's published dense peak of `dtype` for the device of `file`, or "—".
std::string DatasheetCell(const TensorPeaks* peaks, const ResultFile& file,
                          const std::string& dtype) {
  if (peaks == nullptr) return kEmptyCell;
  const TensorCeilings ceilings = CeilingsOf(file, *peaks);
  const std::optional<double> tflops = ceilings.Published({.dtype = dtype, .sparse = false});
  if (!tflops) return kEmptyCell;
  return absl::StrCat(FormatNumber(*tflops), " TFLOP/s datasheet (", ceilings.product->name,
                      ", configs/tensor/peaks.json)");
}

// The best cuBLASLt TFLOP/s of `dtype` (every shape and cache), or nullopt.
std::optional<Ceiling> BestGemm(const std::vector<const ResultFile*>& files,
                                const std::string& dtype, const std::string& name) {
  std::optional<Ceiling> best;
  for (const ResultFile* f : files) {
    for (const Row& row : f->rows) {
      const std::optional<double> tflops = row.Counter("tflops");
      if (row.error || !tflops || !(*tflops > 0) ||
          row.Axis("dtype") != std::optional<std::string>(dtype)) {
        continue;
      }
      if (!best || *tflops > best->value) {
        best = Ceiling{name, *tflops, "TFLOP/s", true, PointName(*f, row), kEmptyCell};
      }
    }
  }
  return best;
}

// The FP32 FMA roof from device attributes (not measured), or nullopt.
std::optional<Ceiling> ComputedFmaCeiling(const ResultFile& file) {
  const std::optional<double> sms = ContextNumber(file, "device_sm_count");
  const std::optional<double> khz = ContextNumber(file, "device_sm_clock_max_khz");
  const std::string cc = file.ContextOr("device_compute_capability", "");
  const int lanes = rl::Fp32LanesPerSm(cc);
  if (!sms || !khz) return std::nullopt;
  const double tflops = rl::Fp32FmaPeakTflops(static_cast<int>(*sms), lanes, *khz / 1000);
  if (!(tflops > 0)) return std::nullopt;
  return Ceiling{
      "FP32 FMA pipe",
      tflops,
      "TFLOP/s",
      false,
      absl::StrCat("device attributes: ", FormatNumber(*sms), " SMs × ", lanes, " FP32 lanes (cc ",
                   cc, ") × 2 FLOP × ", FormatNumber(*khz / 1000), " MHz maximum SM clock"),
      kEmptyCell};
}

struct OpPoint {
  // 0 prefill GEMM, 1 decode GEMV, 2 attention, 3 attention whose working
  // set is under 2 x L2 (beyond_2x_l2 0): its bytes came (partly) from L2.
  int set = 0;
  std::string shape, dtype, note;
  double intensity = 0;
  double tflops = 0;
  const Ceiling* roof = nullptr;
};

constexpr int kSets = 4;
constexpr int kL2ResidentAttention = 3;
const char* const kSetNames[kSets] = {"prefill GEMM", "decode GEMV", "attention",
                                      "attention, L2-resident"};

bool Contains(const std::vector<std::string>& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

// The point of one attention row under the FP32 FMA roof `fma` (null when
// there is none), or nullopt when the row is not an attention point or did
// not run (then added to `not_measured`). A row with beyond_2x_l2 0 is
// L2-resident (experiments/harness/l2_residency.h): its bytes came (partly)
// from L2, so the DRAM roof does not bound it; files from before that
// counter keep the older hint for hot rows whose bytes fit in L2 once. The
// intensity and bytes are the row's (the experiment computes them from the
// shape it ran); a row without them is not measured here.
std::optional<OpPoint> AttentionPoint(const ResultFile& file, const Row& row, const Ceiling* fma,
                                      double l2_bytes, std::vector<std::string>& not_measured) {
  const std::optional<double> context = AxisNumber(row, "context");
  const std::optional<double> batch = AxisNumber(row, "batch");
  const std::optional<double> heads = AxisNumber(row, "heads");
  const std::string phase = row.Axis("phase").value_or("");
  if (!context || !batch || !heads || (phase != "prefill" && phase != "decode")) {
    return std::nullopt;
  }
  const std::optional<double> tflops = row.Counter("tflops");
  const std::optional<double> intensity = row.Counter("arithmetic_intensity");
  const std::optional<double> bytes = row.Counter("bytes");
  if (row.error || !tflops || !intensity || !bytes) {
    not_measured.push_back(absl::StrCat(
        "`", PointName(file, row), "`: ",
        row.error ? RowNotes(row)
        : !tflops ? "no tflops"
                  : "no arithmetic_intensity or bytes (the roofline needs the row's own)"));
    return std::nullopt;
  }
  OpPoint p;
  p.set = 2;
  p.shape = absl::StrCat(phase, " context ", static_cast<int64_t>(*context), " batch ",
                         static_cast<int64_t>(*batch), " heads ", static_cast<int64_t>(*heads));
  p.dtype = "fp16 (FP32 FFMA)";
  p.intensity = *intensity;
  p.tflops = *tflops;
  p.roof = fma;
  if (fma == nullptr) p.note = "no FP32 FMA roof (no fp32 cublaslt_gemm row, no device attributes)";
  const std::optional<double> beyond = row.Counter("beyond_2x_l2");
  if (beyond == 0.0) {
    p.set = kL2ResidentAttention;
    p.note = absl::StrCat(
        "L2-resident: working set ",
        FormatBytes(row.Counter("working_set_bytes").value_or(*bytes)),
        " under 2 × L2, not judged against the DRAM roof");
  } else if (!beyond && row.Axis("cache") == std::optional<std::string>("hot") &&
             *bytes < l2_bytes) {
    p.note = "hot, operands fit in L2: may exceed the DRAM roof";
  }
  return p;
}

// The ceilings: the memory roof, one tensor roof per dtype with rows
// (tensor_roof: dtype -> index), the FMA pipe (fma_roof) where known.
struct Roofs {
  std::vector<Ceiling> ceilings;
  std::map<std::string, size_t> tensor_roof;
  std::optional<size_t> fma_roof;
};

absl::StatusOr<Roofs> BuildRoofs(const Ceiling& memory,
                                 const std::vector<const ResultFile*>& gemm_files,
                                 const Params& params, const TensorPeaks* peaks,
                                 const ResultFile& device) {
  Roofs roofs;
  std::vector<Ceiling>& ceilings = roofs.ceilings;
  ceilings.push_back(memory);
  for (const std::string& dtype : params.gemm_dtypes) {
    std::optional<Ceiling> c =
        BestGemm(gemm_files, dtype, absl::StrCat(dtype, " tensor (cuBLASLt)"));
    if (!c) continue;
    c->datasheet = DatasheetCell(peaks, device, dtype);
    roofs.tensor_roof[dtype] = ceilings.size();
    ceilings.push_back(*c);
  }
  if (roofs.tensor_roof.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("roofline: no measured cublaslt_gemm rows of dtype ",
                     absl::StrJoin(params.gemm_dtypes, " or "),
                     ": the tensor compute ceiling cannot be measured"));
  }
  std::optional<Ceiling> fma = BestGemm(gemm_files, "fp32", "FP32 FMA pipe (cuBLASLt SGEMM)");
  std::optional<Ceiling> computed_fma = ComputedFmaCeiling(device);
  if (fma) {
    fma->datasheet = computed_fma ? absl::StrCat(FormatNumber(computed_fma->value),
                                                 " TFLOP/s computed (", computed_fma->source, ")")
                                  : kEmptyCell;
  } else {
    fma = computed_fma;
    if (fma) fma->datasheet = DatasheetCell(peaks, device, "fp32");
  }
  if (fma) {
    roofs.fma_roof = ceilings.size();
    ceilings.push_back(*fma);
  }
  return roofs;
}

// The GEMM rows of the LLM shapes as prefill or decode points, against the
// tensor roof of their dtype; rows not measured go to `not_measured`.
void AddGemmPoints(const std::vector<const ResultFile*>& gemm_files, const Params& params,
                   const Roofs& roofs, double l2_bytes, std::vector<OpPoint>& points,
                   std::vector<std::string>& not_measured) {
  for (const ResultFile* f : gemm_files) {
    for (const Row& row : f->rows) {
      const std::string dtype = row.Axis("dtype").value_or("");
      const std::optional<GemmShape> shape = ParseGemmShape(row.Axis("shape").value_or(""));
      if (!shape || !Contains(params.gemm_dtypes, dtype) ||
          !Contains(params.llm_nk, absl::StrCat(shape->n, "x", shape->k))) {
        continue;
      }
      const std::string cache = row.Axis("cache").value_or("");
      int set = -1;
      if (shape->m >= params.prefill_min_m && cache == params.prefill_cache) set = 0;
      if (shape->m <= params.decode_max_m && cache == params.decode_cache) set = 1;
      if (set < 0) continue;
      const std::optional<double> tflops = row.Counter("tflops");
      if (row.error || !tflops) {
        not_measured.push_back(
            absl::StrCat("`", PointName(*f, row), "`: ", row.error ? RowNotes(row) : "no tflops"));
        continue;
      }
      OpPoint p;
      p.set = set;
      p.shape = row.Axis("shape").value_or("");
      p.dtype = dtype;
      p.intensity = rl::GemmIntensity(shape->m, shape->n, shape->k, 2);
      p.tflops = *tflops;
      const auto roof = roofs.tensor_roof.find(dtype);
      p.roof = &roofs.ceilings[roof != roofs.tensor_roof.end() ? roof->second : 1];
      if (cache == "hot" && rl::GemmBytes(shape->m, shape->n, shape->k, 2) < l2_bytes) {
        p.note = "hot, operands fit in L2: may exceed the DRAM roof";
      }
      points.push_back(p);
    }
  }
}

// How many points of each set, and how many of them are memory-bound.
struct SetTally {
  int counts[kSets] = {};
  int memory_bound[kSets] = {};
};

// The ceilings table and the text below it.
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

// The operators table; counts the points of each set in `tally`.
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

// The paper's published values (unknown offline) against this GPU's.
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

// The log-log roofline: the points of each set present and the compute
// roofs, with the axes' ranges around them.
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

}  // namespace

absl::StatusOr<PaperFigure> GenerateRoofline(const CatalogEntry& entry,
                                             const std::vector<ResultFile>& results) {
  absl::StatusOr<Params> params_or = ReadParams(entry);
  if (!params_or.ok()) return params_or.status();
  const Params& params = *params_or;
  const std::vector<const ResultFile*> bandwidth_files = FilesOf(results, "memory_bandwidth");
  const std::vector<const ResultFile*> gemm_files = FilesOf(results, "cublaslt_gemm");
  const std::vector<const ResultFile*> attention_files = FilesOf(results, "attention");

  absl::StatusOr<Ceiling> memory = MemoryCeiling(bandwidth_files, params);
  if (!memory.ok()) return memory.status();
  if (gemm_files.empty()) {
    return absl::FailedPreconditionError(
        "roofline: no cublaslt_gemm results: the tensor compute ceiling cannot be measured");
  }
  absl::StatusOr<TensorPeaks> peaks_or =
      ParseTensorPeaksJson(kEmbeddedTensorPeaksJson, kEmbeddedTensorPeaksOrigin);
  const TensorPeaks* peaks = peaks_or.ok() ? &*peaks_or : nullptr;
  const ResultFile& device = *gemm_files.front();

  absl::StatusOr<Roofs> roofs_or = BuildRoofs(*memory, gemm_files, params, peaks, device);
  if (!roofs_or.ok()) return roofs_or.status();
  const Roofs& roofs = *roofs_or;
  const std::vector<Ceiling>& ceilings = roofs.ceilings;
  const double bandwidth = ceilings.front().value;
  const double l2_bytes = ContextNumber(device, "device_l2_bytes").value_or(0);

  // Operator points, and the rows that were not measured.
  std::vector<OpPoint> points;
  std::vector<std::string> not_measured;
  AddGemmPoints(gemm_files, params, roofs, l2_bytes, points, not_measured);
  for (const ResultFile* f : attention_files) {
    for (const Row& row : f->rows) {
      if (std::optional<OpPoint> p =
              AttentionPoint(*f, row, roofs.fma_roof ? &ceilings[*roofs.fma_roof] : nullptr,
                             l2_bytes, not_measured)) {
        points.push_back(*p);
      }
    }
  }
  std::stable_sort(points.begin(), points.end(), [](const OpPoint& a, const OpPoint& b) {
    return std::tie(a.set, a.intensity) < std::tie(b.set, b.intensity);
  });

  SetTally tally;
  std::string md = absl::StrCat(DeviceLine(results), "\n\n### Ceilings\n\n",
                                CeilingsMarkdown(ceilings, bandwidth), "### Operators\n\n",
                                OperatorsMarkdown(points, bandwidth, tally), "\n### Findings\n\n");
  for (int set = 0; set < kSets; ++set) {
    if (set == kL2ResidentAttention && tally.counts[set] == 0) continue;
    absl::StrAppend(&md, "- ", kSetNames[set], ": ", tally.counts[set], " point(s), ",
                    tally.memory_bound[set], " memory-bound, ",
                    tally.counts[set] - tally.memory_bound[set],
                    " compute-bound (by the ridge of their roof).\n");
  }
  absl::StrAppend(&md, "- Expected (the paper's qualitative claim): ", entry.expected_signature,
                  "\n\n### Paper vs this GPU\n\n",
                  RenderMarkdownTable(PaperComparison(entry, points, roofs, bandwidth)));
  if (!not_measured.empty()) {
    absl::StrAppend(&md, "\n### Not measured\n\n");
    for (const std::string& line : not_measured) absl::StrAppend(&md, "- ", line, "\n");
  }

  PaperFigure out;
  out.markdown = md;
  std::vector<std::string> inputs;
  for (const auto* list : {&bandwidth_files, &gemm_files, &attention_files}) {
    for (const std::string& path : InputPaths(*list)) inputs.push_back(path);
  }
  AddRooflineFigure(points, ceilings, tally, bandwidth, inputs, out);
  return out;
}

}  // namespace dissect::analysis::papers
