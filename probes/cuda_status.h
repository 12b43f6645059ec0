// Turns CUDA runtime errors into absl::Status values that carry the failing
// call and its file:line, so that library code never has to exit().
#ifndef DISSECT_PROBES_CUDA_STATUS_H_
#define DISSECT_PROBES_CUDA_STATUS_H_

#include <cuda_runtime_api.h>

#include "absl/status/status.h"

namespace dissect {

// Maps a CUDA error code to the closest absl::StatusCode.
absl::StatusCode CudaErrorToStatusCode(cudaError_t error);

// Builds "<file>:<line>: <call> failed: <cudaErrorName>: <description>".
// Returns OkStatus() for cudaSuccess.
absl::Status CudaStatus(cudaError_t error, const char* call, const char* file,
                        int line);

}  // namespace dissect

// Evaluates a CUDA runtime call and returns its status from the enclosing
// function when it fails.
#define DISSECT_CUDA_RETURN_IF_ERROR(call)                                 \
  do {                                                                     \
    const cudaError_t dissect_cuda_error_ = (call);                        \
    if (dissect_cuda_error_ != cudaSuccess) {                              \
      return ::dissect::CudaStatus(dissect_cuda_error_, #call, __FILE__,   \
                                   __LINE__);                              \
    }                                                                      \
  } while (0)

#define DISSECT_RETURN_IF_ERROR(expr)                  \
  do {                                                 \
    const ::absl::Status dissect_status_ = (expr);     \
    if (!dissect_status_.ok()) return dissect_status_; \
  } while (0)

#define DISSECT_CONCAT_INNER_(a, b) a##b
#define DISSECT_CONCAT_(a, b) DISSECT_CONCAT_INNER_(a, b)
#define DISSECT_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                   \
  if (!tmp.ok()) return tmp.status();                  \
  lhs = std::move(tmp).value()

// DISSECT_ASSIGN_OR_RETURN(auto x, FunctionReturningStatusOr());
#define DISSECT_ASSIGN_OR_RETURN(lhs, expr) \
  DISSECT_ASSIGN_OR_RETURN_IMPL_(           \
      DISSECT_CONCAT_(dissect_statusor_, __LINE__), lhs, expr)

#endif  // DISSECT_PROBES_CUDA_STATUS_H_
