// cuBLASLt GEMM set-up and the spot check; see lt_gemm.h.
#include "experiments/tensor/lt_gemm.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "experiments/tensor/tensor_elements.h"
#include "probes/cuda_status.h"

namespace dissect {
namespace {

constexpr size_t kWorkspaceBytes = size_t{32} << 20;

// cuBLASLt's element type of a tensor element type.
cudaDataType_t CudaType(TensorElement e) {
  switch (e) {
    case TensorElement::kF16:
      return CUDA_R_16F;
    case TensorElement::kBf16:
      return CUDA_R_16BF;
    case TensorElement::kE4m3:
      return CUDA_R_8F_E4M3;
    case TensorElement::kE5m2:
      return CUDA_R_8F_E5M2;
    case TensorElement::kS8:
      return CUDA_R_8I;
    case TensorElement::kS32:
      return CUDA_R_32I;
    default:
      return CUDA_R_32F;
  }
}

#define DISSECT_LT_RETURN_IF_ERROR(call) DISSECT_RETURN_IF_ERROR(LtStatus((call), #call))

// Element bits of `count` elements of `bytes` bytes each at `src` (device).
absl::StatusOr<std::vector<uint32_t>> CopyBits(const void* src, size_t offset, size_t count,
                                               int bytes) {
  std::vector<uint8_t> raw(count * bytes);
  DISSECT_CUDA_RETURN_IF_ERROR(cudaMemcpy(raw.data(),
                                          static_cast<const uint8_t*>(src) + offset * bytes,
                                          raw.size(), cudaMemcpyDeviceToHost));
  std::vector<uint32_t> bits(count, 0);
  for (size_t i = 0; i < count; ++i) {
    for (int b = 0; b < bytes; ++b) bits[i] |= uint32_t{raw[i * bytes + b]} << (8 * b);
  }
  return bits;
}

}  // namespace

const std::vector<GemmDtypeInfo>& GemmDtypes() {
  // Tolerances relative to Σ a·b (positive data): input rounding is exact
  // (the operands are representable), so what remains is accumulation
  // order and precision over K up to 64 Ki and the output's rounding.
  static const auto* dtypes = new std::vector<GemmDtypeInfo>{
      {GemmDtype::kFp32,
       "fp32",
       TensorElement::kF32,
       TensorElement::kF32,
       4,
       4,
       {4, false, 8, 23, 127, 0},
       std::ldexp(1.0, -10)},
      {GemmDtype::kTf32,
       "tf32",
       TensorElement::kTf32,
       TensorElement::kF32,
       4,
       4,
       {4, false, 8, 10, 127, 13},
       std::ldexp(1.0, -10)},
      {GemmDtype::kFp16,
       "fp16",
       TensorElement::kF16,
       TensorElement::kF16,
       2,
       2,
       {2, false, 5, 10, 15, 0},
       std::ldexp(1.0, -9)},
      {GemmDtype::kBf16,
       "bf16",
       TensorElement::kBf16,
       TensorElement::kBf16,
       2,
       2,
       {2, false, 8, 7, 127, 0},
       std::ldexp(1.0, -7)},
      {GemmDtype::kFp8,
       "fp8",
       TensorElement::kE4m3,
       TensorElement::kBf16,
       1,
       2,
       {1, false, 4, 3, 7, 0},
       std::ldexp(1.0, -6)},
      {GemmDtype::kFp8,
       "fp8_fast_accum",
       TensorElement::kE4m3,
       TensorElement::kBf16,
       1,
       2,
       {1, false, 4, 3, 7, 0},
       std::ldexp(1.0, -6),
       /*fast_accum=*/true,
       // An estimate, not a documented bound: the DeepSeek-V3 technical
       // report (arXiv 2412.19437, its FP8 training section) measures a
       // maximum relative error of nearly 2% for FP8 GEMMs on H800 with the
       // tensor cores' own accumulation at K = 4096; K × 2^-17 is 3.1%
       // there.
       /*tolerance_per_k=*/std::ldexp(1.0, -17)},
      {GemmDtype::kInt8,
       "int8",
       TensorElement::kS8,
       TensorElement::kS32,
       1,
       4,
       {1, true, 0, 0, 0, 0},
       0},
  };
  return *dtypes;
}

const GemmDtypeInfo* FindGemmDtype(absl::string_view name) {
  for (const GemmDtypeInfo& d : GemmDtypes()) {
    if (name == d.name) return &d;
  }
  return nullptr;
}

absl::StatusOr<GemmDims> ParseGemmDims(absl::string_view shape) {
  std::vector<absl::string_view> parts = absl::StrSplit(shape, 'x');
  GemmDims d;
  if (parts.size() != 3 || !absl::SimpleAtoi(parts[0], &d.m) || !absl::SimpleAtoi(parts[1], &d.n) ||
      !absl::SimpleAtoi(parts[2], &d.k) || d.m < 1 || d.n < 1 || d.k < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("shape '", shape, "' is not MxNxK with positive integers"));
  }
  return d;
}

