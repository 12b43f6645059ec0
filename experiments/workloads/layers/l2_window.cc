// L2 access-policy window (see l2_window.h).
#include "experiments/workloads/layers/l2_window.h"

#include <algorithm>
#include <string>

#include "absl/status/status.h"
#include "experiments/framework/experiment.h"
#include "probes/cuda_status.h"

namespace dissect::l1_bypass {
namespace {

cudaError_t SetWindow(cudaStream_t stream, const void* base, size_t bytes, float hit_ratio,
                      cudaAccessProperty hit) {
  cudaStreamAttrValue value = {};
  value.accessPolicyWindow.base_ptr = const_cast<void*>(base);
  value.accessPolicyWindow.num_bytes = bytes;
  value.accessPolicyWindow.hitRatio = hit_ratio;
  value.accessPolicyWindow.hitProp = hit;
  value.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
  return cudaStreamSetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &value);
}

}  // namespace

ColdWindowAction ColdWindowActionFor(std::optional<L2Policy> window, CacheState cache) {
  if (cache == CacheState::kCold && window == L2Policy::kPersisting) {
    return ColdWindowAction::kResetPersistingLines;
  }
  return ColdWindowAction::kNone;
}

absl::StatusOr<std::string> PrepareColdWindow(std::optional<L2Policy> window, CacheState cache) {
  if (ColdWindowActionFor(window, cache) == ColdWindowAction::kNone) return std::string();
  size_t set_aside = 0;
  DISSECT_CUDA_RETURN_IF_ERROR(cudaDeviceGetLimit(&set_aside, cudaLimitPersistingL2CacheSize));
  if (!FlushResetsPersistingLines(set_aside)) {
    return absl::InternalError(
        "a persisting window with no persisting L2 set aside: the flush would not reset "
        "persisting lines, so the cold samples would not be cold");
  }
  return std::string(
      "cold: persisting lines reset to normal before each sample "
      "(cudaCtxResetPersistingL2Cache), since the flush alone cannot evict them");
}

size_t PersistingSetAsideBytes(size_t window_bytes, size_t max_persisting_bytes) {
  return std::min(window_bytes, max_persisting_bytes);
}

absl::StatusOr<std::unique_ptr<L2AccessWindow>> L2AccessWindow::Apply(cudaStream_t stream,
                                                                      const void* base,
                                                                      size_t bytes,
                                                                      L2Policy policy) {
  int device = 0;
  DISSECT_CUDA_RETURN_IF_ERROR(cudaGetDevice(&device));
  int max_window = 0, max_persisting = 0;
  DISSECT_CUDA_RETURN_IF_ERROR(
      cudaDeviceGetAttribute(&max_window, cudaDevAttrMaxAccessPolicyWindowSize, device));
  DISSECT_CUDA_RETURN_IF_ERROR(
      cudaDeviceGetAttribute(&max_persisting, cudaDevAttrMaxPersistingL2CacheSize, device));
  if (max_window <= 0) return Skipped("the device has no L2 access policy window (sm_80+)");
  if (policy == L2Policy::kPersisting && max_persisting <= 0) {
    return Skipped("the device sets aside no L2 for persisting accesses");
  }
  size_t old_limit = 0;
  DISSECT_CUDA_RETURN_IF_ERROR(cudaDeviceGetLimit(&old_limit, cudaLimitPersistingL2CacheSize));
  std::unique_ptr<L2AccessWindow> window(new L2AccessWindow(stream, old_limit));
  window->window_bytes_ = std::min(bytes, static_cast<size_t>(max_window));
  cudaAccessProperty hit = cudaAccessPropertyStreaming;
  window->hit_ratio_ = 1.0f;
  if (policy == L2Policy::kPersisting) {
    const size_t set_aside =
        PersistingSetAsideBytes(window->window_bytes_, static_cast<size_t>(max_persisting));
    DISSECT_CUDA_RETURN_IF_ERROR(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, set_aside));
    window->hit_ratio_ = std::min(1.0f, static_cast<float>(set_aside) / window->window_bytes_);
    hit = cudaAccessPropertyPersisting;
  }
  DISSECT_CUDA_RETURN_IF_ERROR(
      SetWindow(stream, base, window->window_bytes_, window->hit_ratio_, hit));
  return window;
}

L2AccessWindow::~L2AccessWindow() {
  // Errors here cannot be reported; each call is still attempted.
  SetWindow(stream_, nullptr, 0, 0.0f, cudaAccessPropertyNormal);
  cudaStreamSynchronize(stream_);
  cudaCtxResetPersistingL2Cache();
  cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, old_limit_);
}

}  // namespace dissect::l1_bypass
