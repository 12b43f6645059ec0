#include "experiments/sharing/cluster_support.h"

#include <cuda_runtime_api.h>

#include "absl/strings/str_cat.h"
#include "experiments/harness/experiment.h"
#include "kernels/cluster_launch.h"
#include "probes/cuda_status.h"

namespace dissect {

absl::Status ClustersSupported(const DeviceInfo& device) {
  if (device.cc_major >= 9) return absl::OkStatus();
  return Skipped(absl::StrCat("thread-block clusters need compute capability 9.0 or newer; ",
                              device.name, " is ", device.cc_major, ".", device.cc_minor));
}

absl::StatusOr<ClusterFit> CheckClusterLaunch(const DeviceInfo& device, const void* kernel,
                                              int cluster_size, int block_threads,
                                              size_t dynamic_shared_bytes) {
  DISSECT_RETURN_IF_ERROR(ClustersSupported(device));
  if (cluster_size < 1 || cluster_size > 16 || (cluster_size & (cluster_size - 1)) != 0) {
    return Skipped(absl::StrCat("cluster size ", cluster_size,
                                " is not a power of two in 1..16 (the CUDA limit)"));
  }
  if (dynamic_shared_bytes > static_cast<size_t>(device.shared_per_block_optin_bytes)) {
    return Skipped(absl::StrCat(dynamic_shared_bytes, " B of shared memory per block exceed the ",
                                device.shared_per_block_optin_bytes, " B this device allows"));
  }
  DISSECT_CUDA_RETURN_IF_ERROR(cudaFuncSetAttribute(
      kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(dynamic_shared_bytes)));
  ClusterFit fit;
  fit.cluster_size = cluster_size;
  fit.non_portable = cluster_size > kPortableClusterSize;
  if (fit.non_portable) {
    const cudaError_t e =
        cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
    if (e != cudaSuccess) {
      cudaGetLastError();
      return Skipped(absl::StrCat("cluster size ", cluster_size,
                                  " needs the non-portable opt-in, which the device refused (",
                                  cudaGetErrorName(e), ")"));
    }
  }
  const ClusterLaunchConfig launch(dim3(cluster_size), block_threads, dynamic_shared_bytes,
                                   cluster_size, /*stream=*/nullptr);
  const cudaError_t e =
      cudaOccupancyMaxActiveClusters(&fit.max_active_clusters, kernel, launch.config());
  if (e == cudaErrorInvalidClusterSize || e == cudaErrorInvalidValue ||
      e == cudaErrorNotSupported) {
    cudaGetLastError();
    return Skipped(absl::StrCat("cluster size ", cluster_size, " refused by the device (",
                                cudaGetErrorName(e), ": ", cudaGetErrorString(e), ")"));
  }
  DISSECT_CUDA_RETURN_IF_ERROR(e);
  if (fit.max_active_clusters < 1) {
    return Skipped(absl::StrCat("no cluster of ", cluster_size, " blocks of ", block_threads,
                                " threads with ", dynamic_shared_bytes,
                                " B shared memory fits on one GPC of this device"));
  }
  return fit;
}

}  // namespace dissect
