// The topology probe (see topology.h): each block records its SM, cluster
// and rank in the cluster, then spins so that the launch's blocks stay
// resident together.
#include "kernels/cluster.cuh"
#include "kernels/cluster_launch.h"
#include "kernels/device_clock.cuh"
#include "kernels/line_trace.cuh"
#include "kernels/topology/topology.h"

namespace dissect {
namespace {

__global__ void TopologyProbe(TopologyBlockRecord* records, long long spin_cycles) {
  if (threadIdx.x != 0) return;
  TopologyBlockRecord r;
  r.smid = static_cast<int>(TraceSmId());
  r.cluster = static_cast<int>(ClusterIdX());
  r.cluster_rank = static_cast<int>(ClusterRank());
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
  const ClusterLaunchConfig launch(dim3(static_cast<unsigned>(args.cluster_size * args.clusters)),
                                   args.block_threads, args.dynamic_shared_bytes, args.cluster_size,
                                   stream);
  return cudaLaunchKernelEx(launch.config(), TopologyProbe, args.records, args.spin_cycles);
}

const void* TopologyProbeKernel() { return reinterpret_cast<const void*>(&TopologyProbe); }

}  // namespace dissect
