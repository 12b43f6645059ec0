// A launch configuration for thread-block clusters (host code: the kernels'
// launchers and experiments/sharing/cluster_support's occupancy query).
#ifndef DISSECT_KERNELS_CLUSTER_LAUNCH_H_
#define DISSECT_KERNELS_CLUSTER_LAUNCH_H_

#include <cuda_runtime_api.h>

#include <cstddef>

namespace dissect {

// `grid` blocks of `threads` threads with `shared_bytes` of dynamic shared
// memory, in 1-D clusters of `cluster_size` blocks along x (cluster_size 0:
// an ordinary launch without the cluster attribute). Pass config() to
// cudaLaunchKernelEx or cudaOccupancyMaxActiveClusters. Not copyable:
// config() points at the object's own attribute.
class ClusterLaunchConfig {
 public:
  ClusterLaunchConfig(dim3 grid, int threads, size_t shared_bytes, int cluster_size,
                      cudaStream_t stream) {
    config_.gridDim = grid;
    config_.blockDim = dim3(static_cast<unsigned>(threads));
    config_.dynamicSmemBytes = shared_bytes;
    config_.stream = stream;
    if (cluster_size > 0) {
      attribute_.id = cudaLaunchAttributeClusterDimension;
      attribute_.val.clusterDim.x = static_cast<unsigned>(cluster_size);
      attribute_.val.clusterDim.y = 1;
      attribute_.val.clusterDim.z = 1;
      config_.attrs = &attribute_;
      config_.numAttrs = 1;
    }
  }
  ClusterLaunchConfig(const ClusterLaunchConfig&) = delete;
  ClusterLaunchConfig& operator=(const ClusterLaunchConfig&) = delete;

  const cudaLaunchConfig_t* config() const { return &config_; }

 private:
  cudaLaunchAttribute attribute_ = {};
  cudaLaunchConfig_t config_ = {};
};

}  // namespace dissect

#endif  // DISSECT_KERNELS_CLUSTER_LAUNCH_H_
