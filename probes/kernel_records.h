// Kernel activity records (as the CUPTI Activity API reports them) and the
// host-only logic around them: demangling, collecting records delivered in
// buffers, selecting and summarizing durations, and comparing them with
// CUDA-event timings. No CUPTI or CUDA calls here (see kernel_activity.h), so
// all of it is tested on machines without a GPU.
#ifndef DISSECT_PROBES_KERNEL_RECORDS_H_
#define DISSECT_PROBES_KERNEL_RECORDS_H_

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace dissect {

// One kernel execution.
struct KernelRecord {
  std::string name;  // demangled if possible, else as CUPTI gave it
  // CUPTI timestamps (ns, the clock of cuptiGetTimestamp). 0 means CUPTI
  // could not time the kernel (see KernelRecordCollector).
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  uint32_t device_id = 0;
  uint32_t stream_id = 0;
  uint32_t correlation_id = 0;  // matches the launch's runtime API call

  // (end − start) in milliseconds; 0 if end <= start.
  double duration_ms() const;
};

// The demangled form of a C++ symbol ("_Z10SpinKernelmPm" →
// "SpinKernel(unsigned long, unsigned long*)"); `name` itself when it is not
// a mangled name (e.g. an extern "C" kernel) or cannot be demangled.
std::string DemangleKernelName(absl::string_view name);

// Thread-safe store between CUPTI's buffer-completed callback (which may run
// on a CUPTI thread) and KernelActivityRecorder::Take. Records without
// timestamps, dropped records and errors met while reading buffers are
// counted, and make the next Take fail, so that an incomplete set of
// durations is never taken for a complete one.
class KernelRecordCollector {
 public:
  // A record from a completed buffer. One whose start or end is 0, or whose
  // end precedes its start, is counted as untimed instead of stored.
  void Add(KernelRecord record);
  // `count` records CUPTI dropped (no buffer space: a buffer request that
  // could not be met, or a full buffer).
  void AddDropped(size_t count);
  // An error met while handling a buffer; the first one is kept.
  void AddError(absl::Status status);

  // The records added since the last Take or Reset, in order of start time
  // (ties: correlation id), and forgets them. Fails instead, and forgets
  // everything as well, when there was an error (that error), dropped
  // records or untimed records (DataLoss, with the counts).
  absl::StatusOr<std::vector<KernelRecord>> Take();
  // Forgets everything added so far.
  void Reset();

 private:
  std::mutex mutex_;
  std::vector<KernelRecord> records_;
  size_t dropped_ = 0;
  size_t untimed_ = 0;
  absl::Status error_;
};

// The records whose name contains `name_fragment` ("" matches all), in the
// order given.
std::vector<KernelRecord> MatchingKernels(
    const std::vector<KernelRecord>& records, absl::string_view name_fragment);

// Durations (ms) of the records whose name contains `name_fragment`, in the
// order given.
std::vector<double> KernelDurationsMs(const std::vector<KernelRecord>& records,
                                      absl::string_view name_fragment);

// Per-launch durations for `launches` launches that each ran the same number
// of kernels, from `records` in start order (as Take returns them): the
// records are cut into `launches` consecutive groups, and each launch lasts
// from its first kernel's start to its last kernel's end (ms). With one
// kernel per launch this is each record's duration. InvalidArgument if
// `launches` is 0 or does not divide the number of records.
absl::StatusOr<std::vector<double>> LaunchSpansMs(
    const std::vector<KernelRecord>& records, size_t launches);

struct KernelDurationSummary {
  size_t count = 0;
  double total_ms = 0;
  double min_ms = 0;
  double median_ms = 0;
  double max_ms = 0;
};

// Count, total, min, median and max duration of the records whose name
// contains `name_fragment`. NotFound (naming the fragment and the kernels
// that were seen) if none matches.
absl::StatusOr<KernelDurationSummary> SummarizeKernelDurations(
    const std::vector<KernelRecord>& records, absl::string_view name_fragment);

// How far a CUPTI activity duration lies from the CUDA-event timing of the
// same launch, in percent of the event timing: 100 × (activity − event) /
// event. Negative when the activity duration is shorter (the usual case:
// events also time the launch overhead). "Agree within X %" means
// |AgreementPercent| <= X. NaN if event_ms is not positive or either value
// is not finite.
double AgreementPercent(double activity_ms, double event_ms);

// Pairs activity durations with event timings of the same launches (both in
// launch order) and fails, naming the first pair that does not, unless every
// pair agrees within `tolerance_percent` (see AgreementPercent). Also fails
// when the counts differ or there are none. Returns the AgreementPercent of
// every pair.
absl::StatusOr<std::vector<double>> CheckAgreement(
    const std::vector<double>& activity_ms, const std::vector<double>& event_ms,
    double tolerance_percent);

}  // namespace dissect

#endif  // DISSECT_PROBES_KERNEL_RECORDS_H_
