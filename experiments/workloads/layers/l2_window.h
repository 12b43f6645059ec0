// An L2 access-policy window on a stream (sm_80+), for as long as the object
// lives: accesses to [base, base + bytes) are marked persisting or streaming.
// A persisting window also sets aside L2 for persisting lines
// (cudaLimitPersistingL2CacheSize). The destructor clears the window, resets
// persisting lines to normal and restores the previous limit, so that later
// points see an untouched L2.
#ifndef DISSECT_EXPERIMENTS_WORKLOADS_LAYERS_L2_WINDOW_H_
#define DISSECT_EXPERIMENTS_WORKLOADS_LAYERS_L2_WINDOW_H_

#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "probes/event_timer.h"

namespace dissect::l1_bypass {

enum class L2Policy { kPersisting, kStreaming };

// What a sample under a variant's window (`window`: none for a plain build)
// needs beyond the harness's flush to be cold. Streaming lines are the
// first to be evicted, so the flush takes them with the rest; persisting
// lines are not evicted by ordinary traffic, the flush's included, so a
// cold sample that only flushed would read a persisting input from L2. The
// reset is the flush's own (probes/event_timer.h: whenever the device has a
// persisting set-aside, which a persisting window always sets,
// PersistingSetAsideBytes); PrepareColdWindow checks that it will happen.
enum class ColdWindowAction {
  kNone,                  // hot, no window, or a streaming one
  kResetPersistingLines,  // cold under a persisting window
};
ColdWindowAction ColdWindowActionFor(std::optional<L2Policy> window, CacheState cache);

// Once the window is applied: for kResetPersistingLines, checks that the
// flush will reset persisting lines (the device has a set-aside now) and
// returns the row's label note saying they are reset; "" when nothing is
// needed.
absl::StatusOr<std::string> PrepareColdWindow(std::optional<L2Policy> window, CacheState cache);

// The L2 a persisting window over `window_bytes` sets aside: all of it, at
// most the device's maximum (cudaDevAttrMaxPersistingL2CacheSize).
size_t PersistingSetAsideBytes(size_t window_bytes, size_t max_persisting_bytes);

class L2AccessWindow {
 public:
  // Unavailable (a Skipped-worthy condition) when the device has no access
  // policy window or, for kPersisting, no persisting L2. A window larger
  // than the device's maximum covers the first maximum bytes. For
  // kPersisting the set-aside is min(bytes, device maximum) and the hit
  // ratio is set-aside / window bytes (the guide's rule, so that persisting
  // lines do not thrash the set-aside).
  static absl::StatusOr<std::unique_ptr<L2AccessWindow>> Apply(cudaStream_t stream,
                                                               const void* base, size_t bytes,
                                                               L2Policy policy);
  ~L2AccessWindow();
  L2AccessWindow(const L2AccessWindow&) = delete;
  L2AccessWindow& operator=(const L2AccessWindow&) = delete;

  size_t window_bytes() const { return window_bytes_; }
  float hit_ratio() const { return hit_ratio_; }

 private:
  L2AccessWindow(cudaStream_t stream, size_t old_limit) : stream_(stream), old_limit_(old_limit) {}

  cudaStream_t stream_;
  size_t old_limit_;
  size_t window_bytes_ = 0;
  float hit_ratio_ = 0;
};

}  // namespace dissect::l1_bypass

#endif  // DISSECT_EXPERIMENTS_WORKLOADS_LAYERS_L2_WINDOW_H_
