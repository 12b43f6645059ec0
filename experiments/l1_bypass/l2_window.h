// An L2 access-policy window on a stream (sm_80+), for as long as the object
// lives: accesses to [base, base + bytes) are marked persisting or streaming.
// A persisting window also sets aside L2 for persisting lines
// (cudaLimitPersistingL2CacheSize). The destructor clears the window, resets
// persisting lines to normal and restores the previous limit, so that later
// points see an untouched L2.
#ifndef DISSECT_EXPERIMENTS_L1_BYPASS_L2_WINDOW_H_
#define DISSECT_EXPERIMENTS_L1_BYPASS_L2_WINDOW_H_

#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>

#include "absl/status/statusor.h"

namespace dissect::l1_bypass {

enum class L2Policy { kPersisting, kStreaming };

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

#endif  // DISSECT_EXPERIMENTS_L1_BYPASS_L2_WINDOW_H_