int GemmLaunchesPerSample(const GemmDims& dims) {
  constexpr double kFlopsPerSample = 4294967296.0;  // 2^32
  constexpr double kMaxLaunches = 128;
  const double flops = 2.0 * dims.m * dims.n * dims.k;
  return static_cast<int>(std::clamp(std::ceil(kFlopsPerSample / flops), 1.0, kMaxLaunches));
}

absl::Status LtStatus(cublasStatus_t status, const char* call) {
  if (status == CUBLAS_STATUS_SUCCESS) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(call, " failed: ", cublasLtGetStatusName(status), ": ",
                                          cublasLtGetStatusString(status)));
}

absl::StatusOr<LtMatmulDesc> CreateMatmulDesc(const GemmDtypeInfo& dtype) {
  const bool integer = dtype.dtype == GemmDtype::kInt8;
  const cublasComputeType_t compute = integer ? CUBLAS_COMPUTE_32I
                                      : dtype.dtype == GemmDtype::kTf32
                                          ? CUBLAS_COMPUTE_32F_FAST_TF32
                                          : CUBLAS_COMPUTE_32F;
  cublasLtMatmulDesc_t raw = nullptr;
  DISSECT_LT_RETURN_IF_ERROR(
      cublasLtMatmulDescCreate(&raw, compute, integer ? CUDA_R_32I : CUDA_R_32F));
  LtMatmulDesc desc(raw);
  const cublasOperation_t transpose = CUBLAS_OP_T, none = CUBLAS_OP_N;
  DISSECT_LT_RETURN_IF_ERROR(cublasLtMatmulDescSetAttribute(raw, CUBLASLT_MATMUL_DESC_TRANSA,
                                                            &transpose, sizeof transpose));
  DISSECT_LT_RETURN_IF_ERROR(
      cublasLtMatmulDescSetAttribute(raw, CUBLASLT_MATMUL_DESC_TRANSB, &none, sizeof none));
  if (dtype.fast_accum) {
    const int8_t fast = 1;
    DISSECT_LT_RETURN_IF_ERROR(
        cublasLtMatmulDescSetAttribute(raw, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast, sizeof fast));
  }
  return desc;
}

absl::StatusOr<LtGemm> LtGemm::Create(const GemmDtypeInfo& dtype, const GemmDims& dims,
                                      const void* a, const void* b, void* d) {
  LtGemm g;
  g.dtype_ = &dtype;
  g.a_ = a;
  g.b_ = b;
  g.d_ = d;
  cublasLtHandle_t handle = nullptr;
  DISSECT_LT_RETURN_IF_ERROR(cublasLtCreate(&handle));
  g.handle_.reset(handle);

  DISSECT_ASSIGN_OR_RETURN(g.desc_, CreateMatmulDesc(dtype));
  cublasLtMatmulDesc_t desc = g.desc_.get();

  const cudaDataType_t in = CudaType(dtype.input), out = CudaType(dtype.output);
  cublasLtMatrixLayout_t layout = nullptr;
  DISSECT_LT_RETURN_IF_ERROR(cublasLtMatrixLayoutCreate(&layout, in, dims.k, dims.m, dims.k));
  g.a_layout_.reset(layout);
  DISSECT_LT_RETURN_IF_ERROR(cublasLtMatrixLayoutCreate(&layout, in, dims.k, dims.n, dims.k));
  g.b_layout_.reset(layout);
  DISSECT_LT_RETURN_IF_ERROR(cublasLtMatrixLayoutCreate(&layout, out, dims.m, dims.n, dims.m));
  g.d_layout_.reset(layout);

  DISSECT_ASSIGN_OR_RETURN(g.workspace_, DeviceBuffer<uint8_t>::Allocate(kWorkspaceBytes));
  cublasLtMatmulPreference_t raw_pref = nullptr;
  DISSECT_LT_RETURN_IF_ERROR(cublasLtMatmulPreferenceCreate(&raw_pref));
  LtPtr<cublasLtMatmulPreference_t, cublasLtMatmulPreferenceDestroy> pref(raw_pref);
  const size_t workspace = kWorkspaceBytes;
  DISSECT_LT_RETURN_IF_ERROR(cublasLtMatmulPreferenceSetAttribute(
      pref.get(), CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace, sizeof workspace));
  cublasLtMatmulHeuristicResult_t result{};
  int found = 0;
  const cublasStatus_t status = cublasLtMatmulAlgoGetHeuristic(
      handle, desc, g.a_layout_.get(), g.b_layout_.get(), g.d_layout_.get(), g.d_layout_.get(),
      pref.get(), 1, &result, &found);
  if (status == CUBLAS_STATUS_NOT_SUPPORTED || (status == CUBLAS_STATUS_SUCCESS && found == 0)) {
    return absl::NotFoundError(
        absl::StrCat("cuBLASLt has no ", dtype.name, " algorithm for ", dims.m, "x", dims.n, "x",
                     dims.k, " (TN layout",
                     status == CUBLAS_STATUS_SUCCESS ? "" : ", CUBLAS_STATUS_NOT_SUPPORTED", ")"));
  }
  DISSECT_LT_RETURN_IF_ERROR(status);
  g.algo_ = result.algo;
  return g;
}

