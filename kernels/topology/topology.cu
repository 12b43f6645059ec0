// The topology probe (see topology.h): each block records its SM, cluster
// and rank in the cluster, then spins so that the launch's blocks stay
// resident together.
#include "kernels/device_clock.cuh"
#include "kernels/topology/topology.h"

namespace dissect {
namespace {

__device__ __forceinline__ int ReadSmId() {
  int v;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(v));
  return v;
}

__device__ __forceinline__ int ReadClusterIdX() {
  int v;
  asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(v));
  return v;
}

__device__ __forceinline__ int ReadClusterCtaRank() {
  int v;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(v));
  return v;
}

__global__ void TopologyProbe(TopologyBlockRecord* records, long long spin_cycles) {
  if (threadIdx.x != 0) return;
  TopologyBlockRecord r;
  r.smid = ReadSmId();
  r.cluster = ReadClusterIdX();
  r.cluster_rank = ReadClusterCtaRank();
  records[blockIdx.x] = r;
  const uint64_t start = ReadClock64();
  while (static_cast<long long>(ReadClock64() - start) < spin_cycles) {
  }
}

}  // namespace

cudaError_t LaunchTopologyProbe(const TopologyArgs& args, cudaStream_t stream) {
  if (args.records == nullptr || args.cluster_size < 1 || args.clusters < 1 ||
      args.block_threads < 1) {
    return cudaErrorInvalidValue;
  }
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(static_cast<unsigned>(args.cluster_size * args.clusters));
  config.blockDim = dim3(static_cast<unsigned>(args.block_threads));
  config.dynamicSmemBytes = args.dynamic_shared_bytes;
  config.stream = stream;
  cudaLaunchAttribute attribute = {};
  attribute.id = cudaLaunchAttributeClusterDimension;
  attribute.val.clusterDim.x = static_cast<unsigned>(args.cluster_size);
  attribute.val.clusterDim.y = 1;
  attribute.val.clusterDim.z = 1;
  config.attrs = &attribute;
  config.numAttrs = 1;
  return cudaLaunchKernelEx(&config, TopologyProbe, args.records, args.spin_cycles);
}

const void* TopologyProbeKernel() { return reinterpret_cast<const void*>(&TopologyProbe); }

}  // namespace dissect
