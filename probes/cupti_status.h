// Why hardware counters are unavailable, told apart by cause, and CUPTI
// result codes as absl::Status. Everything here is pure (no CUPTI call), so
// that the classification is tested on any machine.
#ifndef DISSECT_PROBES_CUPTI_STATUS_H_
#define DISSECT_PROBES_CUPTI_STATUS_H_

#include <cuda_runtime_api.h>
#include <cupti_result.h>

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace dissect {

enum class CounterCause {
  kNoPermission,       // the driver restricts counters to administrators
  kProfilerAttached,   // another profiler (Nsight, cuda-gdb, a CUPTI client)
  kUnsupportedDevice,  // vGPU, MIG, confidential computing, CMP, SLI, WSL, ...
  kNoGpu,              // no GPU or no usable driver
  kNoCupti,            // libcupti.so could not be loaded
  kUnknownChip,        // the metric catalog has no names for this chip
  kOther,              // anything else (a bug, a bad metric name, ...)
};

// "no_permission", "profiler_attached", "unsupported_device", "no_gpu",
// "no_cupti", "unknown_chip", "other".
const char* CounterCauseName(CounterCause cause);

struct CounterFailure {
  CounterCause cause = CounterCause::kOther;
  // One line saying what it means and what to do about it.
  std::string explanation;
};

// The cause behind a CUPTI result code, with a one-line explanation.
// CUPTI_SUCCESS is not a failure; it classifies as kOther.
CounterFailure ClassifyCuptiResult(CUptiResult result);

// The same for a CUDA runtime error met while setting counters up.
CounterFailure ClassifyCudaError(cudaError_t error);

// "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES" (also for codes newer than this
// table: "CUPTI error <n>").
std::string CuptiResultName(CUptiResult result);

// A status carrying `cause` (see CounterCauseOf), with a code that fits it:
// kNoPermission → PermissionDenied, kProfilerAttached → Unavailable,
// kUnsupportedDevice and kUnknownChip → Unimplemented, kNoGpu →
// FailedPrecondition, kNoCupti → NotFound, kOther → Internal.
absl::Status CounterStatus(CounterCause cause, absl::string_view message);

// CounterStatus of the classified result:
// "<file>:<line>: <call> failed: <CUPTI_ERROR_...>: <explanation>".
// OkStatus() for CUPTI_SUCCESS.
absl::Status CuptiStatus(CUptiResult result, const char* call, const char* file,
                         int line);

// The cause attached to `status` by CuptiStatus / CounterStatus; kOther for
// any other status.
CounterCause CounterCauseOf(const absl::Status& status);

}  // namespace dissect

// Evaluates a CUPTI call (e.g. api.cuptiProfilerInitialize(&p)) and returns
// its status from the enclosing function when it fails.
#define DISSECT_CUPTI_RETURN_IF_ERROR(call)                                 \
  do {                                                                      \
    const CUptiResult dissect_cupti_result_ = (call);                       \
    if (dissect_cupti_result_ != CUPTI_SUCCESS) {                           \
      return ::dissect::CuptiStatus(dissect_cupti_result_, #call, __FILE__, \
                                    __LINE__);                              \
    }                                                                       \
  } while (0)

#endif  // DISSECT_PROBES_CUPTI_STATUS_H_
