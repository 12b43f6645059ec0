// cuSPARSE CSR SpMM; see csr_spmm.h.
#include "experiments/sparsity/speed/csr_spmm.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "probes/cuda_status.h"

namespace dissect::sparsity_speed {
namespace {

constexpr float kAlpha = 1.f;
constexpr float kBeta = 0.f;

}  // namespace

absl::Status SparseStatus(cusparseStatus_t status, const char* call) {
  if (status == CUSPARSE_STATUS_SUCCESS) return absl::OkStatus();
  return absl::InternalError(
      absl::StrCat(call, " failed: ", cusparseGetErrorString(status), " (", status, ")"));
}

#define DISSECT_SPARSE_RETURN_IF_ERROR(call) DISSECT_RETURN_IF_ERROR(SparseStatus((call), #call))

absl::Status CsrSpmm::SetStream(cudaStream_t stream) {
  return SparseStatus(cusparseSetStream(handle_.get(), stream), "cusparseSetStream");
}

absl::StatusOr<CsrSpmm> CsrSpmm::Create(const float* w, const float* x, float* y, int64_t m,
                                        int64_t n, int64_t k, cudaStream_t stream) {
  CsrSpmm s;
  cusparseHandle_t handle = nullptr;
  DISSECT_SPARSE_RETURN_IF_ERROR(cusparseCreate(&handle));
  s.handle_.reset(handle);
  DISSECT_RETURN_IF_ERROR(s.SetStream(stream));

  cusparseDnMatDescr_t dn = nullptr;
  DISSECT_SPARSE_RETURN_IF_ERROR(
      cusparseCreateDnMat(&dn, n, k, k, const_cast<float*>(x), CUDA_R_32F, CUSPARSE_ORDER_ROW));
  s.x_dense_.reset(dn);
  DISSECT_SPARSE_RETURN_IF_ERROR(
      cusparseCreateDnMat(&dn, k, m, m, const_cast<float*>(w), CUDA_R_32F, CUSPARSE_ORDER_ROW));
  s.w_dense_.reset(dn);
  DISSECT_SPARSE_RETURN_IF_ERROR(
      cusparseCreateDnMat(&dn, n, m, m, y, CUDA_R_32F, CUSPARSE_ORDER_ROW));
  s.y_dense_.reset(dn);

  DISSECT_ASSIGN_OR_RETURN(s.row_offsets_, DeviceBuffer<int32_t>::Allocate(n + 1));
  cusparseSpMatDescr_t sp = nullptr;
  DISSECT_SPARSE_RETURN_IF_ERROR(cusparseCreateCsr(&sp, n, k, 0, s.row_offsets_.get(), nullptr,
                                                   nullptr, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                                   CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  s.x_csr_.reset(sp);

  size_t bytes = 0;
  DISSECT_SPARSE_RETURN_IF_ERROR(cusparseDenseToSparse_bufferSize(
      handle, s.x_dense_.get(), s.x_csr_.get(), CUSPARSE_DENSETOSPARSE_ALG_DEFAULT, &bytes));
  DISSECT_ASSIGN_OR_RETURN(s.convert_buffer_,
                           DeviceBuffer<uint8_t>::Allocate(std::max<size_t>(bytes, 1)));
  DISSECT_SPARSE_RETURN_IF_ERROR(
      cusparseDenseToSparse_analysis(handle, s.x_dense_.get(), s.x_csr_.get(),
                                     CUSPARSE_DENSETOSPARSE_ALG_DEFAULT, s.convert_buffer_.get()));
  int64_t rows = 0, cols = 0;
  DISSECT_SPARSE_RETURN_IF_ERROR(cusparseSpMatGetSize(s.x_csr_.get(), &rows, &cols, &s.nnz_));
  DISSECT_ASSIGN_OR_RETURN(s.columns_,
                           DeviceBuffer<int32_t>::Allocate(std::max<int64_t>(s.nnz_, 1)));
  DISSECT_ASSIGN_OR_RETURN(s.values_, DeviceBuffer<float>::Allocate(std::max<int64_t>(s.nnz_, 1)));
  DISSECT_SPARSE_RETURN_IF_ERROR(cusparseCsrSetPointers(s.x_csr_.get(), s.row_offsets_.get(),
                                                        s.columns_.get(), s.values_.get()));
  DISSECT_SPARSE_RETURN_IF_ERROR(
      cusparseDenseToSparse_convert(handle, s.x_dense_.get(), s.x_csr_.get(),
                                    CUSPARSE_DENSETOSPARSE_ALG_DEFAULT, s.convert_buffer_.get()));

  DISSECT_SPARSE_RETURN_IF_ERROR(cusparseSpMM_bufferSize(
      handle, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &kAlpha,
      s.x_csr_.get(), s.w_dense_.get(), &kBeta, s.y_dense_.get(), CUDA_R_32F,
      CUSPARSE_SPMM_ALG_DEFAULT, &bytes));
  DISSECT_ASSIGN_OR_RETURN(s.spmm_buffer_,
                           DeviceBuffer<uint8_t>::Allocate(std::max<size_t>(bytes, 1)));
  DISSECT_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream));
  return s;
}

absl::Status CsrSpmm::Convert(cudaStream_t stream) {
  DISSECT_RETURN_IF_ERROR(SetStream(stream));
  DISSECT_SPARSE_RETURN_IF_ERROR(
      cusparseDenseToSparse_analysis(handle_.get(), x_dense_.get(), x_csr_.get(),
                                     CUSPARSE_DENSETOSPARSE_ALG_DEFAULT, convert_buffer_.get()));
  DISSECT_SPARSE_RETURN_IF_ERROR(
      cusparseDenseToSparse_convert(handle_.get(), x_dense_.get(), x_csr_.get(),
                                    CUSPARSE_DENSETOSPARSE_ALG_DEFAULT, convert_buffer_.get()));
  return absl::OkStatus();
}

absl::Status CsrSpmm::Multiply(cudaStream_t stream) {
  DISSECT_RETURN_IF_ERROR(SetStream(stream));
  DISSECT_SPARSE_RETURN_IF_ERROR(
      cusparseSpMM(handle_.get(), CUSPARSE_OPERATION_NON_TRANSPOSE,
                   CUSPARSE_OPERATION_NON_TRANSPOSE, &kAlpha, x_csr_.get(), w_dense_.get(), &kBeta,
                   y_dense_.get(), CUDA_R_32F, CUSPARSE_SPMM_ALG_DEFAULT, spmm_buffer_.get()));
  return absl::OkStatus();
}

}  // namespace dissect::sparsity_speed
