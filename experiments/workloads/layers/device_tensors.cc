// A layer workload's tensors on the device (see device_tensors.h).
#include "experiments/workloads/layers/device_tensors.h"

#include "absl/strings/str_cat.h"
#include "experiments/framework/experiment.h"
#include "probes/cuda_status.h"

namespace dissect::l1_bypass {
namespace {

template <typename T>
absl::Status Upload(const std::vector<T>& host, DeviceBuffer<T>& device) {
  DISSECT_ASSIGN_OR_RETURN(device, DeviceBuffer<T>::Allocate(host.size()));
  if (!host.empty()) {
    DISSECT_CUDA_RETURN_IF_ERROR(
        cudaMemcpy(device.get(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckDeviceMemory(size_t bytes, size_t slack_bytes) {
  size_t free_bytes = 0, total_bytes = 0;
  DISSECT_CUDA_RETURN_IF_ERROR(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (bytes + slack_bytes > free_bytes) {
    return Skipped(absl::StrCat("needs ", bytes, " B of device memory plus ", slack_bytes,
                                " B slack; ", free_bytes, " B free"));
  }
  return absl::OkStatus();
}

layers::LayerArgs DeviceTensors::Args(const Workload& wl) const {
  layers::LayerArgs args;
  args.kernel = wl.kernel;
  args.dims = wl.dims;
  args.x = x.get();
  args.weights = weights.get();
  args.index = index.get();
  args.y = y.get();
  return args;
}

absl::StatusOr<DeviceTensors> UploadTensors(const Workload& wl, const HostTensors& host) {
  DeviceTensors t;
  DISSECT_RETURN_IF_ERROR(Upload(host.x, t.x));
  DISSECT_RETURN_IF_ERROR(Upload(host.weights, t.weights));
  DISSECT_RETURN_IF_ERROR(Upload(host.index, t.index));
  DISSECT_ASSIGN_OR_RETURN(t.y, DeviceBuffer<float>::Allocate(wl.y_elements));
  return t;
}

absl::StatusOr<std::vector<float>> DownloadOutput(const DeviceTensors& tensors) {
  std::vector<float> y(tensors.y.size());
  if (!y.empty()) {
    DISSECT_CUDA_RETURN_IF_ERROR(
        cudaMemcpy(y.data(), tensors.y.get(), tensors.y.bytes(), cudaMemcpyDeviceToHost));
  }
  return y;
}

}  // namespace dissect::l1_bypass
