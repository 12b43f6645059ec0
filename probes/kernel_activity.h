// Kernel durations from the CUPTI Activity API
// (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL): the GPU's own start and end
// timestamps of every kernel, without the launch overhead that CUDA events
// include. CUPTI is loaded at run time (cupti_api.h): nothing links libcupti,
// and a missing CUPTI is an error of Start (cause kNoCupti). Errors carry a
// CounterCause (cupti_status.h). Pure logic (records, summaries, agreement
// with event timings) lives in kernel_records.h.
//
//   DISSECT_ASSIGN_OR_RETURN(auto recorder, KernelActivityRecorder::Start());
//   ... launch kernels ...
//   DISSECT_ASSIGN_OR_RETURN(std::vector<KernelRecord> kernels,
//                            recorder->Take());
//   DISSECT_ASSIGN_OR_RETURN(KernelDurationSummary s,
//                            SummarizeKernelDurations(kernels, "ReluKernel"));
#ifndef DISSECT_PROBES_KERNEL_ACTIVITY_H_
#define DISSECT_PROBES_KERNEL_ACTIVITY_H_

#include <cuda_runtime_api.h>

#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "probes/event_timer.h"
#include "probes/kernel_records.h"

namespace dissect {

// Records the kernels that run while it is alive. Only one recorder may
// exist at a time in a process. CUPTI tracing of concurrent kernels does not
// serialize them, but it does add a little launch overhead, so time with
// events outside a recorder's life when the two should not interfere.
class KernelActivityRecorder {
 public:
  // Loads CUPTI and enables kernel activity recording. FailedPrecondition if
  // another recorder is alive; else the failure with its CounterCause:
  // kNoCupti (libcupti not found), kNoGpu (no GPU or driver), kNoPermission,
  // kProfilerAttached (another CUPTI client), ...
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

// Kernel durations of a launch from activity records: CuptiKernelTimer on a
// GPU, fakes in tests.
class KernelTimer {
 public:
  virtual ~KernelTimer() = default;
  // Runs `launch` as TimeWithEvents(launch, options, flusher, stream) does
  // (options.warmup launches, then options.samples, each after an L2 flush
  // when options.cache is cold) and returns the duration of each sample
  // launch in ms, from the GPU's timestamps of its kernels.
  virtual absl::StatusOr<std::vector<double>> Time(const LaunchFn& launch,
                                                   const TimingOptions& options,
                                                   const L2Flusher* flusher,
                                                   cudaStream_t stream) = 0;
};

// KernelTimer with a KernelActivityRecorder alive for exactly one Time call.
// The samples are launched through TimeWithEvents, so they are queued as in
// an event-timed pass (events between them), but without its guard spin and
// with one launch per sample (options.guard_ns and launches_per_sample are
// ignored: the records time the kernels on the device); the warm-up's
// kernels are taken apart and dropped, and so are the kernels of the L2
// flush (found by flushing once alone first: its read pass, kernels/flush.h;
// cudaMemsetAsync shows up as a memset, not as a kernel). A sample's duration is the span from its first kernel's
// start to its last kernel's end (LaunchSpansMs), so a launch may issue
// several kernels, the same number every time. Fails when the number of
// kernels is not a multiple of the samples, and with Start's errors.
class CuptiKernelTimer : public KernelTimer {
 public:
  absl::StatusOr<std::vector<double>> Time(const LaunchFn& launch,
                                           const TimingOptions& options,
                                           const L2Flusher* flusher,
                                           cudaStream_t stream) override;
};

}  // namespace dissect

#endif  // DISSECT_PROBES_KERNEL_ACTIVITY_H_
