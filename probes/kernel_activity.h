// Kernel durations from the CUPTI Activity API
// (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL): the GPU's own start and end
// timestamps of every kernel, without the launch overhead that CUDA events
// include. Pure logic (records, summaries, agreement with event timings)
// lives in kernel_records.h.
//
//   DISSECT_ASSIGN_OR_RETURN(auto recorder, KernelActivityRecorder::Start());
//   ... launch kernels ...
//   DISSECT_ASSIGN_OR_RETURN(std::vector<KernelRecord> kernels,
//                            recorder->Take());
//   DISSECT_ASSIGN_OR_RETURN(KernelDurationSummary s,
//                            SummarizeKernelDurations(kernels, "ReluKernel"));
#ifndef DISSECT_PROBES_KERNEL_ACTIVITY_H_
#define DISSECT_PROBES_KERNEL_ACTIVITY_H_

#include <cupti_result.h>

#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "probes/kernel_records.h"

namespace dissect {

// Records the kernels that run while it is alive. Only one recorder may
// exist at a time in a process. CUPTI tracing of concurrent kernels does not
// serialize them, but it does add a little launch overhead, so time with
// events outside a recorder's life when the two should not interfere.
class KernelActivityRecorder {
 public:
  // Enables kernel activity recording. FailedPrecondition if another
  // recorder is alive; a CUPTI error (e.g. no GPU or driver, or
  // CUPTI_ERROR_INSUFFICIENT_PRIVILEGES) as the status of the failing call.
  static absl::StatusOr<std::unique_ptr<KernelActivityRecorder>> Start();

  // Disables recording and flushes CUPTI's buffers; records not taken are
  // discarded.
  ~KernelActivityRecorder();

  KernelActivityRecorder(const KernelActivityRecorder&) = delete;
  KernelActivityRecorder& operator=(const KernelActivityRecorder&) = delete;

  // Waits for the current device (cudaDeviceSynchronize), flushes CUPTI's
  // buffers and returns the kernels completed since Start or the previous
  // Take, ordered by start time. Fails (DataLoss) when CUPTI dropped records
  // or delivered kernels without timestamps in that period, and with the
  // CUDA or CUPTI error of a failing call; the records of the period are
  // discarded then.
  absl::StatusOr<std::vector<KernelRecord>> Take();

 private:
  KernelActivityRecorder() = default;
};

// Maps a CUPTI result to a status: OK for CUPTI_SUCCESS, else
// "<call> failed: <CUPTI_ERROR_NAME>: <CUPTI's message>" with the closest
// absl::StatusCode (e.g. FailedPrecondition for a missing driver or
// unsupported device, PermissionDenied for insufficient privileges).
absl::Status CuptiActivityStatus(CUptiResult result, absl::string_view call);

}  // namespace dissect

#endif  // DISSECT_PROBES_KERNEL_ACTIVITY_H_
