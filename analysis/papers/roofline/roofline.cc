// GenerateRoofline (analysis/papers/registry.h): the LLM-inference roofline
// of yuan_2024 with ceilings measured on this GPU. Reads memory_bandwidth
// (the memory roof: the best 128-bit read bandwidth at DRAM footprints),
// cublaslt_gemm (the tensor roof per dtype: its best TFLOP/s; the FP32 FMA
// roof: its best fp32 TFLOP/s, else computed from device attributes; and
// Llama-2-7B's linear layers as prefill GEMM and decode GEMV points) and
// attention (our FFMA kernel, placed under the FP32 FMA roof; rows with
// beyond_2x_l2 0 are a set of their own, "attention, L2-resident", not judged
// against the DRAM roof, experiments/framework/l2_residency.h; each row's
// intensity and bytes are the experiment's own arithmetic_intensity and
// bytes). Params (all
// optional): gemm_dtypes, llm_nk ("NxK" list), prefill_min_m, decode_max_m,
// prefill_cache, decode_cache, dram_min_footprint_bytes.
#include <algorithm>
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

namespace dissect::analysis::papers {
namespace {

namespace rl = roofline;
using roofline_internal::AddRooflineFigure;
using roofline_internal::BestGemm;
using roofline_internal::CacheParam;
using roofline_internal::Ceiling;
using roofline_internal::CeilingsMarkdown;
using roofline_internal::ContextNumber;
using roofline_internal::kL2ResidentAttention;
using roofline_internal::kSetNames;
using roofline_internal::kSets;
using roofline_internal::LlmFilesOf;
using roofline_internal::LlmResultFiles;
using roofline_internal::MemoryCeiling;
using roofline_internal::OperatorsMarkdown;
using roofline_internal::OpPoint;
using roofline_internal::PaperComparison;
using roofline_internal::PointName;
using roofline_internal::Roofs;
using roofline_internal::SetTally;

struct Params {
  std::vector<std::string> gemm_dtypes = {"fp16", "bf16"};
  std::vector<std::string> llm_nk = {"12288x4096", "4096x4096", "11008x4096", "4096x11008"};
  int64_t prefill_min_m = 128;
  int64_t decode_max_m = 64;
  std::string prefill_cache = "hot";
  std::string decode_cache = "hot";
  double dram_min_footprint_bytes = roofline_internal::kDefaultDramMinFootprintBytes;
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
    absl::StatusOr<std::string> v = CacheParam(entry, key, out);
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

bool Contains(const std::vector<std::string>& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

// The point of one attention row under the FP32 FMA roof `fma` (null when
// there is none), or nullopt when the row is not an attention point or did
// not run (then added to `not_measured`). A row with beyond_2x_l2 0 is
// L2-resident (experiments/framework/l2_residency.h): its bytes came (partly)
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
    p.note = absl::StrCat("L2-resident: working set ",
                          FormatBytes(row.Counter("working_set_bytes").value_or(*bytes)),
                          " under 2 × L2, not judged against the DRAM roof");
  } else if (!beyond && row.Axis("cache") == std::optional<std::string>("hot") &&
             *bytes < l2_bytes) {
    p.note = "hot, operands fit in L2: may exceed the DRAM roof";
  }
  return p;
}

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

}  // namespace

absl::StatusOr<PaperFigure> GenerateRoofline(const CatalogEntry& entry,
                                             const std::vector<ResultFile>& results) {
  absl::StatusOr<Params> params_or = ReadParams(entry);
  if (!params_or.ok()) return params_or.status();
  const Params& params = *params_or;
  const LlmResultFiles files = LlmFilesOf(results);
  const std::vector<const ResultFile*>& gemm_files = files.gemm;

  absl::StatusOr<Ceiling> memory =
      MemoryCeiling(files.bandwidth, params.dram_min_footprint_bytes, "roofline");
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
  for (const ResultFile* f : files.attention) {
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
  AddRooflineFigure(points, ceilings, tally, bandwidth, files.Paths(), out);
  return out;
}

}  // namespace dissect::analysis::papers
