// Kernel durations from the CUPTI Activity API; see kernel_activity.h.
#include "probes/kernel_activity.h"

#include <cuda_runtime_api.h>
#include <cupti_activity.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "probes/cuda_status.h"
#include "probes/cupti_api.h"
#include "probes/cupti_status.h"

namespace dissect {
namespace {

// The kernel record layout of this CUPTI. Only the leading members (start,
// end, deviceId, streamId, correlationId, name) are read; they sit at the
// same offsets in every CUpti_ActivityKernel version since 4 (checked below
// where two versions are declared), so records of a newer CUPTI read right.
#if CUPTI_API_VERSION >= 130000
using ActivityKernel = CUpti_ActivityKernel10;
#define DISSECT_CHECK_KERNEL_LAYOUT_(member)                 \
  static_assert(offsetof(CUpti_ActivityKernel10, member) ==  \
                    offsetof(CUpti_ActivityKernel9, member), \
                "CUpti_ActivityKernel10 moved member " #member)
DISSECT_CHECK_KERNEL_LAYOUT_(start);
DISSECT_CHECK_KERNEL_LAYOUT_(end);
DISSECT_CHECK_KERNEL_LAYOUT_(deviceId);
DISSECT_CHECK_KERNEL_LAYOUT_(streamId);
DISSECT_CHECK_KERNEL_LAYOUT_(correlationId);
DISSECT_CHECK_KERNEL_LAYOUT_(name);
#undef DISSECT_CHECK_KERNEL_LAYOUT_
#else
using ActivityKernel = CUpti_ActivityKernel9;
#endif

// CUPTI requires activity buffers aligned to 8 bytes; each holds about 16k
// kernel records.
constexpr size_t kBufferAlignment = 8;
constexpr size_t kBufferBytes = size_t{4} << 20;
static_assert(kBufferBytes % kBufferAlignment == 0,
              "aligned_alloc needs a multiple of the alignment");

// Process-wide state shared with CUPTI's callbacks. Never destroyed: CUPTI
// may still call back while the process exits.
struct State {
  std::mutex mutex;     // serializes Start and the destructor
  bool active = false;  // a recorder exists
  // Set by the first Start that loaded CUPTI, before any callback can run.
  std::atomic<const CuptiApi*> api{nullptr};
  KernelRecordCollector collector;
};

State& GlobalState() {
  static State* const state = new State;
  return *state;
}

// True while records should be kept (between Start and the destructor's
// final flush); read by the callbacks without the mutex.
std::atomic<bool> g_recording{false};

// The status of a CUPTI call made here (cupti_status.h), with its cause.
#define DISSECT_ACTIVITY_STATUS_(call) \
  ::dissect::CuptiStatus((call), #call, __FILE__, __LINE__)

KernelRecord FromActivity(const ActivityKernel& kernel) {
  KernelRecord record;
  record.name = kernel.name != nullptr ? DemangleKernelName(kernel.name) : "";
  record.start_ns = kernel.start;
  record.end_ns = kernel.end;
  record.device_id = kernel.deviceId;
  record.stream_id = kernel.streamId;
  record.correlation_id = kernel.correlationId;
  return record;
}

void CUPTIAPI BufferRequested(uint8_t** buffer, size_t* size,
                              size_t* max_records) {
  *max_records = 0;  // as many as fit
  void* memory = std::aligned_alloc(kBufferAlignment, kBufferBytes);
  // Without memory CUPTI drops records and counts them; Take reports that.
  *buffer = static_cast<uint8_t*>(memory);
  *size = memory != nullptr ? kBufferBytes : 0;
}

void CUPTIAPI BufferCompleted(CUcontext context, uint32_t stream_id,
                              uint8_t* buffer, size_t /*size*/,
                              size_t valid_size) {
  State& state = GlobalState();
  const CuptiApi& api = *state.api.load();
  KernelRecordCollector& collector = state.collector;
  const bool recording = g_recording.load();
  if (buffer != nullptr && valid_size > 0) {
    CUpti_Activity* record = nullptr;
    while (true) {
      const CUptiResult result =
          api.cuptiActivityGetNextRecord(buffer, valid_size, &record);
      if (result == CUPTI_ERROR_MAX_LIMIT_REACHED) break;  // end of buffer
      if (result != CUPTI_SUCCESS) {
        // CUPTI_ERROR_INVALID_KIND: an incomplete or invalid record; the
        // rest of the buffer cannot be read.
        if (recording) {
          collector.AddError(CuptiStatus(result, "cuptiActivityGetNextRecord",
                                         __FILE__, __LINE__));
        }
        break;
      }
      if (recording && record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
        collector.Add(
            FromActivity(*reinterpret_cast<const ActivityKernel*>(record)));
      }
    }
  }
  size_t dropped = 0;
  const absl::Status counted = DISSECT_ACTIVITY_STATUS_(
      api.cuptiActivityGetNumDroppedRecords(context, stream_id, &dropped));
  if (recording) {
    if (!counted.ok()) {
      collector.AddError(counted);
    } else if (dropped > 0) {
      collector.AddDropped(dropped);
    }
  }
  std::free(buffer);
}

}  // namespace

absl::StatusOr<std::unique_ptr<KernelActivityRecorder>>
KernelActivityRecorder::Start() {
  State& state = GlobalState();
  std::lock_guard<std::mutex> lock(state.mutex);
  if (state.active) {
    return absl::FailedPreconditionError(
        "a KernelActivityRecorder is already recording; only one may exist "
        "at a time (destroy it before starting another)");
  }
  DISSECT_ASSIGN_OR_RETURN(const CuptiApi* api, LoadCuptiApi());
  state.api.store(api);
  // Registered on every Start, in case another CUPTI client registered its
  // own callbacks since the last recorder.
  DISSECT_RETURN_IF_ERROR(DISSECT_ACTIVITY_STATUS_(
      api->cuptiActivityRegisterCallbacks(BufferRequested, BufferCompleted)));
  state.collector.Reset();
  g_recording.store(true);
  const absl::Status enabled = DISSECT_ACTIVITY_STATUS_(
      api->cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
  if (!enabled.ok()) {
    g_recording.store(false);
    // Without a driver or device CUPTI only says CUPTI_ERROR_UNKNOWN; name
    // the cause when the CUDA runtime can.
    int devices = 0;
    const cudaError_t cuda = cudaGetDeviceCount(&devices);
    if (cuda != cudaSuccess) {
      const CounterFailure failure = ClassifyCudaError(cuda);
      return CounterStatus(
          failure.cause,
          absl::StrCat(enabled.message(), " (", failure.explanation, ")"));
    }
    return enabled;
  }
  state.active = true;
  return std::unique_ptr<KernelActivityRecorder>(new KernelActivityRecorder());
}

KernelActivityRecorder::~KernelActivityRecorder() {
  State& state = GlobalState();
  std::lock_guard<std::mutex> lock(state.mutex);
  const CuptiApi& api = *state.api.load();
  // Errors cannot be returned from here; the records are discarded anyway.
  api.cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  api.cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  g_recording.store(false);
  state.collector.Reset();
  state.active = false;
}

absl::StatusOr<std::vector<KernelRecord>> KernelActivityRecorder::Take() {
  State& state = GlobalState();
  const CuptiApi& api = *state.api.load();
  KernelRecordCollector& collector = state.collector;
  // Kernels still running would come back without timestamps.
  const cudaError_t synced = cudaDeviceSynchronize();
  if (synced != cudaSuccess) {
    collector.Reset();
    return CudaStatus(synced, "cudaDeviceSynchronize()", __FILE__, __LINE__);
  }
  // Forced: also hand back buffers that are not full. The completion
  // callbacks have run when this returns.
  const absl::Status flushed = DISSECT_ACTIVITY_STATUS_(
      api.cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
  if (!flushed.ok()) {
    collector.Reset();
    return flushed;
  }
  size_t dropped = 0;
  const absl::Status counted = DISSECT_ACTIVITY_STATUS_(
      api.cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped));
  if (!counted.ok()) {
    collector.Reset();
    return counted;
  }
  collector.AddDropped(dropped);
  return collector.Take();
}

absl::StatusOr<std::vector<double>> CuptiKernelTimer::Time(
    const LaunchFn& launch, const TimingOptions& options,
    const L2Flusher* flusher, cudaStream_t stream) {
  DISSECT_ASSIGN_OR_RETURN(std::unique_ptr<KernelActivityRecorder> recorder,
                           KernelActivityRecorder::Start());
  // The kernels of one flush alone, if it runs any, so that they are never
  // counted as the launch's.
  std::vector<std::string> flush_kernels;
  if (options.cache == CacheState::kCold && flusher != nullptr) {
    DISSECT_RETURN_IF_ERROR(flusher->Flush(stream));
    DISSECT_ASSIGN_OR_RETURN(const std::vector<KernelRecord> flush,
                             recorder->Take());
    for (const KernelRecord& r : flush) flush_kernels.push_back(r.name);
  }
  // The records time each launch's kernels on the device, so no guard spin
  // (its kernels would be counted as the launch's) and one launch per sample.
  TimingOptions unguarded = options;
  unguarded.guard_ns = 0;
  unguarded.launches_per_sample = 1;
  absl::Status warmup_dropped;
  DISSECT_RETURN_IF_ERROR(TimeWithEvents(launch, unguarded, flusher, stream, [&] {
                            warmup_dropped = recorder->Take().status();
                          }).status());
  DISSECT_RETURN_IF_ERROR(warmup_dropped);
  DISSECT_ASSIGN_OR_RETURN(const std::vector<KernelRecord> records,
                           recorder->Take());
  absl::StatusOr<std::vector<double>> spans =
      LaunchSpansMs(WithoutKernelsNamed(records, flush_kernels),
                    static_cast<size_t>(options.samples));
  if (!spans.ok()) {
    return absl::InternalError(absl::StrCat(
        "kernel activity of the timed launches: ", spans.status().message(),
        " (does the launch issue the same kernels every time?)"));
  }
  return spans;
}

}  // namespace dissect
