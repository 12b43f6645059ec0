// Counter failure classification; see cupti_status.h.
#include "probes/cupti_status.h"

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"

namespace dissect {
namespace {

constexpr char kCausePayload[] = "dissect/counter_cause";

constexpr CounterCause kAllCauses[] = {
    CounterCause::kNoPermission,
    CounterCause::kProfilerAttached,
    CounterCause::kUnsupportedDevice,
    CounterCause::kNoGpu,
    CounterCause::kNoCupti,
    CounterCause::kUnknownChip,
    CounterCause::kOther,
};

absl::StatusCode CodeOf(CounterCause cause) {
  switch (cause) {
    case CounterCause::kNoPermission:
      return absl::StatusCode::kPermissionDenied;
    case CounterCause::kProfilerAttached:
      return absl::StatusCode::kUnavailable;
    case CounterCause::kUnsupportedDevice:
    case CounterCause::kUnknownChip:
      return absl::StatusCode::kUnimplemented;
    case CounterCause::kNoGpu:
      return absl::StatusCode::kFailedPrecondition;
    case CounterCause::kNoCupti:
      return absl::StatusCode::kNotFound;
    case CounterCause::kOther:
      break;
  }
  return absl::StatusCode::kInternal;
}

}  // namespace

const char* CounterCauseName(CounterCause cause) {
  switch (cause) {
    case CounterCause::kNoPermission:
      return "no_permission";
    case CounterCause::kProfilerAttached:
      return "profiler_attached";
    case CounterCause::kUnsupportedDevice:
      return "unsupported_device";
    case CounterCause::kNoGpu:
      return "no_gpu";
    case CounterCause::kNoCupti:
      return "no_cupti";
    case CounterCause::kUnknownChip:
      return "unknown_chip";
    case CounterCause::kOther:
      break;
  }
  return "other";
}

// One case per CUPTI result code, named as in cupti_result.h: a table,
// longer than a function should be but read one line at a time; as a switch
// the compiler rejects a code listed twice.
std::string CuptiResultName(CUptiResult result) {
  switch (result) {
    case CUPTI_SUCCESS:
      return "CUPTI_SUCCESS";
    case CUPTI_ERROR_INVALID_PARAMETER:
      return "CUPTI_ERROR_INVALID_PARAMETER";
    case CUPTI_ERROR_INVALID_DEVICE:
      return "CUPTI_ERROR_INVALID_DEVICE";
    case CUPTI_ERROR_INVALID_CONTEXT:
      return "CUPTI_ERROR_INVALID_CONTEXT";
    case CUPTI_ERROR_INVALID_EVENT_DOMAIN_ID:
      return "CUPTI_ERROR_INVALID_EVENT_DOMAIN_ID";
    case CUPTI_ERROR_INVALID_EVENT_ID:
      return "CUPTI_ERROR_INVALID_EVENT_ID";
    case CUPTI_ERROR_INVALID_EVENT_NAME:
      return "CUPTI_ERROR_INVALID_EVENT_NAME";
    case CUPTI_ERROR_INVALID_OPERATION:
      return "CUPTI_ERROR_INVALID_OPERATION";
    case CUPTI_ERROR_OUT_OF_MEMORY:
      return "CUPTI_ERROR_OUT_OF_MEMORY";
    case CUPTI_ERROR_HARDWARE:
      return "CUPTI_ERROR_HARDWARE";
    case CUPTI_ERROR_PARAMETER_SIZE_NOT_SUFFICIENT:
      return "CUPTI_ERROR_PARAMETER_SIZE_NOT_SUFFICIENT";
    case CUPTI_ERROR_API_NOT_IMPLEMENTED:
      return "CUPTI_ERROR_API_NOT_IMPLEMENTED";
    case CUPTI_ERROR_MAX_LIMIT_REACHED:
      return "CUPTI_ERROR_MAX_LIMIT_REACHED";
    case CUPTI_ERROR_NOT_READY:
      return "CUPTI_ERROR_NOT_READY";
    case CUPTI_ERROR_NOT_COMPATIBLE:
      return "CUPTI_ERROR_NOT_COMPATIBLE";
    case CUPTI_ERROR_NOT_INITIALIZED:
      return "CUPTI_ERROR_NOT_INITIALIZED";
    case CUPTI_ERROR_INVALID_METRIC_ID:
      return "CUPTI_ERROR_INVALID_METRIC_ID";
    case CUPTI_ERROR_INVALID_METRIC_NAME:
      return "CUPTI_ERROR_INVALID_METRIC_NAME";
    case CUPTI_ERROR_QUEUE_EMPTY:
      return "CUPTI_ERROR_QUEUE_EMPTY";
    case CUPTI_ERROR_INVALID_HANDLE:
      return "CUPTI_ERROR_INVALID_HANDLE";
    case CUPTI_ERROR_INVALID_STREAM:
      return "CUPTI_ERROR_INVALID_STREAM";
    case CUPTI_ERROR_INVALID_KIND:
      return "CUPTI_ERROR_INVALID_KIND";
    case CUPTI_ERROR_INVALID_EVENT_VALUE:
      return "CUPTI_ERROR_INVALID_EVENT_VALUE";
    case CUPTI_ERROR_DISABLED:
      return "CUPTI_ERROR_DISABLED";
    case CUPTI_ERROR_INVALID_MODULE:
      return "CUPTI_ERROR_INVALID_MODULE";
    case CUPTI_ERROR_INVALID_METRIC_VALUE:
      return "CUPTI_ERROR_INVALID_METRIC_VALUE";
    case CUPTI_ERROR_HARDWARE_BUSY:
      return "CUPTI_ERROR_HARDWARE_BUSY";
    case CUPTI_ERROR_NOT_SUPPORTED:
      return "CUPTI_ERROR_NOT_SUPPORTED";
    case CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED:
      return "CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED";
    case CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED_ON_DEVICE:
      return "CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED_ON_DEVICE";
    case CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED_WITH_MPS:
      return "CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED_WITH_MPS";
    case CUPTI_ERROR_CDP_TRACING_NOT_SUPPORTED:
      return "CUPTI_ERROR_CDP_TRACING_NOT_SUPPORTED";
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
      return "CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED";
    case CUPTI_ERROR_CUDA_COMPILER_NOT_COMPATIBLE:
      return "CUPTI_ERROR_CUDA_COMPILER_NOT_COMPATIBLE";
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
      return "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES";
    case CUPTI_ERROR_OLD_PROFILER_API_INITIALIZED:
      return "CUPTI_ERROR_OLD_PROFILER_API_INITIALIZED";
    case CUPTI_ERROR_OPENACC_UNDEFINED_ROUTINE:
      return "CUPTI_ERROR_OPENACC_UNDEFINED_ROUTINE";
    case CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED:
      return "CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED";
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
      return "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED";
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
      return "CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES";
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
      return "CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED";
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
      return "CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED";
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
      return "CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED";
    case CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED:
      return "CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED";
    case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED:
      return "CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED";
    case CUPTI_ERROR_INVALID_CHIP_NAME:
      return "CUPTI_ERROR_INVALID_CHIP_NAME";
    case CUPTI_ERROR_UNKNOWN:
      return "CUPTI_ERROR_UNKNOWN";
    default:
      break;
  }
  return absl::StrCat("CUPTI error ", static_cast<int>(result));
}

CounterFailure ClassifyCuptiResult(CUptiResult result) {
  switch (result) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
      return {
          CounterCause::kNoPermission,
          "no permission to read GPU performance counters: the driver "
          "restricts them to administrators "
          "(NVreg_RestrictProfilingToAdminUsers=1, "
          "NVIDIA's ERR_NVGPUCTRPERM); run as root or ask an admin to load the "
          "driver with NVreg_RestrictProfilingToAdminUsers=0"};
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
    case CUPTI_ERROR_HARDWARE_BUSY:
    case CUPTI_ERROR_DISABLED:
    case CUPTI_ERROR_OLD_PROFILER_API_INITIALIZED:
      return {CounterCause::kProfilerAttached,
              "another profiler is already attached to this process or GPU "
              "(Nsight Systems, Nsight Compute, cuda-gdb or another CUPTI "
              "client); run without it to collect counters or kernel activity"};
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
      return {CounterCause::kUnsupportedDevice,
              "this is a virtual GPU (vGPU) that does not support profiling"};
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
      return {CounterCause::kUnsupportedDevice,
              "this is a virtual GPU (vGPU) and the hypervisor does not allow "
              "profiling on it (enable profiling for the vGPU on the host)"};
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
      return {CounterCause::kUnsupportedDevice,
              "profiling is not supported on a MIG (multi-instance GPU) slice"};
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
      return {CounterCause::kUnsupportedDevice,
              "profiling is not allowed while confidential computing is on"};
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
      return {CounterCause::kUnsupportedDevice,
              "CUPTI does not support NVIDIA Crypto Mining Processors (CMP)"};
    case CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED:
      return {CounterCause::kUnsupportedDevice,
              "profiling is not supported on an SLI device"};
    case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED:
      return {CounterCause::kUnsupportedDevice,
              "profiling is not supported on this WSL setup"};
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED:
    case CUPTI_ERROR_INVALID_CHIP_NAME:
      return {CounterCause::kUnsupportedDevice,
              "this GPU, driver or system does not support the CUPTI call "
              "(the range profiler needs compute capability 7.5 or later on "
              "bare metal or a vGPU with profiling enabled)"};
    case CUPTI_ERROR_NOT_INITIALIZED:
    case CUPTI_ERROR_INVALID_DEVICE:
      return {CounterCause::kNoGpu, "CUPTI found no usable GPU or CUDA driver"};
    case CUPTI_ERROR_NOT_COMPATIBLE:
      return {
          CounterCause::kOther,
          "the profiler is in a state that does not allow this call (another "
          "profiling session may be active)"};
    case CUPTI_ERROR_INVALID_METRIC_NAME:
      return {CounterCause::kOther, "the chip has no metric of that name"};
    default:
      break;
  }
  return {CounterCause::kOther, "CUPTI failed"};
}

