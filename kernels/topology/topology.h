// Host interface of the topology probe (kernels/topology/topology.cu): a
// kernel launched in 1-D thread-block clusters whose blocks record where
// they ran, for inferring which SMs share a GPC (issue 14).
#ifndef DISSECT_KERNELS_TOPOLOGY_TOPOLOGY_H_
#define DISSECT_KERNELS_TOPOLOGY_TOPOLOGY_H_

#include <cuda_runtime_api.h>

#include <cstddef>

namespace dissect {

// What thread 0 of block b writes to records[b].
struct TopologyBlockRecord {
  int smid = -1;          // %smid
  int cluster = -1;       // %clusterid.x (1-D clusters: the linear cluster id)
  int cluster_rank = -1;  // %cluster_ctarank
};

struct TopologyArgs {
  int cluster_size = 1;  // blocks per cluster (1-D along x)
  int clusters = 1;      // clusters in the grid
  int block_threads = 32;
  // Dynamic shared memory per block (the kernel touches none of it): enough
  // that only one block fits per SM. The caller raises the kernel's
  // cudaFuncAttributeMaxDynamicSharedMemorySize (CheckClusterLaunch does).
  size_t dynamic_shared_bytes = 0;
  // After recording, thread 0 spins this many SM cycles (%clock64) before
  // the block exits, so that the launch's blocks are resident together.
  long long spin_cycles = 0;
  TopologyBlockRecord* records = nullptr;  // cluster_size × clusters entries
};

// Launches clusters × cluster_size blocks in clusters of cluster_size with
// cudaLaunchKernelEx (cudaLaunchAttributeClusterDimension).
// cudaErrorInvalidValue for a null records pointer or a size below 1.
cudaError_t LaunchTopologyProbe(const TopologyArgs& args, cudaStream_t stream);

// The probe kernel's address, for CheckClusterLaunch and
// cudaFuncSetAttribute.
const void* TopologyProbeKernel();

}  // namespace dissect

#endif  // DISSECT_KERNELS_TOPOLOGY_TOPOLOGY_H_
