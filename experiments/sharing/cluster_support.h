// Thread-block clusters on this device (issue 14): whether a cluster size
// can run, and how many such clusters fit at once. Experiments that launch
// clusters call CheckClusterLaunch before timing; a refusal comes back as
// Skipped(reason) so that the row records why and the sweep goes on.
#ifndef DISSECT_EXPERIMENTS_SHARING_CLUSTER_SUPPORT_H_
#define DISSECT_EXPERIMENTS_SHARING_CLUSTER_SUPPORT_H_

#include <cstddef>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "probes/device_info.h"

namespace dissect {

// Largest cluster size the CUDA programming model calls portable.
inline constexpr int kPortableClusterSize = 8;
// The cluster sizes the probe sweeps (16 needs the non-portable opt-in).
inline constexpr int kClusterSizes[] = {1, 2, 4, 8, 16};

// Skipped("thread-block clusters need compute capability 9.0 or newer; ...")
// on a device without clusters, else OK.
absl::Status ClustersSupported(const DeviceInfo& device);

struct ClusterFit {
  int cluster_size = 1;
  // cudaOccupancyMaxActiveClusters for this kernel, block and shared memory.
  int max_active_clusters = 0;
  // Whether the launch needed cudaFuncAttributeNonPortableClusterSizeAllowed.
  bool non_portable = false;
};

// Prepares `kernel` (a __global__ function's address) for launches in
// clusters of `cluster_size` blocks of `block_threads` threads with
// `dynamic_shared_bytes` of dynamic shared memory each (1-D clusters along
// x): sets cudaFuncAttributeMaxDynamicSharedMemorySize when the shared
// memory needs it and, above kPortableClusterSize, the non-portable opt-in;
// then asks cudaOccupancyMaxActiveClusters. Skipped(reason) when the device
// has no clusters, the size is not a power of two in 1..16, the opt-in is
// refused, or not one such cluster fits; an error for a CUDA failure that is
// not a refusal. Host work: call it before timing.
absl::StatusOr<ClusterFit> CheckClusterLaunch(const DeviceInfo& device, const void* kernel,
                                              int cluster_size, int block_threads,
                                              size_t dynamic_shared_bytes);

}  // namespace dissect

#endif  // DISSECT_EXPERIMENTS_SHARING_CLUSTER_SUPPORT_H_
