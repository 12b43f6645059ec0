// A layer workload's tensors on the device, shared by the experiments that
// run the layer kernels (l1_bypass, l1_duplication, cluster_coop): the
// memory check, the upload of the host inputs (reference.h MakeInputs), the
// kernel arguments that point at them, and the cache of one shape's tensors
// from point to point.
#ifndef DISSECT_EXPERIMENTS_WORKLOADS_LAYERS_DEVICE_TENSORS_H_
#define DISSECT_EXPERIMENTS_WORKLOADS_LAYERS_DEVICE_TENSORS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "experiments/workloads/layers/reference.h"
#include "experiments/workloads/layers/workload.h"
#include "kernels/layers/layers.h"
#include "probes/cuda_status.h"
#include "probes/device_buffer.h"

namespace dissect::l1_bypass {

// Skipped(reason) when `bytes` plus `slack_bytes` exceed the free device
// memory (cudaMemGetInfo), else OK.
absl::Status CheckDeviceMemory(size_t bytes, size_t slack_bytes);

struct DeviceTensors {
  DeviceBuffer<float> x, weights, y;
  DeviceBuffer<int32_t> index;

  // The launch arguments of `wl` over these tensors (blocks left at 1:
  // PreparedLaunch sizes the grid).
  layers::LayerArgs Args(const Workload& wl) const;
};

// Uploads `host` (synchronously) and allocates the output of wl.y_elements.
absl::StatusOr<DeviceTensors> UploadTensors(const Workload& wl, const HostTensors& host);

// Copies the output back (synchronously).
absl::StatusOr<std::vector<float>> DownloadOutput(const DeviceTensors& tensors);

// The inputs of one shape (kernel, layer, batch, ...) on host and device,
// which consecutive points of that shape share. An experiment derives its
// cache from it, adding what else its points share.
struct CachedShape {
  std::string key;
  Workload wl;
  HostTensors host;
  DeviceTensors device;
};

// The process's one `Shape` (derived from CachedShape) for `key`: kept as it
// is when its key is `key`; else the previous shape's buffers are freed
// first, then CheckDeviceMemory(wl.BytesMoved(), slack_bytes) and `wl`'s
// inputs made from `seed` are uploaded (the key stays empty on an error).
template <typename Shape>
absl::StatusOr<Shape*> PrepareCachedShape(const Workload& wl, const std::string& key, uint64_t seed,
                                          size_t slack_bytes) {
  static Shape* const cache = new Shape;
  if (cache->key == key) return cache;
  *cache = Shape{};
  DISSECT_RETURN_IF_ERROR(CheckDeviceMemory(static_cast<size_t>(wl.BytesMoved()), slack_bytes));
  cache->wl = wl;
  cache->host = MakeInputs(wl, seed);
  DISSECT_ASSIGN_OR_RETURN(cache->device, UploadTensors(wl, cache->host));
  cache->key = key;
  return cache;
}

}  // namespace dissect::l1_bypass

#endif  // DISSECT_EXPERIMENTS_WORKLOADS_LAYERS_DEVICE_TENSORS_H_
