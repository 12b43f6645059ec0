// One cuBLASLt matrix multiply D = A·B (alpha 1, beta 0) per input type,
// set up once and run many times, with RAII ownership of every cuBLASLt
// object; plus the host-side spot check of its result.
//
// Layout "TN" for every type (the one cuBLASLt's FP8 and INT8 kernels
// require): A is stored K×M column-major and transposed, B K×N
// column-major, D M×N column-major. Row m of op(A) and column n of B are
// therefore K contiguous elements, which the spot check copies back.
#ifndef DISSECT_EXPERIMENTS_TENSOR_LT_GEMM_H_
#define DISSECT_EXPERIMENTS_TENSOR_LT_GEMM_H_

#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "kernels/tensor/fill.h"
#include "kernels/tensor/mma_sync.h"
#include "probes/device_buffer.h"

namespace dissect {

enum class GemmDtype { kFp32, kTf32, kFp16, kBf16, kFp8, kInt8 };

struct GemmDtypeInfo {
  GemmDtype dtype;
  const char* name;      // axis value
  TensorElement input;   // A and B (tf32: f32 storage, tf32-exact values)
  TensorElement output;  // C and D
  int input_bytes;
  int output_bytes;
  FillFormat fill;   // positive random values of the input type
  double tolerance;  // of the spot check, relative to Σ a·b (all positive)
  // fp8 only: CUBLASLT_MATMUL_DESC_FAST_ACCUM set (unset, cuBLASLt's
  // default, the FP8 kernels accumulate in the slower, more exact mode).
  bool fast_accum = false;
  // The spot check allows max(tolerance, tolerance_per_k × K) relative: fast
  // accumulation keeps fewer accumulator bits, and with positive data the
  // truncation error grows with the number of accumulation steps (K / 32).
  double tolerance_per_k = 0;
};

// fp32 (CUDA cores), tf32, fp16, bf16, fp8 (e4m3 → bf16, default
// accumulation), fp8_fast_accum (the same with fast accumulation), int8
// (→ s32).
const std::vector<GemmDtypeInfo>& GemmDtypes();
const GemmDtypeInfo* FindGemmDtype(absl::string_view name);

struct GemmDims {
  int64_t m = 0, n = 0, k = 0;
};
// "4096x4096x4096" → {4096, 4096, 4096}; InvalidArgument otherwise.
absl::StatusOr<GemmDims> ParseGemmDims(absl::string_view shape);

// Launches per hot sample: problems under 2^32 FLOP (256³, 512³, small M at
// N = K = 4096) take a few microseconds per launch, near the resolution of
// an event pair, so a sample times ceil(2^32 / (2·M·N·K)) of them back to
// back, at most 128; larger problems one.
int GemmLaunchesPerSample(const GemmDims& dims);

// cuBLASLt status → absl::Status naming the call; OK for success.
absl::Status LtStatus(cublasStatus_t status, const char* call);

template <typename T, cublasStatus_t (*kDestroy)(T)>
struct LtDeleter {
  void operator()(T p) const {
    if (p != nullptr) kDestroy(p);
  }
};
template <typename T, cublasStatus_t (*kDestroy)(T)>
using LtPtr = std::unique_ptr<std::remove_pointer_t<T>, LtDeleter<T, kDestroy>>;
using LtMatmulDesc = LtPtr<cublasLtMatmulDesc_t, cublasLtMatmulDescDestroy>;

// The operation descriptor of `dtype`'s multiply: compute and scale type,
// TN layout, and fast accumulation where dtype.fast_accum. Host-side only
// (no device needed).
absl::StatusOr<LtMatmulDesc> CreateMatmulDesc(const GemmDtypeInfo& dtype);

class LtGemm {
 public:
  // Sets up the multiply of `dtype` at `dims` over device buffers a (K×M),
  // b (K×N) and d (M×N) and asks cuBLASLt's heuristic for its best
  // algorithm. NotFound (with cuBLASLt's reason) when it has none for this
  // type, shape and alignment: the caller reports the point as skipped.
  static absl::StatusOr<LtGemm> Create(const GemmDtypeInfo& dtype, const GemmDims& dims,
                                       const void* a, const void* b, void* d);
  cublasStatus_t Run(cudaStream_t stream) const;

 private:
  LtGemm() = default;
  const GemmDtypeInfo* dtype_ = nullptr;
  const void* a_ = nullptr;
  const void* b_ = nullptr;
  void* d_ = nullptr;
  LtPtr<cublasLtHandle_t, cublasLtDestroy> handle_;
  LtMatmulDesc desc_;
  LtPtr<cublasLtMatrixLayout_t, cublasLtMatrixLayoutDestroy> a_layout_, b_layout_, d_layout_;
  cublasLtMatmulAlgo_t algo_{};
  DeviceBuffer<uint8_t> workspace_;
};

// Checks one output element against the host dot product of its row of
// op(A) and column of B (element bits as stored). Integer types exactly;
// floating point within max(dtype.tolerance, dtype.tolerance_per_k × K) ×
// Σ|a·b|.
absl::Status CheckGemmElement(const GemmDtypeInfo& dtype, const std::vector<uint32_t>& a_row,
                              const std::vector<uint32_t>& b_col, uint32_t d_bits,
                              const std::string& where);

// Spot check on the device result: copies `samples` (row, column) pairs'
// operands and outputs back and checks them (the corners and a fixed
// pseudo-random set).
absl::Status SpotCheckGemm(const GemmDtypeInfo& dtype, const GemmDims& dims, const void* a,
                           const void* b, const void* d, int samples);

}  // namespace dissect

#endif  // DISSECT_EXPERIMENTS_TENSOR_LT_GEMM_H_
