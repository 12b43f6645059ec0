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

#ifndef DISSECT_ANALYSIS_TENSOR_H_
#define DISSECT_ANALYSIS_TENSOR_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "analysis/results.h"

namespace dissect::analysis {

inline constexpr std::string_view kTensorPeaksFormat =
    "dissect.tensor_peaks.v1";

struct TensorSource {
  std::string key;
  std::string title;
  std::string publisher;
  int year = 0;
  std::string where;
  std::string url;
};

struct TensorRate {
  std::string dtype;   // fp32, tf32, fp16, bf16, fp8, int8
  double dense = 0;    // FLOP (integer: op) per clock per SM
  double sparse = 0;   // 2:4 sparse, 0 if none
  std::string source;  // a TensorSource key
  std::string note;
};

// A SKU with NVIDIA's published dense peaks.
struct TensorProduct {
  std::string name;  // "H100 SXM5 80 GB"
  // The product is the device when its device_name contains any of these
  // and its SM count is sm_count.
  std::vector<std::string> device_name_contains;
  int sm_count = 0;
  // Published dense TFLOP/s (integer: TOP/s) per dtype; nullopt: unknown.
  std::map<std::string, std::optional<double>> dense_tflops;
  std::string source;  // a TensorSource key
  std::string note;
  std::optional<double> DenseTflops(std::string_view dtype) const;
};

struct TensorArchitecture {
  std::string name;
  std::string compute_capability;  // "9.0"
  std::vector<TensorRate> rates;
  std::vector<TensorProduct> products;
  const TensorRate* Find(std::string_view dtype) const;
  // The product a device is, or null.
  const TensorProduct* ProductFor(std::string_view device_name,
                                  int sm_count) const;
};

struct TensorPeaks {
  std::vector<TensorSource> sources;
  std::vector<TensorArchitecture> architectures;
  const TensorArchitecture* ForComputeCapability(std::string_view cc) const;
  const TensorSource* Source(std::string_view key) const;
};

// The input types a rate may name.
const std::vector<std::string>& TensorDtypes();

// Parses and validates configs/tensor/peaks.json; errors are one line that
// starts with `path: `.
absl::StatusOr<TensorPeaks> ParseTensorPeaksJson(std::string_view text,
                                                 std::string_view path);

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

#endif  // DISSECT_ANALYSIS_TENSOR_H_
