// Kernel durations from the CUPTI Activity API; see kernel_activity.h.
#include "probes/kernel_activity.h"

#include <cuda_runtime_api.h>
#include <cupti.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "probes/cuda_status.h"

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

constexpr char kEnableCall[] =
    "cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)";
constexpr char kFlushCall[] =
    "cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED)";

// Process-wide state shared with CUPTI's callbacks. Never destroyed: CUPTI
// may still call back while the process exits.
struct State {
  std::mutex mutex;     // serializes Start and the destructor
  bool active = false;  // a recorder exists
  KernelRecordCollector collector;
};

State& GlobalState() {
  static State* const state = new State;
  return *state;
}

// True while records should be kept (between Start and the destructor's
// final flush); read by the callbacks without the mutex.
std::atomic<bool> g_recording{false};

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
  KernelRecordCollector& collector = GlobalState().collector;
  const bool recording = g_recording.load();
  if (buffer != nullptr && valid_size > 0) {
    CUpti_Activity* record = nullptr;
    while (true) {
      const CUptiResult result =
          cuptiActivityGetNextRecord(buffer, valid_size, &record);
      if (result == CUPTI_ERROR_MAX_LIMIT_REACHED) break;  // end of buffer
      if (result != CUPTI_SUCCESS) {
        // CUPTI_ERROR_INVALID_KIND: an incomplete or invalid record; the
        // rest of the buffer cannot be read.
        if (recording) {
          collector.AddError(
              CuptiActivityStatus(result, "cuptiActivityGetNextRecord"));
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
  const CUptiResult result =
      cuptiActivityGetNumDroppedRecords(context, stream_id, &dropped);
  if (recording) {
    if (result != CUPTI_SUCCESS) {
      collector.AddError(
          CuptiActivityStatus(result, "cuptiActivityGetNumDroppedRecords"));
    } else if (dropped > 0) {
      collector.AddDropped(dropped);
    }
  }
  std::free(buffer);
}

absl::StatusCode CuptiResultToStatusCode(CUptiResult result) {
  switch (result) {
    case CUPTI_SUCCESS:
      return absl::StatusCode::kOk;
    case CUPTI_ERROR_INVALID_PARAMETER:
    case CUPTI_ERROR_INVALID_DEVICE:
    case CUPTI_ERROR_INVALID_CONTEXT:
    case CUPTI_ERROR_INVALID_HANDLE:
    case CUPTI_ERROR_INVALID_STREAM:
    case CUPTI_ERROR_INVALID_KIND:
      return absl::StatusCode::kInvalidArgument;
    case CUPTI_ERROR_OUT_OF_MEMORY:
    case CUPTI_ERROR_MAX_LIMIT_REACHED:
      return absl::StatusCode::kResourceExhausted;
    case CUPTI_ERROR_NOT_INITIALIZED:
    case CUPTI_ERROR_NOT_COMPATIBLE:
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_DISABLED:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_OLD_PROFILER_API_INITIALIZED:
    case CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED:
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED:
      return absl::StatusCode::kFailedPrecondition;
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
      return absl::StatusCode::kPermissionDenied;
    case CUPTI_ERROR_API_NOT_IMPLEMENTED:
      return absl::StatusCode::kUnimplemented;
    case CUPTI_ERROR_HARDWARE_BUSY:
    case CUPTI_ERROR_NOT_READY:
      return absl::StatusCode::kUnavailable;
    default:
      return absl::StatusCode::kInternal;
  }
}

// `text` on one line: runs of whitespace (CUPTI's messages hold newlines)
// become one space, none at either end.
std::string OneLine(absl::string_view text) {
  std::string out;
  bool gap = false;
  for (char c : text) {
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
      gap = true;
      continue;
    }
    if (gap && !out.empty()) out += ' ';
    out += c;
    gap = false;
  }
  return out;
}

}  // namespace

absl::Status CuptiActivityStatus(CUptiResult result, absl::string_view call) {
  if (result == CUPTI_SUCCESS) return absl::OkStatus();
  const char* name = nullptr;
  std::string text =
      cuptiGetResultString(result, &name) == CUPTI_SUCCESS && name != nullptr
          ? std::string(name)
          : absl::StrCat("CUPTI error ", static_cast<int>(result));
  const char* raw_message = nullptr;
  if (cuptiGetErrorMessage(result, &raw_message) == CUPTI_SUCCESS &&
      raw_message != nullptr) {
    // For most results the message is just the name again.
    const std::string message = OneLine(raw_message);
    if (!message.empty() && message != text) {
      absl::StrAppend(&text, ": ", message);
    }
  }
  return absl::Status(CuptiResultToStatusCode(result),
                      absl::StrCat(call, " failed: ", text));
}

absl::StatusOr<std::unique_ptr<KernelActivityRecorder>>
KernelActivityRecorder::Start() {
  State& state = GlobalState();
  std::lock_guard<std::mutex> lock(state.mutex);
  if (state.active) {
    return absl::FailedPreconditionError(
        "a KernelActivityRecorder is already recording; only one may exist "
        "at a time (destroy it before starting another)");
  }
  // Registered on every Start, in case another CUPTI client registered its
  // own callbacks since the last recorder.
  DISSECT_RETURN_IF_ERROR(CuptiActivityStatus(
      cuptiActivityRegisterCallbacks(BufferRequested, BufferCompleted),
      "cuptiActivityRegisterCallbacks"));
  state.collector.Reset();
  g_recording.store(true);
  absl::Status enabled = CuptiActivityStatus(
      cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), kEnableCall);
  if (!enabled.ok()) {
    g_recording.store(false);
    // Without a driver or device CUPTI only says CUPTI_ERROR_UNKNOWN; name
    // the cause when the CUDA runtime can.
    int devices = 0;
    const cudaError_t cuda = cudaGetDeviceCount(&devices);
    if (cuda != cudaSuccess) {
      return absl::FailedPreconditionError(absl::StrCat(
          enabled.message(), " (no usable CUDA device: ",
          cudaGetErrorName(cuda), ": ", cudaGetErrorString(cuda), ")"));
    }
    return enabled;
  }
  state.active = true;
  return std::unique_ptr<KernelActivityRecorder>(new KernelActivityRecorder());
}

KernelActivityRecorder::~KernelActivityRecorder() {
  State& state = GlobalState();
  std::lock_guard<std::mutex> lock(state.mutex);
  // Errors cannot be returned from here; the records are discarded anyway.
  cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  g_recording.store(false);
  state.collector.Reset();
  state.active = false;
}

absl::StatusOr<std::vector<KernelRecord>> KernelActivityRecorder::Take() {
  KernelRecordCollector& collector = GlobalState().collector;
  // Kernels still running would come back without timestamps.
  const cudaError_t synced = cudaDeviceSynchronize();
  if (synced != cudaSuccess) {
    collector.Reset();
    return CudaStatus(synced, "cudaDeviceSynchronize()", __FILE__, __LINE__);
  }
  // Forced: also hand back buffers that are not full. The completion
  // callbacks have run when this returns.
  const absl::Status flushed = CuptiActivityStatus(
      cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), kFlushCall);
  if (!flushed.ok()) {
    collector.Reset();
    return flushed;
  }
  size_t dropped = 0;
  const absl::Status counted = CuptiActivityStatus(
      cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped),
      "cuptiActivityGetNumDroppedRecords");
  if (!counted.ok()) {
    collector.Reset();
    return counted;
  }
  collector.AddDropped(dropped);
  return collector.Take();
}

}  // namespace dissect
