#include "experiments/sharing/cluster_support.h"

#include <cuda_runtime_api.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "experiments/framework/experiment.h"
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

int64_t BlocksPerSmByShared(const SmSharedMemory& sm, int64_t dynamic_bytes) {
  const int64_t asked = dynamic_bytes + sm.kernel_static;
  if (dynamic_bytes < 0 || asked > sm.per_block_optin) return 0;
  return sm.per_sm / std::max<int64_t>(1, asked + sm.reserved_per_block);
}

absl::StatusOr<int64_t> OneBlockPerSmSharedBytes(const SmSharedMemory& sm, int64_t buffer_bytes) {
  const int64_t dynamic = sm.per_block_optin - sm.kernel_static;
  if (buffer_bytes > dynamic) {
    return absl::FailedPreconditionError(
        absl::StrCat(buffer_bytes, " B of shared memory per block (+", sm.kernel_static,
                     " B static) exceed the ", sm.per_block_optin, " B a block may use"));
  }
  if (const int64_t blocks = BlocksPerSmByShared(sm, dynamic); blocks != 1) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot keep blocks apart by shared memory: ", blocks, " blocks of ", dynamic,
        " B fit an SM of ", sm.per_sm, " B (", sm.reserved_per_block, " B reserved per block)"));
  }
  return dynamic;
}

absl::StatusOr<SmSharedMemory> QuerySmSharedMemory(int device, const void* kernel) {
  int per_sm = 0;
  int optin = 0;
  int reserved = 0;
  DISSECT_CUDA_RETURN_IF_ERROR(
      cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device));
  DISSECT_CUDA_RETURN_IF_ERROR(
      cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  DISSECT_CUDA_RETURN_IF_ERROR(
      cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, device));
  cudaFuncAttributes attributes{};
  DISSECT_CUDA_RETURN_IF_ERROR(cudaFuncGetAttributes(&attributes, kernel));
  SmSharedMemory sm;
  sm.per_sm = per_sm;
  sm.per_block_optin = optin;
  sm.reserved_per_block = reserved;
  sm.kernel_static = static_cast<int64_t>(attributes.sharedSizeBytes);
  return sm;
}

absl::Status CheckOneBlockPerSm(const void* kernel, int block_threads,
                                size_t dynamic_shared_bytes) {
  DISSECT_CUDA_RETURN_IF_ERROR(cudaFuncSetAttribute(
      kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(dynamic_shared_bytes)));
  int blocks_per_sm = 0;
  DISSECT_CUDA_RETURN_IF_ERROR(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &blocks_per_sm, kernel, block_threads, dynamic_shared_bytes));
  if (blocks_per_sm == 1) return absl::OkStatus();
  return Skipped(absl::StrCat("the runtime fits ", blocks_per_sm, " blocks of ", block_threads,
                              " threads with ", dynamic_shared_bytes,
                              " B of dynamic shared memory on one SM, not 1: blocks of a "
                              "cluster could share an SM"));
}

}  // namespace dissect
