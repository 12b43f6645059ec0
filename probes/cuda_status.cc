// CUDA error → absl::Status mapping.
#include "probes/cuda_status.h"

#include "absl/strings/str_cat.h"

namespace dissect {

absl::StatusCode CudaErrorToStatusCode(cudaError_t error) {
  switch (error) {
    case cudaSuccess:
      return absl::StatusCode::kOk;
    case cudaErrorInvalidValue:
    case cudaErrorInvalidConfiguration:
    case cudaErrorInvalidPitchValue:
    case cudaErrorInvalidDevicePointer:
    case cudaErrorInvalidMemcpyDirection:
    case cudaErrorInvalidDevice:
      return absl::StatusCode::kInvalidArgument;
    case cudaErrorMemoryAllocation:
    case cudaErrorLaunchOutOfResources:
      return absl::StatusCode::kResourceExhausted;
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorNoKernelImageForDevice:
    case cudaErrorUnsupportedPtxVersion:
    case cudaErrorDevicesUnavailable:
    case cudaErrorSystemDriverMismatch:
    case cudaErrorCompatNotSupportedOnDevice:
      return absl::StatusCode::kFailedPrecondition;
    case cudaErrorNotSupported:
      return absl::StatusCode::kUnimplemented;
    case cudaErrorNotPermitted:
      return absl::StatusCode::kPermissionDenied;
    case cudaErrorLaunchTimeout:
      return absl::StatusCode::kDeadlineExceeded;
    default:
      return absl::StatusCode::kInternal;
  }
}

absl::Status CudaStatus(cudaError_t error, const char* call, const char* file,
                        int line) {
  if (error == cudaSuccess) return absl::OkStatus();
  return absl::Status(
      CudaErrorToStatusCode(error),
      absl::StrCat(file, ":", line, ": ", call, " failed: ",
                   cudaGetErrorName(error), ": ", cudaGetErrorString(error)));
}

}  // namespace dissect