CounterFailure ClassifyCudaError(cudaError_t error) {
  switch (error) {
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorInitializationError:
    case cudaErrorSystemDriverMismatch:
    case cudaErrorCompatNotSupportedOnDevice:
      return {CounterCause::kNoGpu,
              absl::StrCat("no usable GPU: ", cudaGetErrorName(error), ": ",
                           cudaGetErrorString(error))};
    default:
      break;
  }
  return {CounterCause::kOther, absl::StrCat(cudaGetErrorName(error), ": ",
                                             cudaGetErrorString(error))};
}

absl::Status CounterStatus(CounterCause cause, absl::string_view message) {
  absl::Status status(CodeOf(cause), message);
  status.SetPayload(kCausePayload, absl::Cord(CounterCauseName(cause)));
  return status;
}

absl::Status CuptiStatus(CUptiResult result, const char* call, const char* file,
                         int line) {
  if (result == CUPTI_SUCCESS) return absl::OkStatus();
  const CounterFailure failure = ClassifyCuptiResult(result);
  return CounterStatus(failure.cause,
                       absl::StrCat(file, ":", line, ": ", call,
                                    " failed: ", CuptiResultName(result), ": ",
                                    failure.explanation));
}

CounterCause CounterCauseOf(const absl::Status& status) {
  const absl::optional<absl::Cord> payload = status.GetPayload(kCausePayload);
  if (!payload.has_value()) return CounterCause::kOther;
  for (CounterCause cause : kAllCauses) {
    if (*payload == CounterCauseName(cause)) return cause;
  }
  return CounterCause::kOther;
}

}  // namespace dissect
