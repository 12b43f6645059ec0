// A layer workload's tensors on the device, shared by the experiments that
// run the layer kernels (l1_bypass, l1_duplication): the memory check, the
// upload of the host inputs (reference.h MakeInputs) and the kernel
// arguments that point at them.
#ifndef DISSECT_EXPERIMENTS_L1_BYPASS_DEVICE_TENSORS_H_
#define DISSECT_EXPERIMENTS_L1_BYPASS_DEVICE_TENSORS_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "experiments/l1_bypass/reference.h"
#include "experiments/l1_bypass/workload.h"
#include "kernels/layers/layers.h"
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

}  // namespace dissect::l1_bypass

#endif  // DISSECT_EXPERIMENTS_L1_BYPASS_DEVICE_TENSORS_H_
