// What the tensor section's blocks (tensor.cc, tensor_ceilings.cc,
// tensor_gemm.cc) share: one measured point, its % of the ceilings, and
// table and cell text. Internal to the tensor library.

#ifndef DISSECT_ANALYSIS_SECTIONS_TENSOR_INTERNAL_H_
#define DISSECT_ANALYSIS_SECTIONS_TENSOR_INTERNAL_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/results/results.h"
#include "analysis/sections/tensor.h"

namespace dissect::analysis::tensor_internal {

inline constexpr char kNone[] = "—";

// A markdown table without padding; `right` marks right-aligned columns.
std::string Table(const std::vector<std::string>& header, const std::vector<bool>& right,
                  const std::vector<std::vector<std::string>>& rows);

// A fraction as a percentage, a number; kNone when absent.
std::string Percent(std::optional<double> fraction);
std::string Num(std::optional<double> v);

// One measured point of a tensor experiment.
struct Measurement {
  const ResultFile* file = nullptr;
  const Row* row = nullptr;
  std::string experiment;
  std::string what;  // the axis values other than mode and data
  TensorKind kind;
  std::string dtype_value;  // GEMM: the dtype axis value (fp8_fast_accum)
  std::string mode;         // latency / throughput ("throughput" for GEMM)
  std::string data;         // random / zeros
  std::string cache;        // GEMM: hot / cold ("hot" without the axis)
  bool emulated = false;    // counter `emulated` is 1
  std::optional<double> cycles;
  std::optional<double> per_clk_sm;
  std::optional<double> tflops;
  std::optional<double> gbps;
  std::optional<double> tensor_active;  // a cupti/ counter naming the tensor pipe
  std::optional<GemmShape> shape;       // GEMM rows
  std::optional<double> clock_mhz;      // the SM clock measured during the run
  std::string clock_source;             // "clock64" or "NVML"
};

// A context value of `f` as a number; 0 when absent or not a number.
double ContextNumber(const ResultFile& f, const char* key);

// "fp16", or "fp16 2:4 sparse".
std::string KindName(const TensorKind& k);

// % of the three ceilings and of the best of one throughput measurement;
// all empty for latency and emulated rows.
struct Percents {
  std::optional<double> at_measured, at_max, published, best;
};

Percents PercentsOf(const Measurement& m, const TensorCeilings& d,
                    const std::map<std::string, double>& best);

// "1755 clock64", with the droop below the maximum boost clock on
// throughput rows (those with a %) and "moved" where the NVML clock polled
// during the samples moved (clock_moved).
std::string ClockCell(const Measurement& m, const TensorCeilings& d);

// The ceilings of a device (tensor_ceilings.cc): how they are computed, the
// rate table, the published figures with their sources, the SM clocks.
std::string CeilingsBlock(const TensorCeilings& d, const TensorPeaks& peaks,
                          const std::vector<Measurement>& rows);

// The cublaslt_gemm rows graded against their basis (tensor_gemm.cc).
std::string GemmBlock(const TensorCeilings& d, const std::vector<const Measurement*>& gemm,
                      const std::map<std::string, double>& best);

}  // namespace dissect::analysis::tensor_internal

#endif  // DISSECT_ANALYSIS_SECTIONS_TENSOR_INTERNAL_H_
