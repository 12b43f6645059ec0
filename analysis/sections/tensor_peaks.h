// The ceilings file configs/tensor/peaks.json (format documented in
// configs/README.md): per architecture the tensor-core (and FP32 FFMA) rates
// per SM and clock, and per product NVIDIA's published figures (dense peaks
// per input type, SM count, boost clock, L2 size, DRAM bandwidth), each with
// its source or the reason it is unknown. A result file picks its product by
// compute capability, device name and SM count (ProductMatch).

#ifndef DISSECT_ANALYSIS_SECTIONS_TENSOR_PEAKS_H_
#define DISSECT_ANALYSIS_SECTIONS_TENSOR_PEAKS_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

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
  std::string dtype;   // fp32, tf32, fp16, bf16, fp8, int8, fp64
  double dense = 0;    // FLOP (integer: op) per clock per SM
  double sparse = 0;   // 2:4 sparse, 0 if none
  std::string source;  // a TensorSource key
  std::string note;
};

// One published number, with its source, or the reason it is not given.
struct PublishedFigure {
  std::optional<double> value;  // nullopt: unknown
  std::string source;           // a TensorSource key, with a value
  std::string note;             // optional
  std::string unknown;          // why there is no value, without one
};

// The device facts a product gives, by key.
inline constexpr const char* kProductSpecKeys[] = {"sm_count", "boost_mhz",
                                                    "l2_bytes", "dram_gbps"};

// A SKU with NVIDIA's published figures.
struct TensorProduct {
  std::string name;  // "H100 SXM5 80 GB"
  // The product is the device when its device_name contains any of these
  // and, where the product's SM count is published, its SM count is that.
  std::vector<std::string> device_name_contains;
  // ... and none of these (e.g. "NVL": the H200 NVL is not the H200 SXM).
  std::vector<std::string> device_name_excludes;
  int sm_count = 0;  // specs["sm_count"], 0 where unknown
  // Dense TFLOP/s (integer: TOP/s) per input type of TensorDtypes(), each
  // published or unknown with its reason.
  std::map<std::string, PublishedFigure> dense_tflops;
  // kProductSpecKeys: SMs, maximum boost clock (MHz), L2 (bytes), DRAM
  // bandwidth (GB/s).
  std::map<std::string, PublishedFigure> specs;
  std::string source;  // a TensorSource key: of dense_tflops given as numbers
  std::string note;
  std::optional<double> DenseTflops(std::string_view dtype) const;
  const PublishedFigure* Spec(std::string_view key) const;
};

struct TensorArchitecture {
  std::string name;
  std::string compute_capability;  // "9.0"
  std::vector<TensorRate> rates;   // empty where no per-SM rate is published
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

// The input types a rate or product may name.
const std::vector<std::string>& TensorDtypes();

// Parses and validates configs/tensor/peaks.json; errors are one line that
// starts with `path: `.
absl::StatusOr<TensorPeaks> ParseTensorPeaksJson(std::string_view text,
                                                 std::string_view path);

// Which entry of the file a device picked, and by what: "A100 SXM4 80 GB
// (compute capability 8.0, name contains "A100-SXM4-80GB", 108 SMs)".
std::string ProductMatch(const TensorArchitecture& arch,
                         const TensorProduct& product,
                         std::string_view device_name);

// `Publisher: "Title", year, where. url`.
std::string SourceCitation(const TensorSource& source);

}  // namespace dissect::analysis

#endif  // DISSECT_ANALYSIS_SECTIONS_TENSOR_PEAKS_H_
