// cuSPARSE CSR SpMM of the sparsity_speed experiment: Y = W · X with X, the
// activations, sparse. cuSPARSE's SpMM takes the sparse operand on the
// left, so it computes Y^T = X^T · W^T with X^T (N × K) in CSR as A: the
// column-major K × N X is a row-major N × K X^T, W (M × K column-major) a
// row-major K × M W^T and Y (M × N column-major) a row-major N × M Y^T, so
// no operand is copied or transposed and Y lands where cuBLAS writes it.
// float32 values, 32-bit indices, CUDA_R_32F compute.
#ifndef DISSECT_EXPERIMENTS_SPARSITY_SPEED_CSR_SPMM_H_
#define DISSECT_EXPERIMENTS_SPARSITY_SPEED_CSR_SPMM_H_

#include <cuda_runtime_api.h>
#include <cusparse.h>

#include <cstdint>
#include <memory>
#include <type_traits>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "probes/device_buffer.h"

namespace dissect::sparsity_speed {

// A cuSPARSE status → absl::Status naming the call; OK for success.
absl::Status SparseStatus(cusparseStatus_t status, const char* call);

template <typename T, cusparseStatus_t (*kDestroy)(T)>
struct SparseDeleter {
  void operator()(std::remove_const_t<std::remove_pointer_t<T>>* p) const {
    if (p != nullptr) kDestroy(p);
  }
};

class CsrSpmm {
 public:
  // Sets up the conversion of X (device, K × N column-major) and the SpMM
  // writing Y; runs one conversion to learn the nonzero count and allocate
  // the CSR arrays (the conversions timed later reuse them: the same data
  // has the same count). Synchronizes `stream`.
  static absl::StatusOr<CsrSpmm> Create(const float* w, const float* x, float* y, int64_t m,
                                        int64_t n, int64_t k, cudaStream_t stream);

  // Dense X → CSR X^T: cusparseDenseToSparse_analysis (row offsets and the
  // count) then _convert (column indices and values), on `stream`.
  absl::Status Convert(cudaStream_t stream);
  // Y^T = X^T · W^T from the CSR arrays of the last conversion.
  absl::Status Multiply(cudaStream_t stream);
  int64_t nnz() const { return nnz_; }

 private:
  using Handle = std::unique_ptr<std::remove_pointer_t<cusparseHandle_t>,
                                 SparseDeleter<cusparseHandle_t, cusparseDestroy>>;
  using DnMat = std::unique_ptr<std::remove_pointer_t<cusparseDnMatDescr_t>,
                                SparseDeleter<cusparseConstDnMatDescr_t, cusparseDestroyDnMat>>;
  using SpMat = std::unique_ptr<std::remove_pointer_t<cusparseSpMatDescr_t>,
                                SparseDeleter<cusparseConstSpMatDescr_t, cusparseDestroySpMat>>;

  CsrSpmm() = default;
  absl::Status SetStream(cudaStream_t stream);

  Handle handle_;
  DnMat x_dense_, w_dense_, y_dense_;
  SpMat x_csr_;
  DeviceBuffer<int32_t> row_offsets_, columns_;
  DeviceBuffer<float> values_;
  DeviceBuffer<uint8_t> convert_buffer_, spmm_buffer_;
  int64_t nnz_ = 0;
};

}  // namespace dissect::sparsity_speed

#endif  // DISSECT_EXPERIMENTS_SPARSITY_SPEED_CSR_SPMM_H_