cublasStatus_t LtGemm::Run(cudaStream_t stream) const {
  const float alpha_f = 1, beta_f = 0;
  const int32_t alpha_i = 1, beta_i = 0;
  const bool integer = dtype_->dtype == GemmDtype::kInt8;
  const void* alpha = integer ? static_cast<const void*>(&alpha_i) : &alpha_f;
  const void* beta = integer ? static_cast<const void*>(&beta_i) : &beta_f;
  return cublasLtMatmul(handle_.get(), desc_.get(), alpha, a_, a_layout_.get(), b_, b_layout_.get(),
                        beta, d_, d_layout_.get(), d_, d_layout_.get(), &algo_, workspace_.get(),
                        workspace_.bytes(), stream);
}

absl::Status CheckGemmElement(const GemmDtypeInfo& dtype, const std::vector<uint32_t>& a_row,
                              const std::vector<uint32_t>& b_col, uint32_t d_bits,
                              const std::string& where) {
  if (a_row.size() != b_col.size() || a_row.empty()) {
    return absl::InvalidArgumentError("row and column lengths differ");
  }
  if (dtype.dtype == GemmDtype::kInt8) {
    int64_t sum = 0;
    for (size_t k = 0; k < a_row.size(); ++k) {
      sum += static_cast<int64_t>(DecodeElement(dtype.input, a_row[k])) *
             static_cast<int64_t>(DecodeElement(dtype.input, b_col[k]));
    }
    const int32_t want = static_cast<int32_t>(static_cast<uint32_t>(sum));
    const int32_t got = static_cast<int32_t>(d_bits);
    if (got == want) return absl::OkStatus();
    return absl::InternalError(absl::StrCat(dtype.name, " GEMM ", where, ": got ", got,
                                            ", the CPU dot product is ", want));
  }
  double sum = 0, magnitude = 0;
  for (size_t k = 0; k < a_row.size(); ++k) {
    const double p = DecodeElement(dtype.input, a_row[k]) * DecodeElement(dtype.input, b_col[k]);
    sum += p;
    magnitude += std::fabs(p);
  }
  const double got = DecodeElement(dtype.output, d_bits);
  const double bound =
      std::max(dtype.tolerance, dtype.tolerance_per_k * static_cast<double>(a_row.size())) *
      magnitude;
  if (std::isfinite(got) && std::fabs(got - sum) <= bound) return absl::OkStatus();
  return absl::InternalError(
      absl::StrFormat("%s GEMM %s: got %.9g, the CPU dot product is %.9g (tolerance %.3g)",
                      dtype.name, where, got, sum, bound));
}

absl::Status SpotCheckGemm(const GemmDtypeInfo& dtype, const GemmDims& dims, const void* a,
                           const void* b, const void* d, int samples) {
  std::vector<std::pair<int64_t, int64_t>> points = {
      {0, 0}, {dims.m - 1, 0}, {0, dims.n - 1}, {dims.m - 1, dims.n - 1}};
  std::mt19937_64 rng(0xc0ffee);
  while (static_cast<int>(points.size()) < samples) {
    points.push_back({static_cast<int64_t>(rng() % dims.m), static_cast<int64_t>(rng() % dims.n)});
  }
  for (const auto& [row, col] : points) {
    DISSECT_ASSIGN_OR_RETURN(
        auto a_row, CopyBits(a, static_cast<size_t>(row) * dims.k, dims.k, dtype.input_bytes));
    DISSECT_ASSIGN_OR_RETURN(
        auto b_col, CopyBits(b, static_cast<size_t>(col) * dims.k, dims.k, dtype.input_bytes));
    DISSECT_ASSIGN_OR_RETURN(
        auto d_bits, CopyBits(d, static_cast<size_t>(col) * dims.m + row, 1, dtype.output_bytes));
    DISSECT_RETURN_IF_ERROR(
        CheckGemmElement(dtype, a_row, b_col, d_bits[0], absl::StrCat("D[", row, "][", col, "]")));
  }
  return absl::OkStatus();
}

}  // namespace dissect
