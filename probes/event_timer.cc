// CUDA-event timing; see event_timer.h.
#include "probes/event_timer.h"

#include "absl/strings/string_view.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "probes/cuda_status.h"

namespace dissect {
namespace {

// Owns a set of CUDA events.
class Events {
 public:
  ~Events() {
    for (cudaEvent_t e : events_) cudaEventDestroy(e);
  }
  absl::Status Create(size_t n) {
    events_.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      cudaEvent_t e = nullptr;
      DISSECT_CUDA_RETURN_IF_ERROR(cudaEventCreate(&e));
      events_.push_back(e);
    }
    return absl::OkStatus();
  }
  cudaEvent_t operator[](size_t i) const { return events_[i]; }

 private:
  std::vector<cudaEvent_t> events_;
};

absl::Status Launch(const LaunchFn& launch, cudaStream_t stream) {
  return CudaStatus(launch(stream), "kernel launch", __FILE__, __LINE__);
}

}  // namespace

absl::StatusOr<CacheState> ParseCacheState(absl::string_view name) {
  if (name == "hot") return CacheState::kHot;
  if (name == "cold") return CacheState::kCold;
  return absl::InvalidArgumentError(
      absl::StrCat("timing must be 'hot' or 'cold', not '", name, "'"));
}

absl::StatusOr<L2Flusher> L2Flusher::Create(int64_t l2_bytes) {
  L2Flusher flusher;
  DISSECT_ASSIGN_OR_RETURN(flusher.scratch_, DeviceBuffer<uint8_t>::Allocate(
                                                 2 * static_cast<size_t>(l2_bytes)));
  return flusher;
}

absl::Status L2Flusher::Flush(cudaStream_t stream) const {
  DISSECT_CUDA_RETURN_IF_ERROR(
      cudaMemsetAsync(scratch_.get(), 0x5a, scratch_.bytes(), stream));
  return absl::OkStatus();
}

absl::StatusOr<std::vector<double>> TimeWithEvents(
    const LaunchFn& launch, const TimingOptions& options,
    const L2Flusher* flusher, cudaStream_t stream,
    const std::function<void()>& after_warmup,
    const std::function<void()>& after_samples) {
  if (options.samples < 1) {
    return absl::InvalidArgumentError("samples must be at least 1");
  }
  if (options.warmup < 0) {
    return absl::InvalidArgumentError("warmup must not be negative");
  }
  const bool cold = options.cache == CacheState::kCold;
  if (cold && flusher == nullptr) {
    return absl::InvalidArgumentError("cold timing needs an L2Flusher");
  }
  for (int i = 0; i < options.warmup; ++i) {
    if (cold) DISSECT_RETURN_IF_ERROR(flusher->Flush(stream));
    DISSECT_RETURN_IF_ERROR(Launch(launch, stream));
  }
  DISSECT_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream));
  if (after_warmup) after_warmup();

  Events events;
  DISSECT_RETURN_IF_ERROR(events.Create(2 * options.samples));
  for (int i = 0; i < options.samples; ++i) {
    if (cold) DISSECT_RETURN_IF_ERROR(flusher->Flush(stream));
    DISSECT_CUDA_RETURN_IF_ERROR(cudaEventRecord(events[2 * i], stream));
    DISSECT_RETURN_IF_ERROR(Launch(launch, stream));
    DISSECT_CUDA_RETURN_IF_ERROR(cudaEventRecord(events[2 * i + 1], stream));
  }
  DISSECT_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream));
  if (after_samples) after_samples();

  std::vector<double> ms(options.samples);
  for (int i = 0; i < options.samples; ++i) {
    float elapsed = 0;
    DISSECT_CUDA_RETURN_IF_ERROR(
        cudaEventElapsedTime(&elapsed, events[2 * i], events[2 * i + 1]));
    ms[i] = elapsed;
  }
  return ms;
}

}  // namespace dissect
