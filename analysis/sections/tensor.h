// Tensor-core section of the report: per device, the ceilings of
// configs/tensor/peaks.json, every tensor probe measurement (mma_sync, wgmma)
// and cuBLASLt GEMM as a % of three ceilings and of the best measured for its
// input type, and for cuBLASLt GEMM sweeps a utilisation heatmap (shape ×
// dtype) and a good / bad / ugly table that names the shapes where the tensor
// cores idle, with a shape-based reason.
//
// The three ceilings of a measurement: SM count × per-SM rate × (1) the
// maximum boost clock the device reports (device_sm_clock_max_khz), (2) the
// clock behind NVIDIA's published peak of the SKU (a product of peaks.json,
// matched by device name and SM count), (3) the SM clock measured during the
// run (measured_sm_clock_mhz of probe rows, clock64 span ÷ event time; the
// NVML reads around the samples on GEMM rows). Rows with counter `emulated`
// = 1 (a form ptxas expands into other instructions) are shown, labelled,
// but kept out of every % and of the best.

#ifndef DISSECT_ANALYSIS_SECTIONS_TENSOR_H_
#define DISSECT_ANALYSIS_SECTIONS_TENSOR_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "analysis/results/results.h"
#include "analysis/sections/tensor_peaks.h"

namespace dissect::analysis {

// The peak key and sparsity of a probe form or GEMM dtype axis value:
// "f16_f32" -> fp16, "sp_e4m3_f32" -> fp8 sparse, "int8" -> int8.
struct TensorKind {
  std::string dtype;
  bool sparse = false;
};
std::optional<TensorKind> KindOf(std::string_view form_or_dtype);

// M, N, K of a GEMM shape axis value "MxNxK".
struct GemmShape {
  int64_t m = 0, n = 0, k = 0;
};
std::optional<GemmShape> ParseGemmShape(std::string_view shape);

// The ceilings of one device (the device_* context of its result file) in
// TFLOP/s: SM count x the architecture's per-SM rate x a clock, and NVIDIA's
// published peak of the product (configs/tensor/peaks.json). The tensor
// section grades a measurement against Basis, as does the paper catalog's
// fc_heatmap.
struct TensorCeilings {
  const ResultFile* file = nullptr;
  const TensorArchitecture* arch = nullptr;  // null: unknown compute capability
  const TensorProduct* product = nullptr;    // null: no product of peaks.json
  double sms = 0;
  double max_mhz = 0;  // device_sm_clock_max_khz / 1000

  // SMs x clock x per-SM rate.
  std::optional<double> AtClock(const TensorKind& kind, double mhz) const;
  std::optional<double> AtMax(const TensorKind& kind) const;
  // NVIDIA's published peak of the product; sparse: the dense one scaled by
  // the architecture's sparse / dense rate (2x, as NVIDIA publishes it).
  std::optional<double> Published(const TensorKind& kind) const;
  // The clock the published peak implies, MHz.
  std::optional<double> PublishedMhz(const TensorKind& kind) const;
  // The grading basis: the published peak where known, else the peak at the
  // maximum boost clock.
  std::optional<double> Basis(const TensorKind& kind) const;
};
TensorCeilings CeilingsOf(const ResultFile& file, const TensorPeaks& peaks);

// The tensor sections of every device with mma_sync, wgmma or cublaslt_gemm
// rows, "" if none. Each starts with "## tensor cores: <device>" and ends
// with a newline.
std::string RenderTensorSections(const std::vector<ResultFile>& files,
                                 const TensorPeaks& peaks);

}  // namespace dissect::analysis

#endif  // DISSECT_ANALYSIS_SECTIONS_TENSOR_H_
