// CUDA-event timing of a launch, hot (back-to-back) or cold (L2 flushed
// before every sample), with warm-up.
#ifndef DISSECT_PROBES_EVENT_TIMER_H_
#define DISSECT_PROBES_EVENT_TIMER_H_

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include "absl/strings/string_view.h"
#include <vector>

#include "absl/status/statusor.h"
#include "probes/device_buffer.h"

namespace dissect {

enum class CacheState { kHot, kCold };

// "hot" / "cold" ↔ CacheState.
absl::StatusOr<CacheState> ParseCacheState(absl::string_view name);

struct TimingOptions {
  int warmup = 3;    // untimed launches before the first sample
  int samples = 20;  // timed launches
  CacheState cache = CacheState::kHot;
};

// Evicts L2 by writing a scratch buffer twice its size.
class L2Flusher {
 public:
  static absl::StatusOr<L2Flusher> Create(int64_t l2_bytes);
  absl::Status Flush(cudaStream_t stream) const;

 private:
  DeviceBuffer<uint8_t> scratch_;
};

// Issues one launch on `stream`; returns the launch's error (e.g.
// cudaGetLastError() after <<<>>>).
using LaunchFn = std::function<cudaError_t(cudaStream_t)>;

// Times `options.samples` launches with a pair of events around each one and
// returns their durations in milliseconds. Launches are queued back to back;
// in cold mode each is preceded (outside the events) by an L2 flush, which
// needs `flusher`. `after_warmup`, if set, runs once the warm-up launches
// have finished, and `after_samples` once the timed ones have (the harness
// reads the SM clock there).
absl::StatusOr<std::vector<double>> TimeWithEvents(
    const LaunchFn& launch, const TimingOptions& options,
    const L2Flusher* flusher, cudaStream_t stream,
    const std::function<void()>& after_warmup = nullptr,
    const std::function<void()>& after_samples = nullptr);

}  // namespace dissect

#endif  // DISSECT_PROBES_EVENT_TIMER_H_
